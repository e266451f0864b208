"""When a failed task runs again: exponential backoff with jitter, capped."""

import random


class RetryPolicy:
    """How many times a failed task is retried, and how long to wait between attempts."""

    def __init__(self, max_attempts=3, base_delay=1.0, max_delay=300.0, jitter=0.1, retry_on=(Exception,)):
        if max_attempts < 0:
            raise ValueError("max_attempts must be >= 0")
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.jitter = jitter
        self.retry_on = tuple(retry_on)

    def should_retry(self, attempts, error):
        if attempts >= self.max_attempts:
            return False
        return isinstance(error, self.retry_on)

    def delay(self, attempts, rng=random):
        """Seconds to wait before attempt `attempts + 1`: base * 2^attempts, capped, jittered
        so that workers that failed together do not retry in lockstep."""
        backoff = min(self.max_delay, self.base_delay * (2 ** attempts))
        spread = backoff * self.jitter
        return max(0.0, backoff + rng.uniform(-spread, spread))


NO_RETRY = RetryPolicy(max_attempts=0)

"""Rate limiting: a token bucket refilled at a steady rate."""

import threading
import time


class TokenBucket:
    """Allows `rate` operations per second on average, bursts up to `capacity`."""

    def __init__(self, rate, capacity, clock=time.monotonic):
        self.rate = float(rate)
        self.capacity = float(capacity)
        self.tokens = float(capacity)
        self.clock = clock
        self.updated = clock()
        self._lock = threading.Lock()

    def _refill(self):
        now = self.clock()
        elapsed = now - self.updated
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        self.updated = now

    def try_acquire(self, n=1):
        with self._lock:
            self._refill()
            if self.tokens >= n:
                self.tokens -= n
                return True
            return False

    def wait_time(self, n=1):
        with self._lock:
            self._refill()
            missing = n - self.tokens
            return max(0.0, missing / self.rate)

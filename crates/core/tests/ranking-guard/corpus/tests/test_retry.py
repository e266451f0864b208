import random

from tidepool.retry import RetryPolicy


def test_no_retry_when_max_attempts_is_zero():
    policy = RetryPolicy(max_attempts=0)
    assert not policy.should_retry(0, ValueError())


def test_backoff_is_capped_and_jittered():
    policy = RetryPolicy(base_delay=1.0, max_delay=10.0, jitter=0.1)
    rng = random.Random(1)
    delays = [policy.delay(n, rng) for n in range(10)]
    assert max(delays) <= 11.0
    assert delays[0] < delays[3]

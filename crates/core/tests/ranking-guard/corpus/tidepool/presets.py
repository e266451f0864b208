"""Ready-made policies for common kinds of task."""

from .ratelimit import TokenBucket
from .retry import RetryPolicy

# Network calls fail often and briefly: many quick retries.
NETWORK = RetryPolicy(max_attempts=8, base_delay=0.5, max_delay=30.0)
# Emails: a few retries, spaced out, so a provider outage does not burn every attempt.
EMAIL = RetryPolicy(max_attempts=4, base_delay=60.0, max_delay=3600.0)
# Payments must not run twice by accident: retry only on timeouts.
PAYMENT = RetryPolicy(max_attempts=2, base_delay=5.0, retry_on=(TimeoutError,))
# Reports are expensive: once.
REPORT = RetryPolicy(max_attempts=0)

POLICIES = {"network": NETWORK, "email": EMAIL, "payment": PAYMENT, "report": REPORT}

# Outgoing calls to third parties, per second.
LIMITS = {
    "email": TokenBucket(rate=10, capacity=20),
    "sms": TokenBucket(rate=1, capacity=5),
    "webhook": TokenBucket(rate=50, capacity=100),
}


def policy_for(kind):
    """The RetryPolicy of a kind of task, the network RetryPolicy when the kind is unknown."""
    return POLICIES.get(kind, NETWORK)


def limit_for(kind):
    """The TokenBucket of a kind of outgoing call, or None when calls of that kind are not limited."""
    return LIMITS.get(kind)

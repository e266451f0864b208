"""tidepool: a small task queue."""

from .queue import TaskQueue
from .retry import RetryPolicy
from .worker import Worker
from .errors import QueueFullError, TidepoolError

__all__ = ["TaskQueue", "RetryPolicy", "Worker", "QueueFullError", "TidepoolError"]
__version__ = "2.3.0"

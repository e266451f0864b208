"""Exceptions raised by tidepool."""

from .i18n import gettext as _


class TidepoolError(Exception):
    """Base class of every tidepool error."""


class QueueFullError(TidepoolError):
    """The queue holds its maximum number of tasks."""

    def __init__(self, limit):
        super().__init__(_("Queue is full: cannot enqueue more than %(limit)s tasks") % {"limit": limit})
        self.limit = limit


class LeaseExpired(TidepoolError):
    """A task's lease ran out before the worker acknowledged it."""

    def __init__(self, task_id):
        super().__init__(_("lease expired before the task was acknowledged"))
        self.task_id = task_id


class RetriesExhausted(TidepoolError):
    def __init__(self, attempts):
        super().__init__(_("retry policy exhausted after %(attempts)s attempts") % {"attempts": attempts})
        self.attempts = attempts


class PayloadError(TidepoolError):
    """A task payload could not be encoded or decoded."""

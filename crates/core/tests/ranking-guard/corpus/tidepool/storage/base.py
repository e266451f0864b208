"""The interface every storage backend implements."""

import abc


class Backend(abc.ABC):
    @abc.abstractmethod
    def lease(self, task_id, seconds=None):
        """Hide the task from other workers until the lease expires or is acknowledged."""

    @abc.abstractmethod
    def renew(self, lease):
        """Extend a lease that is still held."""

    @abc.abstractmethod
    def ack(self, lease):
        """The task is done: delete it."""

    @abc.abstractmethod
    def dead_letter(self, task, error):
        """Keep a task that failed for good."""

    def stats(self):
        return {}

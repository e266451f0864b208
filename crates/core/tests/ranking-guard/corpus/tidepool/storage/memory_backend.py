"""A backend in process memory, for tests and single-process use."""

import itertools
import time

from .base import Backend


class MemoryBackend(Backend):
    def __init__(self):
        self.tasks = {}
        self.leases = {}
        self.dead = []
        self._ids = itertools.count(1)

    def new_id(self):
        return next(self._ids)

    def lease(self, task_id, seconds=30.0):
        self.leases[task_id] = time.monotonic() + seconds
        return task_id

    def renew(self, lease):
        if lease in self.leases:
            self.leases[lease] = time.monotonic() + 30.0

    def ack(self, lease):
        self.leases.pop(lease, None)
        self.tasks.pop(lease, None)

    def dead_letter(self, task, error):
        self.dead.append((task, repr(error)))

    def stats(self):
        return {"tasks": len(self.tasks), "leased": len(self.leases), "dead": len(self.dead)}

"""The task queue: tasks ordered by priority, then by the time they were enqueued."""

import heapq
import itertools
import threading

from .errors import QueueFullError


class Task:
    __slots__ = ("id", "name", "payload", "priority", "attempts", "eta")

    def __init__(self, id, name, payload, priority=0, eta=None):
        self.id = id
        self.name = name
        self.payload = payload
        self.priority = priority
        self.attempts = 0
        self.eta = eta


class TaskQueue:
    """A bounded priority queue of tasks.

    Lower priority numbers run first; tasks of equal priority run in the order they were
    enqueued (a counter breaks the tie, so tasks are never compared to each other).
    """

    def __init__(self, name="default", maxsize=1000):
        self.name = name
        self.maxsize = maxsize
        self._heap = []
        self._counter = itertools.count()
        self._lock = threading.Lock()
        self._not_empty = threading.Condition(self._lock)

    def enqueue(self, task):
        with self._lock:
            if len(self._heap) >= self.maxsize:
                raise QueueFullError(self.maxsize)
            heapq.heappush(self._heap, (task.priority, next(self._counter), task))
            self._not_empty.notify()

    def dequeue(self, timeout=None):
        with self._not_empty:
            if not self._heap and not self._not_empty.wait(timeout):
                return None
            _, _, task = heapq.heappop(self._heap)
            return task

    def depth(self):
        with self._lock:
            return len(self._heap)

    def drain(self):
        with self._lock:
            tasks = [entry[2] for entry in sorted(self._heap)]
            self._heap.clear()
            return tasks

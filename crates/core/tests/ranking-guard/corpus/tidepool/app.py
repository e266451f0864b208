"""Wiring: an application object that builds the queue, backend, worker and metrics from the
settings, the way the command line and embedding programs use tidepool."""

from .config import Settings
from .metrics import Registry, queue_depth_gauge
from .presets import policy_for
from .queue import Task, TaskQueue
from .retry import RetryPolicy
from .storage import backend_for_url
from .worker import Worker


class Tidepool:
    def __init__(self, settings=None):
        self.settings = settings or Settings.from_env()
        self.backend = backend_for_url(self.settings.broker_url)
        self.queues = {}
        self.handlers = {}
        self.policies = {}
        self.registry = Registry()

    def queue(self, name="default"):
        if name not in self.queues:
            self.queues[name] = TaskQueue(name, self.settings.max_queue_size)
            queue_depth_gauge(self.registry, self.queues[name])
        return self.queues[name]

    def task(self, name=None, queue="default", retry=None, kind=None):
        """Decorator: registers a handler; `retry` is a RetryPolicy, else the preset of `kind`."""

        def register(fn):
            task_name = name or fn.__name__
            self.handlers[task_name] = fn
            self.policies[task_name] = retry or (policy_for(kind) if kind else RetryPolicy())

            def delay(**payload):
                q = self.queue(queue)
                q.enqueue(Task(self.backend.new_id(), task_name, payload))

            fn.delay = delay
            return fn

        return register

    def worker(self, queue="default"):
        return Worker(self.queue(queue), self.backend, self.handlers)

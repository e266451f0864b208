"""The worker loop: take a task, run its handler, acknowledge it or schedule a retry."""

import logging
import time

from .context import worker_context
from .retry import RetryPolicy
from .signals import install_shutdown_handlers

log = logging.getLogger(__name__)


class Worker:
    def __init__(self, queue, backend, handlers, policy=None, poll_interval=1.0):
        self.queue = queue
        self.backend = backend
        self.handlers = handlers
        self.policy = policy or RetryPolicy()
        self.poll_interval = poll_interval
        self.running = False

    def run_forever(self):
        self.running = True
        stop = install_shutdown_handlers(self)
        while self.running and not stop.is_set():
            task = self.queue.dequeue(timeout=self.poll_interval)
            if task is None:
                continue
            self.process(task)

    def process(self, task):
        handler = self.handlers[task.name]
        lease = self.backend.lease(task.id)
        with worker_context(self, task):
            try:
                handler(**task.payload)
            except Exception as error:  # noqa: BLE001
                task.attempts += 1
                if self.policy.should_retry(task.attempts, error):
                    delay = self.policy.delay(task.attempts)
                    log.warning("task %s failed, retrying in %.1fs", task.id, delay)
                    task.eta = time.time() + delay
                    self.queue.enqueue(task)
                else:
                    self.backend.dead_letter(task, error)
            else:
                self.backend.ack(lease)

    def stop(self):
        self.running = False

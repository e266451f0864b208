"""The task a worker is running, reachable from inside the handler."""

import contextlib
import threading

_local = threading.local()


@contextlib.contextmanager
def worker_context(worker, task):
    previous = getattr(_local, "frame", None)
    _local.frame = (worker, task)
    try:
        yield
    finally:
        _local.frame = previous


def current_task():
    frame = getattr(_local, "frame", None)
    if frame is None:
        raise RuntimeError("Working outside of a worker context.")
    return frame[1]


def current_worker():
    frame = getattr(_local, "frame", None)
    if frame is None:
        raise RuntimeError("Working outside of a worker context.")
    return frame[0]

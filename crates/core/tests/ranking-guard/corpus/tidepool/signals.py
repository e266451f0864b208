"""Graceful shutdown: SIGTERM and SIGINT let the running task finish, then stop the loop."""

import signal
import threading


def install_shutdown_handlers(worker):
    stop = threading.Event()

    def handle(signum, frame):
        # A second signal stops at once.
        if stop.is_set():
            raise SystemExit(1)
        stop.set()
        worker.stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    return stop

"""Worker liveness: each worker process writes a key with a short expiry while it is alive,
so that the broker can tell a crashed worker from a slow one."""

import os
import socket
import threading


class Heartbeat:
    """Writes `worker:<host>:<pid>` every `interval` seconds with a time to live of three
    intervals; stops when the worker stops or when the broker can no longer be reached."""

    def __init__(self, client, interval=10.0):
        self.client = client
        self.interval = interval
        self.key = f"worker:{socket.gethostname()}:{os.getpid()}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)

    def start(self):
        self._thread.start()

    def _beat(self):
        while not self._stop.wait(self.interval):
            try:
                self.client.set(self.key, "alive", px=int(self.interval * 3000))
            except ConnectionError:
                return

    def stop(self):
        self._stop.set()
        self.client.delete(self.key)


def live_workers(client):
    return sorted(k.decode() for k in client.scan_iter("worker:*"))

"""The Redis backend: tasks in a sorted set, leases as keys with a visibility timeout."""

import time
import uuid

from ..config import Settings
from ..errors import LeaseExpired
from .base import Backend

RENEW_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""


class RedisBackend(Backend):
    def __init__(self, url, client=None, settings=None):
        import redis

        self.client = client or redis.Redis.from_url(url)
        self.settings = settings or Settings.from_env()
        self._renew = self.client.register_script(RENEW_SCRIPT)

    def new_id(self):
        return uuid.uuid4().hex

    def lease(self, task_id, seconds=None):
        """Take the task's lease for the visibility timeout: other workers skip the task until
        it expires, after which the task becomes visible again and is redelivered."""
        timeout = seconds if seconds is not None else self.settings.visibility_timeout
        token = uuid.uuid4().hex
        if not self.client.set(f"lease:{task_id}", token, nx=True, px=int(timeout * 1000)):
            return None
        return (task_id, token, time.monotonic() + timeout)

    def renew(self, lease):
        task_id, token, _ = lease
        timeout = self.settings.visibility_timeout
        if not self._renew(keys=[f"lease:{task_id}"], args=[token, int(timeout * 1000)]):
            raise LeaseExpired(task_id)
        return (task_id, token, time.monotonic() + timeout)

    def ack(self, lease):
        task_id, token, _ = lease
        with self.client.pipeline() as pipe:
            pipe.delete(f"lease:{task_id}")
            pipe.zrem("tasks", task_id)
            pipe.execute()

    def dead_letter(self, task, error):
        self.client.rpush("dead", f"{task.id}:{error!r}")

    def stats(self):
        return {"tasks": self.client.zcard("tasks"), "dead": self.client.llen("dead")}

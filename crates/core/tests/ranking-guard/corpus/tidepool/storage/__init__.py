"""Storage backends: where tasks wait and who holds their lease."""

from .base import Backend
from .memory_backend import MemoryBackend
from .redis_backend import RedisBackend


def backend_for_url(url):
    if url.startswith("redis://"):
        return RedisBackend(url)
    if url == "memory://":
        return MemoryBackend()
    raise ValueError(f"unsupported broker url: {url}")

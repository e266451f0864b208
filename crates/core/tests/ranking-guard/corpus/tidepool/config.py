"""Settings, read from environment variables."""

import os
from dataclasses import dataclass


@dataclass
class Settings:
    broker_url: str = "redis://localhost:6379/0"
    visibility_timeout: float = 30.0
    max_queue_size: int = 1000
    concurrency: int = 4
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, environ=os.environ):
        return cls(
            broker_url=environ.get("TIDEPOOL_BROKER_URL", cls.broker_url),
            visibility_timeout=float(environ.get("TIDEPOOL_VISIBILITY_TIMEOUT", cls.visibility_timeout)),
            max_queue_size=int(environ.get("TIDEPOOL_MAX_QUEUE_SIZE", cls.max_queue_size)),
            concurrency=int(environ.get("TIDEPOOL_CONCURRENCY", cls.concurrency)),
            log_level=environ.get("TIDEPOOL_LOG_LEVEL", cls.log_level),
        )

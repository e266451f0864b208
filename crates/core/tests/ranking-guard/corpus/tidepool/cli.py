"""The `tidepool` command: start a worker, enqueue a task, print queue stats."""

import argparse
import json
import sys

from .config import Settings
from .queue import Task, TaskQueue
from .storage import backend_for_url
from .worker import Worker


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tidepool")
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("worker", help="start a worker process")
    w.add_argument("--queue", default="default")
    w.add_argument("--concurrency", type=int)
    e = sub.add_parser("enqueue", help="add a task to a queue")
    e.add_argument("name")
    e.add_argument("payload", nargs="?", default="{}")
    sub.add_parser("stats", help="print the depth of each queue")
    args = parser.parse_args(argv)

    settings = Settings.from_env()
    backend = backend_for_url(settings.broker_url)
    queue = TaskQueue(args.queue if args.command == "worker" else "default", settings.max_queue_size)
    if args.command == "worker":
        Worker(queue, backend, handlers={}).run_forever()
    elif args.command == "enqueue":
        queue.enqueue(Task(backend.new_id(), args.name, json.loads(args.payload)))
    else:
        json.dump(backend.stats(), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())

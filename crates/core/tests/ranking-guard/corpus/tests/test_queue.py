import pytest

from tidepool.errors import QueueFullError
from tidepool.queue import Task, TaskQueue


def test_priority_order():
    q = TaskQueue(maxsize=10)
    q.enqueue(Task(1, "a", {}, priority=5))
    q.enqueue(Task(2, "b", {}, priority=1))
    assert q.dequeue().id == 2


def test_queue_full():
    q = TaskQueue(maxsize=1)
    q.enqueue(Task(1, "a", {}))
    with pytest.raises(QueueFullError, match="Queue is full"):
        q.enqueue(Task(2, "b", {}))

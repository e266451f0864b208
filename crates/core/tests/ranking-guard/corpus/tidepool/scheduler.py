"""Periodic tasks: five-field cron expressions and the next time they fire."""

import datetime

FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day", 1, 31), ("month", 1, 12), ("weekday", 0, 6))


def parse_field(text, name, low, high, expr):
    values = set()
    for part in text.split(","):
        step = 1
        if "/" in part:
            part, step_text = part.split("/", 1)
            step = int(step_text)
        if part == "*":
            start, end = low, high
        elif "-" in part:
            start, end = (int(v) for v in part.split("-", 1))
        else:
            start = end = int(part)
        if start < low or end > high:
            raise ValueError(f"invalid cron expression {expr!r}: {name} out of range")
        values.update(range(start, end + 1, step))
    return values


def parse_cron(expr):
    parts = expr.split()
    if len(parts) != 5:
        raise ValueError(f"invalid cron expression {expr!r}: expected 5 fields")
    return [parse_field(p, name, lo, hi, expr) for p, (name, lo, hi) in zip(parts, FIELDS)]


def next_fire(expr, after):
    minute, hour, day, month, weekday = parse_cron(expr)
    t = after.replace(second=0, microsecond=0) + datetime.timedelta(minutes=1)
    for _ in range(366 * 24 * 60):
        if t.minute in minute and t.hour in hour and t.day in day and t.month in month and t.weekday() in weekday:
            return t
        t += datetime.timedelta(minutes=1)
    raise ValueError(f"cron expression {expr!r} never fires")

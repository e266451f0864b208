"""Counters, gauges and histograms, exported in the Prometheus text exposition format."""

import bisect
import threading

DEFAULT_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0)


class Counter:
    def __init__(self, name, help):
        self.name, self.help, self.value = name, help, 0

    def inc(self, n=1):
        self.value += n


class Gauge:
    def __init__(self, name, help, read):
        self.name, self.help, self.read = name, help, read


class Histogram:
    def __init__(self, name, help, buckets=DEFAULT_BUCKETS):
        self.name, self.help = name, help
        self.buckets = sorted(buckets)
        self.counts = [0] * (len(self.buckets) + 1)
        self.sum = 0.0
        self._lock = threading.Lock()

    def observe(self, seconds):
        with self._lock:
            self.counts[bisect.bisect_left(self.buckets, seconds)] += 1
            self.sum += seconds


class Registry:
    def __init__(self):
        self.metrics = []

    def register(self, metric):
        self.metrics.append(metric)
        return metric

    def expose(self):
        """The Prometheus text format: HELP and TYPE lines, then one sample per line."""
        lines = []
        for m in self.metrics:
            lines.append(f"# HELP {m.name} {m.help}")
            if isinstance(m, Histogram):
                lines.append(f"# TYPE {m.name} histogram")
                total = 0
                for bound, count in zip(m.buckets, m.counts):
                    total += count
                    lines.append(f'{m.name}_bucket{{le="{bound}"}} {total}')
                lines.append(f'{m.name}_bucket{{le="+Inf"}} {sum(m.counts)}')
                lines.append(f"{m.name}_sum {m.sum}")
            elif isinstance(m, Gauge):
                lines.append(f"# TYPE {m.name} gauge")
                lines.append(f"{m.name} {m.read()}")
            else:
                lines.append(f"# TYPE {m.name} counter")
                lines.append(f"{m.name} {m.value}")
        return "\n".join(lines) + "\n"


def queue_depth_gauge(registry, queue):
    return registry.register(Gauge(f"tidepool_queue_depth_{queue.name}", "Tasks waiting", queue.depth))

"""Prometheus metrics of bloomsimd filters: a prometheus_client collector.

    from prometheus_client import REGISTRY, start_http_server
    from bloomsimd.metrics import FilterCollector

    collector = FilterCollector({"seen": seen})   # name -> Filter
    REGISTRY.register(collector)
    start_http_server(9101)                        # /metrics, on its own thread

Each filter gives one gauge of each figure below, labelled filter="<name>",
under the bloomsimd_ prefix: the same names as the Go collector
(bindings/go/bloomsimdprom) and the Java MXBean's attributes. Every value is a
field of the library (Filter.info: bloomsimd_get_info and
bloomsimd_get_fill_info), reported as it is; docs/OPERATIONS.md says what each
means and has alert rules for 80% of capacity and for the FPR above target.

A scrape reads every bit of each filter once (about 1 ms per 16 MiB), with
the GIL released. The exporter's thread reads while yours may write: a
filter made with concurrent=True can be scraped at any time; for any other,
pass the lock your writers hold (add(name, f, lock=...)), or a scrape that
meets a write in progress leaves that filter out (the package raises
BusyError rather than read a filter being written) and the next scrape has
it again.

`import bloomsimd` never imports prometheus_client; this module does
(Debian: python3-prometheus-client).
"""
import threading

from prometheus_client.core import GaugeMetricFamily

from . import BusyError

__all__ = ["FilterCollector", "GAUGES"]

# (metric name without the prefix, help, how to read it from a Filter.info)
GAUGES = (
    ("items", "Keys the filter counted (insert-and-report-new; every key of a scalable filter or window).",
     lambda i: i.items),
    ("capacity", "Keys the filter was sized for (a scalable filter: its first layer; a window: each generation).",
     lambda i: i.capacity),
    ("bits", "Bits of the filter's bit arrays, all layers.", lambda i: i.bits),
    ("memory_bytes", "Bytes of the filter's bit arrays, all layers.", lambda i: i.memory_bytes),
    ("layers", "Layers: 1, a scalable filter's layers, a window's generations.", lambda i: i.layers),
    ("fill_ratio", "Share of the filter's bits that are set.", lambda i: i.fill),
    ("estimated_items", "Distinct keys estimated from the bits set.", lambda i: i.estimated_keys),
    ("predicted_fpr", "False-positive rate of a lookup now: the filter's FPR model at its estimated keys.",
     lambda i: i.fpr_now),
    ("target_fpr", "False-positive rate the filter was sized for.", lambda i: i.fpr),
    ("load_ratio", "Share of its capacity the filter has taken (a scalable filter: of its first layer; "
     "alert at 0.8).", lambda i: i.load),
)


class FilterCollector:
    """A prometheus_client collector of named filters (register it with a
    CollectorRegistry). Safe to change from any thread, also while scraped."""

    def __init__(self, filters=None):
        self._lock = threading.Lock()
        self._filters = {}
        for name, f in (filters or {}).items():
            self.add(name, f)

    def add(self, name, f, lock=None):
        """Exports filter f as filter=<name>. lock (a threading.Lock or
        RLock, say), if given, is held while f is read. ValueError if the
        name is empty or taken."""
        if not isinstance(name, str) or not name:
            raise ValueError("a filter needs a non-empty name")
        with self._lock:
            if name in self._filters:
                raise ValueError(f"a filter named {name!r} is already exported")
            self._filters[name] = (f, lock)

    def remove(self, name):
        """Stops exporting the filter named name; False if there was none."""
        with self._lock:
            return self._filters.pop(name, None) is not None

    def describe(self):
        """The gauges with no samples, so registering reads no filter."""
        return [GaugeMetricFamily("bloomsimd_" + name, text, labels=["filter"]) for name, text, _ in GAUGES]

    def collect(self):
        with self._lock:
            filters = sorted(self._filters.items())
        families = [GaugeMetricFamily("bloomsimd_" + name, text, labels=["filter"]) for name, text, _ in GAUGES]
        for name, (f, lock) in filters:
            info = _read(f, lock)
            if info is None:
                continue
            for family, (_, _, value) in zip(families, GAUGES):
                family.add_metric([name], value(info))
        return families


def _read(f, lock):
    """f.info, or None for a closed filter or one being written."""
    if f.closed:
        return None
    try:
        if lock is None:
            return f.info
        with lock:
            return f.info
    except BusyError:
        return None
    except ValueError:  # closed meanwhile
        return None

"""bloomsimd.metrics: the prometheus_client collector, read through
generate_latest and parsed back with prometheus_client's own parser; every
gauge is the library's field (Filter.info). And importing bloomsimd never
needs prometheus_client."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

import bloomsimd
from bloomsimd.metrics import GAUGES, FilterCollector


def scrape(registry):
    """{(metric, filter label): value} from the text a scrape serves."""
    text = generate_latest(registry).decode()
    out = {}
    for family in text_string_to_metric_families(text):
        assert family.type == "gauge", family.name
        for s in family.samples:
            out[(s.name, s.labels["filter"])] = s.value
    return out


def counted(f, n, start=0):
    """Inserts-and-reports-new keys start.. until f counts n (a distinct key can
    be a false positive, which is not counted)."""
    nxt = start
    while f.info.items < n:
        need = n - f.info.items
        f.add_new_many(np.arange(nxt, nxt + need, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        nxt += need
    assert f.info.items == n


def test_scrape_reports_the_librarys_fields():
    plain = bloomsimd.Filter(10_000, fpr=0.01)
    counted(plain, 8_100)
    grown = bloomsimd.Filter(1_000, fpr=0.001, growth=2)
    grown.add_many(np.arange(5_000, dtype=np.uint64))
    uncounted = bloomsimd.Filter(100_000, fpr=0.01)
    uncounted.add_many(np.arange(79_000, dtype=np.uint64))
    registry = CollectorRegistry()
    registry.register(FilterCollector({"seen": plain, "grown": grown, "raw": uncounted}))
    got = scrape(registry)
    for label, f in (("seen", plain), ("grown", grown), ("raw", uncounted)):
        info = f.info
        for name, _, value in GAUGES:
            assert got[("bloomsimd_" + name, label)] == float(value(info)), (name, label)
    assert got[("bloomsimd_load_ratio", "seen")] == 0.81
    assert got[("bloomsimd_load_ratio", "grown")] == 5.0, "over the first layer's capacity"
    assert got[("bloomsimd_layers", "grown")] >= 3
    assert got[("bloomsimd_items", "raw")] == 0, "add does not count"
    assert abs(got[("bloomsimd_load_ratio", "raw")] - 0.79) < 0.01, "so the load is the estimate"
    assert 0 < got[("bloomsimd_predicted_fpr", "seen")] < 0.01
    assert len(got) == 3 * len(GAUGES)


def test_names_locks_busy_and_closed_filters():
    a, b = bloomsimd.Filter(1_000), bloomsimd.Filter(1_000)
    c = FilterCollector()
    c.add("a", a)
    for bad in ("a", "", None):
        with pytest.raises(ValueError):
            c.add(bad, b)
    lock = threading.Lock()
    c.add("b", b, lock=lock)
    registry = CollectorRegistry()
    registry.register(c)
    assert {label for _, label in scrape(registry)} == {"a", "b"}

    # the lock is held while b is read: a writer holding it stalls the scrape
    done = threading.Event()
    with lock:
        t = threading.Thread(target=lambda: (scrape(registry), done.set()))
        t.start()
        assert not done.wait(0.3), "the scrape read a filter whose lock a writer held"
    t.join(10)
    assert done.is_set()

    b.close()
    assert {label for _, label in scrape(registry)} == {"a"}, "a closed filter leaves the scrape"
    assert c.remove("b") and not c.remove("b")
    assert c.remove("a")
    assert scrape(registry) == {}


def test_a_filter_being_written_is_left_out_of_that_scrape():
    f = bloomsimd.Filter(10**7)
    registry = CollectorRegistry()
    registry.register(FilterCollector({"big": f}))
    keys = np.arange(4 * 10**6, dtype=np.uint64)
    writer = threading.Thread(target=f.add_many, args=(keys,))
    writer.start()
    while writer.is_alive():
        scrape(registry)  # never raises: the filter is there, or left out of this scrape
    writer.join()
    got = scrape(registry)
    assert got[("bloomsimd_fill_ratio", "big")] == f.info.fill > 0, "there again once the write is done"


def test_importing_bloomsimd_never_needs_prometheus_client():
    code = ("import sys\n"
            "sys.modules['prometheus_client'] = None  # any import of it now fails\n"
            "import bloomsimd\n"
            "f = bloomsimd.Filter(1000); f.add(1); assert 1 in f and 0 < f.info.load < 0.01\n"
            "assert 'bloomsimd.metrics' not in sys.modules\n"
            "try:\n"
            "    import bloomsimd.metrics\n"
            "except ImportError:\n"
            "    print('metrics needs prometheus_client')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "metrics needs prometheus_client"

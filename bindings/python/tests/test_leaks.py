"""References and memory over many iterations: no call keeps a reference it
should not (keys, lists, results, exceptions), no Python allocation grows
with the number of calls (tracemalloc sees PyMem_RawMalloc too, where a
batch keeps its pointer arrays), and filters' own memory (the library's,
outside Python's allocators) is given back by close() and by the garbage
collector (resident set size)."""
import gc
import os
import pickle
import sys
import tracemalloc

import numpy as np
import pytest

import bloomsimd
from conftest import random_bytes_keys, random_u64

ITERATIONS = 3000


def grows(call, iterations=ITERATIONS):
    """Bytes of Python memory a window of `iterations` calls leaves
    allocated, the smaller of two windows that follow a first one, all
    traced. A leak of the smallest object (16 bytes) a call adds 48 KiB to
    every window. What is allocated once, or fills a bounded cache (NumPy's
    small-buffer cache, up to ~56 KiB with PYTHONMALLOC=malloc; the tuple
    free lists; pickle's and the interpreter's caches) lands mostly in the
    first window and does not grow every window."""
    for _ in range(100):
        call()
    gc.collect()
    tracemalloc.start()
    try:
        marks = []
        for _ in range(3):
            for _ in range(iterations):
                call()
            gc.collect()
            marks.append(tracemalloc.get_traced_memory()[0])
        return min(marks[1] - marks[0], marks[2] - marks[1])
    finally:
        tracemalloc.stop()


LIMIT = 16 << 10


def expect_raise(call, exc):
    def run():
        try:
            call()
        except exc:
            return
        raise AssertionError(f"{call} did not raise {exc}")
    return run


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(5)
    byte_keys = random_bytes_keys(rng, 200, 1, 40)
    data = b"".join(byte_keys)
    offsets = np.cumsum([0] + [len(k) for k in byte_keys]).astype(np.int64)
    return dict(u64=random_u64(rng, 500), ints=random_u64(rng, 200).tolist(), byte_keys=byte_keys,
                str_keys=[k.hex() for k in byte_keys], mixed=[bytearray(k) for k in byte_keys[:50]],
                strided=random_u64(rng, 1000)[::2], i32=np.arange(300, dtype=np.int32),
                arrow=(data, offsets), fixed=rng.integers(0, 256, (100, 16), dtype=np.uint8),
                other=bloomsimd.Filter(10, seed=1))


CALLS = {
    "add int": lambda f, k: f.add(12345),
    "add big int": lambda f, k: f.add(2**64 - 5),
    "in int": lambda f, k: 2**63 + 7 in f,
    "in negative int": lambda f, k: -5 in f,
    "in numpy scalar": lambda f, k: np.uint64(9) in f,
    "add bytes": lambda f, k: f.add(b"0123456789abcdef"),
    "in str": lambda f, k: "héllo" in f,
    "in memoryview slice": lambda f, k: memoryview(b"abcdefgh")[::2] in f,
    "add_new": lambda f, k: f.add_new("key"),
    "add_many u64": lambda f, k: f.add_many(k["u64"]),
    "contains_many u64": lambda f, k: f.contains_many(k["u64"]),
    "add_new_many u64": lambda f, k: f.add_new_many(k["u64"]),
    "select u64": lambda f, k: f.select(k["u64"]),
    "contains_many strided": lambda f, k: f.contains_many(k["strided"]),
    "contains_many int32": lambda f, k: f.contains_many(k["i32"]),
    "contains_many list of int": lambda f, k: f.contains_many(k["ints"]),
    "contains_many generator": lambda f, k: f.contains_many(x for x in k["ints"][:50]),
    "add_many list of bytes": lambda f, k: f.add_many(k["byte_keys"]),
    "contains_many list of str": lambda f, k: f.contains_many(k["str_keys"]),
    "contains_many bytearrays": lambda f, k: f.contains_many(k["mixed"]),
    "select (data, offsets)": lambda f, k: f.select(k["arrow"]),
    "contains_many fixed": lambda f, k: f.contains_many(k["fixed"]),
    "contains_many width": lambda f, k: f.contains_many(k["fixed"].tobytes(), width=16),
    "info": lambda f, k: f.info,
    "repr": lambda f, k: repr(f),
    "estimate_count": lambda f, k: f.estimate_count(),
}

ERRORS = {
    "in float": (lambda f, k: 1.5 in f, TypeError),
    "add int out of range": (lambda f, k: f.add(2**64), OverflowError),
    "add surrogate": (lambda f, k: f.add("\ud800"), UnicodeEncodeError),
    "add_many mixed types": (lambda f, k: f.add_many(k["ints"][:10] + [b"x"]), TypeError),
    "add_many bad int late": (lambda f, k: f.add_many(k["ints"][:10] + [2**70]), OverflowError),
    "contains_many str late": (lambda f, k: f.contains_many(k["str_keys"][:10] + ["\ud800"]), ValueError),
    "contains_many floats": (lambda f, k: f.contains_many(np.zeros(4)), TypeError),
    "bad offsets": (lambda f, k: f.add_many((b"abc", np.array([0, 5], np.int64))), bloomsimd.InvalidArgumentError),
    "bad width": (lambda f, k: f.add_many(b"abc", width=2), ValueError),
    "from_bytes corrupt": (lambda f, k: bloomsimd.Filter.from_bytes(b"x" * 5000), bloomsimd.CorruptError),
    "load missing": (lambda f, k: bloomsimd.Filter.load("/nonexistent/f.bsf"), bloomsimd.SystemCallError),
    "create invalid": (lambda f, k: bloomsimd.Filter(100, fpr=2.0), bloomsimd.InvalidArgumentError),
    "union incompatible": (lambda f, k: f | k["other"], bloomsimd.IncompatibleError),
}


@pytest.mark.parametrize("name", CALLS)
def test_calls_do_not_grow_memory(inputs, name):
    f = bloomsimd.Filter(10**5, 0.01)
    call = CALLS[name]
    growth = grows(lambda: call(f, inputs))
    assert growth < LIMIT, f"{name}: {growth} bytes more after {ITERATIONS} calls"


@pytest.mark.parametrize("name", ERRORS)
def test_errors_do_not_grow_memory(inputs, name):
    f = bloomsimd.Filter(10**4, 0.01)
    call, exc = ERRORS[name]
    growth = grows(expect_raise(lambda: call(f, inputs), exc))
    assert growth < LIMIT, f"{name}: {growth} bytes more after {ITERATIONS} failing calls"
    assert f.info.fill == 0.0  # a failing batch inserted nothing


def test_keys_and_results_hold_no_extra_references(inputs):
    f = bloomsimd.Filter(10**4)
    objects = [inputs["u64"], inputs["byte_keys"], inputs["ints"], inputs["str_keys"], inputs["fixed"],
               inputs["arrow"][0], inputs["arrow"][1], *inputs["byte_keys"][:5], *inputs["str_keys"][:5]]
    before = [sys.getrefcount(o) for o in objects]
    for _ in range(200):
        for keys in (inputs["u64"], inputs["byte_keys"], inputs["ints"], inputs["str_keys"], inputs["fixed"],
                     inputs["arrow"]):
            f.add_many(keys)
            f.contains_many(keys)
            f.add_new_many(keys)
            f.select(keys)
        for k in inputs["byte_keys"][:5] + inputs["str_keys"][:5]:
            f.add(k)
            _ = k in f
            f.add_new(k)
    del k
    assert [sys.getrefcount(o) for o in objects] == before
    for make in (lambda: f.contains_many(inputs["u64"]), lambda: f.select(inputs["u64"]),
                 lambda: f.add_new_many(inputs["ints"]), f.to_bytes, lambda: f.info, f.copy):
        result = make()
        assert sys.getrefcount(result) == 2, type(result)  # the name and getrefcount's argument
        del result
    del make  # a bound method of f
    assert sys.getrefcount(f) == 2


def test_exceptions_release_what_they_saw(inputs):
    bad = [b"x"] * 10 + [1.5]
    before = sys.getrefcount(bad[-1]), sys.getrefcount(bad)
    f = bloomsimd.Filter(100)
    for _ in range(500):
        with pytest.raises(TypeError):
            f.add_many(bad)
    gc.collect()
    assert (sys.getrefcount(bad[-1]), sys.getrefcount(bad)) == before


def test_persistence_does_not_grow_memory(tmp_path):
    f = bloomsimd.Filter(2000, seed=3)
    f.add_many(range(1000))
    path = str(tmp_path / "f.bsf")
    f.save(path)

    def round_trips():
        g = bloomsimd.Filter.from_bytes(f.to_bytes())
        h = pickle.loads(pickle.dumps(g))
        with bloomsimd.Filter.map(path) as m, bloomsimd.Filter.load(path) as l:
            assert 5 in m and 5 in l and 5 in h
        (g | h).close()
        g.copy()

    assert grows(round_trips) < LIMIT


class Holder(bloomsimd.Filter):
    """A subclass has a __dict__, so it can be part of a reference cycle."""


def rss_bytes():
    with open("/proc/self/statm") as s:
        return int(s.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.parametrize("free", ["close", "with", "del", "gc cycle"])
def test_filters_memory_comes_back(free):
    """120 filters of 8 MiB each, touched and freed one by one: if one in
    ten leaked, the resident set would grow by 96 MiB."""
    keys = np.arange(0, 10**6, 7, dtype=np.uint64)

    def one():
        f = (Holder if free == "gc cycle" else bloomsimd.Filter)(bits=8 << 23, hugepages=False)
        f.add_many(keys)  # touches every page (about one key per 64-byte block)
        f.info  # counts the bits: reads every page
        if free == "close":
            f.close()
        elif free == "with":
            with f:
                pass
        elif free == "gc cycle":
            f.cycle = [f]  # freed only by the collector
            del f
            gc.collect(0)

    one()
    gc.collect()
    start = rss_bytes()
    for _ in range(120):
        one()
    gc.collect()
    assert rss_bytes() - start < 40 << 20, f"{(rss_bytes() - start) >> 20} MiB more"


def test_mapped_files_are_unmapped(tmp_path):
    f = bloomsimd.Filter(bits=8 << 23)
    f.add_many(np.arange(0, 10**6, 7, dtype=np.uint64))
    f.save(tmp_path / "big.bsf")
    f.close()
    start = rss_bytes()
    for _ in range(120):
        with bloomsimd.Filter.map(tmp_path / "big.bsf") as m:
            m.info  # reads every page of the mapping
    assert rss_bytes() - start < 40 << 20
    maps = open("/proc/self/maps").read()
    assert str(tmp_path / "big.bsf") not in maps

"""Construction, options, info, sizing, errors, repr, close, help and stubs."""
import ast
import inspect
import math
import os
import pydoc

import numpy as np
import pytest

import bloomsimd
from conftest import random_u64

HERE = os.path.dirname(os.path.abspath(__file__))


def test_info_and_sizing_agree():
    for kw in (dict(capacity=10**6), dict(capacity=10**5, fpr=1e-4), dict(bits=1 << 20), dict(capacity=1000, k=4),
               dict(capacity=5000, generations=4), dict(capacity=5000, growth=2)):
        s = bloomsimd.Filter.size_for(**kw)
        i = bloomsimd.Filter(**kw).info
        for field in ("blocks", "bits", "k", "memory_bytes", "fpr", "layers", "kernel", "layout"):
            assert getattr(s, field) == getattr(i, field), (kw, field)
        if "capacity" in kw and "generations" not in kw:
            assert math.isclose(s.bits_per_key, i.bits_per_key)


def test_info_fields(rng):
    f = bloomsimd.Filter(10**5, 0.01, seed=9, concurrent=True)
    info = f.info
    # no layout given: the default kernel's (block512 on scalar, split256 on sse42, avx2, avx512, neon)
    assert info.capacity == 10**5 and info.seed == 9 and info.concurrent
    assert info.layout == bloomsimd.Filter.size_for(10**5, 0.01).layout
    block_bits = {"block512": 512, "split256": 256}[info.layout]
    assert info.bits == info.blocks * block_bits and info.memory_bytes == info.blocks * block_bits // 8
    assert info.k == 8 or info.layout == "block512"
    assert 9 < info.bits_per_key < 11 and info.fill == 0.0 and info.estimated_keys == 0.0
    assert info.kernel == bloomsimd.default_kernel() and info.layers == 1 and not info.saturated
    f.add_many(random_u64(rng, 10**5))
    info = f.info
    assert 0.95e5 < info.estimated_keys < 1.05e5 and 0.005 < info.fpr_now < 0.015
    assert abs(f.estimate_count() - info.estimated_keys) < 1


def test_predicted_fpr_is_honest(rng):
    f = bloomsimd.Filter(20000, 0.02)
    f.add_many(random_u64(rng, 20000))
    measured = f.contains_many(random_u64(rng, 200000)).mean()
    assert measured < 0.02 * 1.2 and abs(measured - f.info.fpr_now) < 0.005


def test_capacity_forms():
    assert bloomsimd.Filter(1e6).info.capacity == 10**6
    assert bloomsimd.Filter(np.int64(1000)).info.capacity == 1000
    assert bloomsimd.Filter(bits=4096).info.bits == 4096


@pytest.mark.parametrize("kw, exc, match", [
    (dict(), bloomsimd.InvalidArgumentError, "capacity"),
    (dict(capacity=100, fpr=2.0), bloomsimd.InvalidArgumentError, "fpr"),
    (dict(capacity=100, fpr=float("nan")), bloomsimd.InvalidArgumentError, "fpr"),
    (dict(capacity=100, fpr=1e-11), bloomsimd.InvalidArgumentError, "1e-10"),
    (dict(capacity=100, fpr=0), ValueError, "fpr 0"),
    (dict(capacity=100, k=17), bloomsimd.InvalidArgumentError, "k"),
    (dict(capacity=100, generations=65), bloomsimd.InvalidArgumentError, "generations"),
    (dict(capacity=100, growth=2, generations=3), bloomsimd.InvalidArgumentError, ""),
    (dict(capacity=100, tightening=0.5), bloomsimd.InvalidArgumentError, "tightening"),
    (dict(capacity=2**62), bloomsimd.TooLargeError, ""),
    (dict(capacity=100, kernel="avx3"), bloomsimd.KernelUnavailableError, "avx3"),
    (dict(capacity=0), ValueError, "at least 1"),
    (dict(capacity=-5), OverflowError, "capacity"),
    (dict(capacity=1.5), ValueError, "whole number"),
    (dict(capacity="10"), TypeError, "capacity"),
    (dict(capacity=100, fpr="1%"), TypeError, "fpr"),
    (dict(capacity=100, seed=-1), OverflowError, "seed"),
    (dict(capacity=100, seed=2**64), OverflowError, "seed"),
    (dict(capacity=100, k=2**40), OverflowError, "k"),
    (dict(capacity=100, kernel=5), TypeError, "kernel"),
    (dict(capacity=100, layout="block1024"), ValueError, "layout"),
    (dict(capacity=100, layout=128), ValueError, "layout"),
    (dict(capacity=100, bogus=1), TypeError, "bogus"),
])
def test_bad_options(kw, exc, match):
    with pytest.raises(exc, match=match) as e:
        bloomsimd.Filter(**kw)
    if issubclass(exc, bloomsimd.BloomsimdError):
        assert e.value.detail and e.value.status > 0
    with pytest.raises(exc):
        bloomsimd.Filter.size_for(**kw)


def test_layouts():
    assert bloomsimd.Filter(100, layout="block512").info.layout == "block512"
    assert bloomsimd.Filter(100, layout=512).info.layout == "block512"
    assert bloomsimd.Filter(100, layout=None).info.layout in ("block512", "split256")
    try:
        f = bloomsimd.Filter(1000, layout="split256")
    except NotImplementedError as e:  # a library without the split256 layout says so
        assert "split256" in str(e)
    else:
        assert f.info.layout == "split256" and f.info.k == 8
        f.add_many([1, 2, 3])
        assert f.contains_many([1, 2, 3]).all()
        assert bloomsimd.Filter.from_bytes(f.to_bytes()).info.layout == "split256"
        assert bloomsimd.Filter(1000, layout=256).info.layout == "split256"


def test_exception_classes():
    pairs = {bloomsimd.InvalidArgumentError: (1, ValueError), bloomsimd.TooLargeError: (2, ValueError),
             bloomsimd.NoMemoryError: (3, MemoryError), bloomsimd.KernelUnavailableError: (4, None),
             bloomsimd.SystemCallError: (5, OSError), bloomsimd.CorruptError: (6, ValueError),
             bloomsimd.VersionError: (7, ValueError), bloomsimd.IncompatibleError: (8, ValueError),
             bloomsimd.ReadOnlyError: (9, None), bloomsimd.BusyError: (None, RuntimeError)}
    for cls, (_, builtin) in pairs.items():
        assert issubclass(cls, bloomsimd.BloomsimdError) and cls.__module__ == "bloomsimd" and cls.__doc__
        if builtin:
            assert issubclass(cls, builtin)
    with pytest.raises(bloomsimd.InvalidArgumentError) as e:
        bloomsimd.Filter(100).rotate()  # not a window
    assert e.value.status == 1 and str(e.value) == e.value.detail != ""


def test_kernels():
    names = bloomsimd.kernels()
    assert "scalar" in names and bloomsimd.kernel_supported("scalar")
    assert bloomsimd.default_kernel() in names and not bloomsimd.kernel_supported("avx3")
    for k in names:
        if bloomsimd.kernel_supported(k):
            assert bloomsimd.Filter(100, kernel=k.upper()).info.kernel == k


def test_window_rotate():
    w = bloomsimd.Filter(1000, 1e-6, generations=2)
    w.add("old")
    w.rotate()
    w.add("new")
    assert "old" in w and "new" in w and w.info.rotations == 1 and w.info.generations == 2
    w.rotate()
    assert "old" not in w and "new" in w


def test_clear():
    f = bloomsimd.Filter(1000)
    f.add_many(range(100))
    f.clear()
    assert f.info.fill == 0.0 and not f.contains_many(range(100)).any()


def test_close_and_context_manager():
    with bloomsimd.Filter(1000) as f:
        f.add(1)
        assert 1 in f and not f.closed
    assert f.closed and repr(f) == "<bloomsimd.Filter closed>"
    for call in (lambda: 1 in f, lambda: f.add(1), lambda: f.add_many([1]), lambda: f.contains_many([1]),
                 lambda: f.info, lambda: f.to_bytes(), lambda: f.copy(), lambda: f | f, lambda: f.save("/tmp/x"),
                 lambda: f.estimate_count(), lambda: f.clear(), lambda: f.rotate(), lambda: f.add_new("x"),
                 lambda: f.select([1]), lambda: f.add_new_many([1]), lambda: "s" in f):
        with pytest.raises(ValueError, match="closed"):
            call()
    f.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        with f:
            pass


def test_repr_and_sizeof():
    f = bloomsimd.Filter(10**6, seed=3)
    r = repr(f)
    assert r.startswith("<bloomsimd.Filter capacity=1000000 fpr=0.01 bits=") and "kernel=" in r
    assert "growth=2 layers=1" in repr(bloomsimd.Filter(100, growth=2))
    assert "generations=3" in repr(bloomsimd.Filter(100, generations=3))
    assert "concurrent" in repr(bloomsimd.Filter(100, concurrent=True))
    import sys
    assert sys.getsizeof(f) >= f.info.memory_bytes


def test_help_tells_a_newcomer():
    text = pydoc.render_doc(bloomsimd.Filter, renderer=pydoc.plaintext)
    for word in ("add_many", "contains_many", "add_new", "save", "Filter.load", "capacity", "fpr", "concurrent"):
        assert word in text
    sig = inspect.signature(bloomsimd.Filter)
    assert list(sig.parameters)[:2] == ["capacity", "fpr"]
    for name in ("add_many", "contains_many", "select", "load", "map", "size_for", "union"):
        assert getattr(bloomsimd.Filter, name).__doc__


def test_stubs_cover_the_api():
    """bloomsimd/__init__.pyi names every public method and class."""
    tree = ast.parse(open(os.path.join(HERE, "..", "bloomsimd", "__init__.pyi")).read())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in bloomsimd.__all__:
        assert name in classes or name in functions or name == "library_version", name
    body = classes["Filter"].body
    stub_names = {n.name for n in body if isinstance(n, ast.FunctionDef)} | {
        n.target.id for n in body if isinstance(n, ast.AnnAssign)}
    public = {m for m in dir(bloomsimd.Filter) if not m.startswith("_")}
    dunders = {"__contains__", "__enter__", "__exit__", "__or__", "__and__", "__ior__", "__iand__", "__copy__",
               "__deepcopy__", "__init__"}
    assert not (public | dunders) - stub_names, (public | dunders) - stub_names
    for cls in ("Info", "Sizing"):
        fields = {n.target.id for n in classes[cls].body if isinstance(n, ast.AnnAssign)}
        assert set(getattr(bloomsimd, cls).__match_args__) == fields, cls

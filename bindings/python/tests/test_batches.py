"""Batches: every buffer form and iterable gives the answers of the same keys
one at a time, results are NumPy arrays of the right type, and bad input
raises before anything is inserted."""
import array

import numpy as np
import pytest

import bloomsimd
from conftest import random_bytes_keys, random_u64


def single_answers(f, keys):
    return np.array([k in f for k in keys], dtype=bool)


def same_filter(make_keys_a, make_keys_b):
    a, b = bloomsimd.Filter(5000), bloomsimd.Filter(5000)
    a.add_many(make_keys_a)
    b.add_many(make_keys_b)
    return a.to_bytes() == b.to_bytes()


@pytest.mark.parametrize("dtype", ["u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "<u8", "=i8"])
def test_integer_dtypes_are_their_values(rng, dtype):
    info = np.iinfo(np.dtype(dtype))
    vals = rng.integers(info.min, info.max, 3000, dtype=np.dtype(dtype), endpoint=True)
    f = bloomsimd.Filter(5000)
    f.add_many(vals)
    assert same_filter(vals, vals.astype(np.int64).view(np.uint64))
    assert f.contains_many(vals).all()
    assert all(int(v) in f for v in vals[:200])


def test_u64_forms_agree(rng):
    keys = random_u64(rng, 4000)
    forms = [keys, keys.view(np.int64), keys.tolist(), tuple(keys.tolist()), iter(keys.tolist()),
             (int(k) for k in keys), array.array("Q", keys.tolist()), memoryview(keys),
             np.ascontiguousarray(np.repeat(keys, 2)[::2])]
    ref = bloomsimd.Filter(5000)
    ref.add_many(keys)
    for form in forms:
        g = bloomsimd.Filter(5000)
        g.add_many(form)
        assert g.to_bytes() == ref.to_bytes(), type(form)


def test_strided_and_reversed_arrays(rng):
    base = random_u64(rng, 6000)
    for view in (base[::3], base[::-1], base.reshape(2000, 3)[:, 1]):
        assert not view.flags.c_contiguous
        f = bloomsimd.Filter(6000)
        f.add_many(view)
        assert same_filter(view, view.copy())
        assert f.contains_many(view).all()
        assert np.array_equal(f.contains_many(view), f.contains_many(view.copy()))


def test_results_are_numpy(rng):
    f = bloomsimd.Filter(1000)
    keys = random_u64(rng, 500)
    fresh = f.add_new_many(keys)
    assert fresh.dtype == np.bool_ and fresh.shape == (500,) and fresh.sum() >= 495
    hit = f.contains_many(keys)
    assert hit.dtype == np.bool_ and hit.all()
    idx = f.select(np.concatenate([random_u64(rng, 500), keys]))
    assert idx.dtype == np.uint32 and idx.flags.owndata
    assert np.array_equal(idx[-500:], np.arange(500, 1000, dtype=np.uint32))
    assert (np.diff(idx.astype(np.int64)) > 0).all()
    assert f.add_many(keys) is None


def test_add_new_many_repeats_within_a_batch():
    f = bloomsimd.Filter(100)
    assert f.add_new_many([1, 2, 1, 3, 2, 1]).tolist() == [True, True, False, True, False, False]
    assert f.add_new_many(["a", "b", "a"]).tolist() == [True, True, False]


def test_empty_batches():
    f = bloomsimd.Filter(100)
    for empty in ([], (), np.array([], dtype=np.uint64), iter([]), (b"", np.zeros(1, np.int32)), np.zeros((0, 16), np.uint8)):
        f.add_many(empty)
        assert f.contains_many(empty).shape == (0,)
        assert f.add_new_many(empty).shape == (0,)
        assert f.select(empty).shape == (0,)
    assert f.info.fill == 0.0


def test_byte_key_forms_agree(rng):
    keys = random_bytes_keys(rng, 3000, 0, 100)
    data = b"".join(keys)
    off = np.cumsum([0] + [len(k) for k in keys])
    forms = [keys, [bytearray(k) for k in keys], [memoryview(k) for k in keys], iter(keys), tuple(keys),
             (data, off.astype(np.int32)), (data, off.astype(np.uint32)), (data, off.astype(np.int64)),
             (np.frombuffer(data, np.uint8), off.astype(np.uint64)), (bytearray(data), memoryview(off.astype(np.int32)))]
    ref = bloomsimd.Filter(5000)
    for k in keys:
        ref.add(k)
    probes = keys + random_bytes_keys(rng, 3000)
    expected = single_answers(ref, probes)
    for form in forms:
        g = bloomsimd.Filter(5000)
        g.add_many(form)
        assert g.to_bytes() == ref.to_bytes()
        assert np.array_equal(g.contains_many(probes), expected)


def test_sliced_offsets_as_arrow_slices(rng):
    """offsets[0] > 0: the keys of a sliced Arrow array."""
    keys = random_bytes_keys(rng, 1000, 1, 20)
    data = b"".join(keys)
    off = np.cumsum([0] + [len(k) for k in keys]).astype(np.int32)
    f = bloomsimd.Filter(1000)
    f.add_many((data, off[100:501]))  # keys 100..499
    assert f.contains_many(keys[100:500]).all()
    assert same_filter((data, off[100:501]), keys[100:500])


def test_str_keys_and_numpy_str_arrays(rng):
    words = [f"word-{i}-é" for i in range(2000)]
    f = bloomsimd.Filter(2000)
    f.add_many(words)
    assert f.contains_many(np.array(words)).all()  # NumPy 'U' arrays are iterated as str
    assert f.contains_many(np.array(words, dtype=object)).all()
    assert same_filter(words, [w.encode() for w in words])
    assert same_filter(words, words[:1000] + [w.encode() for w in words[1000:]])  # str and bytes mix


def test_fixed_width_forms(rng):
    raw = rng.integers(0, 256, (2000, 16), dtype=np.uint8)
    every, even = [bytes(r) for r in raw], [bytes(r) for r in raw[::2]]
    cases = [(raw, {}, every), (raw.view("S16").ravel(), {}, every), (raw.tobytes(), {"width": 16}, every),
             (bytearray(raw.tobytes()), {"width": 16}, every), (raw[::2], {}, even),
             (raw.view("S16")[::2].ravel(), {}, even)]
    for form, kw, keys in cases:
        g = bloomsimd.Filter(4000)
        g.add_many(form, **kw)
        ref = bloomsimd.Filter(4000)
        ref.add_many(keys)
        assert g.to_bytes() == ref.to_bytes()
        assert g.contains_many(form, **kw).all()
    with pytest.raises(ValueError, match="whole number"):
        bloomsimd.Filter(10).add_many(b"x" * 17, width=16)
    with pytest.raises(ValueError, match="at least 1"):
        bloomsimd.Filter(10).add_many(b"x" * 16, width=0)


@pytest.mark.parametrize("bad, match", [
    (np.array([1.5]), "float"),
    (np.array([True]), "bool"),
    (np.zeros((3, 3), np.uint64), "1-dimensional"),
    (np.array([1], dtype=">u8"), "big-endian"),
    (b"abc", "one key"),
    (bytearray(b"abc"), "one key"),
    ("abc", "one key"),
    (memoryview(b"abc"), "one key"),
    (5, "keys must be"),
    (None, "keys must be"),
    ([1, b"x"], r"keys\[1\].*int keys"),
    ([b"x", 1], r"keys\[1\].*bytes/str"),
    ([b"x", 1.5], r"keys\[1\]"),
    ([1, "x"], r"keys\[1\]"),
    ([1, 2**64], r"keys\[1\].*64-bit"),
    (["ok", "\ud800"], r"keys\[1\]"),
    (np.array([1 + 2j]), "format"),
])
def test_bad_batches_raise_and_insert_nothing(bad, match):
    f = bloomsimd.Filter(100)
    for call in (f.add_many, f.add_new_many, f.contains_many, f.select):
        with pytest.raises((TypeError, OverflowError, ValueError), match=match):
            call(bad)
    assert f.info.fill == 0.0 and f.info.items == 0


@pytest.mark.parametrize("offsets", [[0, 5, 3], [0, 2, 99], [5, 2]])
def test_bad_offsets_are_invalid_argument(offsets):
    f = bloomsimd.Filter(100)
    for dtype in (np.int32, np.int64):
        with pytest.raises(bloomsimd.InvalidArgumentError) as e:
            f.add_many((b"abcdefgh", np.array(offsets, dtype=dtype)))
        assert e.value.detail and e.value.status == 1
        with pytest.raises(bloomsimd.InvalidArgumentError):
            f.contains_many((b"abcdefgh", np.array(offsets, dtype=dtype)))
    assert f.info.fill == 0.0


def test_tuple_of_two_keys_is_two_keys():
    """(bytes, bytes) is a batch of two keys, not (data, offsets)."""
    f = bloomsimd.Filter(100)
    f.add_many((b"ab", b"cd"))
    assert b"ab" in f and b"cd" in f and b"abcd" not in f


def test_generator_errors_propagate():
    def gen():
        yield 1
        raise RuntimeError("boom")

    f = bloomsimd.Filter(100)
    with pytest.raises(RuntimeError, match="boom"):
        f.add_many(gen())
    assert 1 not in f


def test_select_matches_contains(rng):
    f = bloomsimd.Filter(3000, 0.1)
    keys = random_u64(rng, 3000)
    f.add_many(keys[:1500])
    hit = f.contains_many(keys)
    assert np.array_equal(f.select(keys), np.flatnonzero(hit))
    assert np.array_equal(f.select(keys.tolist()), np.flatnonzero(hit))


class BadIndex:
    def __index__(self):
        raise ArithmeticError("no index")


class BadIter:
    def __iter__(self):
        raise LookupError("no iter")


@pytest.mark.parametrize("call, exc, match", [
    (lambda f: f.add_many(b"x" * 32, width="16"), TypeError, ""),
    (lambda f: f.add_many(b"x" * 32, width=-1), ValueError, "at least 1"),
    (lambda f: f.add_many(b"x" * 32, width=2**70), OverflowError, ""),
    (lambda f: f.add_many([1], 2), TypeError, ""),
    (lambda f: f.add_many([1], bogus=2), TypeError, "bogus"),
    (lambda f: f.contains_many(), TypeError, ""),
    (lambda f: f.add_many((b"abcd", np.array([0, 2, 4], dtype=">i4"))), TypeError, "big-endian"),
    (lambda f: f.add_many((b"abcd", np.array([0, 9, 2, 9, 4], dtype=np.int64)[::2])), ValueError, "contiguous"),
    (lambda f: f.add_many((5, np.array([0, 1], dtype=np.int32))), TypeError, ""),
    (lambda f: f.add_many(np.zeros((2, 2, 2), np.uint8)), TypeError, "1-dimensional"),
    (lambda f: f.add_many(np.zeros(3, "S4").reshape(3, 1)), TypeError, "1-dimensional"),
    (lambda f: f.add_many(np.zeros(3, "M8[s]")), ValueError, "dtype"),  # NumPy exports no buffer
    (lambda f: f.add_many([BadIndex()]), ArithmeticError, "no index"),
    (lambda f: f.add(BadIndex()), ArithmeticError, "no index"),
    (lambda f: f.add_many(BadIter()), LookupError, "no iter"),
    (lambda f: f.add_many([[1]]), TypeError, r"keys\[0\]"),
    (lambda f: f.add_many([None]), TypeError, r"keys\[0\]"),
    (lambda f: f.add_many([b"a", None]), TypeError, r"keys\[1\]"),
    (lambda f: f.add_many([b"a", np.zeros(2, np.uint64)]), TypeError, r"keys\[1\]"),
    (lambda f: f.add_many({1: 2}.values()), None, ""),  # fine: an iterable of ints
])
def test_more_bad_input(call, exc, match):
    f = bloomsimd.Filter(100)
    if exc is None:
        call(f)
        return
    with pytest.raises(exc, match=match):
        call(f)
    assert f.info.fill == 0.0


def test_numpy_scalar_and_subclass_keys_in_batches():
    f = bloomsimd.Filter(100, 1e-6)
    f.add_many([np.uint64(2**64 - 1), np.int32(-1), np.int8(5)])  # -1 twice: the same key
    assert f.contains_many([2**64 - 1, 5]).all() and f.add_new_many([-1]).tolist() == [False]
    f.add_many([np.bytes_(b"nb"), np.str_("ns")])
    assert b"nb" in f and "ns" in f and np.bytes_(b"nb") in f and np.str_("ns") in f

"""Arrow arrays through the PyCapsule interface (arrow_producer.py stands in
for pyarrow): every key type, slices, nulls, chunked streams, and that
every struct is released exactly once, after the call."""
import numpy as np
import pytest

import arrow_producer as ap
import bloomsimd
from conftest import random_bytes_keys, random_u64


def filter_of(keys):
    f = bloomsimd.Filter(5000)
    f.add_many(keys)
    return f


def released_once(col):
    return col.released == {"schema": 1, "array": 1}


@pytest.mark.parametrize("fmt, dtype", [("l", np.int64), ("L", np.uint64), ("i", np.int32), ("I", np.uint32),
                                        ("s", np.int16), ("S", np.uint16), ("c", np.int8), ("C", np.uint8)])
def test_integer_arrays(rng, fmt, dtype):
    info = np.iinfo(dtype)
    vals = rng.integers(info.min, info.max, 2000, dtype=dtype, endpoint=True)
    col = ap.ints(vals, fmt)
    f = filter_of(col)
    assert released_once(col)
    assert f.to_bytes() == filter_of(vals).to_bytes()
    assert f.contains_many(ap.ints(vals, fmt)).all()


@pytest.mark.parametrize("fmt", ["z", "u", "Z", "U"])
def test_binary_arrays(rng, fmt):
    keys = random_bytes_keys(rng, 2000, 0, 50)
    col = ap.binary(keys, fmt)
    assert filter_of(col).to_bytes() == filter_of(keys).to_bytes()
    assert released_once(col)


def test_fixed_size_and_view_arrays(rng):
    fixed_keys = [bytes(r) for r in rng.integers(0, 256, (1000, 16), dtype=np.uint8)]
    assert filter_of(ap.fixed(fixed_keys, 16)).to_bytes() == filter_of(fixed_keys).to_bytes()
    keys = random_bytes_keys(rng, 2000, 0, 40)  # inline (<= 12) and out-of-line views
    for fmt in ("vz", "vu"):
        col = ap.views(keys, fmt=fmt)
        assert filter_of(col).to_bytes() == filter_of(keys).to_bytes()
        assert released_once(col)


def test_sliced_arrays(rng):
    vals = random_u64(rng, 1000)
    assert filter_of(ap.ints(vals, offset=100)).to_bytes() == filter_of(vals[100:]).to_bytes()
    keys = random_bytes_keys(rng, 1000, 1, 30)
    assert filter_of(ap.binary(keys, offset=300)).to_bytes() == filter_of(keys[300:]).to_bytes()


@pytest.mark.parametrize("make", ["ints", "binary", "large", "fixed", "views"])
def test_null_rows_are_no_keys(rng, make):
    n = 1000
    valid = rng.random(n) < 0.7
    if make == "ints":
        keys = random_u64(rng, n)
        col = lambda: ap.ints(keys, "L", valid)  # noqa: E731
        kept = keys[valid]
    else:
        keys = ([bytes(r) for r in rng.integers(0, 256, (n, 8), dtype=np.uint8)] if make == "fixed"
                else random_bytes_keys(rng, n, 1, 30))
        col = {"binary": lambda: ap.binary(keys, "z", valid), "large": lambda: ap.binary(keys, "Z", valid),
               "fixed": lambda: ap.fixed(keys, 8, valid), "views": lambda: ap.views(keys, valid)}[make]
        kept = [k for k, v in zip(keys, valid) if v]
    f = bloomsimd.Filter(5000, 1e-6)
    f.add_many(col())
    assert f.to_bytes() == filter_of_fpr(kept).to_bytes()  # nulls were skipped
    hit = f.contains_many(col())
    assert np.array_equal(hit, valid)  # null rows answer False
    assert np.array_equal(f.select(col()), np.flatnonzero(valid))
    g = bloomsimd.Filter(5000, 1e-6)
    fresh = g.add_new_many(col())
    distinct = len(set(kept.tolist() if make == "ints" else kept))
    assert not fresh[~valid].any() and distinct - 2 <= fresh[valid].sum() <= distinct


def filter_of_fpr(keys):
    f = bloomsimd.Filter(5000, 1e-6)
    f.add_many(keys)
    return f


def test_null_type_column():
    f = bloomsimd.Filter(100)
    col = ap.Column("n", 5, [])
    assert f.contains_many(col).tolist() == [False] * 5
    assert f.add_new_many(ap.Column("n", 3, [])).tolist() == [False] * 3
    assert f.info.fill == 0.0


def test_chunked_streams(rng):
    parts = [random_u64(rng, n) for n in (100, 0, 2500, 7)]
    chunks = [ap.ints(p) for p in parts]
    stream = ap.Chunked(chunks)
    f = bloomsimd.Filter(5000)
    f.add_many(stream)
    assert f.to_bytes() == filter_of_fpr_plain(np.concatenate(parts)).to_bytes()
    assert stream.released == {"stream": 1} and all(c.released["array"] == 1 for c in chunks)
    probes = np.concatenate(parts + [random_u64(rng, 1000)])
    mixed = ap.Chunked([ap.ints(probes[:1000]), ap.ints(probes[1000:])])
    assert np.array_equal(f.contains_many(mixed), f.contains_many(probes))
    assert np.array_equal(f.select(ap.Chunked([ap.ints(probes[:1000]), ap.ints(probes[1000:])])), f.select(probes))
    words = random_bytes_keys(rng, 300)
    strings = ap.Chunked([ap.binary(words[:100]), ap.binary(words[100:])])
    assert np.array_equal(f.copy().add_new_many(strings), f.copy().add_new_many(words))


def filter_of_fpr_plain(keys):
    f = bloomsimd.Filter(5000)
    f.add_many(keys)
    return f


@pytest.mark.parametrize("fmt, match", [("+s", "format"), ("g", "format"), ("tdD", "format"), ("b", "format")])
def test_other_arrow_types_refused(fmt, match):
    f = bloomsimd.Filter(100)
    col = ap.Column(fmt, 2, [None, np.zeros(2, np.float64)])
    with pytest.raises(TypeError, match=match):
        f.add_many(col)
    assert released_once(col)


def test_malformed_offsets_refused():
    col = ap.Column("z", 2, [None, np.array([0, 5, 2], np.int32), np.zeros(8, np.uint8)])
    with pytest.raises(bloomsimd.InvalidArgumentError):
        bloomsimd.Filter(100).add_many(col)
    col = ap.Column("z", 1, [None, np.array([-3, 2], np.int32), np.zeros(8, np.uint8)])
    with pytest.raises(ValueError, match="malformed"):
        bloomsimd.Filter(100).add_many(col)
    col = ap.Column("z", 2, [ap.validity([1, 0]), np.array([0, 5, 2], np.int32), np.zeros(8, np.uint8)], 0, 1)
    with pytest.raises(ValueError, match="decrease"):
        bloomsimd.Filter(100).add_many(col)


def test_pyarrow_if_installed(rng):
    pa = pytest.importorskip("pyarrow")
    words = [f"w{i}" for i in range(1000)]
    f = filter_of(pa.array(words))
    assert f.to_bytes() == filter_of(words).to_bytes()
    assert f.contains_many(pa.chunked_array([words[:10], words[10:]])).all()
    assert f.contains_many(pa.array([None, "w1"])).tolist() == [False, True]

"""Union and intersection: operators, methods, in-place forms, and what is refused."""
import numpy as np
import pytest

import bloomsimd
from conftest import random_u64


@pytest.fixture
def pair(rng):
    a_keys, b_keys = random_u64(rng, 3000), random_u64(rng, 3000)
    a, b = bloomsimd.Filter(10000, seed=1), bloomsimd.Filter(10000, seed=1)
    a.add_many(a_keys)
    b.add_many(b_keys)
    return a, b, a_keys, b_keys


def bits(f):
    return np.frombuffer(f.to_bytes()[4096:], dtype=np.uint8)


def test_union(pair):
    a, b, ak, bk = pair
    before = a.to_bytes()
    for u in (a | b, a.union(b)):
        assert np.array_equal(bits(u), bits(a) | bits(b))
        assert u.contains_many(ak).all() and u.contains_many(bk).all()
    assert a.to_bytes() == before  # | makes a new filter
    both = bloomsimd.Filter(10000, seed=1)
    both.add_many(np.concatenate([ak, bk]))
    assert (a | b).to_bytes() == both.to_bytes()
    c = a.copy()
    c |= b
    assert c.to_bytes() == both.to_bytes()
    d = a.copy()
    d.update(b, b)
    assert d.to_bytes() == both.to_bytes()
    a |= a
    assert a.to_bytes() == before


def test_intersection(pair):
    a, b, ak, bk = pair
    want = bits(a) & bits(b)
    for i in (a & b, a.intersection(b)):
        assert np.array_equal(bits(i), want)
    c = a.copy()
    c &= b
    assert np.array_equal(bits(c), want)
    d = a.copy()
    d.intersection_update(b)
    assert np.array_equal(bits(d), want)
    common = ak[:100]
    b.add_many(common)
    assert (a & b).contains_many(common).all()


def test_incompatible_filters(pair):
    a, _, _, _ = pair
    for other in (bloomsimd.Filter(10000, seed=2), bloomsimd.Filter(20000, seed=1), bloomsimd.Filter(10000, seed=1, k=3)):
        before = a.to_bytes()
        for op in (lambda: a | other, lambda: a.union(other), lambda: a.intersection(other)):
            with pytest.raises(bloomsimd.IncompatibleError) as e:
                op()
            assert e.value.status == 8 and isinstance(e.value, ValueError)
        with pytest.raises(bloomsimd.IncompatibleError):
            a |= other
        assert a.to_bytes() == before


def test_non_filters(pair):
    a = pair[0]
    with pytest.raises(TypeError):
        a | {1, 2}
    with pytest.raises(TypeError):
        a &= 5
    with pytest.raises(TypeError, match="Filter"):
        a.union([1])


def test_read_only_destination(pair, tmp_path):
    a, b, _, _ = pair
    a.save(tmp_path / "a.bsf")
    m = bloomsimd.Filter.map(tmp_path / "a.bsf")
    with pytest.raises(bloomsimd.ReadOnlyError):
        m |= b
    u = m | b  # a heap copy, then the union
    assert u.contains_many(pair[3]).all()


def test_scalable_union(rng):
    keys = random_u64(rng, 5000)
    a, b = bloomsimd.Filter(1000, growth=2), bloomsimd.Filter(1000, growth=2)
    a.add_new_many(keys)
    b.add_new_many(keys[::-1].copy())
    assert a.info.layers == b.info.layers
    assert (a | b).contains_many(keys).all()
    with pytest.raises(bloomsimd.IncompatibleError):
        a & b

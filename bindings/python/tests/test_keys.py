"""One key at a time: every key type, the int range, and what is refused."""
import array

import numpy as np
import pytest

import bloomsimd


@pytest.fixture
def f():
    return bloomsimd.Filter(1000, 1e-6)


INT_KEYS = [0, 1, 2**30, 2**31, 2**62, 2**63 - 1, 2**63, 2**64 - 1, -1, -(2**63), 12345678901234567]


@pytest.mark.parametrize("key", INT_KEYS)
def test_int_keys_are_their_u64(f, key):
    u = key % 2**64
    g = bloomsimd.Filter(1000, 1e-6)
    g.add_many(np.array([u], dtype=np.uint64))
    assert key in g and u in g  # -1 and 2**64 - 1 are one key
    f.add(key)
    assert f.to_bytes() == g.to_bytes()
    assert f.add_new(key) is False


@pytest.mark.parametrize("key", [2**64, -(2**63) - 1, 2**100, -(2**64), -(2**200)])
def test_ints_out_of_range_raise_overflow(f, key):
    for call in (f.add, f.add_new, f.__contains__):
        with pytest.raises(OverflowError, match="64-bit"):
            call(key)
    with pytest.raises(OverflowError, match=r"keys\[1\]"):
        f.add_many([1, key])
    assert f.info.fill == 0.0  # nothing was inserted


def test_int_subclasses_and_index_objects(f):
    class MyInt(int):
        pass

    f.add(MyInt(77))
    assert 77 in f and MyInt(77) in f
    assert np.uint64(77) in f and np.int8(77) in f and np.int64(77) in f
    f.add(np.uint64(2**64 - 1))
    assert -1 in f
    f.add(True)  # bool is an int: True is the key 1
    assert 1 in f


def test_bytes_like_and_str_keys_agree(f):
    f.add(b"abc")
    for same in (b"abc", bytearray(b"abc"), memoryview(b"abc"), "abc", array.array("b", b"abc"),
                 np.frombuffer(b"abc", dtype=np.uint8), memoryview(b"xaxbxc")[1::2]):
        assert same in f, same
    assert b"abd" not in f and "" not in f
    f.add("")
    assert b"" in f and bytearray() in f
    f.add("héllo ✓")
    assert "héllo ✓".encode() in f


def test_str_is_utf8_and_surrogates_refused(f):
    f.add("\u00e9")
    assert b"\xc3\xa9" in f
    with pytest.raises(UnicodeEncodeError):
        f.add("\ud800")


@pytest.mark.parametrize("bad", [1.5, None, object(), [1], (1,), {1}, 1j, np.float64(1.0)])
def test_other_types_raise_type_error(f, bad):
    for call in (f.add, f.add_new, f.__contains__):
        with pytest.raises(TypeError, match="key"):
            call(bad)


def test_arrays_are_not_single_keys(f):
    with pytest.raises(TypeError, match="_many"):
        np.arange(3, dtype=np.uint64) in f
    with pytest.raises(TypeError, match="_many"):
        f.add(memoryview(array.array("Q", [1, 2])))


def test_add_new_single(f):
    assert f.add_new("k") is True
    assert f.add_new("k") is False
    assert f.add_new(5) is True and f.add_new(5) is False
    assert f.info.items == 2


def test_keys_of_every_length(rng):
    f = bloomsimd.Filter(2000, 1e-4)
    keys = [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in range(300)]
    for k in keys:
        f.add(k)
    assert all(k in f for k in keys)
    assert f.contains_many(keys).all()

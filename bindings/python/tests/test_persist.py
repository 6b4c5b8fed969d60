"""Files, bytes, pickle and copies; mapped files; files the bloomsimd command
wrote, and files it reads."""
import copy
import errno
import os
import pathlib
import pickle
import struct
import subprocess

import numpy as np
import pytest

import bloomsimd
from conftest import c_env, random_bytes_keys, random_u64


@pytest.fixture
def filled(rng):
    keys = random_u64(rng, 5000)
    f = bloomsimd.Filter(5000, 0.01, seed=42)
    f.add_many(keys)
    f.add_many(["a", "b"])
    return f, keys


def same_answers(a, b, rng):
    probes = random_u64(rng, 20000)
    return np.array_equal(a.contains_many(probes), b.contains_many(probes))


@pytest.mark.parametrize("as_path", [str, pathlib.Path, os.fsencode])
def test_save_load_map(filled, tmp_path, rng, as_path):
    f, keys = filled
    path = as_path(tmp_path / "f.bsf")
    f.save(path)
    assert pathlib.Path(os.fsdecode(path)).read_bytes() == f.to_bytes()
    for g in (bloomsimd.Filter.load(path), bloomsimd.Filter.map(path)):
        assert g.contains_many(keys).all() and "a" in g
        assert same_answers(f, g, rng)
        assert g.info.seed == 42 and g.to_bytes() == f.to_bytes()


def test_read_only_map(filled, tmp_path):
    f, keys = filled
    f.save(tmp_path / "f.bsf")
    m = bloomsimd.Filter.map(tmp_path / "f.bsf")
    with pytest.raises(bloomsimd.ReadOnlyError):
        m.add(1)
    with pytest.raises(bloomsimd.ReadOnlyError):
        m.add_many(np.arange(10, dtype=np.uint64))
    with pytest.raises(bloomsimd.ReadOnlyError):
        m.add_new_many(["x"])
    with pytest.raises(ValueError, match="read-only"):
        m.clear()
    heap = m.copy()  # a writable heap copy
    heap.add(1)
    assert 1 in heap
    m.close()
    assert m.closed and (tmp_path / "f.bsf").read_bytes() == f.to_bytes()


def test_writable_map_and_sync(tmp_path, rng):
    bloomsimd.Filter(10000).save(tmp_path / "w.bsf")
    keys = random_u64(rng, 3000)
    with bloomsimd.Filter.map(tmp_path / "w.bsf", writable=True) as w:
        w.add_many(keys)
        with pytest.raises(bloomsimd.SystemCallError) as e:
            bloomsimd.Filter.map(tmp_path / "w.bsf", writable=True)  # one writer per file
        assert e.value.errno == errno.EWOULDBLOCK
        w.sync()
    assert bloomsimd.Filter.load(tmp_path / "w.bsf").contains_many(keys).all()


def test_unsynced_writable_map(tmp_path):
    bloomsimd.Filter(1000).save(tmp_path / "u.bsf")
    w = bloomsimd.Filter.map(tmp_path / "u.bsf", writable=True)
    w.add(5)
    w.close()  # without sync: the checksum is stale
    with pytest.raises(bloomsimd.CorruptError):
        bloomsimd.Filter.map(tmp_path / "u.bsf")
    assert 5 in bloomsimd.Filter.map(tmp_path / "u.bsf", accept_unsynced=True)


def test_bytes_round_trip(filled, rng):
    f, keys = filled
    data = f.to_bytes()
    for buf in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        g = bloomsimd.Filter.from_bytes(buf)
        assert g.to_bytes() == data and same_answers(f, g, rng)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle(filled, rng, protocol):
    f, keys = filled
    g = pickle.loads(pickle.dumps(f, protocol=protocol))
    assert type(g) is bloomsimd.Filter and g.to_bytes() == f.to_bytes() and same_answers(f, g, rng)
    g.add_many(random_u64(rng, 5000))
    assert g.to_bytes() != f.to_bytes()  # independent of f


def test_pickle_layered_and_concurrent(rng):
    s = bloomsimd.Filter(100, growth=2, concurrent=True)
    s.add_new_many(random_u64(rng, 2000))
    w = bloomsimd.Filter(100, generations=3)
    w.add_many([1, 2])
    w.rotate()
    w.add(3)
    for f in (s, w):
        g = pickle.loads(pickle.dumps(f))
        assert g.info == f.info  # layers, items, rotations, fill...
        assert g.to_bytes() == f.to_bytes()
    assert pickle.loads(pickle.dumps(s)).info.concurrent


def test_copy_and_deepcopy(filled, rng):
    f, keys = filled
    for g in (copy.copy(f), copy.deepcopy(f), f.copy()):
        assert g is not f and g.to_bytes() == f.to_bytes()
        g.add_many(random_u64(rng, 5000))
        assert g.to_bytes() != f.to_bytes()


def test_subclass_survives_copy_and_pickle():
    f = Sub(100)
    f.add(1)
    assert type(copy.copy(f)) is Sub and type(pickle.loads(pickle.dumps(f))) is Sub
    assert type(Sub.from_bytes(f.to_bytes())) is Sub


class Sub(bloomsimd.Filter):
    pass


def test_corrupt_and_truncated_data(filled, tmp_path):
    f, _ = filled
    data = bytearray(f.to_bytes())
    with pytest.raises(bloomsimd.CorruptError) as e:
        bloomsimd.Filter.from_bytes(data[:-1])
    assert e.value.status == 6 and "length" in e.value.detail
    flipped = bytearray(data)
    flipped[5000] ^= 1
    with pytest.raises(bloomsimd.CorruptError, match="checksum"):
        bloomsimd.Filter.from_bytes(flipped)
    with pytest.raises(bloomsimd.CorruptError):
        bloomsimd.Filter.from_bytes(b"not a filter")
    (tmp_path / "bad.bsf").write_bytes(flipped)
    for load in (bloomsimd.Filter.load, bloomsimd.Filter.map):
        with pytest.raises(bloomsimd.CorruptError):
            load(tmp_path / "bad.bsf")


def test_newer_format_version(filled):
    data = bytearray(filled[0].to_bytes())
    data[8:12] = struct.pack("<I", 99)
    with pytest.raises((bloomsimd.VersionError, bloomsimd.CorruptError)) as e:
        bloomsimd.Filter.from_bytes(data)
    assert isinstance(e.value, ValueError) and e.value.detail


def test_missing_file_is_oserror(tmp_path):
    with pytest.raises(bloomsimd.SystemCallError) as e:
        bloomsimd.Filter.load(tmp_path / "none.bsf")
    assert isinstance(e.value, OSError) and e.value.errno == errno.ENOENT and e.value.status == 5
    with pytest.raises(OSError):
        bloomsimd.Filter(10).save(tmp_path / "no-dir" / "x.bsf")


def test_load_options(filled, tmp_path, kernel):
    f, keys = filled
    f.save(tmp_path / "f.bsf")
    g = bloomsimd.Filter.load(tmp_path / "f.bsf", kernel=kernel, concurrent=True)
    assert g.info.kernel == kernel and g.info.concurrent and g.contains_many(keys).all()
    with pytest.raises(bloomsimd.KernelUnavailableError):
        bloomsimd.Filter.load(tmp_path / "f.bsf", kernel="avx3")
    with pytest.raises(bloomsimd.KernelUnavailableError):
        bloomsimd.Filter.from_bytes(f.to_bytes(), kernel="nope")


# ---- the bloomsimd command -----------------------------------------------------------

def run_cli(cli, *args, stdin=b""):
    r = subprocess.run([cli, *map(str, args)], input=stdin, capture_output=True, env=c_env())
    return r


def test_cli_file_loads_and_answers_the_same(cli, tmp_path, rng):
    lines = sorted({k.hex().encode() for k in random_bytes_keys(rng, 3000, 1, 20)})
    path = tmp_path / "cli.bsf"
    assert run_cli(cli, "create", path, "--capacity", 5000, "--fpr", 0.001, "--seed", 77).returncode == 0
    assert run_cli(cli, "add", path, stdin=b"\n".join(lines) + b"\n").returncode == 0
    ours = bloomsimd.Filter(5000, 0.001, seed=77)
    ours.add_many(lines)
    assert ours.to_bytes() == path.read_bytes()  # the same bytes
    for g in (bloomsimd.Filter.load(path), bloomsimd.Filter.map(path)):
        assert g.contains_many(lines).all() and all(line in g for line in lines[:100])
        probes = random_bytes_keys(rng, 5000)
        assert np.array_equal(g.contains_many(probes), ours.contains_many(probes))


def test_cli_u64_file(cli, tmp_path, rng):
    keys = random_u64(rng, 2000)
    path = tmp_path / "u.bsf"
    run_cli(cli, "create", path, "--capacity", 2000)
    text = "\n".join(str(k) for k in keys.tolist()).encode() + b"\n"
    assert run_cli(cli, "add", "--u64", path, stdin=text).returncode == 0
    g = bloomsimd.Filter.load(path)
    assert g.contains_many(keys).all() and int(keys[0]) in g
    ours = bloomsimd.Filter(2000)
    ours.add_many(keys)
    assert ours.to_bytes() == path.read_bytes()


def test_python_file_queried_by_cli(cli, tmp_path, rng):
    present = [f"row-{i}".encode() for i in range(1000)]
    absent = [f"other-{i}".encode() for i in range(1000)]
    f = bloomsimd.Filter(1000, 1e-6)
    f.add_many(present)
    f.save(tmp_path / "py.bsf")
    r = run_cli(cli, "query", "-c", tmp_path / "py.bsf", stdin=b"\n".join(present + absent) + b"\n")
    assert r.returncode == 0 and int(r.stdout) == 1000 + int(f.contains_many(absent).sum())
    r = run_cli(cli, "check", tmp_path / "py.bsf")
    assert r.returncode == 0, r.stderr


# ---- mapped files ---------------------------------------------------------------------

def test_map_is_zero_copy_and_shared(tmp_path, rng):
    """A read-only mapping probes the file's pages: keys a writable mapping
    of the same file inserts afterwards are seen at once, with no reload."""
    bloomsimd.Filter(20000, seed=4).save(tmp_path / "s.bsf")
    reader = bloomsimd.Filter.map(tmp_path / "s.bsf")
    keys = random_u64(rng, 5000)
    assert not reader.contains_many(keys).any()
    with bloomsimd.Filter.map(tmp_path / "s.bsf", writable=True) as w:
        w.add_many(keys)
        w.add("late")
        assert reader.contains_many(keys).all() and "late" in reader
        w.sync()
    # the same bits (the file's header keeps the DIRTY mark of a writable mapping)
    assert reader.to_bytes()[4096:] == (tmp_path / "s.bsf").read_bytes()[4096:]
    assert reader.info.memory_bytes == bloomsimd.Filter.load(tmp_path / "s.bsf").info.memory_bytes
    reader.close()


def test_map_outlives_its_path(tmp_path, rng):
    keys = random_u64(rng, 2000)
    f = bloomsimd.Filter(2000)
    f.add_many(keys)
    f.save(tmp_path / "gone.bsf")
    m = bloomsimd.Filter.map(tmp_path / "gone.bsf")
    os.unlink(tmp_path / "gone.bsf")
    assert m.contains_many(keys).all() and m.to_bytes() == f.to_bytes()
    g = pickle.loads(pickle.dumps(m))  # a heap filter from the mapping's bytes
    assert g.contains_many(keys).all()
    g.add(1)  # writable, unlike m
    m.close()


@pytest.mark.parametrize("kind", [dict(growth=2), dict(generations=3), dict(layout="split256")])
def test_map_every_kind(tmp_path, rng, kind):
    keys = random_u64(rng, 3000)
    f = bloomsimd.Filter(1000, **kind)
    f.add_new_many(keys)
    f.save(tmp_path / "k.bsf")
    with bloomsimd.Filter.map(tmp_path / "k.bsf") as m:
        assert m.info == f.info and m.contains_many(keys).all()
        with pytest.raises(bloomsimd.ReadOnlyError):
            m.add_many(keys[:10])
        if "generations" in kind:
            with pytest.raises(bloomsimd.ReadOnlyError):
                m.rotate()


def test_writable_map_of_a_scalable_filter_cannot_grow(tmp_path, rng):
    bloomsimd.Filter(100, growth=2).save(tmp_path / "g.bsf")
    with bloomsimd.Filter.map(tmp_path / "g.bsf", writable=True) as w:
        with pytest.raises(bloomsimd.ReadOnlyError):
            w.add_new_many(random_u64(rng, 10000))
        assert w.info.layers == 1


@pytest.mark.parametrize("content", [b"", b"\x89BSIMD\r\n", None])
def test_map_refuses_what_is_not_a_filter(tmp_path, content):
    path = tmp_path / "x.bsf"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises((bloomsimd.CorruptError, bloomsimd.SystemCallError)) as e:
        bloomsimd.Filter.map(path)
    assert e.value.detail


def test_map_arguments(tmp_path):
    bloomsimd.Filter(100).save(tmp_path / "a.bsf")
    with pytest.raises(TypeError):
        bloomsimd.Filter.map(tmp_path / "a.bsf", True)  # writable is keyword-only
    with pytest.raises(TypeError):
        bloomsimd.Filter.map(5.5)
    with pytest.raises(bloomsimd.KernelUnavailableError):
        bloomsimd.Filter.map(tmp_path / "a.bsf", kernel="avx3")
    m = bloomsimd.Filter.map(tmp_path / "a.bsf", concurrent=True)
    assert m.info.concurrent

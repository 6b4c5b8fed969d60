"""Every call against the C library: the same keys and seed give the same
filter bytes as a C program inserting them one at a time, and every lookup
answers as C answers on the same file."""
import numpy as np
import pytest

import bloomsimd
from conftest import c_build, c_query, random_bytes_keys, random_u64


# Every kernel against C on the default kernel: the layout is named (kernels
# differ in their default); split256 is test_split256_bytes_equal_c below.
@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1])
def test_u64_batch_bytes_equal_c(c_reference, tmp_path, rng, kernel, seed):
    keys = random_u64(rng, 5000)
    path = c_build(c_reference, tmp_path, keys, capacity=10000, fpr=0.01, seed=seed, layout=2)
    f = bloomsimd.Filter(10000, 0.01, seed=seed, kernel=kernel, layout="block512")
    f.add_many(keys)
    assert f.to_bytes() == path.read_bytes()
    assert f.info.kernel == kernel


def test_u64_single_keys_bytes_equal_c(c_reference, tmp_path, rng):
    keys = random_u64(rng, 3000)
    path = c_build(c_reference, tmp_path, keys, capacity=3000, fpr=0.001, seed=7)
    f = bloomsimd.Filter(3000, 0.001, seed=7)
    for k in keys.tolist():
        f.add(k)
    assert f.to_bytes() == path.read_bytes()


def test_int64_array_is_the_same_keys(c_reference, tmp_path, rng):
    keys = random_u64(rng, 2000)
    path = c_build(c_reference, tmp_path, keys, capacity=2000, seed=3)
    f = bloomsimd.Filter(2000, seed=3)
    f.add_many(keys.view(np.int64))
    assert f.to_bytes() == path.read_bytes()
    g = bloomsimd.Filter(2000, seed=3)
    for k in keys.view(np.int64).tolist():  # negative ints: two's complement
        g.add(k)
    assert g.to_bytes() == path.read_bytes()


@pytest.mark.parametrize("form", ["list-bytes", "list-str", "offsets32", "offsets64", "single"])
def test_byte_keys_bytes_equal_c(c_reference, tmp_path, rng, kernel, form):
    keys = random_bytes_keys(rng, 3000, 0, 70)
    if form == "list-str":
        keys = [k.hex() for k in keys]  # str keys hash as UTF-8
    path = c_build(c_reference, tmp_path, keys, capacity=6000, fpr=0.01, seed=11, layout=2)
    f = bloomsimd.Filter(6000, 0.01, seed=11, kernel=kernel, layout="block512")
    if form.startswith("list"):
        f.add_many(keys)
    elif form == "single":
        for k in keys:
            f.add(k)
    else:
        data = b"".join(keys)
        offsets = np.cumsum([0] + [len(k) for k in keys]).astype(np.int32 if form == "offsets32" else np.int64)
        f.add_many((data, offsets))
    assert f.to_bytes() == path.read_bytes()


def test_fixed_width_bytes_equal_c(c_reference, tmp_path, rng):
    raw = rng.integers(0, 256, (1000, 16), dtype=np.uint8)
    keys = [bytes(r) for r in raw]
    path = c_build(c_reference, tmp_path, keys, capacity=1000, seed=5)
    for form in (raw, raw.view("S16").ravel(), (raw.tobytes(), 16)):
        f = bloomsimd.Filter(1000, seed=5)
        if isinstance(form, tuple):
            f.add_many(form[0], width=form[1])
        else:
            f.add_many(form)
        assert f.to_bytes() == path.read_bytes()


@pytest.mark.parametrize("options", [dict(k=3), dict(k=16), dict(bits=1 << 20), dict(fpr=1e-6)])
def test_geometry_options_equal_c(c_reference, tmp_path, rng, options):
    keys = random_u64(rng, 4000)
    path = c_build(c_reference, tmp_path, keys, capacity=4000, **options)
    f = bloomsimd.Filter(4000, **options)
    f.add_many(keys)
    assert f.to_bytes() == path.read_bytes()


def test_add_new_counts_as_c(c_reference, tmp_path, rng):
    keys = np.concatenate([random_u64(rng, 3000)] * 2)  # every key twice
    path = c_build(c_reference, tmp_path, keys, capacity=3000, new=1)
    f = bloomsimd.Filter(3000)
    fresh = f.add_new_many(keys)
    assert fresh[:3000].sum() >= 2990 and not fresh[3000:].any()
    assert f.to_bytes() == path.read_bytes()  # the items counter too
    assert f.info.items == fresh.sum()


def test_scalable_filter_grows_as_c(c_reference, tmp_path, rng):
    keys = random_u64(rng, 20000)
    path = c_build(c_reference, tmp_path, keys, capacity=1000, growth=2, new=1)
    f = bloomsimd.Filter(1000, growth=2)
    f.add_new_many(keys)
    assert f.info.layers > 3
    assert f.to_bytes() == path.read_bytes()


@pytest.mark.parametrize("kind", ["u64", "bytes"])
def test_answers_equal_c(c_reference, tmp_path, rng, kind):
    """Lookups of present and absent keys (false positives included) answer as C."""
    if kind == "u64":
        keys, probes = random_u64(rng, 2000), random_u64(rng, 20000)
        probes[:2000] = keys
    else:
        keys, probes = random_bytes_keys(rng, 2000), random_bytes_keys(rng, 20000)
        probes[:2000] = keys
    path = c_build(c_reference, tmp_path, keys, capacity=2000, fpr=0.05)
    expected = c_query(c_reference, tmp_path, path, probes)
    assert expected[:2000].all() and 0 < expected[2000:].sum() < 18000 * 0.1  # some false positives
    for load in (bloomsimd.Filter.load, bloomsimd.Filter.map):
        f = load(path)
        assert np.array_equal(f.contains_many(probes), expected)
        assert [p in f for p in (probes.tolist() if kind == "u64" else probes)] == expected.tolist()
        assert np.array_equal(f.select(probes), np.flatnonzero(expected).astype(np.uint32))
        f.close()


def test_python_file_answers_in_c(c_reference, tmp_path, rng):
    keys = random_bytes_keys(rng, 3000)
    f = bloomsimd.Filter(3000, seed=99)
    f.add_many(keys)
    f.save(tmp_path / "py.bsf")
    assert c_query(c_reference, tmp_path, tmp_path / "py.bsf", keys).all()


@pytest.mark.parametrize("form", ["u64", "bytes", "single"])
def test_split256_bytes_equal_c(c_reference, tmp_path, rng, kernel, form):
    """The second layout, every kernel, batch and single-key calls."""
    keys = random_u64(rng, 4000) if form == "u64" else random_bytes_keys(rng, 4000, 0, 50)
    path = c_build(c_reference, tmp_path, keys, capacity=4000, fpr=0.01, seed=13, layout=3)
    f = bloomsimd.Filter(4000, 0.01, seed=13, layout="split256", kernel=kernel)
    if form == "single":
        for k in keys:
            f.add(k)
    else:
        f.add_many(keys)
    assert f.info.layout == "split256"
    assert f.to_bytes() == path.read_bytes()
    probes = random_bytes_keys(rng, 5000) if form != "u64" else random_u64(rng, 5000)
    probes[:1000] = keys[:1000]
    assert np.array_equal(f.contains_many(probes), c_query(c_reference, tmp_path, path, probes))


def test_concurrent_and_window_bytes_equal_c(c_reference, tmp_path, rng):
    keys = random_u64(rng, 3000)
    path = c_build(c_reference, tmp_path, keys, capacity=3000, concurrent=1)
    f = bloomsimd.Filter(3000, concurrent=True)
    f.add_many(keys)
    assert f.info.concurrent and f.to_bytes() == path.read_bytes()  # the flag is saved too
    path = c_build(c_reference, tmp_path, keys, capacity=1000, generations=4, new=1)
    w = bloomsimd.Filter(1000, generations=4)
    w.add_new_many(keys)
    # the directory records when each generation started: compare the payloads
    ours, theirs = w.to_bytes(), path.read_bytes()
    start = int.from_bytes(theirs[12:16], "little")  # payload_offset (docs/FORMAT.md)
    assert len(ours) == len(theirs) and start >= 128 + 64 * 4
    assert ours[start:] == theirs[start:] and any(theirs[start:])
    assert w.info == bloomsimd.Filter.load(path).info


def test_c_file_mapped_answers_as_c(c_reference, tmp_path, rng):
    """A file C wrote, mapped: single keys of every type and batches answer as C."""
    words = [f"user-{i}" for i in range(3000)]
    path = c_build(c_reference, tmp_path, [w.encode() for w in words], capacity=3000, fpr=0.02)
    probes = words[::2] + [f"other-{i}" for i in range(3000)]
    expected = c_query(c_reference, tmp_path, path, [p.encode() for p in probes])
    with bloomsimd.Filter.map(path) as m:
        assert [p in m for p in probes] == expected.tolist()
        assert [bytearray(p.encode()) in m for p in probes[:500]] == expected[:500].tolist()
        assert np.array_equal(m.contains_many(probes), expected)
        assert np.array_equal(m.contains_many(np.array([p.encode() for p in probes], dtype=object)), expected)

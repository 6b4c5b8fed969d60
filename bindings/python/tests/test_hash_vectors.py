"""tests/fixtures/hash_vectors.txt, the answers every implementation of the 64-bit-key probe must
give (written by tests/fixtures/gen_hash_vectors.py from kernels/layout.h, independently of the
library), through the module's own calls on filters made with u64_hash='xxh3' and 'mum'. The module
has no hash or probe of its own (every key goes to the C library), so the rows are checked on what
a filter does with a key: the bits `add` sets, read back from `to_bytes()` (docs/FORMAT.md: the
payload starts at offset 4096).
"""
from pathlib import Path

import pytest

import bloomsimd

# beside this file in an sdist (setup.py copies it there); in a checkout, at the top
HERE = Path(__file__).resolve().parent
VECTORS = next((p for p in (HERE / "fixtures" / "hash_vectors.txt",
                            HERE.parents[2] / "tests" / "fixtures" / "hash_vectors.txt") if p.exists()),
               HERE.parents[2] / "tests" / "fixtures" / "hash_vectors.txt")
HASHES = {1: "xxh3", 3: "mum"}
LAYOUTS = {2: ("block512", 64), 3: ("split256", 32)}
PAYLOAD = 4096
# kernels/layout_split256.h section 3 (Parquet's salts): the test's own copy of the specification,
# to turn a hash row into the bits a split256 filter must set for the key
SPLIT256_SALTS = [0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31]


def rows(kind):
    out = []
    for line in VECTORS.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == kind:
            out.append(fields)
    return out


def set_bits(f, nblocks, block_bytes):
    """The (block, bit-in-block) pairs set in f's bit array."""
    data = f.to_bytes()
    assert len(data) >= PAYLOAD + nblocks * block_bytes
    payload = int.from_bytes(data[PAYLOAD:PAYLOAD + nblocks * block_bytes], "little")
    out = set()
    while payload:
        low = payload & -payload
        bit = low.bit_length() - 1
        out.add((bit // (block_bytes * 8), bit % (block_bytes * 8)))
        payload ^= low
    return out


def test_file_has_both_hashes_and_layouts():
    hashes, probes = rows("hash"), rows("probe")
    assert {int(r[1]) for r in hashes} == {1, 3} and len(hashes) >= 120
    assert {int(r[1]) for r in probes} == {2, 3} and {int(r[3]) for r in probes} == {1, 3} and len(probes) >= 40


@pytest.mark.parametrize("concurrent", [False, True])
def test_probe_vectors(concurrent):
    """A key added to an empty filter of the row's shape sets exactly the row's bits in the row's
    block; the filter then finds it."""
    for r in rows("probe"):
        layout, block_bytes = LAYOUTS[int(r[1])]
        k, seed, nblocks, key, block = int(r[2]), int(r[4], 16), int(r[5]), int(r[6], 16), int(r[7])
        f = bloomsimd.Filter(bits=nblocks * block_bytes * 8, k=k, layout=layout, seed=seed,
                             u64_hash=HASHES[int(r[3])], concurrent=concurrent)
        assert f.info.blocks == nblocks and f.info.u64_hash == HASHES[int(r[3])]
        assert key not in f
        f.add(key)
        want = {(block, int(b)) for b in r[8].split(",")}
        assert set_bits(f, nblocks, block_bytes) == want, " ".join(r)
        assert key in f
        f.close()


def test_hash_vectors():
    """Each hash row h, seen through a split256 filter of 4099 blocks: the key's block is
    ((h >> 32) * 4099) >> 32 and its bits ((h mod 2^32) * salt_w mod 2^32) >> 27, w = 0..7."""
    nblocks = 4099
    for r in rows("hash"):
        seed, key, h = int(r[2], 16), int(r[3], 16), int(r[4], 16)
        f = bloomsimd.Filter(bits=nblocks * 256, layout="split256", seed=seed, u64_hash=HASHES[int(r[1])])
        f.add(key)
        lo = h & 0xFFFFFFFF
        want = {((h >> 32) * nblocks >> 32, 32 * w + (((lo * s) & 0xFFFFFFFF) >> 27))
                for w, s in enumerate(SPLIT256_SALTS)}
        assert set_bits(f, nblocks, 32) == want, " ".join(r)
        f.close()


def test_u64_hash_names():
    assert bloomsimd.Filter(100).info.u64_hash == "xxh3"
    assert bloomsimd.Filter(100, u64_hash="mum").info.u64_hash == "mum"
    assert bloomsimd.Filter.size_for(100, u64_hash="mum").blocks == bloomsimd.Filter.size_for(100).blocks
    for bad in ("XXH3", "murmur", 3, b"mum"):
        with pytest.raises(ValueError):
            bloomsimd.Filter(100, u64_hash=bad)
    # a mum filter keeps its hash through a file, and an int key is not its 8 bytes there
    f = bloomsimd.Filter(1000, seed=5, u64_hash="mum")
    f.add(12345)
    g = bloomsimd.Filter.from_bytes(f.to_bytes())
    assert g.info.u64_hash == "mum" and 12345 in g
    assert (12345).to_bytes(8, "little") not in g

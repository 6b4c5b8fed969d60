"""U64HASH: filters whose 64-bit keys hash with mum. BF.RESERVE and BF.INSERT make them;
every other way a filter arrives (RDB, DUMP/RESTORE, COPY, LOADCHUNK, BFX.IMPORT,
replication) keeps the hash it carries; implicit creation gets the default, XXH3."""
import struct
import subprocess

import pytest

from conftest import Err, wait_for
from test_commands import arity
from test_export_import import cli  # noqa: F401 (the fixture)
from test_persistence import dump
from test_replication import pair, synced  # noqa: F401 (pair: the fixture)

KEYS = list(range(5000))
ABSENT = list(range(1 << 40, (1 << 40) + 5000))


def blob(keys):
    return struct.pack(f"<{len(keys)}Q", *keys)


def bfx_info(c, key):
    flat = c.execute_command("BFX.INFO", key)
    text = lambda v: v.decode() if isinstance(v, bytes) else v
    return {text(flat[i]): text(flat[i + 1]) for i in range(0, len(flat), 2)}


def found(c, key, keys):
    """How many of keys BFX.MEXISTS64 reports present."""
    bitmap = c.execute_command("BFX.MEXISTS64", key, blob(keys))
    return sum(bin(b).count("1") for b in bitmap)


def test_reserve_and_insert_choose_the_hash(r):
    assert r.execute_command("BF.RESERVE", "mum", "0.01", "1000", "U64HASH", "MUM") == b"OK"
    assert r.execute_command("BF.RESERVE", "xxh3", "0.01", "1000", "U64HASH", "xxh3") == b"OK"
    assert r.execute_command("BF.RESERVE", "plain", "0.01", "1000") == b"OK"
    assert r.execute_command("BF.RESERVE", "ns", "0.01", "1000", "U64HASH", "mum", "NONSCALING") == b"OK"
    assert r.execute_command("BF.RESERVE", "ex", "0.01", "1000", "EXPANSION", "4", "U64HASH", "Mum") == b"OK"
    assert r.execute_command("BF.INSERT", "ins", "CAPACITY", "50", "U64HASH", "MUM", "ITEMS", "a") == [1]
    # implicit creation: the default hash
    r.execute_command("BF.ADD", "added", "a")
    r.execute_command("BFX.MADD64", "added64", blob([1, 2]))
    r.execute_command("BF.INSERT", "inserted", "ITEMS", "a")
    want = {"mum": "mum", "xxh3": "xxh3", "plain": "xxh3", "ns": "mum", "ex": "mum", "ins": "mum",
            "added": "xxh3", "added64": "xxh3", "inserted": "xxh3"}
    assert {k: bfx_info(r, k)["u64 hash"] for k in want} == want
    assert bfx_info(r, "ns")["expansion"] == 0 and bfx_info(r, "ex")["expansion"] == 4
    # BF.INSERT's U64HASH, like its CAPACITY, applies only to a key it creates
    r.execute_command("BF.INSERT", "plain", "U64HASH", "MUM", "ITEMS", "b")
    assert bfx_info(r, "plain")["u64 hash"] == "xxh3"


@pytest.mark.parametrize("args,reply", [
    (("BF.RESERVE", "bad", "0.01", "100", "U64HASH", "XXH64"), "ERR bad u64hash (MUM or XXH3)"),
    (("BF.RESERVE", "bad", "0.01", "100", "U64HASH"), "ERR no u64hash"),
    (("BF.RESERVE", "bad", "0.01", "100", "EXPANSION", "2", "U64HASH", "MUM", "x", "y"), arity("bf.reserve")),
    (("BF.RESERVE", "bad", "2", "100", "U64HASH", "XXH64"), "ERR (0 < error rate range < 1) "),
    (("BF.INSERT", "bad", "U64HASH", "fast", "ITEMS", "a"), "Bad u64hash (MUM or XXH3)"),
    (("BF.INSERT", "bad", "CAPACITY", "10", "U64HASH"), arity("bf.insert")),
    (("BF.INSERT", "bad", "UNKNOWN", "MUM", "ITEMS", "a"), "Unknown argument received"),
])
def test_a_bad_u64hash_is_refused_and_creates_nothing(raw, args, reply):
    assert raw(*args) == Err(reply)
    assert raw("EXISTS", "bad") == 0


def test_each_hash_finds_its_own_keys_with_other_bits(r):
    for h in ("MUM", "XXH3"):
        r.execute_command("BF.RESERVE", h, "0.01", "10000", "NONSCALING", "U64HASH", h)
        r.execute_command("BFX.MADD64", h, blob(KEYS))
        assert found(r, h, KEYS) == len(KEYS)
        assert found(r, h, ABSENT) < 150  # 1%: ~50 expected
    assert r.execute_command("BFX.EXPORT", "MUM") != r.execute_command("BFX.EXPORT", "XXH3")


def test_byte_items_in_a_mum_filter(r):
    """Byte items hash with XXH3 in every filter: BF.* work unchanged in a mum filter."""
    r.execute_command("BF.RESERVE", "m", "0.01", "10000", "U64HASH", "MUM")
    words = [f"w:{i}" for i in range(3000)]
    assert r.execute_command("BF.MADD", "m", *words) == [1] * 3000
    assert all(r.execute_command("BF.MEXISTS", "m", *words))
    assert sum(r.execute_command("BF.MEXISTS", "m", *[f"absent:{i}" for i in range(3000)])) < 100
    assert r.execute_command("BF.CARD", "m") == 3000


def test_8_bytes_are_the_u64_key_only_with_xxh3(r):
    """The README's promise, BF.ADD of a key's 8 little-endian bytes == BFX.MADD64 of the
    key, holds for XXH3 filters; in a mum filter they are two different items."""
    keys = KEYS[:1000]
    as_bytes = [struct.pack("<Q", k) for k in keys]
    for h in ("XXH3", "MUM"):
        r.execute_command("BF.RESERVE", f"u64:{h}", "0.0001", "2000", "NONSCALING", "U64HASH", h)
        r.execute_command("BFX.MADD64", f"u64:{h}", blob(keys))
        r.execute_command("BF.RESERVE", f"bytes:{h}", "0.0001", "2000", "NONSCALING", "U64HASH", h)
        r.execute_command("BF.MADD", f"bytes:{h}", *as_bytes)
    assert all(r.execute_command("BF.MEXISTS", "u64:XXH3", *as_bytes))
    assert found(r, "bytes:XXH3", keys) == len(keys)
    # mum: only false positives (0.01%: ~0.1 expected of 1000)
    assert sum(r.execute_command("BF.MEXISTS", "u64:MUM", *as_bytes)) <= 3
    assert found(r, "bytes:MUM", keys) <= 3


def test_a_scaling_mum_filter_grows_with_its_hash(r):
    r.execute_command("BF.RESERVE", "g", "0.01", "100", "EXPANSION", "2", "U64HASH", "MUM")
    r.execute_command("BFX.MADD64", "g", blob(KEYS))
    info = bfx_info(r, "g")
    assert info["layers"] > 1 and info["u64 hash"] == "mum"
    assert found(r, "g", KEYS) == len(KEYS)
    assert found(r, "g", ABSENT) < 150


def test_merge_needs_the_same_hash(raw):
    raw("BF.RESERVE", "m", "0.01", "1000", "NONSCALING", "U64HASH", "MUM")
    raw("BF.RESERVE", "x", "0.01", "1000", "NONSCALING")
    raw("BF.RESERVE", "m2", "0.01", "1000", "NONSCALING", "U64HASH", "MUM")
    assert raw("BFX.MERGE", "m", "x") == Err(
        "ERR filters are not compatible (capacity, error rate, expansion, layers and u64 hash must match)")
    raw("BFX.MADD64", "m2", blob(KEYS[:500]))
    assert raw("BFX.MERGE", "m", "m2") == "OK"
    bitmap = raw("BFX.MEXISTS64", "m", blob(KEYS[:500]))
    assert bitmap == b"\xff" * (500 // 8) + b"\x0f"


def mum_filters(c):
    """A plain and a scaling mum filter with 64-bit keys in them; what clients see of them."""
    c.execute_command("BF.RESERVE", "plain", "0.01", "10000", "NONSCALING", "U64HASH", "MUM")
    c.execute_command("BF.RESERVE", "scaling", "0.01", "500", "EXPANSION", "2", "U64HASH", "MUM")
    for key in ("plain", "scaling"):
        c.execute_command("BFX.MADD64", key, blob(KEYS))
    return seen(c, ("plain", "scaling"))


def seen(c, keys):
    return {k: (bfx_info(c, k), c.execute_command("BFX.MEXISTS64", k, blob(KEYS + ABSENT)),
                c.execute_command("BFX.EXPORT", k)) for k in keys}


@pytest.mark.usefixtures("needs_persistence")
def test_debug_reload_keeps_the_hash(r):
    before = mum_filters(r)
    assert r.execute_command("DEBUG", "RELOAD") == b"OK"
    assert seen(r, before) == before
    assert {k: v[0]["u64 hash"] for k, v in before.items()} == {"plain": "mum", "scaling": "mum"}


@pytest.mark.usefixtures("needs_persistence")
def test_restore_copy_and_loadchunk_keep_the_hash(r):
    before = mum_filters(r)
    r.restore("restored", 0, r.dump("scaling"))
    r.copy("plain", "copied")
    for it, chunk in dump(r, "scaling"):
        assert r.execute_command("BF.LOADCHUNK", "chunked", it, chunk) == b"OK"
    after = seen(r, ("restored", "copied", "chunked"))
    assert after["restored"] == before["scaling"] == after["chunked"]
    assert after["copied"] == before["plain"]


def test_export_import_keeps_the_hash(r):
    before = mum_filters(r)
    for key in ("plain", "scaling"):
        assert r.execute_command("BFX.IMPORT", f"{key}:copy", r.execute_command("BFX.EXPORT", key)) == b"OK"
        assert seen(r, [f"{key}:copy"])[f"{key}:copy"] == before[key]


def test_a_mum_file_of_the_command_line_served_from_redis_and_back(r, cli, tmp_path):
    path = tmp_path / "ids.bsf"
    subprocess.run([cli, "create", str(path), "--capacity", "10000", "--u64-hash", "mum"], check=True)
    ids = "".join(f"{k}\n" for k in KEYS).encode()
    subprocess.run([cli, "add", "--u64", str(path)], input=ids, check=True)
    assert r.execute_command("BFX.IMPORT", "ids", path.read_bytes()) == b"OK"
    assert bfx_info(r, "ids")["u64 hash"] == "mum"
    assert found(r, "ids", KEYS) == len(KEYS)
    more = list(range(10_000, 12_000))
    r.execute_command("BFX.MADD64", "ids", blob(more))
    back = tmp_path / "back.bsf"
    back.write_bytes(r.execute_command("BFX.EXPORT", "ids"))
    info = subprocess.run([cli, "info", str(back)], stdout=subprocess.PIPE, check=True).stdout.decode()
    assert "(id 3)" in info
    query = subprocess.run([cli, "query", "--u64", "-c", str(back)], input=ids + "".join(
        f"{k}\n" for k in more).encode(), stdout=subprocess.PIPE, check=True)
    assert query.stdout == b"7000\n"


def test_a_replica_keeps_the_hash(pair):
    p, rc = pair
    p.execute_command("BF.RESERVE", "m", "0.01", "1000", "U64HASH", "MUM")
    p.execute_command("BF.INSERT", "i", "U64HASH", "MUM", "ITEMS", "a")
    p.execute_command("BFX.MADD64", "m", blob(KEYS))
    wait_for(synced(p, rc), what="replica caught up")
    assert seen(rc, ("m", "i")) == seen(p, ("m", "i"))
    assert bfx_info(rc, "m")["u64 hash"] == "mum" and bfx_info(rc, "i")["u64 hash"] == "mum"

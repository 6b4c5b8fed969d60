"""BFX.EXPORT / BFX.IMPORT: a filter as the library's portable file, the bytes every
binding and the `bloomsimd` command read and write. Round trips inside Redis, files made
by the command line served from Redis and the other way, every refusal (nothing changes),
memory accounting and replication."""
import os
import subprocess

import pytest
import redis

from conftest import Err, madd_many, wait_for
from test_persistence import dump
from test_persistence import snapshot as seen_by_clients
from test_replication import pair, synced  # noqa: F401 (pair: the fixture)

PRESENT = [f"k:{i}" for i in range(3000)]
ABSENT = [f"absent:{i}" for i in range(3000)]
PROBES = PRESENT[::7] + ABSENT


@pytest.fixture(scope="module")
def cli(pytestconfig, module_path):
    """The `bloomsimd` command of the same build (--cli, or next to the module's folder)."""
    path = pytestconfig.getoption("--cli") or os.path.join(os.path.dirname(module_path), "..", "cli", "bloomsimd")
    path = os.path.abspath(path)
    if not os.access(path, os.X_OK):
        pytest.skip(f"no bloomsimd command at {path} (pass --cli)")
    return path


def snapshot(c, key):
    """test_persistence's view (BF.INFO, BF.CARD, BF.MEXISTS, SCANDUMP) and BFX.INFO."""
    return seen_by_clients(c, key, PROBES), c.execute_command("BFX.INFO", key)


@pytest.mark.parametrize("reserve", [
    ("0.01", "5000", "NONSCALING"),
    ("0.001", "200", "EXPANSION", "2"),  # grows to five layers
])
def test_export_then_import_is_the_same_filter(r, reserve):
    r.execute_command("BF.RESERVE", "src", *reserve)
    madd_many(r, "src", PRESENT)
    data = r.execute_command("BFX.EXPORT", "src")
    assert data[:8] == b"\x89BSIMD\r\n"
    assert r.execute_command("BFX.IMPORT", "dst", data) == b"OK"
    assert snapshot(r, "dst") == snapshot(r, "src")
    assert all(r.execute_command("BF.MEXISTS", "dst", *PRESENT))
    assert r.execute_command("BFX.EXPORT", "dst") == data
    # the copy lives on by itself
    r.execute_command("BF.ADD", "dst", "new")
    assert r.execute_command("BF.EXISTS", "dst", "new") == 1
    assert r.execute_command("BFX.EXPORT", "src") == data


def test_a_command_line_file_served_from_redis_and_back(r, cli, tmp_path):
    lines = "".join(f"{k}\n" for k in PRESENT[:2000]).encode()
    path = tmp_path / "seen.bsf"
    subprocess.run([cli, "create", str(path), "--capacity", "4000", "--fpr", "0.001"], check=True)
    subprocess.run([cli, "add", str(path)], input=lines, check=True)
    assert r.execute_command("BFX.IMPORT", "seen", path.read_bytes()) == b"OK"
    # a line added by the command is the item BF.EXISTS asks about
    assert all(r.execute_command("BF.MEXISTS", "seen", *PRESENT[:2000]))
    assert sum(r.execute_command("BF.MEXISTS", "seen", *ABSENT)) < 30  # 0.1%: ~3 expected
    # items added in Redis, exported, found by the command line
    madd_many(r, "seen", PRESENT[2000:])
    back = tmp_path / "back.bsf"
    back.write_bytes(r.execute_command("BFX.EXPORT", "seen"))
    subprocess.run([cli, "check", str(back)], check=True, stdout=subprocess.DEVNULL)
    query = subprocess.run([cli, "query", str(back)], input="".join(f"{k}\n" for k in PRESENT).encode(),
                           stdout=subprocess.PIPE, check=True)
    assert query.stdout.decode().split("\n")[:-1] == PRESENT


def test_a_bad_payload_is_refused_and_creates_nothing(raw):
    raw("BF.RESERVE", "src", "0.01", "1000")
    raw("BF.MADD", "src", "a", "b", "c")
    data = raw("BFX.EXPORT", "src")
    flipped = bytearray(data)
    flipped[-100] ^= 0x40  # inside the bit array: the checksum catches it
    scandump = b"".join(chunk for _, chunk in [raw("BF.SCANDUMP", "src", 0), raw("BF.SCANDUMP", "src", 1)])
    for bad in (b"", b"hello", data[:-1], data + b"\0", bytes(flipped), scandump):
        reply = raw("BFX.IMPORT", "dst", bad)
        assert isinstance(reply, Err) and reply.startswith("ERR received bad data ("), (len(bad), reply)
        assert raw("EXISTS", "dst") == 0
    # and leaves an existing filter as it was, REPLACE or not
    for extra in ((), ("REPLACE",)):
        assert isinstance(raw("BFX.IMPORT", "src", data[:100], *extra), Err)
        assert raw("BFX.EXPORT", "src") == data


def test_existing_keys_need_replace_and_other_types_stay(raw):
    raw("BF.RESERVE", "a", "0.01", "1000")
    raw("BF.ADD", "a", "in-a")
    raw("BF.RESERVE", "b", "0.001", "500", "NONSCALING")
    raw("BF.ADD", "b", "in-b")
    a, b = raw("BFX.EXPORT", "a"), raw("BFX.EXPORT", "b")
    assert raw("BFX.IMPORT", "a", b) == Err("ERR item exists")
    assert raw("BFX.EXPORT", "a") == a
    assert raw("BFX.IMPORT", "a", b, "replace") == "OK"
    assert raw("BFX.EXPORT", "a") == b
    assert raw("BF.EXISTS", "a", "in-b") == 1 and raw("BF.EXISTS", "a", "in-a") == 0
    raw("SET", "s", "text")
    wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value"
    for extra in ((), ("REPLACE",)):
        assert raw("BFX.IMPORT", "s", a, *extra) == Err(wrongtype)
    assert raw("GET", "s") == b"text"
    assert raw("BFX.EXPORT", "s") == Err(wrongtype)
    assert raw("BFX.EXPORT", "nothing") == Err("ERR not found")
    assert raw("BFX.IMPORT", "c", a, "REPLACE", "x") == Err("ERR wrong number of arguments for 'bfx.import' command")
    assert raw("BFX.IMPORT", "c", a, "REPLACED") == Err("ERR syntax error")
    assert raw("BFX.IMPORT", "c") == Err("ERR wrong number of arguments for 'bfx.import' command")
    assert raw("BFX.EXPORT", "a", "b") == Err("ERR wrong number of arguments for 'bfx.export' command")
    assert raw("EXISTS", "c") == 0


def test_an_imported_filter_is_counted_in_used_memory(r):
    r.execute_command("BF.RESERVE", "big", "0.001", "1000000", "NONSCALING")
    data = r.execute_command("BFX.EXPORT", "big")
    r.delete("big")
    r.execute_command("BFX.IMPORT", "big", data)
    assert r.memory_usage("big") >= len(data) * 0.9
    # what deleting it gives back (the client's query buffer, which held the
    # payload, is not part of this difference)
    before = r.info("memory")["used_memory"]
    r.delete("big")
    freed = before - r.info("memory")["used_memory"]
    assert len(data) * 0.9 < freed < len(data) * 1.5, (len(data), freed)


def test_import_replicates(pair):
    p, rc = pair
    p.execute_command("BF.RESERVE", "src", "0.01", "300", "EXPANSION", "2")
    madd_many(p, "src", PRESENT)
    data = p.execute_command("BFX.EXPORT", "src")
    p.execute_command("BFX.IMPORT", "dst", data)
    with pytest.raises(redis.ResponseError, match="received bad data"):
        p.execute_command("BFX.IMPORT", "src", data[:50])  # refused: nothing to replicate
    wait_for(synced(p, rc), what="replica caught up")
    assert rc.execute_command("BFX.EXPORT", "dst") == data
    assert snapshot(rc, "dst") == snapshot(p, "src")


@pytest.mark.parametrize("reserve", [
    ("0.01", "2000000", "NONSCALING"),         # 2.4 MB: three body chunks of 1 MB at most
    ("0.01", "200000", "EXPANSION", "4"),      # grown to two layers, 1.9 MB: a layer crosses a chunk border
])
def test_scandump_chunks_are_the_exported_bytes(r, reserve):
    r.config_set("proto-max-bulk-len", "1mb")
    try:
        r.execute_command("BF.RESERVE", "f", *reserve)
        madd_many(r, "f", PRESENT + [f"more:{i}" for i in range(300000)] if reserve[-1] == "4" else PRESENT)
        chunks = [data for _, data in dump(r, "f")]
        body = b"".join(chunks[1:])  # chunk 1 is the module's own header
        assert len(chunks) >= 3 and max(len(c) for c in chunks) <= 1 << 20
        assert body == r.execute_command("BFX.EXPORT", "f")
    finally:
        r.config_set("proto-max-bulk-len", "512mb")

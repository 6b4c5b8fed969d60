"""Persistence: DEBUG RELOAD, restart from RDB and from AOF, DUMP/RESTORE,
COPY, SCANDUMP/LOADCHUNK (chunk sizes, byte identity, a second server, no
half-built keys), a newer encoding refused cleanly."""
import os
import random

import pytest
import redis

from conftest import Err, Raw, wait_for

needs_persistence = pytest.mark.usefixtures("needs_persistence")


def fill(c, key, n, extra=(), prefix="k"):
    """Creates key with extra reserve args and adds n items; returns (items, answers)."""
    if extra:
        assert c.execute_command("BF.RESERVE", key, *extra) == b"OK"
    items = [f"{prefix}:{i}" for i in range(n)]
    answers = []
    for at in range(0, n, 1000):
        answers += c.execute_command("BF.MADD", key, *items[at:at + 1000])
    return items, answers


def snapshot(c, key, probes):
    """Everything a client can see of a filter."""
    return (c.execute_command("BF.INFO", key), c.execute_command("BF.CARD", key),
            c.execute_command("BF.MEXISTS", key, *probes), dump(c, key))


def dump(c, key):
    chunks, it = [], 0
    while True:
        it, data = c.execute_command("BF.SCANDUMP", key, it)
        if it == 0:
            return chunks
        chunks.append((it, data))


PROBES = [f"k:{i}" for i in range(0, 3000, 7)] + [f"absent:{i}" for i in range(3000)]


def make_filters(c):
    fill(c, "plain", 2000, ("0.01", "5000"))
    fill(c, "nonscaling", 500, ("0.001", "500", "NONSCALING"))
    fill(c, "scaling", 3000, ("0.01", "100", "EXPANSION", "3"))
    c.execute_command("BF.ADD", "default", "x")
    return {k: snapshot(c, k, PROBES) for k in ("plain", "nonscaling", "scaling", "default")}


@needs_persistence
def test_debug_reload_keeps_every_answer(r):
    before = make_filters(r)
    assert r.execute_command("DEBUG", "RELOAD") == b"OK"
    assert {k: snapshot(r, k, PROBES) for k in before} == before
    assert r.type("plain") == b"bloomsimd"


@needs_persistence
def test_restart_from_rdb(make_server):
    s = make_server()
    c = s.client()
    before = make_filters(c)
    assert c.save()
    s.restart()
    c = s.client()
    assert {k: snapshot(c, k, PROBES) for k in before} == before


@needs_persistence
@pytest.mark.parametrize("rewrite", [False, True])
def test_restart_from_aof(make_server, rewrite):
    s = make_server(extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"])
    c = s.client()
    before = make_filters(c)
    if rewrite:  # the rewritten AOF re-creates each filter with BF.LOADCHUNK
        c.bgrewriteaof()
        wait_for(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0
                 and c.info("persistence")["aof_rewrite_scheduled"] == 0, what="AOF rewrite")
        c.execute_command("BF.ADD", "plain", "after-rewrite")
        before["plain"] = snapshot(c, "plain", PROBES)
    s.restart()
    c = s.client()
    assert {k: snapshot(c, k, PROBES) for k in before} == before


@needs_persistence
def test_dump_restore_copy(r):
    fill(r, "bf", 1000, ("0.01", "2000"))
    payload = r.dump("bf")
    r.restore("bf2", 0, payload)
    assert snapshot(r, "bf2", PROBES) == snapshot(r, "bf", PROBES)
    assert r.copy("bf", "bf3")
    assert snapshot(r, "bf3", PROBES) == snapshot(r, "bf", PROBES)
    r.execute_command("BF.ADD", "bf3", "only-in-copy")
    assert r.execute_command("BF.EXISTS", "bf", "only-in-copy") == 0


def test_memory_is_accounted_to_redis(r):
    before = r.info("memory")["used_memory"]
    r.execute_command("BF.RESERVE", "big", "0.01", "1000000")
    usage = r.memory_usage("big")
    size = r.execute_command("BF.INFO", "big", "SIZE")[0]
    assert usage >= size >= 1000000 * 9 // 8
    grown = r.info("memory")["used_memory"] - before
    # the bit array is in used_memory (jemalloc rounds large sizes up by at most 25%)
    assert size <= grown <= size * 1.25 + 65536
    r.delete("big")
    assert r.info("memory")["used_memory"] - before < size // 10  # and leaves it when freed


def test_digest_follows_content(r):
    r.execute_command("BF.RESERVE", "a", "0.01", "100", "NONSCALING")
    r.execute_command("BF.ADD", "a", "x")
    d1 = r.execute_command("DEBUG", "DIGEST-VALUE", "a")
    r.execute_command("BF.ADD", "a", "y")
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "a") != d1


# ---- SCANDUMP / LOADCHUNK -----------------------------------------------------------------------


@needs_persistence
def test_scandump_roundtrip_new_key_byte_identical(r):
    fill(r, "bf", 3000, ("0.01", "100", "EXPANSION", "2"))
    chunks = dump(r, "bf")
    assert chunks[0][0] == 1
    for it, data in chunks:
        assert r.execute_command("BF.LOADCHUNK", "copy", it, data) == b"OK"
    assert dump(r, "copy") == chunks
    assert snapshot(r, "copy", PROBES)[:3] == snapshot(r, "bf", PROBES)[:3]


@needs_persistence
def test_scandump_into_second_server(r, make_server):
    fill(r, "bf", 2000, ("0.001", "2000"))
    other = make_server().client()
    for it, data in dump(r, "bf"):
        other.execute_command("BF.LOADCHUNK", "bf", it, data)
    assert snapshot(other, "bf", PROBES) == snapshot(r, "bf", PROBES)


def test_scandump_chunks_fit_proto_max_bulk_len(r):
    r.config_set("proto-max-bulk-len", "1mb")
    try:
        r.execute_command("BF.RESERVE", "big", "0.001", "3000000", "NONSCALING")  # ~5.5 MB of bits
        fill(r, "big", 3000)
        chunks = dump(r, "big")
        assert len(chunks) >= 6
        assert max(len(d) for _, d in chunks) <= 1 << 20
        for it, data in chunks:
            r.execute_command("BF.LOADCHUNK", "big2", it, data)
        assert dump(r, "big2") == chunks
    finally:
        r.config_set("proto-max-bulk-len", "512mb")


def test_scandump_errors_and_any_cursor(r):
    r.execute_command("BF.RESERVE", "bf", "0.01", "100", "NONSCALING")
    with pytest.raises(redis.ResponseError, match="wrong number"):
        r.execute_command("BF.SCANDUMP", "bf")
    with pytest.raises(redis.ResponseError, match="Second argument must be numeric"):
        r.execute_command("BF.SCANDUMP", "bf", "str")
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("BF.SCANDUMP", "missing", 0)
    size = r.execute_command("BF.INFO", "bf", "SIZE")[0]
    for it in list(range(0, 300)) + [size, size * 2, 2 ** 62, -1]:
        nxt, data = r.execute_command("BF.SCANDUMP", "bf", it)
        assert (nxt == 0) == (data == b"")


def test_loadchunk_errors_leave_no_key(raw):
    raw("BF.RESERVE", "bf", "0.01", "100", "NONSCALING")
    raw("BF.ADD", "bf", "x")
    chunks = []
    it = 0
    while True:
        it, data = raw("BF.SCANDUMP", "bf", it)
        if it == 0:
            break
        chunks.append((it, data))
    header, (body_it, body) = chunks[0][1], chunks[1]
    assert raw("BF.LOADCHUNK", "n", "str", "x") == Err("ERR Second argument must be numeric")
    assert raw("BF.LOADCHUNK", "n") == Err("ERR wrong number of arguments for 'bf.loadchunk' command")
    assert raw("BF.LOADCHUNK", "n", "0", header) == Err("ERR received bad data")
    assert raw("BF.LOADCHUNK", "n", "-9223372036854775808", "1") == Err("ERR received bad data")
    assert raw("BF.LOADCHUNK", "n", "1", header[:-1]) == Err("ERR received bad data")
    assert raw("BF.LOADCHUNK", "n", body_it, body) == Err("ERR invalid offset - no link found")
    assert raw("BF.LOADCHUNK", "bf", "1", header) == Err("ERR item exists")
    raw("SET", "s", "x")
    assert raw("BF.LOADCHUNK", "s", "1", header) == Err(
        "WRONGTYPE Operation against a key holding the wrong kind of value")
    # a truncated sequence: header and part of the body, never finished
    assert raw("BF.LOADCHUNK", "n", "1", header) == "OK"
    half = len(body) // 2
    assert raw("BF.LOADCHUNK", "n", half + 1, body[:half]) == "OK"
    assert raw("EXISTS", "n") == 0
    overlong = body[half:] + b"xxxxx"
    assert raw("BF.LOADCHUNK", "n", half + len(overlong) + 1, overlong) == Err(
        "ERR invalid chunk - Too big for current filter")
    assert raw("BF.LOADCHUNK", "n", 3, b"yy") == Err("ERR invalid offset - no link found")
    # a corrupted last chunk: the whole payload fails validation, no key
    bad = bytearray(body[half:])
    bad[len(bad) // 2] ^= 0x40
    assert raw("BF.LOADCHUNK", "n", body_it, bytes(bad)) == Err("ERR received bad data")
    assert raw("EXISTS", "n") == 0
    # and the sequence must restart from the header
    assert raw("BF.LOADCHUNK", "n", body_it, body) == Err("ERR invalid offset - no link found")
    assert raw("BF.LOADCHUNK", "n", "1", header) == "OK"
    assert raw("BF.LOADCHUNK", "n", body_it, body) == "OK"
    assert raw("BF.EXISTS", "n", "x") == 1


def test_loadchunk_corrupt_header_redisbloom_offsets(raw):
    """RedisBloom's test_scandump_invalid_header corrupts these header bytes."""
    raw("BF.RESERVE", "bf", "0.01", "5", "NONSCALING")
    _, header = raw("BF.SCANDUMP", "bf", 0)
    assert len(header) == 128
    raw("DEL", "bf")
    for spans in ([range(72, 80)], [range(12, 16)], [range(0, 4)], [range(36, 44), range(0, 8)]):
        arr = bytearray(header)
        for span in spans:
            for i in span:
                arr[i] = 0 if span == range(72, 80) else 255
        assert raw("BF.LOADCHUNK", "bf", 1, bytes(arr)) == Err("ERR received bad data")
    assert raw("EXISTS", "bf") == 0


def test_loadchunk_random_offsets_on_existing_key(r):
    # RedisBloom's own flow test: any reply is one of its three errors, the filter keeps working.
    fill(r, "bf", 3000, ("0.01", "3000", "NONSCALING"))
    size = r.execute_command("BF.INFO", "bf", "SIZE")[0]
    rng = random.Random(7)
    for _ in range(100):
        blob = os.urandom(rng.randint(0, 4096))
        try:
            r.execute_command("BF.LOADCHUNK", "bf", rng.randint(0, size * 2), blob)
        except redis.ResponseError as e:
            assert str(e) in ("invalid offset - no link found", "invalid chunk - Too big for current filter",
                              "received bad data", "item exists")
    assert r.execute_command("BF.ADD", "bf", "x") in (0, 1)
    assert r.execute_command("BF.EXISTS", "bf", "k:5") == 1


def test_newer_encoding_refused(r):
    """A payload from a newer module version is refused, not misread: in our
    header (LOADCHUNK) and in the RDB type's encoding version (RESTORE)."""
    r.execute_command("BF.RESERVE", "bf", "0.01", "100", "NONSCALING")
    r.execute_command("BF.ADD", "bf", "x")
    it, header = r.execute_command("BF.SCANDUMP", "bf", 0)
    newer = bytearray(header)
    newer[8] = 2  # encoding version 2, checksum recomputed so only the version differs
    h = 0xcbf29ce484222325
    for b in newer[:120]:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    newer[120:128] = h.to_bytes(8, "little")
    with pytest.raises(redis.ResponseError, match="received bad data"):
        r.execute_command("BF.LOADCHUNK", "n", 1, bytes(newer))

    from test_fuzz import dump_with_encver
    payload = dump_with_encver(r.dump("bf"), 2)
    with pytest.raises(redis.ResponseError, match="Bad data format"):
        r.restore("n", 0, payload)
    assert r.exists("n") == 0

"""Fuzzed LOADCHUNK and RESTORE payloads: random mutations of a real dump.

The invariant: the server never crashes, every reply is OK or an error, and
a failed restore leaves no key behind. RESTORE payloads get a recomputed
CRC-64 so the mutation reaches the module's loader instead of stopping at
Redis's own checksum.
"""
import os
import random

import pytest
import redis

ROUNDS = int(os.environ.get("BLOOMSIMD_REDIS_FUZZ_ROUNDS", "1500"))

# ---- Redis's DUMP framing: <type><value><rdb version: 2 bytes LE><crc64 Jones: 8 bytes LE> ----

_POLY_REFLECTED = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9, bit-reversed
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY_REFLECTED if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def test_crc64_is_redis_crc64():
    assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA  # the check value in Redis's crc64.c


def reframe(body):
    """body = type byte + value + 2-byte RDB version; appends the CRC."""
    return body + crc64(body).to_bytes(8, "little")


def dump_with_encver(payload, encver):
    """The same DUMP with the module type id's encoding version changed."""
    body = bytearray(payload[:-8])
    assert body[0] == 7 and body[1] == 0x81, "RDB_TYPE_MODULE_2 with a 64-bit module id"
    mid = int.from_bytes(body[2:10], "big")
    body[2:10] = ((mid & ~1023) | encver).to_bytes(8, "big")
    return reframe(bytes(body))


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        if kind == 0 and data:  # flip one bit
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif kind == 1 and data:  # random byte
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 2 and data:  # truncate
            del data[rng.randrange(len(data)):]
        elif kind == 3:  # insert junk
            i = rng.randrange(len(data) + 1)
            data[i:i] = os.urandom(rng.randint(1, 16))
        elif kind == 4 and len(data) > 8:  # overwrite a length-like field with extremes
            i = rng.randrange(len(data) - 8)
            data[i:i + 8] = rng.choice([b"\xff" * 8, b"\x00" * 8, b"\x7f" + b"\xff" * 7])
        elif data:  # delete a span
            i = rng.randrange(len(data))
            del data[i:i + rng.randint(1, 32)]
    return bytes(data)


@pytest.fixture
def fuzz_server(make_server):
    return make_server()


def source_filter(c, layered):
    """A real filter: three layers when the library can serialize layered
    filters, else one NONSCALING layer."""
    scale = ("EXPANSION", "2") if layered else ("NONSCALING",)
    c.execute_command("BF.RESERVE", "src", "0.01", "300" if layered else "1000", *scale)
    c.execute_command("BF.MADD", "src", *[f"i{i}" for i in range(700)])


def test_fuzz_restore(fuzz_server, persistence_support):
    c = fuzz_server.client()
    source_filter(c, persistence_support)
    good = c.dump("src")
    rng = random.Random(1234)
    restored = 0
    for n in range(ROUNDS):
        payload = reframe(mutate(rng, good[:-8])) if rng.random() < 0.9 else mutate(rng, good)
        try:
            c.restore("dst", 0, payload, replace=True)
        except redis.ResponseError:
            assert c.exists("dst") == 0, f"round {n}: a failed RESTORE left a key"
            continue
        if c.type("dst") == b"bloomsimd":  # (a mutated type byte can make a valid string or list)
            restored += 1
            c.execute_command("BF.INFO", "dst")
            c.execute_command("BF.MEXISTS", "dst", "i1", "x")
        c.delete("dst")
    assert fuzz_server.alive() and c.ping()
    assert restored < ROUNDS // 10  # the checksums reject almost every mutation


def test_fuzz_loadchunk(fuzz_server, persistence_support):
    c = fuzz_server.client()
    source_filter(c, persistence_support)
    chunks, it = [], 0
    while True:
        it, data = c.execute_command("BF.SCANDUMP", "src", it)
        if it == 0:
            break
        chunks.append((it, data))
    rng = random.Random(99)
    created = 0
    for n in range(ROUNDS):
        seq = list(chunks)
        victim = rng.randrange(len(seq))
        it, data = seq[victim]
        if rng.random() < 0.2:  # a wrong iterator
            it = rng.choice([0, 1, 2, it + rng.randint(-64, 64), 2 ** 63 - 1, -(2 ** 63)])
        seq[victim] = (it, mutate(rng, data))
        if rng.random() < 0.2:
            seq = seq[:rng.randrange(1, len(seq) + 1)]  # truncated sequence
        ok = True
        dst = f"dst{n}"  # one key per round: an unfinished sequence of an earlier round cannot complete here
        for it, data in seq:
            try:
                c.execute_command("BF.LOADCHUNK", dst, it, data)
            except redis.ResponseError:
                ok = False
        if c.exists(dst):
            created += 1
            assert ok, f"round {n}: a key was created by a failing sequence"
            assert c.execute_command("BF.MEXISTS", dst, "i1", "i699") == [1, 1]
            c.delete(dst)
    assert fuzz_server.alive() and c.ping()
    assert "crashed" not in fuzz_server.log().lower()
    assert created < ROUNDS // 5

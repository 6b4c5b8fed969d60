"""Growing filters: the sizing every scaling key gets (the library's budget
schedule, docs/SCALABLE.md), its memory and FPR past capacity, and a filter
saved by the module's former sizing (geometric r = 1/4, error rate x 0.9),
which must load and grow on as it did."""
import os
import struct

from conftest import fpr, madd_many

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures")


def bfx_info(c, key):
    reply = c.execute_command("BFX.INFO", key)
    if isinstance(reply, dict):
        return {k.decode() if isinstance(k, bytes) else k: v for k, v in reply.items()}
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def test_scaling_keys_get_the_budget_schedule(r):
    assert r.execute_command("BF.RESERVE", "g", "0.01", "1000", "EXPANSION", "2") == b"OK"
    assert r.execute_command("BF.RESERVE", "e1", "0.01", "1000", "EXPANSION", "1") == b"OK"
    assert r.execute_command("BF.RESERVE", "n", "0.01", "1000", "NONSCALING") == b"OK"
    r.execute_command("BF.ADD", "implicit", "x")
    r.execute_command("BF.INSERT", "ins", "CAPACITY", "500", "ERROR", "0.001", "ITEMS", "x")
    for key, rate in (("g", 0.01), ("e1", 0.01), ("implicit", 0.01), ("ins", 0.001)):
        info = bfx_info(r, key)
        assert float(info["tightening"]) == 0.0, key  # the budget schedule
        assert float(info["design fpr"]) == rate, key  # a chain needs no margin
    assert float(bfx_info(r, "n")["design fpr"]) == 0.01 * 0.9


def test_grown_a_hundredfold_memory_and_fpr(r):
    """10^4 -> 10^6 items at EXPANSION 2: seven layers, the newest 58% full,
    the shape of the 10^5 -> 10^7 benchmark (redis/bench). MEMORY USAGE is
    the bit arrays plus 640 bytes a layer: at most 1.8x the same items in a
    filter reserved for all of them (the library's sizing gives 1.71x in
    block512, 21.5 bits/item, and 1.78x in split256)."""
    assert r.execute_command("BF.RESERVE", "g", "0.01", "10000", "EXPANSION", "2") == b"OK"
    assert r.execute_command("BF.RESERVE", "all", "0.01", "1000000", "EXPANSION", "2") == b"OK"
    n = 1000000
    items = [f"in:{i}" for i in range(n)]
    madd_many(r, "g", items, step=5000)
    madd_many(r, "all", items, step=5000)
    assert r.execute_command("BF.INFO", "g", "FILTERS") == [7]
    assert r.execute_command("BF.INFO", "all", "FILTERS") == [1]
    grown, reserved = (8 * r.execute_command("MEMORY", "USAGE", k) / n for k in ("g", "all"))
    print(f"MEMORY USAGE {grown:.2f} bits/item, reserved for all {reserved:.2f}")
    assert grown <= 1.8 * reserved, f"{grown:.2f} bits/item, {grown / reserved:.2f}x the reserved filter"
    measured = fpr(r, "g", [f"out:{i}" for i in range(100000)])
    print(f"FPR {measured:.5f}")
    assert measured <= 0.01, f"chain FPR {measured}"


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def module_header(body_len):
    """redis/src/bsr.h: magic, encoding version 1, 0, body length, 0xA5 padding, FNV-1a 64."""
    head = b"BSIMDRDB" + struct.pack("<IIQ", 1, 0, body_len) + b"\xa5" * 96
    return head + struct.pack("<Q", fnv1a64(head))


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return state, z ^ (z >> 31)


def test_a_filter_of_the_former_sizing_loads_and_grows_on(r, needs_persistence):
    """tests/fixtures/scalable_v2_r025.bsf: capacity 300 at 0.009 (0.01 x the
    former margin), geometric r = 1/4, 2000 keys in three layers, written by
    the library before the budget schedule (tests/fixtures/make_layered_v2.c)."""
    with open(os.path.join(FIXTURES, "scalable_v2_r025.bsf"), "rb") as f:
        body = f.read()
    assert r.execute_command("BF.LOADCHUNK", "old", 1, module_header(len(body))) == b"OK"
    assert r.execute_command("BF.LOADCHUNK", "old", 1 + len(body), body) == b"OK"
    state, keys = 2, []
    for _ in range(4000):
        state, k = splitmix64(state)
        keys.append(k)
    blob = struct.pack(f"<{len(keys)}Q", *keys)
    info = bfx_info(r, "old")
    assert (info["layers"], float(info["tightening"]), float(info["design fpr"])) == (3, 0.25, 0.009)
    found = r.execute_command("BFX.MEXISTS64", "old", blob[:8 * 2000], "ARRAY")
    assert found == [1] * 2000
    r.execute_command("BFX.MADD64", "old", blob[8 * 2000:])
    r.execute_command("DEBUG", "RELOAD")
    info = bfx_info(r, "old")
    assert (info["layers"], float(info["tightening"])) == (4, 0.25)
    assert r.execute_command("BF.INFO", "old", "CAPACITY") == [300 * (1 + 2 + 4 + 8)]
    assert r.execute_command("BFX.MEXISTS64", "old", blob, "ARRAY") == [1] * 4000


def test_thousands_of_layers_work_and_reload(r, needs_persistence):
    """RedisBloom's BF.RESERVE k 0.0001 1 EXPANSION 1, then 5000 items: a layer
    per item; answers, DEBUG RELOAD (RDB) and DUMP/RESTORE keep all of it."""
    assert r.execute_command("BF.RESERVE", "k", "0.0001", "1", "EXPANSION", "1") == b"OK"
    items = [f"item:{i}" for i in range(5000)]
    added = madd_many(r, "k", items, step=500)
    layers = r.execute_command("BF.INFO", "k", "FILTERS")[0]
    assert layers == r.execute_command("BF.CARD", "k") == sum(added) >= 4990
    assert r.execute_command("BF.INFO", "k", "CAPACITY") == [layers]
    absent = [f"absent:{i}" for i in range(20000)]
    assert fpr(r, "k", absent) <= 0.0005
    r.execute_command("DEBUG", "RELOAD")
    assert r.execute_command("BF.INFO", "k", "FILTERS") == [layers]
    assert r.execute_command("BF.MEXISTS", "k", *items) == [1] * len(items)
    r.restore("copy", 0, r.dump("k"))
    assert r.execute_command("BF.INFO", "copy", "FILTERS") == [layers]
    assert r.execute_command("BF.MEXISTS", "copy", *items) == [1] * len(items)
    # and it keeps growing
    r.execute_command("BF.MADD", "copy", *[f"more:{i}" for i in range(100)])
    assert r.execute_command("BF.INFO", "copy", "FILTERS")[0] >= layers + 95

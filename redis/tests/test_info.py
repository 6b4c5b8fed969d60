"""INFO bf: totals the module keeps as filters change, read by redis-py the way a
monitoring agent reads them, and checked against a scan of the keyspace (SCAN with
BF.INFO and BFX.INFO on every key) after every kind of change: adds, grows, a full
NONSCALING filter, DEL, RENAME (onto a free key and onto a filter), COPY, RESTORE,
BFX.IMPORT, BFX.MERGE, DEBUG RELOAD, FLUSHALL, and on a replica (full sync, then
replicated writes)."""
import os

import pytest
import redis

from conftest import HOST, wait_for
from test_replication import pair, synced  # noqa: F401 (pair is a fixture)

HERE = os.path.dirname(os.path.abspath(__file__))
# a valid serialized window (3 generations) from the library's fuzz corpus
WINDOW = os.path.join(HERE, "..", "..", "tests", "fuzz", "corpus", "valid_window_3gens_5rotations")
KINDS = ("nonscaling", "scaling", "window")
GAUGES = [f"{kind}_{what}" for kind in KINDS for what in ("keys", "bytes", "items", "layers")]


def info_bf(c):
    """INFO bf as redis-py parses it, the "bf_" prefix taken off."""
    return {k[3:]: v for k, v in c.info("bf").items()}


def as_dict(reply):
    text = lambda v: v.decode() if isinstance(v, bytes) else v
    if isinstance(reply, dict):
        return {text(k): text(v) for k, v in reply.items()}
    return {text(reply[i]): text(reply[i + 1]) for i in range(0, len(reply), 2)}


def scanned(c):
    """The totals INFO bf should show, from every filter key in every database in use."""
    want = dict.fromkeys(GAUGES + ["bloom_capacity_across_objects", "keys_at_80pct", "keys_at_100pct"], 0)
    for key in c.scan_iter(count=1000):
        if c.type(key) != b"bloomsimd":
            continue
        bf = as_dict(c.execute_command("BF.INFO", key))
        x = as_dict(c.execute_command("BFX.INFO", key))
        kind = "window" if int(x["generations"]) else "scaling" if int(x["expansion"]) else "nonscaling"
        want[f"{kind}_keys"] += 1
        want[f"{kind}_bytes"] += bf["Size"]
        want[f"{kind}_items"] += bf["Number of items inserted"]
        want[f"{kind}_layers"] += bf["Number of filters"]
        want["bloom_capacity_across_objects"] += bf["Capacity"]
        load = float(x["load"])
        want["keys_at_80pct"] += load >= 0.8
        want["keys_at_100pct"] += load >= 1.0
    return want


def check(c, what):
    got = info_bf(c)
    want = scanned(c)
    assert {k: got[k] for k in want} == want, what
    # the valkey-bloom names redis_exporter knows are the same totals
    assert got["bloom_num_objects"] == sum(want[f"{k}_keys"] for k in KINDS), what
    assert got["bloom_total_memory_bytes"] == sum(want[f"{k}_bytes"] for k in KINDS), what
    assert got["bloom_num_items_across_objects"] == sum(want[f"{k}_items"] for k in KINDS), what
    assert got["bloom_num_filters_across_objects"] == sum(want[f"{k}_layers"] for k in KINDS), what
    return got


def items(prefix, n, start=0):
    return [f"{prefix}{i}" for i in range(start, start + n)]


def test_info_section_names_and_server_facts(r):
    got = info_bf(r)
    assert got["kernel"] in ("scalar", "sse42", "avx2", "avx512", "neon")
    assert got["layout"] in ("block512", "split256")
    r.execute_command("BF.RESERVE", "one", "0.01", "1000", "NONSCALING")
    assert as_dict(r.execute_command("BFX.INFO", "one"))["layout"] == got["layout"], "new filters get it"
    assert r.info("bf_filters")["bf_nonscaling_keys"] == 1, "INFO bf_filters: that section alone"
    assert "bf_bloom_num_objects" not in r.info("bf_filters")
    assert r.info("modules")["bf_nonscaling_keys"] == 1, "INFO modules has the module's sections"
    assert r.info("everything")["bf_bloom_num_objects"] == 1


def test_totals_equal_a_scan_after_every_change(r, tmp_path):
    check(r, "empty")
    assert info_bf(r)["bloom_num_objects"] == 0
    r.execute_command("BF.RESERVE", "ns", "0.01", "100", "NONSCALING")
    r.execute_command("BF.MADD", "ns", *items("a", 79))
    got = check(r, "79% of a NONSCALING filter")
    assert (got["keys_at_80pct"], got["keys_at_100pct"]) == (0, 0)
    r.execute_command("BF.MADD", "ns", *items("a", 2, 79))
    got = check(r, "81%")
    assert (got["keys_at_80pct"], got["keys_at_100pct"]) == (1, 0)
    r.execute_command("BF.MADD", "ns", *items("a", 19, 81))
    with pytest.raises(Exception, match="non scaling filter is full"):
        r.execute_command("BF.ADD", "ns", "one-too-many")
    got = check(r, "full")
    assert (got["keys_at_80pct"], got["keys_at_100pct"], got["full_refusals"]) == (1, 1, 1)
    r.execute_command("BF.MADD", "sc", *items("b", 350))  # BF.ADD's defaults: capacity 100, grows
    got = check(r, "grown")
    assert got["scaling_layers"] >= 2 and got["keys_at_100pct"] == 2
    r.execute_command("BFX.MADD64", "u64", b"".join(i.to_bytes(8, "little") for i in range(1000)))
    check(r, "BFX.MADD64")
    with open(WINDOW, "rb") as f:
        r.execute_command("BFX.IMPORT", "win", f.read())
    got = check(r, "an imported window")
    assert got["window_keys"] == 1 and got["window_layers"] == 3
    r.execute_command("BF.RESERVE", "m1", "0.01", "1000", "NONSCALING")
    r.execute_command("BF.RESERVE", "m2", "0.01", "1000", "NONSCALING")
    r.execute_command("BF.MADD", "m2", *items("c", 500))
    r.execute_command("BFX.MERGE", "m1", "m2")
    check(r, "BFX.MERGE adds items")

    r.delete("u64")
    check(r, "DEL")
    r.rename("sc", "sc2")
    check(r, "RENAME to a free key")
    r.rename("m2", "m1")
    check(r, "RENAME onto a filter (the old value freed)")
    r.copy("ns", "ns-copy")
    check(r, "COPY")
    payload = r.dump("sc2")
    r.restore("restored", 0, payload)
    check(r, "RESTORE")
    r.restore("restored", 0, r.dump("ns"), replace=True)
    check(r, "RESTORE REPLACE")
    with pytest.raises(Exception):
        r.restore("ns", 0, payload)  # BUSYKEY: nothing loaded, nothing counted
    r.restore("gone", 1, payload)  # a TTL of 1 ms: loaded, then expired and freed
    wait_for(lambda: r.exists("gone") == 0, what="the restored key to expire")
    check(r, "RESTORE of a key that expired")
    r.execute_command("BFX.IMPORT", "ns", r.execute_command("BFX.EXPORT", "sc2"), "REPLACE")
    check(r, "BFX.IMPORT REPLACE")
    before = check(r, "before DEBUG RELOAD")
    r.execute_command("DEBUG", "RELOAD")
    after = check(r, "DEBUG RELOAD")
    assert after == before, "a reload frees every filter and loads it back"
    r.flushall()
    got = check(r, "FLUSHALL")
    assert sum(got[g] for g in GAUGES) == 0 and got["keys_at_80pct"] == 0
    assert got["full_refusals"] == 1, "a counter of the server's life, not of the keys"


def test_the_exporter_script_returns_every_number(r):
    """redis/exporter/bf_info.lua, run as redis_exporter runs a -script (EVAL, no keys, the
    reply read as a flat name/value map): every numeric INFO bf field, with its value."""
    r.execute_command("BF.RESERVE", "ns", "0.01", "10", "NONSCALING")
    r.execute_command("BF.MADD", "ns", *items("g", 9))
    with open(os.path.join(HERE, "..", "exporter", "bf_info.lua")) as f:
        flat = r.eval(f.read(), 0)
    pairs = {flat[i].decode(): float(flat[i + 1]) for i in range(0, len(flat), 2)}
    want = {"bf_" + k: float(v) for k, v in info_bf(r).items() if k not in ("kernel", "layout")}
    assert pairs == want
    assert pairs["bf_keys_at_80pct"] == 1 and pairs["bf_nonscaling_items"] == 9


def test_other_databases_and_async_flush(r):
    r.execute_command("BF.MADD", "x", *items("d", 10))
    c1 = redis.Redis(host=HOST, port=r.connection_pool.connection_kwargs["port"], db=1)
    c1.execute_command("BF.MADD", "y", *items("d", 10))
    assert info_bf(r)["scaling_keys"] == 2, "every database counts"
    r.swapdb(0, 1)  # x in 1, y in 0: moved, not freed
    assert r.move("y", 2)
    assert info_bf(r)["scaling_keys"] == 2
    c1.flushdb(asynchronous=True)  # frees x on a background thread
    wait_for(lambda: info_bf(r)["scaling_keys"] == 1, what="the background free to be counted")
    r.flushall()
    assert info_bf(r)["scaling_keys"] == 0
    c1.close()


def test_a_replica_counts_what_its_primary_counts(pair):
    p, rc = pair  # the pair's primary held a filter before the replica's full sync
    assert info_bf(rc)["bloom_num_objects"] >= 1, "counted from the full sync's RDB"
    p.execute_command("BF.RESERVE", "full", "0.01", "10", "NONSCALING")
    p.execute_command("BF.MADD", "full", *items("e", 10))
    with pytest.raises(Exception):
        p.execute_command("BF.ADD", "full", "more")
    p.execute_command("BF.MADD", "grows", *items("f", 300))
    p.delete("before-sync")
    wait_for(synced(p, rc), what="replica in sync")
    got = check(rc, "replica")
    want = info_bf(p)
    assert {k: got[k] for k in GAUGES + ["keys_at_80pct", "keys_at_100pct"]} == \
        {k: want[k] for k in GAUGES + ["keys_at_80pct", "keys_at_100pct"]}
    assert got["full_refusals"] == want["full_refusals"] == 1, "the replayed BF.ADD is refused there too"

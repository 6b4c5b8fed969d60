"""A replica (--replicaof on loopback) answers like its primary: writes are
replicated, LOADCHUNK restores arrive whole, and a full resync copies the RDB."""
import pytest
import redis

from conftest import HOST, wait_for
from test_persistence import PROBES, dump, fill


def synced(primary, replica):
    def check():
        info = replica.info("replication")
        return (info.get("master_link_status") == "up"
                and info.get("slave_repl_offset") == primary.info("replication")["master_repl_offset"])
    return check


@pytest.fixture
def pair(make_server, persistence_support):
    primary = make_server()
    p = primary.client()
    if persistence_support:  # copied to the replica by the full resync (RDB)
        fill(p, "before-sync", 500, ("0.01", "1000"))
    replica = make_server(extra=["--replicaof", HOST, str(primary.port)])
    rc = replica.client()
    wait_for(synced(p, rc), what="replica in sync")
    return p, rc


def answers(c, key, serializable=True):
    a = (c.execute_command("BF.INFO", key), c.execute_command("BF.CARD", key),
         c.execute_command("BF.MEXISTS", key, *PROBES))
    if serializable:
        a += (dump(c, key), c.execute_command("DEBUG", "DIGEST-VALUE", key))
    return a


def test_replica_answers_like_primary(pair, persistence_support):
    p, rc = pair
    fill(p, "plain", 2000, ("0.01", "5000", "NONSCALING"))
    fill(p, "scaling", 3000, ("0.01", "100", "EXPANSION", "2"))
    fill(p, "nonscaling", 120, ("0.01", "100", "NONSCALING"))  # past capacity: refusals replicate too
    p.execute_command("BF.ADD", "single", "x")
    p.execute_command("BF.INSERT", "ins", "CAPACITY", "10", "ERROR", "0.001", "ITEMS", "a", "b", "a")
    p.execute_command("BFX.MADD64", "u64", bytes(range(64)))
    p.execute_command("BF.RESERVE", "m", "0.01", "5000", "NONSCALING")
    p.execute_command("BFX.MERGE", "m", "plain")
    wait_for(synced(p, rc), what="replica caught up")
    keys = ["plain", "nonscaling", "m"]
    layered = ["scaling", "single", "ins", "u64"] + (["before-sync"] if persistence_support else [])
    for key in keys + layered:
        serializable = key in keys or persistence_support
        assert answers(rc, key, serializable) == answers(p, key, serializable), key


def test_loadchunk_restore_replicates_whole(pair):
    p, rc = pair
    fill(p, "src", 3000, ("0.001", "3000", "NONSCALING"))
    chunks = dump(p, "src")
    # a sequence interrupted before its end is never seen by the replica
    p.execute_command("BF.LOADCHUNK", "half", *chunks[0])
    for it, data in chunks:
        p.execute_command("BF.LOADCHUNK", "dst", it, data)
    wait_for(synced(p, rc), what="replica caught up")
    assert rc.exists("half") == 0 and p.exists("half") == 0
    assert answers(rc, "dst") == answers(p, "dst")
    assert dump(rc, "dst") == chunks
    assert rc.execute_command("BF.MEXISTS", "dst", *PROBES) == p.execute_command("BF.MEXISTS", "src", *PROBES)


def test_replica_refuses_writes(pair):
    p, rc = pair
    p.execute_command("BF.ADD", "w", "k:1")
    wait_for(synced(p, rc), what="replica caught up")
    with pytest.raises(redis.exceptions.ReadOnlyError):
        rc.execute_command("BF.ADD", "w", "y")
    assert rc.execute_command("BF.EXISTS", "w", "k:1") == 1

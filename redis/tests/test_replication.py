"""A replica (--replicaof on loopback) answers like its primary: writes are
replicated, LOADCHUNK restores arrive whole, and a resync copies the RDB."""
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
def pair(make_server):
    primary = make_server()
    p = primary.client()
    fill(p, "before-sync", 500, ("0.01", "1000"))  # copied by the full resync (RDB)
    replica = make_server(extra=["--replicaof", HOST, str(primary.port)])
    rc = replica.client()
    wait_for(synced(p, rc), what="replica in sync")
    return p, rc


def answers(c, key):
    return (c.execute_command("BF.INFO", key), c.execute_command("BF.CARD", key),
            c.execute_command("BF.MEXISTS", key, *PROBES), dump(c, key))


def test_replica_answers_like_primary(pair):
    p, rc = pair
    fill(p, "plain", 2000, ("0.01", "5000"))
    fill(p, "scaling", 3000, ("0.01", "100", "EXPANSION", "2"))
    fill(p, "nonscaling", 120, ("0.01", "100", "NONSCALING"))  # past capacity: refusals replicate too
    p.execute_command("BF.ADD", "single", "x")
    p.execute_command("BF.INSERT", "ins", "CAPACITY", "10", "ERROR", "0.001", "ITEMS", "a", "b", "a")
    p.execute_command("BFX.MADD64", "u64", bytes(range(64)))
    p.execute_command("BF.RESERVE", "m", "0.01", "5000")
    p.execute_command("BFX.MERGE", "m", "plain")
    wait_for(synced(p, rc), what="replica caught up")
    for key in ("before-sync", "plain", "scaling", "nonscaling", "single", "ins", "u64", "m"):
        assert answers(rc, key) == answers(p, key), key
        assert rc.execute_command("DEBUG", "DIGEST-VALUE", key) == p.execute_command("DEBUG", "DIGEST-VALUE", key)


def test_loadchunk_restore_replicates_whole(pair):
    p, rc = pair
    fill(p, "src", 3000, ("0.001", "3000"))
    chunks = dump(p, "src")
    # a sequence interrupted before its end is never seen by the replica
    p.execute_command("BF.LOADCHUNK", "half", *chunks[0])
    for it, data in chunks:
        p.execute_command("BF.LOADCHUNK", "dst", it, data)
    wait_for(synced(p, rc), what="replica caught up")
    assert rc.exists("half") == 0 and p.exists("half") == 0
    assert answers(rc, "dst") == answers(p, "src")


def test_replica_refuses_writes(pair):
    _, rc = pair
    with pytest.raises(redis.exceptions.ReadOnlyError):
        rc.execute_command("BF.ADD", "x", "y")
    assert rc.execute_command("BF.EXISTS", "before-sync", "k:1") == 1

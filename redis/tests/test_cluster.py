"""A 3-node Redis Cluster on loopback (redis-cli --cluster create), driven
with redis-py's cluster client: keys route by slot through the module's key
specs, multi-key BFX.MERGE needs one slot."""
import shutil
import subprocess

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from conftest import HOST, wait_for


@pytest.fixture(scope="module")
def cluster(pytestconfig, module_path):
    from conftest import Server
    nodes = []
    try:
        for _ in range(3):
            nodes.append(Server(pytestconfig.getoption("--redis-server"), module_path, cluster=True).start())
        cli = shutil.which("redis-cli") or "/usr/bin/redis-cli"
        out = subprocess.run([cli, "--cluster", "create", *[f"{HOST}:{n.port}" for n in nodes], "--cluster-yes"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        wait_for(lambda: all(n.client().cluster("info")["cluster_state"] == "ok" for n in nodes), 60,
                 what="cluster_state:ok")
        rc = RedisCluster(startup_nodes=[ClusterNode(HOST, n.port) for n in nodes])
        yield rc, nodes
        rc.close()
    finally:
        for n in nodes:
            n.cleanup()


def test_keys_route_to_their_slots(cluster):
    rc, nodes = cluster
    keys = [f"bf:{i}" for i in range(60)]
    for k in keys:
        assert rc.execute_command("BF.RESERVE", k, "0.01", "1000") == b"OK"
        assert rc.execute_command("BF.MADD", k, "a", k, "a") == [1, 1, 0]
        assert rc.execute_command("BF.ADD", k, "b") == 1
    for k in keys:
        assert rc.execute_command("BF.MEXISTS", k, "a", "b", k, "zz") == [1, 1, 1, 0]
        assert rc.execute_command("BF.CARD", k) == 3
        assert rc.execute_command("BF.INFO", k, "ITEMS") == [3]
    per_node = [n.client().dbsize() for n in nodes]
    assert sum(per_node) == len(keys) and min(per_node) > 0  # spread over all three masters
    slot = rc.keyslot("bf:7")
    owner = next(n for n in nodes if n.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 1)
    wrong = next(n for n in nodes if n is not owner)
    with pytest.raises(redis.exceptions.ResponseError, match="MOVED"):
        redis.Redis(host=HOST, port=wrong.port).execute_command("BF.EXISTS", "bf:7", "a")


def test_merge_same_slot_and_crossslot(cluster):
    rc, _ = cluster
    rc.execute_command("BF.RESERVE", "{m}a", "0.01", "1000")
    rc.execute_command("BF.RESERVE", "{m}b", "0.01", "1000")
    rc.execute_command("BF.MADD", "{m}b", "x", "y")
    assert rc.execute_command("BFX.MERGE", "{m}a", "{m}b") == b"OK"
    assert rc.execute_command("BF.MEXISTS", "{m}a", "x", "y", "z") == [1, 1, 0]
    node = rc.get_node_from_key("{m}a")
    direct = redis.Redis(host=node.host, port=node.port)
    with pytest.raises(redis.exceptions.ResponseError, match="CROSSSLOT"):
        direct.execute_command("BFX.MERGE", "{m}a", "other-slot-key")


def test_redispy_bf_helpers_on_cluster(cluster):
    rc, _ = cluster
    bf = rc.bf()
    assert bf.create("c:bf", 0.01, 1000)
    assert bf.add("c:bf", "one") == 1
    assert bf.madd("c:bf", "one", "two") == [0, 1]
    assert bf.mexists("c:bf", "one", "two", "three") == [1, 1, 0]

"""redis-py's own r.bf() helpers, unchanged, against the module: what a user sees."""
import pytest
from redis.commands.bf.info import BFInfo
from redis.utils import HIREDIS_AVAILABLE


def test_create_add_exists(r):
    bf = r.bf()
    assert bf.create("bf", 0.01, 1000)
    assert bf.create("bf-exp", 0.01, 1000, expansion=4)
    assert bf.create("bf-ns", 0.01, 1000, noScale=True)
    assert bf.add("bf", "foo") == 1
    assert bf.add("bf", "foo") == 0
    assert bf.madd("bf", "foo", "bar", "baz") == [0, 1, 1]
    assert bf.exists("bf", "bar") == 1
    assert bf.exists("bf", "nope") == 0
    assert bf.mexists("bf", "foo", "nope", "baz") == [1, 0, 1]


def test_insert_every_option(r):
    bf = r.bf()
    assert bf.insert("a", ["x", "y", "x"]) == [1, 1, 0]
    assert bf.insert("b", ["x"], capacity=5000, error=0.001, expansion=3) == [1]
    assert bf.insert("c", ["x", "y", "z"], capacity=2, noScale=True)[:2] == [1, 1]
    with pytest.raises(Exception, match="not found"):
        bf.insert("d", ["x"], noCreate=True)


def test_info_object(r):
    bf = r.bf()
    bf.create("bf", 0.001, 500, expansion=3)
    bf.madd("bf", *range(10))
    info = bf.info("bf")
    assert isinstance(info, BFInfo)
    assert (info.capacity, info.filterNum, info.insertedNum, info.expansionRate) == (500, 1, 10, 3)
    assert 0 < info.size <= r.memory_usage("bf")
    bf.create("ns", 0.01, 10, noScale=True)
    assert bf.info("ns").expansionRate is None


@pytest.mark.usefixtures("needs_persistence")
@pytest.mark.skipif(HIREDIS_AVAILABLE, reason="redis-py's scandump refuses to run with hiredis")
def test_scandump_loadchunk_loop(r):
    bf = r.bf()
    bf.create("bf", 0.01, 10000)
    bf.madd("bf", *[f"i{i}" for i in range(5000)])
    chunks, it = [], 0
    while True:
        it, data = bf.scandump("bf", it)
        if it == 0:
            break
        chunks.append((it, data))
    r.delete("bf")
    for it, data in chunks:
        bf.loadchunk("bf", it, data)
    assert bf.mexists("bf", "i0", "i4999", "nope") == [1, 1, 0]

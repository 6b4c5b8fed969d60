"""Keyspace events a subscriber receives (notify-keyspace-events with 'd', module
events): bf.80pct when a filter first reaches 80% of its capacity, bf.grow when a
scaling filter adds a layer, bf.full when a full NONSCALING filter refuses an item;
each exactly when it happens, on the key it happened to, and nothing else."""
import time

import pytest

from conftest import wait_for


@pytest.fixture
def events(r):
    """A subscriber to every bf.* key event of db 0; yields a function that returns
    the (event, key) pairs received so far, in order."""
    r.config_set("notify-keyspace-events", "Ed")
    sub = r.pubsub()
    sub.psubscribe("__keyevent@0__:bf.*")
    wait_for(lambda: sub.get_message(timeout=0.1) is not None, what="the subscription")
    got = []

    def received(expect=None):
        deadline = time.time() + (10 if expect else 0.3)
        while time.time() < deadline and (expect is None or len(got) < expect):
            m = sub.get_message(timeout=0.05)
            if m and m["type"] == "pmessage":
                got.append((m["channel"].decode().split(":", 1)[1], m["data"].decode()))
        return list(got)

    yield received
    sub.close()
    r.config_set("notify-keyspace-events", "")


def test_nonscaling_filter_80pct_once_then_full(r, events):
    r.execute_command("BF.RESERVE", "ns", "0.01", "10", "NONSCALING")
    r.execute_command("BF.MADD", "ns", *[f"a{i}" for i in range(7)])
    assert events() == [], "70%: nothing yet"
    r.execute_command("BF.ADD", "ns", "a7")
    assert events(1) == [("bf.80pct", "ns")]
    r.execute_command("BF.MADD", "ns", "a8", "a9", "a0")  # to 100%, and a repeat
    assert events() == [("bf.80pct", "ns")], "80% is announced once, not again at 90% or 100%"
    with pytest.raises(Exception, match="non scaling filter is full"):
        r.execute_command("BF.ADD", "ns", "b")
    reply = r.execute_command("BF.MADD", "ns", "a1", "c", "d")  # answered up to the refused item
    assert reply[0] == 0 and len(reply) == 2
    with pytest.raises(Exception, match="non scaling filter is full"):
        r.execute_command("BFX.MADD64", "ns", (5).to_bytes(8, "little"))
    assert events(4) == [("bf.80pct", "ns")] + [("bf.full", "ns")] * 3
    assert r.execute_command("BF.ADD", "ns", "a3") == 0, "an item already present is no refusal"
    assert events() == [("bf.80pct", "ns")] + [("bf.full", "ns")] * 3


def test_scaling_filter_80pct_then_grows(r, events):
    r.execute_command("BF.RESERVE", "sc", "0.01", "100", "EXPANSION", "2")
    r.execute_command("BF.MADD", "sc", *[f"k{i}" for i in range(79)])
    assert events() == []
    r.execute_command("BF.MADD", "sc", *[f"k{i}" for i in range(79, 90)])
    assert events(1) == [("bf.80pct", "sc")], "80% of the first layer's capacity"
    layers = lambda: r.execute_command("BF.INFO", "sc", "FILTERS")[0]
    n = 90
    while layers() < 3:
        r.execute_command("BF.MADD", "sc", *[f"k{i}" for i in range(n, n + 25)])
        n += 25
    assert events(3) == [("bf.80pct", "sc"), ("bf.grow", "sc"), ("bf.grow", "sc")], "one bf.grow per layer"
    r.execute_command("BFX.MADD64", "other", b"".join(i.to_bytes(8, "little") for i in range(150)))
    assert events(5)[3:] == [("bf.80pct", "other"), ("bf.grow", "other")], \
        "one command that crosses 80% and grows: both, in that order"


def test_no_events_without_the_module_class(r):
    """Without 'd' in notify-keyspace-events the module publishes nothing."""
    r.config_set("notify-keyspace-events", "KEg$")  # generic and string events, not module ones
    sub = r.pubsub()
    sub.psubscribe("__keyevent@0__:bf.*")
    wait_for(lambda: sub.get_message(timeout=0.1) is not None, what="the subscription")
    r.execute_command("BF.RESERVE", "q", "0.01", "10", "NONSCALING")
    r.execute_command("BF.MADD", "q", *[f"a{i}" for i in range(10)])
    time.sleep(0.2)
    assert sub.get_message(timeout=0.2) is None
    sub.close()
    r.config_set("notify-keyspace-events", "")

"""Every BF.* command, option and error path, with RedisBloom's exact replies
(read on a raw connection, so error prefixes are checked too)."""
import pytest

from conftest import Err, Raw

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


def arity(cmd):
    return f"ERR wrong number of arguments for '{cmd}' command"


# ---- BF.RESERVE ---------------------------------------------------------------------


def test_reserve_ok_and_exists(raw):
    assert raw("BF.RESERVE", "bf", "0.01", "1000") == "OK"
    assert raw("BF.RESERVE", "bf", "0.01", "1000") == Err("ERR item exists")
    assert raw("BF.RESERVE", "bf", "0.05", "10", "NONSCALING") == Err("ERR item exists")


@pytest.mark.parametrize("args,reply", [
    (("0.01",), arity("bf.reserve")),
    (("0.01", "10", "a", "b", "c", "d"), arity("bf.reserve")),
    (("blah", "1000"), "ERR bad error rate"),
    (("0", "1000"), "ERR (0 < error rate range < 1) "),
    (("1", "1000"), "ERR (0 < error rate range < 1) "),
    (("7.7", "1000"), "ERR (0 < error rate range < 1) "),
    (("-0.1", "1000"), "ERR (0 < error rate range < 1) "),
    (("0.01", "blah"), "ERR bad capacity"),
    (("0.01", "0.5"), "ERR bad capacity"),
    (("0.01", "0"), "ERR (capacity should be larger than 0)"),
    (("0.01", "-5"), "ERR (capacity should be larger than 0)"),
    (("0.01", "10", "EXPANSION"), "ERR no expansion"),
    (("0.01", "10", "EXPANSION", "str"), "ERR bad expansion"),
    (("0.01", "10", "EXPANSION", "1.5"), "ERR bad expansion"),
    (("0.01", "10", "EXPANSION", "0"), "ERR expansion should be greater or equal to 1"),
    (("0.01", "10", "EXPANSION", "-3"), "ERR expansion should be greater or equal to 1"),
    (("0.01", "10", "EXPANSION", "32769"), "ERR expansion 32769 is above the largest this module supports (32768)"),
    (("0.01", "10", "NONSCALING", "EXPANSION", "2"), "Nonscaling filters cannot expand"),
    (("0.01", "10", "EXPANSION", "2", "NONSCALING"), "Nonscaling filters cannot expand"),
    # RedisBloom checks NONSCALING before it reads the EXPANSION value, but a
    # missing value first
    (("0.01", "10", "NONSCALING", "EXPANSION", "str"), "Nonscaling filters cannot expand"),
    (("0.01", "10", "NONSCALING", "EXPANSION", "0"), "Nonscaling filters cannot expand"),
    (("0.01", "10", "NONSCALING", "EXPANSION"), "ERR no expansion"),
    (("0.01", "18446744073709551616"), "ERR bad capacity"),
])
def test_reserve_errors(raw, args, reply):
    assert raw("BF.RESERVE", "bf", *args) == Err(reply)
    assert raw("EXISTS", "bf") == 0


def test_reserve_too_large_and_tiny_error(raw):
    # RedisBloom's "ERR could not create filter", then the reason in the
    # client's terms (its capacity and error rate)
    too_large = ("ERR could not create filter: capacity 4611686018427387904 at error rate 0.01 needs more than "
                 "the largest filter (2^32 blocks)")
    assert raw("BF.RESERVE", "bf", "0.01", str(2 ** 62)) == Err(too_large)
    assert raw("BF.INSERT", "bf", "CAPACITY", str(2 ** 62), "ITEMS", "a") == Err(too_large)
    for args, floor in ((("EXPANSION", "2"), "3.01e-10 at EXPANSION 2 or more"),
                        (("EXPANSION", "1"), "3.01e-10 at EXPANSION 1"),
                        (("NONSCALING",), "1.12e-10 for NONSCALING")):
        assert raw("BF.RESERVE", "bf", "1e-300", "100", *args) == Err(
            "ERR could not create filter: error rate 1e-300 is below the smallest this module "
            f"builds ({floor})")
    # the smallest rate each reply names builds
    assert raw("BF.RESERVE", "bf", "3.01e-10", "100") == "OK"
    assert raw("BF.RESERVE", "bf1", "3.01e-10", "100", "EXPANSION", "1") == "OK"
    assert raw("BF.RESERVE", "bfn", "1.12e-10", "100", "NONSCALING") == "OK"
    assert raw("DEL", "bf", "bf1", "bfn") == 3
    assert raw("EXISTS", "bf") == 0


def test_reserve_wrongtype(raw):
    raw("SET", "s", "x")
    assert raw("BF.RESERVE", "s", "0.01", "10") == Err(WRONGTYPE)


def test_reserve_ignores_unknown_words_and_takes_any_case(raw):
    assert raw("BF.RESERVE", "bf", "0.01", "10", "junk") == "OK"
    assert raw("BF.RESERVE", "bf2", "0.01", "10", "expansion", "4") == "OK"
    assert raw("BF.INFO", "bf2", "EXPANSION") == [4]
    assert raw("BF.RESERVE", "bf3", "0.01", "10", "nonscaling") == "OK"
    assert raw("BF.INFO", "bf3", "expansion") == [None]


def test_reserve_extreme_error_rates(raw):
    for key, rate, cap in (("a", "0.99", "3"), ("b", "0.95", "8"), ("c", "0.9999999999999999", "100")):
        assert raw("BF.RESERVE", key, rate, cap, "NONSCALING") == "OK"
        assert raw("BF.ADD", key, "1") == 1
        assert raw("BF.EXISTS", key, "1") == 1


# ---- BF.ADD / BF.MADD -----------------------------------------------------------------


def test_add_creates_with_defaults(raw):
    assert raw("BF.ADD", "bf", "foo") == 1
    assert raw("BF.ADD", "bf", "foo") == 0
    assert raw("BF.INFO", "bf", "CAPACITY") == [100]
    assert raw("BF.INFO", "bf", "EXPANSION") == [2]
    assert raw("BF.INFO", "bf", "ITEMS") == [1]
    assert raw("BF.INFO", "bf", "FILTERS") == [1]


def test_madd_in_order_with_repeats(raw):
    assert raw("BF.MADD", "bf", "foo", "bar", "baz") == [1, 1, 1]
    assert raw("BF.MADD", "bf", "foo", "new1", "bar", "new2", "new2") == [0, 1, 0, 1, 0]
    assert raw("BF.CARD", "bf") == 5
    assert raw("BF.INFO", "bf", "CAPACITY") == [100]


def test_add_arity_and_wrongtype(raw):
    assert raw("BF.ADD", "bf") == Err(arity("bf.add"))
    assert raw("BF.ADD", "bf", "a", "b") == Err(arity("bf.add"))
    assert raw("BF.MADD", "bf") == Err(arity("bf.madd"))
    raw("SET", "s", "x")
    assert raw("BF.ADD", "s", "a") == Err(WRONGTYPE)
    assert raw("BF.MADD", "s", "a", "b") == Err(WRONGTYPE)


def test_binary_and_empty_items(raw):
    items = [b"", b"\x00", b"\x00\x01\xff", bytes(range(256)), b"x" * 100000]
    assert raw("BF.MADD", "bf", *items) == [1] * len(items)
    assert raw("BF.MEXISTS", "bf", *items) == [1] * len(items)
    assert raw("BF.EXISTS", "bf", b"") == 1


# ---- NONSCALING full ---------------------------------------------------------------------


def test_nonscaling_full_single_and_multi(raw):
    assert raw("BF.RESERVE", "bf", "0.01", "3", "NONSCALING") == "OK"
    for i in range(3):
        assert raw("BF.ADD", "bf", str(i)) == 1
    assert raw("BF.ADD", "bf", "extra") == Err("ERR non scaling filter is full")
    assert raw("BF.ADD", "bf", "1") == 0  # present items still answer
    reply = raw("BF.MADD", "bf", "0", "1", "extra", "2")
    assert reply == [0, 0, Err("ERR non scaling filter is full")]
    assert raw("BF.CARD", "bf") == 3


def test_nonscaling_fills_inside_one_batch(raw):
    assert raw("BF.INSERT", "bf", "CAPACITY", "3", "NONSCALING", "ITEMS", "a", "b", "c") == [1, 1, 1]
    reply = raw("BF.INSERT", "bf", "ITEMS", "a", "b", "c", "d", "d")
    assert reply == [0, 0, 0, Err("ERR non scaling filter is full")]
    assert raw("BF.INFO", "bf") == ["Capacity", 3, "Size", raw("BF.INFO", "bf", "SIZE")[0],
                                   "Number of filters", 1, "Number of items inserted", 3,
                                   "Expansion rate", None]
    assert raw("DEL", "bf") == 1
    reply = raw("BF.INSERT", "bf", "CAPACITY", "2", "NONSCALING", "ITEMS", "x", "x", "y", "x", "z", "y")
    assert reply == [1, 0, 1, 0, Err("ERR non scaling filter is full")]


# ---- BF.INSERT ---------------------------------------------------------------------------


def test_insert_creates_with_options(raw):
    assert raw("BF.INSERT", "bf", "ERROR", "0.001", "CAPACITY", "50000", "EXPANSION", "4",
               "ITEMS", "foo") == [1]
    assert raw("BF.INFO", "bf", "CAPACITY") == [50000]
    assert raw("BF.INFO", "bf", "EXPANSION") == [4]
    # options of an existing filter are ignored
    assert raw("BF.INSERT", "bf", "ERROR", "0.1", "ITEMS", "foo", "bar", "baz") == [0, 1, 1]
    assert raw("BF.INFO", "bf", "CAPACITY") == [50000]


@pytest.mark.parametrize("args,reply", [
    (("NOCREATE", "ITEMS", "foo", "bar"), "ERR not found"),
    (("DONTEXIST", "NOCREATE"), "Unknown argument received"),
    (("ITEMS",), arity("bf.insert")),
    (("NOCREATE", "ITEMS"), arity("bf.insert")),
    (("NOCREATE", "CAPACITY"), arity("bf.insert")),
    (("CAPACITY", "0.3", "ITEMS", "a"), "Bad capacity"),
    (("ERROR", "big", "ITEMS", "a"), "Bad error rate"),
    (("EXPANSION", "big", "ITEMS", "a"), "Bad expansion"),
    (("EXPANSION", "40000", "ITEMS", "a"), "ERR expansion 40000 is above the largest this module supports (32768)"),
    (("EXPANSION", "0", "ITEMS", "foo"), "Bad argument received"),
    (("ERROR", "1", "ITEMS", "foo"), "Bad argument received"),
    (("CAPACITY", "0", "ITEMS", "foo"), "Bad argument received"),
    (("NONSCALING", "EXPANSION", "3", "ITEMS", "foo"), "Nonscaling filters cannot expand"),
    (("CAPACITY", "10"), arity("bf.insert")),
])
def test_insert_errors(raw, args, reply):
    assert raw("BF.INSERT", "missing", *args) == Err(reply)
    assert raw("EXISTS", "missing") == 0


def test_insert_short_forms_as_redisbloom(raw):
    # RedisBloom reads options by their first letters: 'NOC...' is NOCREATE,
    # any other 'N...' NONSCALING, 'E' + 'r' ERROR, other 'E...' EXPANSION.
    assert raw("BF.INSERT", "bf", "NONS", "ITEMS", "a") == [1]
    assert raw("BF.INFO", "bf", "EXPANSION") == [None]
    assert raw("BF.INSERT", "bf2", "NOC", "ITEMS", "a") == Err("ERR not found")
    assert raw("BF.INSERT", "bf2", "eXP", "3", "ITEMS", "a") == [1]
    assert raw("BF.INFO", "bf2", "EXPANSION") == [3]


def test_insert_wrongtype(raw):
    raw("SET", "s", "x")
    assert raw("BF.INSERT", "s", "ITEMS", "a") == Err(WRONGTYPE)


# ---- BF.EXISTS / BF.MEXISTS ------------------------------------------------------------------


def test_exists_missing_and_wrongtype_answer_zero(raw):
    assert raw("BF.EXISTS", "missing", "foo") == 0
    assert raw("BF.MEXISTS", "missing", "foo", "bar", "baz") == [0, 0, 0]
    raw("SET", "s", "x")
    assert raw("BF.EXISTS", "s", "foo") == 0
    assert raw("BF.MEXISTS", "s", "foo") == [0]


def test_exists_arity(raw):
    assert raw("BF.EXISTS", "bf") == Err(arity("bf.exists"))
    assert raw("BF.EXISTS", "bf", "1", "2") == Err(arity("bf.exists"))
    assert raw("BF.MEXISTS", "bf") == Err(arity("bf.mexists"))


def test_no_false_negatives_large_batch(raw):
    items = [f"item:{i}".encode() for i in range(20000)]
    assert raw("BF.RESERVE", "bf", "0.001", "20000") == "OK"
    assert sum(raw("BF.MADD", "bf", *items)) >= 19900
    assert raw("BF.MEXISTS", "bf", *items) == [1] * len(items)


# ---- BF.INFO / BF.CARD ------------------------------------------------------------------------


def test_info_full_and_fields(raw):
    assert raw("BF.RESERVE", "bf", "0.001", "100") == "OK"
    info = raw("BF.INFO", "bf")
    assert info[0::2] == ["Capacity", "Size", "Number of filters", "Number of items inserted", "Expansion rate"]
    assert info[1] == 100 and info[3] > 0 and info[5:] == [1, "Number of items inserted", 0, "Expansion rate", 2]
    assert raw("BF.INFO", "bf", "capacity") == [100]
    assert raw("BF.INFO", "bf", "SIZE") == [info[3]]
    assert raw("BF.INFO", "bf", "filters") == [1]
    assert raw("BF.INFO", "bf", "items") == [0]
    assert raw("BF.INFO", "bf", "expansion") == [2]
    assert raw("MEMORY", "USAGE", "bf") >= info[3]


def test_info_errors(raw):
    assert raw("BF.RESERVE", "bf", "0.001", "100") == "OK"
    assert raw("BF.INFO", "bf", "capacity", "size") == Err(arity("bf.info"))
    assert raw("BF.INFO", "bf", "wrong_value") == Err("Invalid information value")
    assert raw("BF.INFO", "missing") == Err("ERR not found")
    assert raw("BF.INFO") == Err(arity("bf.info"))
    raw("SET", "s", "x")
    assert raw("BF.INFO", "s") == Err(WRONGTYPE)


def test_card(raw):
    assert raw("BF.CARD", "missing") == 0
    assert raw("BF.RESERVE", "bf", "0.001", "100") == "OK"
    assert raw("BF.CARD", "bf") == 0
    assert raw("BF.ADD", "bf", "foo") == 1
    assert raw("BF.CARD", "bf") == 1
    assert raw("BF.CARD") == Err(arity("bf.card"))
    raw("SET", "s", "x")
    assert raw("BF.CARD", "s") == Err(WRONGTYPE)


def test_bfx_info_names_the_layout_of_the_kernel(raw):
    """BFX.INFO's layout is the library's name of the filter's layout: the default of the
    kernel the server runs (block512 on scalar, split256 on sse42, avx2, avx512, neon)."""
    assert raw("BF.RESERVE", "li", "0.01", "1000", "NONSCALING") == "OK"
    flat = raw("BFX.INFO", "li")
    text = lambda v: v.decode() if isinstance(v, bytes) else v
    info = {text(flat[i]): text(flat[i + 1]) for i in range(0, len(flat), 2)}
    want = {"scalar": "block512", "avx512": "split256", "sse42": "split256", "avx2": "split256", "neon": "split256"}
    assert info["layout"] == want[info["kernel"]], info


def test_bfx_estimate_tracks_distinct_items(raw):
    """BFX.ESTIMATE: the fill-based estimate, an integer near the distinct count; a filter
    filled far past its capacity still answers a finite integer (the library bounds it)."""
    assert raw("BF.RESERVE", "est", "0.01", "100000", "NONSCALING") == "OK"
    for start in range(0, 5000, 500):
        raw("BF.MADD", "est", *[f"k{i}" for i in range(start, start + 500)])
    e = raw("BFX.ESTIMATE", "est")
    assert isinstance(e, int) and abs(e - 5000) <= 250, e
    assert raw("BF.RESERVE", "tiny", "0.5", "1", "NONSCALING") == "OK"
    assert raw("BF.ADD", "tiny", "a") == 1
    assert isinstance(raw("BFX.ESTIMATE", "tiny"), int)


# ---- RESP3 --------------------------------------------------------------------------------------


def test_resp3_booleans_and_map(shared_server):
    r3 = Raw(shared_server.port, protocol=3)
    try:
        r3("FLUSHALL")
        assert r3("BF.ADD", "test", "item") is True
        assert r3("BF.ADD", "test", "item") is False
        assert r3("BF.CARD", "test") == 1
        assert r3("BF.EXISTS", "test", "item") is True
        assert r3("BF.EXISTS", "test", "nope") is False
        info = r3("BF.INFO", "test")
        assert isinstance(info, dict)
        assert list(info) == ["Capacity", "Size", "Number of filters", "Number of items inserted", "Expansion rate"]
        assert info["Capacity"] == 100 and info["Number of items inserted"] == 1 and info["Expansion rate"] == 2
        assert r3("BF.INSERT", "test", "ITEMS", "item2", "item3", "item2") == [True, True, False]
        assert r3("BF.MADD", "test", "item4", "item5", "item2") == [True, True, False]
        assert r3("BF.MEXISTS", "test", "item4", "item5", "item6") == [True, True, False]
        r3("BF.RESERVE", "ns", "0.01", "10", "NONSCALING")
        assert r3("BF.INFO", "ns")["Expansion rate"] is None
    finally:
        r3.close()


# ---- command table: flags and key specs (ACL, cluster routing) -------------------------------------


def test_command_info_raw(raw):
    def cmd(name):
        return raw("COMMAND", "INFO", name)[0]

    add = cmd("bf.add")
    assert add[0] == b"bf.add" and add[1] == 3 and set(add[2]) >= {"write", "denyoom", "module", "fast"}
    assert add[3:6] == [1, 1, 1]
    spec = add[8][0]
    assert spec[1] == ["RW", "insert"]
    exists = cmd("bf.mexists")
    assert set(exists[2]) >= {"readonly", "module", "fast"} and exists[1] == -3
    assert exists[8][0][1] == ["RO", "access"]
    assert cmd("bf.info")[8][0][1] == ["RO"]
    merge = cmd("bfx.merge")
    assert merge[3:6] == [1, 2, 1]
    assert [s[1] for s in merge[8]] == [["RW", "update"], ["RO", "access"]]
    assert raw("COMMAND", "GETKEYS", "BFX.MERGE", "dst", "src") == [b"dst", b"src"]
    assert raw("COMMAND", "GETKEYS", "BF.INSERT", "k", "CAPACITY", "5", "ITEMS", "a") == [b"k"]


def test_acl_key_permissions(shared_server, raw):
    raw("ACL", "SETUSER", "reader", "on", ">pw", "%R~bf*", "+@all")
    try:
        c = Raw(shared_server.port)
        assert c("AUTH", "reader", "pw") == "OK"
        raw("BF.ADD", "bf1", "x")
        assert c("BF.EXISTS", "bf1", "x") == 1
        assert c("BF.INFO", "bf1", "ITEMS") == [1]
        assert c("BF.ADD", "bf1", "y").startswith("NOPERM")
        assert c("BF.EXISTS", "other", "x").startswith("NOPERM")
        c.close()
    finally:
        raw("ACL", "DELUSER", "reader")


def test_debug(raw):
    assert raw("BF.RESERVE", "bf", "0.01", "1000", "NONSCALING") == "OK"
    assert raw("BF.MADD", "bf", "a", "b", "a") == [1, 1, 0]
    size, line = raw("BF.DEBUG", "bf")
    assert size == b"size:2"
    fields = dict(f.split(":") for f in line.decode().split())
    assert fields["capacity"] == "1000" and fields["size"] == "2" and fields["hashwidth"] == "64"
    assert int(fields["bits"]) == 8 * int(fields["bytes"]) and int(fields["hashes"]) >= 1
    assert raw("BF.DEBUG", "missing") == Err("ERR not found")
    assert raw("BF.DEBUG") == Err(arity("bf.debug"))

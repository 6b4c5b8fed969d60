"""Scaling: items past capacity stay found, layers are added with the
expansion, and the whole chain's FPR stays within the error rate, measured on
>= 10^5 absent items."""
import pytest

from conftest import fpr, madd_many


@pytest.mark.parametrize("rate,capacity,expansion,n", [
    (0.01, 1000, 2, 40000),
    (0.001, 500, 4, 30000),
    (0.05, 200, 1, 3000),
])
def test_chain_fpr_within_error_rate(r, rate, capacity, expansion, n):
    assert r.execute_command("BF.RESERVE", "bf", rate, capacity, "EXPANSION", expansion) == b"OK"
    items = [f"in:{i}" for i in range(n)]
    added = madd_many(r, "bf", items)
    assert sum(added) == r.execute_command("BF.CARD", "bf")
    for part in (items[:5000], items[-5000:]):
        assert r.execute_command("BF.MEXISTS", "bf", *part) == [1] * len(part)
    layers = r.execute_command("BF.INFO", "bf", "FILTERS")[0]
    assert layers > 1
    total = r.execute_command("BF.INFO", "bf", "CAPACITY")[0]
    assert total == sum(capacity * expansion ** i for i in range(layers))
    assert total >= r.execute_command("BF.CARD", "bf")
    measured = fpr(r, "bf", [f"out:{i}" for i in range(100000)])
    assert measured <= rate, f"chain FPR {measured} > {rate} over {layers} layers"


def test_filled_to_capacity_within_error_rate(r):
    assert r.execute_command("BF.RESERVE", "bf", "0.01", "100000") == b"OK"
    madd_many(r, "bf", [f"in:{i}" for i in range(100000)])
    assert r.execute_command("BF.INFO", "bf", "FILTERS") == [1]
    assert fpr(r, "bf", [f"out:{i}" for i in range(200000)]) <= 0.01


def test_expansion_one_adds_equal_layers(r):
    # RedisBloom's test_expansion: capacity 4, expansion 1, 100 adds -> many equal layers.
    assert r.execute_command("BF.RESERVE", "exp1", "0.01", "4", "EXPANSION", "1") == b"OK"
    for i in range(100):
        r.execute_command("BF.ADD", "exp1", str(i))
    for i in range(100):
        assert r.execute_command("BF.EXISTS", "exp1", str(i)) == 1
    layers = r.execute_command("BF.INFO", "exp1", "FILTERS")[0]
    assert layers * 4 >= r.execute_command("BF.CARD", "exp1") > (layers - 1) * 4

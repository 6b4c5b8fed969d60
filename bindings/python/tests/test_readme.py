"""The package README's examples run as written and print what their
comments say: every ```python block of bindings/python/README.md, in order,
in one namespace (a later block uses what an earlier one made), in a scratch
directory with the build's bloomsimd command first on PATH. A line
`print(...)  # TEXT` must print a line that TEXT begins with. The README's
from_redis then fetches a filter from a live redis-server with the module
loaded, and it answers as BF.MEXISTS does; to_redis serves one made here, and
BF.MEXISTS answers as it does."""
import contextlib
import io
import os
import re
import socket
import struct
import subprocess
import time

import numpy as np
import pytest

import bloomsimd

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
REDIS_SERVER = "/usr/bin/redis-server"


def python_blocks():
    text = open(README, encoding="utf-8").read()
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```$", text, re.S | re.M)]


def expected_prints(code):
    """The trailing comment of each `print(...)  # comment` line."""
    return [m.group(1).strip() for m in re.finditer(r"^[ \t]*print\(.*\)\s+#\s*(.+)$", code, re.M)]


@pytest.fixture(scope="module")
def readme(cli, tmp_path_factory):
    """Runs the blocks; returns their namespace and, per block, (line, code, printed lines)."""
    work = tmp_path_factory.mktemp("readme")
    old_cwd, old_path = os.getcwd(), os.environ["PATH"]
    os.chdir(work)
    os.environ["PATH"] = os.path.dirname(os.path.abspath(cli)) + os.pathsep + old_path
    namespace, runs = {"__name__": "readme"}, []
    try:
        for line, code in python_blocks():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                try:
                    exec(compile(code, f"{README}:{line}", "exec"), namespace)
                except Exception as e:  # the block and its line in the failure
                    pytest.fail(f"README.md line {line}: {type(e).__name__}: {e}\n{code}")
            runs.append((line, code, out.getvalue().splitlines()))
    finally:
        os.chdir(old_cwd)
        os.environ["PATH"] = old_path
    yield namespace, runs
    for f in list(namespace.values()):  # the examples' filters: freed now, not at exit
        if isinstance(f, bloomsimd.Filter):
            f.close()


def test_the_readme_has_examples():
    blocks = python_blocks()
    assert len(blocks) >= 5, f"{README}: {len(blocks)} python blocks"
    assert sum(len(expected_prints(code)) for _, code in blocks) >= 5


def test_readme_examples_print_what_they_say(readme):
    _, runs = readme
    for line, code, printed in runs:
        expected = expected_prints(code)
        assert len(printed) == len(expected), f"README.md line {line}: printed {printed}, comments say {expected}"
        for got, want in zip(printed, expected):
            assert want.startswith(got), f"README.md line {line}: printed {got!r}, the comment says {want!r}"


@pytest.fixture(scope="module")
def redis_client(build_dir, tmp_path_factory):
    """A redis-server of its own on 127.0.0.1 with the build's module, and a redis-py client."""
    if os.environ.get("BLOOMSIMD_SANITIZE"):
        pytest.skip("a sanitized module cannot load into Debian's uninstrumented redis-server")
    try:
        import redis
    except ImportError:
        pytest.fail("redis-py missing (apt-get install python3-redis)")
    module = os.path.join(build_dir, "redis", "bloomsimd.so")
    assert os.path.exists(module), f"{module} missing: cmake --build {build_dir} --target bloomsimd_redis"
    assert os.access(REDIS_SERVER, os.X_OK), f"{REDIS_SERVER} missing (apt-get install redis-server)"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    work = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(work), "--loadmodule", module],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})
    client = redis.Redis(port=port)
    try:
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert server.poll() is None, "redis-server exited"
                time.sleep(0.025)
        yield client
    finally:
        client.close()
        server.terminate()
        server.wait()


def test_readme_from_redis_answers_as_the_module(readme, redis_client, rng):
    namespace, _ = readme
    from_redis = namespace["from_redis"]
    r = redis_client
    words = [f"user:{i}" for i in range(3000)]
    ints = rng.integers(0, 2**64, 3000, dtype=np.uint64)
    for key, capacity, extra, layers in (("grown", 500, [], 3), ("flat", 2000, ["NONSCALING"], 1)):
        r.execute_command("BF.RESERVE", key, "0.01", capacity, *extra)
        r.execute_command("BF.MADD", key, *words[:1000])
        r.execute_command("BF.MADD", key, *(struct.pack("<Q", k) for k in ints[:1000].tolist()))
        f = from_redis(r, key)
        assert f.info.layers == layers, (key, f.info)
        probes = words + [struct.pack("<Q", k) for k in ints.tolist()]
        redis_says = np.array(r.execute_command("BF.MEXISTS", key, *probes), dtype=bool)
        assert redis_says[:1000].all() and redis_says[3000:4000].all()
        assert (f.contains_many(probes) == redis_says).all(), key
        assert (f.contains_many(ints) == redis_says[3000:]).all(), key  # int keys: 8 little-endian bytes
        assert [w in f for w in words] == redis_says[:3000].tolist()
        assert 0 < redis_says[1000:3000].sum() + redis_says[4000:].sum() < 4000 * 0.03  # false positives: some, not many


def test_readme_to_redis_serves_a_filter_made_here(readme, redis_client, rng):
    namespace, _ = readme
    to_redis, from_redis = namespace["to_redis"], namespace["from_redis"]
    r = redis_client
    words = [f"user:{i}" for i in range(3000)]
    ints = rng.integers(0, 2**64, 3000, dtype=np.uint64)
    probes = words + [struct.pack("<Q", k) for k in ints.tolist()]
    f = bloomsimd.Filter(5000, fpr=0.01)
    f.add_many(words[:1000])
    f.add_many(ints[:1000])
    to_redis(r, "made-here", f)
    redis_says = np.array(r.execute_command("BF.MEXISTS", "made-here", *probes), dtype=bool)
    assert redis_says[:1000].all() and redis_says[3000:4000].all()
    assert (f.contains_many(probes) == redis_says).all()
    with pytest.raises(Exception, match="item exists"):
        to_redis(r, "made-here", f)
    g = bloomsimd.Filter(100, fpr=0.01)
    g.add("only-me")
    to_redis(r, "made-here", g, replace=True)
    assert r.execute_command("BF.EXISTS", "made-here", "only-me") == 1
    assert from_redis(r, "made-here").to_bytes() == g.to_bytes()
    f.close()
    g.close()

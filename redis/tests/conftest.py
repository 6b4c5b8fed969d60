"""Fixtures: redis-server processes with bloomsimd.so loaded, on 127.0.0.1 only.

Every server gets a free port (and, for cluster nodes, a free bus port), its own
temporary directory, and is stopped by its pid when the fixture ends, pass or
fail. Nothing here ever connects to a non-loopback address.
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest
import redis

HOST = "127.0.0.1"
HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_addoption(parser):
    parser.addoption("--module", default=os.environ.get("BLOOMSIMD_REDIS_MODULE"),
                     help="path to bloomsimd.so (default: build/redis/bloomsimd.so)")
    parser.addoption("--redis-server", default=shutil.which("redis-server") or "/usr/bin/redis-server")
    parser.addoption("--cli", default=os.environ.get("BLOOMSIMD_CLI"),
                     help="path to the bloomsimd command (default: cli/bloomsimd next to the module's folder)")


@pytest.fixture(scope="session")
def module_path(pytestconfig):
    path = pytestconfig.getoption("--module")
    if not path:
        path = os.path.join(HERE, "..", "..", "build", "redis", "bloomsimd.so")
    path = os.path.abspath(path)
    assert os.path.exists(path), f"module not built: {path}"
    return path


def port_is_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
            return True
        except OSError:
            return False


def free_port(cluster=False):
    """A port the kernel just handed out (and its +10000 bus port for a cluster node)."""
    for _ in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        if cluster and (port + 10000 > 65535 or not port_is_free(port + 10000)):
            continue
        return port
    raise RuntimeError("no free port on 127.0.0.1")


class Server:
    """One redis-server child process, stopped by pid."""

    def __init__(self, binary, module, extra=(), cluster=False, workdir=None):
        self.binary, self.module, self.extra, self.cluster = binary, module, list(extra), cluster
        self.dir = workdir or tempfile.mkdtemp(prefix="bloomsimd-redis-")
        self.port = None
        self.proc = None

    def args(self):
        a = [self.binary, "--port", str(self.port), "--bind", HOST, "--protected-mode", "yes",
             "--dir", self.dir, "--save", "", "--appendonly", "no", "--enable-debug-command", "yes",
             "--loadmodule", self.module, "--logfile", "redis.log",
             # a primary starts a replica's full sync at once, not after the 5 s
             # it waits by default for more replicas to join the same transfer
             "--repl-diskless-sync-delay", "0",
             # SIGTERM stops a primary at once, not after waiting up to a second
             # for its replicas' next acknowledgement (tests WAIT where they need it)
             "--shutdown-timeout", "0"]
        if self.cluster:
            a += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                  "--cluster-node-timeout", "5000"]
        return a + self.extra

    def start(self, port=None):
        self.port = port or self.port or free_port(self.cluster)
        self.proc = subprocess.Popen(self.args(), cwd=self.dir, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited ({self.proc.returncode}):\n{self.log()}")
            try:
                if self.client().ping():
                    break
            except redis.exceptions.BusyLoadingError:
                pass
            except redis.exceptions.ConnectionError:
                pass
            if time.time() > deadline:
                raise RuntimeError(f"redis-server did not answer:\n{self.log()}")
            time.sleep(0.05)
        return self

    def client(self, **kw):
        return redis.Redis(host=HOST, port=self.port, socket_timeout=120, **kw)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self):
        try:
            with open(os.path.join(self.dir, "redis.log")) as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def stop(self):
        """SIGTERM to our pid (the server saves nothing: --save ''), then SIGKILL."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop()
        return self.start(self.port)

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def make_server(pytestconfig, module_path):
    """Factory: make_server(extra=[...]) starts another server; all are stopped at the end."""
    made = []

    def make(extra=(), cluster=False, start=True):
        s = Server(pytestconfig.getoption("--redis-server"), module_path, extra, cluster)
        made.append(s)
        return s.start() if start else s

    yield make
    for s in made:
        s.cleanup()


@pytest.fixture(scope="module")
def shared_server(pytestconfig, module_path):
    s = Server(pytestconfig.getoption("--redis-server"), module_path).start()
    yield s
    s.cleanup()


@pytest.fixture
def r(shared_server):
    """A client on a flushed single node (bytes replies)."""
    c = shared_server.client()
    c.flushall()
    yield c
    c.close()


def wait_for(predicate, timeout=30, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Err(str):
    """An error reply, with its full text (redis-py strips the 'ERR ' prefix)."""


class Raw:
    """A minimal RESP2/RESP3 connection that keeps replies exactly as sent:
    errors as Err (full text), RESP3 booleans as bool, maps as dict, nulls as None."""

    def __init__(self, port, protocol=2):
        self.sock = socket.create_connection((HOST, port), timeout=120)
        self.buf = b""
        if protocol == 3:
            assert isinstance(self(b"HELLO", b"3"), dict)

    def close(self):
        self.sock.close()

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))

    def __call__(self, *args):
        self.send(*args)
        return self.read()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            return Err(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            return None if int(rest) < 0 else self._exact(int(rest))
        if t in (b"*", b"~", b">"):
            return None if int(rest) < 0 else [self.read() for _ in range(int(rest))]
        if t == b"%":
            return {self._key(self.read()): self.read() for _ in range(int(rest))}
        if t == b"_":
            return None
        if t == b"#":
            return rest == b"t"
        if t == b",":
            return float(rest)
        if t == b"=":
            return self._exact(int(rest))
        raise ValueError(f"unknown reply type {line!r}")

    @staticmethod
    def _key(k):
        return k.decode() if isinstance(k, bytes) else k


@pytest.fixture
def raw(shared_server):
    shared_server.client().flushall()
    c = Raw(shared_server.port)
    yield c
    c.close()


@pytest.fixture(scope="session")
def persistence_support(pytestconfig, module_path):
    """Whether the library can serialize what the module stores: a scaling
    filter (the default BF.ADD creates) with its items counter."""
    s = Server(pytestconfig.getoption("--redis-server"), module_path).start()
    try:
        c = s.client()
        c.execute_command("BF.MADD", "probe", "a", "b")
        try:
            c.restore("copy", 0, c.dump("probe"))
            return c.execute_command("BF.CARD", "copy") == 2
        except redis.ResponseError:
            return False
    finally:
        s.cleanup()


@pytest.fixture
def needs_persistence(persistence_support):
    if not persistence_support:
        pytest.skip("this libbloomsimd does not serialize scalable filters and the items counter: "
                    "the persistence tests need both")


def madd_many(c, key, items, step=2000):
    """BF.MADD of many items, in commands of `step` items; the replies joined."""
    out = []
    for at in range(0, len(items), step):
        out += c.execute_command("BF.MADD", key, *items[at:at + step])
    return out


def fpr(c, key, absent, step=5000):
    """The share of `absent` items BF.MEXISTS reports present."""
    hits = 0
    for at in range(0, len(absent), step):
        hits += sum(c.execute_command("BF.MEXISTS", key, *absent[at:at + step]))
    return hits / len(absent)

"""Fixtures: the library build the module was linked with, a C reference
program compiled against it, the bloomsimd command, and key sets.

BLOOMSIMD_BUILD_DIR names the CMake build (tests/run.sh sets it). Nothing is
skipped when something is missing: the suite fails and says what to build.
"""
import os
import shlex
import struct
import subprocess
import zlib

import numpy as np
import pytest

import bloomsimd

HERE = os.path.dirname(os.path.abspath(__file__))
# tests/packages/python.sh runs this suite against an installed wheel or sdist and names
# the environment it installed into: the package must be imported from there.
_prefix = os.environ.get("BLOOMSIMD_EXPECT_PREFIX")
assert not _prefix or bloomsimd.__file__.startswith(_prefix), f"imported {bloomsimd.__file__}, not from {_prefix}"
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


@pytest.fixture(scope="session")
def build_dir():
    path = os.environ.get("BLOOMSIMD_BUILD_DIR")
    assert path, "set BLOOMSIMD_BUILD_DIR to the CMake build holding libbloomsimd.a (tests/run.sh does)"
    assert os.path.exists(os.path.join(path, "libbloomsimd.a")), f"{path}/libbloomsimd.a missing"
    return path


def pkg_config_libs():
    try:
        return subprocess.check_output(["pkg-config", "--libs", "libxxhash"], text=True).split()
    except (OSError, subprocess.CalledProcessError):
        return ["-lxxhash"]


@pytest.fixture(scope="session")
def c_reference(build_dir, tmp_path_factory):
    """Path of tests/c_reference.c compiled against the same libbloomsimd.a."""
    exe = str(tmp_path_factory.mktemp("c") / "c_reference")
    cmd = ["cc", "-std=c11", "-O1", "-Wall", "-Werror", "-I", os.path.join(ROOT, "include"),
           os.path.join(HERE, "c_reference.c"), os.path.join(build_dir, "libbloomsimd.a"), "-o", exe]
    sanitize = os.environ.get("BLOOMSIMD_SANITIZE")
    if sanitize:
        cmd[1:1] = ["-fsanitize=" + sanitize]
    cmd += pkg_config_libs() + ["-lm", "-lpthread"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, f"{shlex.join(cmd)}\n{result.stderr}"
    return exe


def c_env():
    """The C programs run without the Python process's LD_PRELOAD of libasan."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


@pytest.fixture(scope="session")
def cli(build_dir):
    path = os.path.join(build_dir, "cli", "bloomsimd")
    assert os.path.exists(path), f"{path} missing: cmake --build {build_dir} --target bloomsimd-cli"
    return path


def write_keys(path, keys):
    """KEYS file for c_reference: u64 little-endian, or u32-length-prefixed records."""
    with open(path, "wb") as f:
        if isinstance(keys, np.ndarray):
            f.write(keys.astype("<u8").tobytes())
            return "u64"
        for k in keys:
            b = k.encode() if isinstance(k, str) else bytes(k)
            f.write(struct.pack("<I", len(b)) + b)
        return "bytes"


def run_c(exe, *args):
    result = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, env=c_env())
    assert result.returncode == 0, f"{exe} {args}: {result.stderr}"


def c_build(exe, tmp_path, keys, **options):
    """A filter file built by C from keys with bloomsimd_options fields; returns its path."""
    keys_path, out = tmp_path / "c-keys", tmp_path / "c-filter.bsf"
    kind = write_keys(keys_path, keys)
    run_c(exe, "build", out, kind, keys_path, *(f"{k}={v}" for k, v in options.items()))
    return out


def c_query(exe, tmp_path, filter_path, keys):
    """C's answers (bool array) for keys against a saved filter."""
    keys_path, answers = tmp_path / "q-keys", tmp_path / "q-answers"
    kind = write_keys(keys_path, keys)
    run_c(exe, "query", filter_path, kind, keys_path, answers)
    return np.frombuffer(answers.read_bytes(), dtype=np.uint8).astype(bool)


@pytest.fixture
def rng(request):
    """A generator seeded by the test's name: reproducible, different per test."""
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


def random_u64(rng, n):
    return rng.integers(0, 2**64, n, dtype=np.uint64)


def random_bytes_keys(rng, n, lo=0, hi=40):
    lens = rng.integers(lo, hi + 1, n)
    blob = rng.integers(0, 256, int(lens.sum()), dtype=np.uint8).tobytes()
    out, at = [], 0
    for n_ in lens:
        out.append(blob[at:at + n_])
        at += n_
    return out


@pytest.fixture(params=[k for k in bloomsimd.kernels() if bloomsimd.kernel_supported(k)])
def kernel(request):
    """Every kernel this CPU runs (NEON through SIMDe included)."""
    return request.param

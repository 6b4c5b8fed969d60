#!/usr/bin/python3
"""bench.py — the Python package against what Python users reach for.

    bash bindings/python/bench/run.sh [--quick] [options]     (builds, then runs this)

Rows, for each N (default 1e5 and 1e7 keys; --quick: 1e5, fewer rounds):

  u64 batch     add_many / contains_many of a NumPy uint64 array, against
                  the C library's batched calls on the same array and the
                  same filter bytes, timed in C in this process (c_batch.c)
                  a Python set: s.update(list) / [k in s for k in list]
                  (the list of ints made beforehand, untimed: the set's
                  best case)
                  the Redis module through redis-py: BF.MADD / BF.MEXISTS,
                  1000 keys a command (the 8 bytes of each key)
  16-byte bytes add_many / contains_many of a list of 16-byte bytes,
                  against a set, Debian's flor (pure Python, one key a call)
                  and BF.MADD / BF.MEXISTS
  single int    [k in f for k in list] against [k in s for k in list]; also
                  net of the bare loop [k for k in list]
  memory        bytes per key: the filter's bit array; the set's table and
                  the int objects it keeps alive (tracemalloc); flor's
                  bytearray; Redis' MEMORY USAGE

Clocks: the CPU time of the calling thread (time.thread_time_ns; the C
helper reads CLOCK_THREAD_CPUTIME_ID) for everything that runs in this
process, so time the scheduler gives to other processes of a shared machine
is counted on neither side; wall time for Redis, whose work is in the
server.

Every lookup is of keys that were inserted (the set and the filters answer
True for all; the bench checks it and exits 2 if not). Timing: R rounds;
in each round every contender of a row runs once, in an order that rotates
from round to round (paired, alternating). A cell is the median ns per key
over the rounds with the spread (min-max); a ratio is the median of the
per-round ratios with their spread, so both sides of a ratio come from the
same rounds. flor and Redis are slow per key: they are timed on a sample
of the row's keys (--flor-sample, --redis-sample) into a structure sized
for the whole row; the sample size is printed.

Exit status: 0, 2 if an answer was wrong, 1 on any other failure.
"""
import argparse
import ctypes
import gc
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

try:
    import bloomsimd
except ImportError as e:
    sys.exit(f"bench.py: {e}: run it through bench/run.sh (which builds the package), or install the package")

FPR = 0.01


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="the short form: 1e5 keys, 3 rounds, small samples")
    p.add_argument("--short", action="store_true", help="a few lines per size (scripts/bench.sh): medians only")
    p.add_argument("--sizes", help="comma-separated key counts (default 1e5,1e7; --quick 1e5)")
    p.add_argument("--rounds", type=int, help="paired rounds (default 7; --quick 3)")
    p.add_argument("--flor-sample", type=int, help="keys flor is timed on (default 20000; --quick 2000)")
    p.add_argument("--redis-sample", type=int, help="keys Redis is timed on (default 2e5; --quick 2e4)")
    p.add_argument("--single-sample", type=int, help="keys of the single-key row (default 1e6; --quick 1e5)")
    p.add_argument("--budget-ms", type=float, help="time per contender per round: its call is repeated (3 to "
                   "20 times) until this has gone, and the fastest counts (default 40; --quick 5)")
    p.add_argument("--c-helper", required=True, help="c_batch.so (run.sh builds it)")
    p.add_argument("--redis-module", help="the module's bloomsimd.so (default: no Redis rows)")
    p.add_argument("--redis-server", default="redis-server")
    p.add_argument("--no-flor", action="store_true", help="skip flor (else a missing flor is an error)")
    p.add_argument("--json", help="also write every measurement to this file")
    a = p.parse_args()
    q = a.quick
    a.sizes = [int(float(s)) for s in (a.sizes or ("1e5" if q else "1e5,1e7")).split(",")]
    a.rounds = a.rounds or (3 if q else 7)
    a.flor_sample = a.flor_sample or (2000 if q else 20000)
    a.redis_sample = int(a.redis_sample or (2e4 if q else 2e5))
    a.single_sample = int(a.single_sample or (1e5 if q else 1e6))
    a.budget = int((a.budget_ms or (5 if q else 40)) * 1e6)
    return a


class WrongAnswer(Exception):
    pass


def check(ok, what):
    if not ok:
        raise WrongAnswer(what)


# ---- the C library, in this process --------------------------------------------------

class CLibrary:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.bsb_load.restype = ctypes.c_void_p
        lib.bsb_load.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p]
        lib.bsb_free.argtypes = [ctypes.c_void_p]
        lib.bsb_contains_ns.restype = ctypes.c_uint64
        lib.bsb_contains_ns.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        lib.bsb_add_ns.restype = ctypes.c_uint64
        lib.bsb_add_ns.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.lib = lib

    def filter_like(self, f):
        data = f.to_bytes()
        h = self.lib.bsb_load(data, len(data), f.info.kernel.encode())
        if not h:
            raise RuntimeError("c_batch: bsb_load failed")
        return h


# ---- Redis ------------------------------------------------------------------------------

class RedisServer:
    """redis-server on 127.0.0.1, a free port, no persistence, with the module."""

    def __init__(self, server, module):
        import redis  # Debian's python3-redis
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.dir = tempfile.mkdtemp(prefix="bloomsimd-pybench-")
        self.proc = subprocess.Popen([server, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
                                      "--appendonly", "no", "--dir", self.dir, "--loadmodule", os.path.abspath(module)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.r = redis.Redis(host="127.0.0.1", port=self.port)
        for _ in range(200):
            try:
                self.r.ping()
                break
            except redis.exceptions.ConnectionError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
                time.sleep(0.025)
        else:
            raise RuntimeError("redis-server did not answer")
        self.version = self.r.info("server")["redis_version"]

    def stop(self):
        self.proc.kill()  # by pid: the one this process started
        self.proc.wait()
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)


CHUNK = 1000


def redis_add(r, key, items):
    pipe = r.pipeline(transaction=False)
    for i in range(0, len(items), CHUNK):
        pipe.execute_command("BF.MADD", key, *items[i:i + CHUNK])
    pipe.execute()


def redis_exists(r, key, items):
    pipe = r.pipeline(transaction=False)
    for i in range(0, len(items), CHUNK):
        pipe.execute_command("BF.MEXISTS", key, *items[i:i + CHUNK])
    return [x for reply in pipe.execute() for x in reply]


# ---- timing --------------------------------------------------------------------------------

def paired(contenders, rounds, budget_ns):
    """contenders: name -> (fn returning elapsed ns, keys per call). Returns
    name -> list of ns/key, one per round, in rounds whose order rotates.
    Within a round a contender's call is repeated, at least 3 times and
    until budget_ns have gone (at most 20 calls), and its fastest call
    counts: on a shared machine a preempted call says nothing about either
    side, and every contender gets the same chance."""
    names = list(contenders)
    out = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        if r % 2:
            order.reverse()
        for n in order:
            fn, keys = contenders[n]
            best, spent, calls = None, 0, 0
            while calls < 3 or (calls < 20 and spent < budget_ns):
                t = fn()
                best = t if best is None else min(best, t)
                spent += t
                calls += 1
            out[n].append(best / keys)
    return out


def timed(fn, clock=time.thread_time_ns):
    def run():
        gc_was = gc.isenabled()
        gc.disable()
        t0 = clock()
        fn()
        t = clock() - t0
        if gc_was:
            gc.enable()
        return t
    return run


def cell(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def ratios(a, b):
    return cell([x / y for x, y in zip(a, b)])


def fmt_ns(c):
    m = c["median"]
    prec = 2 if m < 10 else 1 if m < 1000 else 0
    return f"{m:.{prec}f} ({c['min']:.{prec}f}-{c['max']:.{prec}f})"


def fmt_x(c):
    return f"{c['median']:.2f}x ({c['min']:.2f}-{c['max']:.2f})"


# ---- rows ------------------------------------------------------------------------------------

def u64_rows(n, a, clib, redis_srv, results):
    rng = np.random.default_rng(n)
    keys = rng.integers(0, 2**64, n, dtype=np.uint64)
    probe_list = keys.tolist()
    f = bloomsimd.Filter(n, FPR)
    f.add_many(keys)
    h = clib.filter_like(f)
    out = np.empty(n, dtype=np.uint8)
    keys_ptr, out_ptr = keys.ctypes.data, out.ctypes.data

    # correctness first: the binding and C agree, no false negatives
    check(f.contains_many(keys).all(), "u64: a false negative in contains_many")
    clib.lib.bsb_contains_ns(h, keys_ptr, n, out_ptr)
    check(out.all(), "u64: a false negative in the C library")
    s = set(probe_list)
    check(all(k in s for k in probe_list[:1000]), "set")

    def add_py():
        f.clear()
        return timed(lambda: f.add_many(keys))()

    hits = {}

    def contains_py():
        t0 = time.thread_time_ns()
        hits["py"] = f.contains_many(keys)
        return time.thread_time_ns() - t0

    def add_c():
        t = clib.lib.bsb_add_ns(h, keys_ptr, n)
        check(t > 0, "the C library's add_batch_u64 failed")
        return t

    contenders_add = {"bloomsimd": (add_py, n), "C": (add_c, n),
                      "set": (timed(lambda: set().update(probe_list)), n)}
    contenders_has = {"bloomsimd": (contains_py, n), "C": (lambda: clib.lib.bsb_contains_ns(h, keys_ptr, n, out_ptr), n),
                      "set": (timed(lambda: [k in s for k in probe_list]), n)}
    if redis_srv:
        sample = keys[:min(n, a.redis_sample)].view("S8").tolist()
        rkey = f"u64-{n}"
        redis_srv.r.delete(rkey)
        redis_srv.r.execute_command("BF.RESERVE", rkey, FPR, n)

        def r_add():
            return timed(lambda: redis_add(redis_srv.r, rkey, sample), time.perf_counter_ns)()

        def r_has():
            t0 = time.perf_counter_ns()
            ans = redis_exists(redis_srv.r, rkey, sample)
            t = time.perf_counter_ns() - t0
            check(all(ans), "Redis: a false negative in BF.MEXISTS")
            return t

        contenders_add["Redis"] = (r_add, len(sample))
        contenders_has["Redis"] = (r_has, len(sample))
        redis_add(redis_srv.r, rkey, sample)
    add = paired(contenders_add, a.rounds, a.budget)
    f.add_many(keys)  # the rounds ended with f cleared and refilled: fill it for the lookups
    has = paired(contenders_has, a.rounds, a.budget)
    check(hits["py"].all(), "u64: a false negative in the timed contains_many")
    check(out.all(), "u64: a false negative in the timed C call")
    clib.lib.bsb_free(h)
    results.append(dict(row="u64 batch", n=n, add={k: cell(v) for k, v in add.items()},
                        contains={k: cell(v) for k, v in has.items()},
                        add_vs_c=ratios(add["bloomsimd"], add["C"]), contains_vs_c=ratios(has["bloomsimd"], has["C"]),
                        set_add_vs_us=ratios(add["set"], add["bloomsimd"]),
                        set_contains_vs_us=ratios(has["set"], has["bloomsimd"]),
                        redis_sample=min(n, a.redis_sample) if redis_srv else 0))
    del s
    gc.collect()

    # single keys
    m = min(n, a.single_sample)
    probes = keys[:m].tolist()  # new int objects, as a lookup of fresh values makes
    s = set(probe_list)
    del probe_list
    gc.collect()
    single_py = timed(lambda: [k in f for k in probes])
    single_set = timed(lambda: [k in s for k in probes])
    bare = timed(lambda: [k for k in probes])
    check(all([k in f for k in probes]), "single: a false negative")
    one = paired({"bloomsimd": (single_py, m), "set": (single_set, m), "loop": (bare, m)}, a.rounds, a.budget)
    net_f = [x - y for x, y in zip(one["bloomsimd"], one["loop"])]
    net_s = [x - y for x, y in zip(one["set"], one["loop"])]
    results.append(dict(row="single int", n=n, sample=m, times={k: cell(v) for k, v in one.items()},
                        us_vs_set=ratios(one["bloomsimd"], one["set"]), net_us_vs_set=ratios(net_f, net_s)))

    # memory per key
    set_bytes = memory_of(lambda: set(keys.tolist()))
    mem = {"bloomsimd": f.info.memory_bytes / n, "set of ints": set_bytes / n}
    if redis_srv:
        mem["Redis"] = redis_srv.r.memory_usage(f"u64-{n}") / n  # reserved for n keys at FPR
    results.append(dict(row="memory", n=n, bytes_per_key=mem, set_vs_us=set_bytes / f.info.memory_bytes))
    del s
    f.close()
    gc.collect()


def memory_of(make):
    """Bytes Python holds for the object make() returns (everything it keeps alive)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        obj = make()
        gc.collect()
        size = tracemalloc.get_traced_memory()[0] - before
        del obj
        return size
    finally:
        tracemalloc.stop()


def bytes_rows(n, a, redis_srv, results, memory_row):
    rng = np.random.default_rng(n + 1)
    column = rng.integers(0, 256, (n, 16), dtype=np.uint8).view("S16").ravel()
    keys = column.tolist()  # a list of 16-byte bytes
    f = bloomsimd.Filter(n, FPR)
    s = set(keys)
    hits = {}

    def add_py():
        f.clear()
        return timed(lambda: f.add_many(keys))()

    def contains_py():
        t0 = time.thread_time_ns()
        hits["py"] = f.contains_many(keys)
        return time.thread_time_ns() - t0

    contenders_add = {"bloomsimd": (add_py, n), "set": (timed(lambda: set().update(keys)), n)}
    contenders_has = {"bloomsimd": (contains_py, n), "set": (timed(lambda: [k in s for k in keys]), n)}
    flor_bf = None
    if not a.no_flor:
        import flor  # Debian's python3-flor
        fs = keys[:min(n, a.flor_sample)]
        flor_bf = flor.BloomFilter(n=n + 1, p=FPR)  # flor refuses to reach n

        def flor_add():
            add = flor_bf.add
            return timed(lambda: [add(k) for k in fs])()

        def flor_has():
            t0 = time.thread_time_ns()
            ans = [k in flor_bf for k in fs]
            t = time.thread_time_ns() - t0
            check(all(ans), "flor: a false negative")
            return t

        contenders_add["flor"] = (flor_add, len(fs))
        contenders_has["flor"] = (flor_has, len(fs))
    if redis_srv:
        sample = keys[:min(n, a.redis_sample)]
        rkey = f"b16-{n}"
        redis_srv.r.delete(rkey)
        redis_srv.r.execute_command("BF.RESERVE", rkey, FPR, n)

        def r_add():
            return timed(lambda: redis_add(redis_srv.r, rkey, sample), time.perf_counter_ns)()

        def r_has():
            t0 = time.perf_counter_ns()
            ans = redis_exists(redis_srv.r, rkey, sample)
            t = time.perf_counter_ns() - t0
            check(all(ans), "Redis: a false negative in BF.MEXISTS")
            return t

        contenders_add["Redis"] = (r_add, len(sample))
        contenders_has["Redis"] = (r_has, len(sample))
    add = paired(contenders_add, a.rounds, a.budget)
    f.add_many(keys)
    if flor_bf is not None:
        for k in keys[:min(n, a.flor_sample)]:
            flor_bf.add(k)
    if redis_srv:
        redis_add(redis_srv.r, rkey, sample)
    has = paired(contenders_has, a.rounds, a.budget)
    check(hits["py"].all(), "bytes: a false negative in contains_many")
    row = dict(row="16-byte bytes", n=n, add={k: cell(v) for k, v in add.items()},
               contains={k: cell(v) for k, v in has.items()},
               set_add_vs_us=ratios(add["set"], add["bloomsimd"]), set_contains_vs_us=ratios(has["set"], has["bloomsimd"]))
    if flor_bf is not None:
        row.update(flor_sample=min(n, a.flor_sample), flor_add_vs_us=ratios(add["flor"], add["bloomsimd"]),
                   flor_contains_vs_us=ratios(has["flor"], has["bloomsimd"]))
        memory_row["bytes_per_key"]["flor"] = len(flor_bf._bytes) / n
    if redis_srv:
        row["redis_sample"] = len(sample)
    results.append(row)
    memory_row["bytes_per_key"]["set of bytes"] = memory_of(lambda: set(column.tolist())) / n
    f.close()


# ---- report ---------------------------------------------------------------------------------

def cpu_name():
    try:
        with open("/proc/cpuinfo") as c:
            info = {}
            for line in c.read().split("\n\n")[0].splitlines():
                key, _, value = line.partition(":")
                info[key.strip()] = value.strip()
        return "%s (family %s model %s)" % (info["model name"], info["cpu family"], info["model"])
    except (OSError, KeyError):
        return platform.processor() or "unknown CPU"


def report(results, a, redis_version):
    print(f"bloomsimd {bloomsimd.__version__} for Python {platform.python_version()}, NumPy {np.__version__}, "
          f"kernel {bloomsimd.default_kernel()}; {cpu_name()}")
    print(f"{a.rounds} paired rounds (in each, the fastest of 3-20 calls within {a.budget / 1e6:g} ms); CPU ns per key (Redis: wall): median (min-max); ratios: median of per-round ratios (min-max); "
          f"fpr {FPR}" + (f"; Redis {redis_version}" if redis_version else ""))
    for r in results:
        n = f"{r['n']:.0e}".replace("e+0", "e")
        if r["row"] in ("u64 batch", "16-byte bytes"):
            for op in ("add", "contains"):
                cells = "  ".join(f"{k} {fmt_ns(v)}" for k, v in r[op].items())
                print(f"{r['row']:<14} {n:<4} {op:<9} {cells}")
            if "add_vs_c" in r:
                print(f"{'':<14} {n:<4} bloomsimd/C: add {fmt_x(r['add_vs_c'])}, contains {fmt_x(r['contains_vs_c'])}")
            print(f"{'':<14} {n:<4} set/bloomsimd: add {fmt_x(r['set_add_vs_us'])}, "
                  f"contains {fmt_x(r['set_contains_vs_us'])}")
            if "flor_add_vs_us" in r:
                print(f"{'':<14} {n:<4} flor/bloomsimd ({r['flor_sample']} keys): add {fmt_x(r['flor_add_vs_us'])}, "
                      f"contains {fmt_x(r['flor_contains_vs_us'])}")
            if r.get("redis_sample"):
                print(f"{'':<14} {n:<4} (Redis: {r['redis_sample']} keys, {CHUNK} a command, pipelined)")
        elif r["row"] == "single int":
            cells = "  ".join(f"{k} {fmt_ns(v)}" for k, v in r["times"].items())
            print(f"{'single int':<14} {n:<4} {'in':<9} {cells}  ({r['sample']} lookups)")
            print(f"{'':<14} {n:<4} bloomsimd/set: {fmt_x(r['us_vs_set'])}, net of the loop "
                  f"{fmt_x(r['net_us_vs_set'])}")
        elif r["row"] == "memory":
            cells = "  ".join(f"{k} {v:.2f}" for k, v in r["bytes_per_key"].items())
            print(f"{'memory':<14} {n:<4} B/key    {cells}  (set of ints / bloomsimd: {r['set_vs_us']:.1f}x)")


def report_short(results, a):
    """A few lines per size with units: medians, and ratios as median per-round ratios."""
    def ns(c):
        m = c["median"]
        return f"{m:.0f} ns" if m >= 100 else f"{m:.3g} ns"

    def x(c):
        return f"{c['median']:.2f}x"

    print(f"Python package, kernel {bloomsimd.default_kernel()}, {cpu_name()}: ns per key of CPU time "
          f"(Redis: wall), {a.rounds} paired rounds; 'set 26x' = a set takes 26 times as long")
    for r in results:
        n = f"{r['n']:.0e}".replace("e+0", "e")
        if r["row"] == "u64 batch":
            print(f"  {n} u64 NumPy   add {ns(r['add']['bloomsimd'])} (C {ns(r['add']['C'])}, set "
                  f"{x(r['set_add_vs_us'])}), contains {ns(r['contains']['bloomsimd'])} (C {ns(r['contains']['C'])}, "
                  f"set {x(r['set_contains_vs_us'])})")
            if "Redis" in r["add"]:
                print(f"  {n} Redis       BF.MADD {ns(r['add']['Redis'])}, BF.MEXISTS {ns(r['contains']['Redis'])} "
                      f"per item, {CHUNK} a command, pipelined")
        elif r["row"] == "16-byte bytes":
            flor = (f", flor {x(r['flor_add_vs_us'])} / {x(r['flor_contains_vs_us'])}"
                    if "flor_add_vs_us" in r else "")
            print(f"  {n} 16-byte     add {ns(r['add']['bloomsimd'])}, contains {ns(r['contains']['bloomsimd'])} "
                  f"(set {x(r['set_add_vs_us'])} / {x(r['set_contains_vs_us'])}{flor})")
        elif r["row"] == "single int":
            print(f"  {n} x in f      {ns(r['times']['bloomsimd'])} ({x(r['us_vs_set'])} the time of x in s, "
                  f"{ns(r['times']['set'])})")
        elif r["row"] == "memory":
            print(f"  {n} memory      {r['bytes_per_key']['bloomsimd']:.2f} B/key, a set of ints "
                  f"{r['set_vs_us']:.0f}x that")


def main():
    a = parse_args()
    clib = CLibrary(a.c_helper)
    redis_srv = None
    if not a.no_flor:
        try:
            import flor  # noqa: F401
        except ImportError:
            sys.exit("bench.py: flor missing (apt-get install python3-flor), or pass --no-flor")
    results = []
    try:
        if a.redis_module:
            redis_srv = RedisServer(a.redis_server, a.redis_module)
        for n in a.sizes:
            u64_rows(n, a, clib, redis_srv, results)
            memory_row = results[-1]
            bytes_rows(n, a, redis_srv, results, memory_row)
    except WrongAnswer as e:
        print(f"bench.py: WRONG ANSWER: {e}", file=sys.stderr)
        return 2
    finally:
        if redis_srv:
            redis_srv.stop()
    order = {"u64 batch": 0, "16-byte bytes": 1, "single int": 2, "memory": 3}
    results.sort(key=lambda r: (r["n"], order[r["row"]]))
    if a.short:
        report_short(results, a)
    else:
        report(results, a, redis_srv.version if redis_srv else None)
    if a.json:
        with open(a.json, "w") as out:
            json.dump(dict(cpu=cpu_name(), kernel=bloomsimd.default_kernel(), rounds=a.rounds, results=results), out,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

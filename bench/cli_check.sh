#!/usr/bin/env bash
# cli_check.sh BENCH EXAMPLE [DEDUP JOIN GROWING WINDOW] — option parsing of
# bloomsimd-bench and the examples (CTest: bench_cli). Every bad value must
# be refused with exit status 1 (the examples: 2) and, for the bench, exactly
# one line on stderr that names the option and what is allowed (the
# examples: that line, then their usage line); every documented number form
# must parse, in every program the same way (examples/args.h; the bloomsimd
# command's forms are checked in cli/tests/test_usage.sh).
# Options placed before --help are parsed, then --help exits 0 without
# running anything, which is how the good forms are checked quickly.
set -uo pipefail
bench=$1 example=$2
dedup=${3:-} join=${4:-} growing=${5:-} window=${6:-}
fail=0

bad() { # expected-substring args...
  local want=$1
  shift
  local err rc
  err=$("$bench" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 1 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL: bloomsimd-bench $* -> rc $rc, stderr: $err (want rc 1 and one line with '$want')"
    fail=1
  else
    echo "ok: refused $*: $err"
  fi
}

good() { # args... (before --help)
  local out rc
  out=$("$bench" "$@" --help 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q '^usage:' <<<"$out"; then
    echo "FAIL: bloomsimd-bench $* --help -> rc $rc: $(head -2 <<<"$out")"
    fail=1
  else
    echo "ok: parsed $*"
  fi
}

bad "--json needs a value" --json --quiet
bad "--csv needs a value" --csv
bad "1e-10 <= P < 1" --fpr 1e-12
bad "1e-10 <= P < 1" --fpr 1
bad "1 <= B <= 64" --bits-per-key 1000
bad "1000 <= N" --queries 0
bad "1000 <= N" --queries 10
bad "compiled in:" --kernel AVX3
bad "only with --phase" --kernel classic
bad "whole number" --keys 1.5
bad "whole number" --keys 1e4,abc
bad "1 <= K <= 16" --k 17
bad "only with --phase" --reps 0
bad "1 <= N <= 1000" --reps 1001
bad "0 (off) or 10" --paired 5
bad "0 (off) or 10" --peer-rounds 3
bad "1e-10 <= P < 1" --peer-fpr 0.01,2
bad "cpu or wall" --clock monotonic
bad "lookup or insert" --phase delete
bad "unknown option" --bogus
bad "whole number" --seed -1

good --keys 10000,1e5,10^6,100k,1.5M --reps 3 --queries 1e5
good --fpr 1% --peer-fpr 1%,0.1% --bits-per-key 12.5
good --kernel AVX2 --seed 18446744073709551615 --batch 4K
good --seed 0xffffffffffffffff --keys 0x2710,2e4 --queries 1e5
good --phase lookup --kernel classic --queries 10 --reps 0

ex() { # expected-rc args...
  local want=$1
  shift
  "$example" "$@" >/dev/null 2>&1
  local rc=$?
  if [ $rc -ne "$want" ]; then
    echo "FAIL: bloomsimd-example $* -> rc $rc, want $want"
    fail=1
  else
    echo "ok: bloomsimd-example $* -> rc $rc"
  fi
}
ex 0 1e4
ex 0 10^4 1%
ex 0 10000 0.001
ex 0 100k 0.5%
ex 0 0x2710 1e-2
ex 2 0x
ex 2 -5
ex 2 1e4x
ex 2 1.5
ex 2 1e4 1e-12

# the other examples: the same number forms, refusals that name the range
run() { # program expected-rc expected-stderr-substring args... (stdin: two equal lines)
  local prog=$1 want=$2 text=$3
  shift 3
  local err rc
  # a here-string, not a pipe: a program that reads no input must not see SIGPIPE's exit status
  err=$("$prog" "$@" 2>&1 >/dev/null <<<$'a\na')
  rc=$?
  if [ $rc -ne "$want" ] || ! grep -qF -- "$text" <<<"$err"; then
    echo "FAIL: $(basename "$prog") $* -> rc $rc, stderr: $err (want rc $want and '$text')"
    fail=1
  else
    echo "ok: $(basename "$prog") $* -> rc $rc"
  fi
}
if [ -n "$dedup" ]; then
  run "$dedup" 0 "2 lines, 1 printed" 1e5 1%
  run "$dedup" 0 "2 lines, 1 printed" 10^5 0.001
  run "$dedup" 2 "capacity '1e5x': allowed 1 .. 1e10" 1e5x
  run "$dedup" 2 "fpr '1': allowed 1e-10 <= fpr < 1" 1e5 1
  run "$join" 0 "" 1e3 1e4 5
  run "$join" 2 "probe rows '1e4.5': allowed" 1e3 1e4.5
  run "$join" 2 "match % '101': allowed" 1e3 1e4 101
  run "$growing" 0 "" 1e4 1% 0.5
  run "$growing" 2 "tightening '1': allowed" 1e4 1% 1
  run "$window" 0 "" 2e3
  run "$window" 2 "keys per hour '0': allowed 1 .. 1e9" 0
fi
exit $fail

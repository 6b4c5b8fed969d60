# lib.sh — shared helpers of the CLI's shell tests (sourced).
#
#   bash test_X.sh BLOOMSIMD GEN_RECORDS CLI_SOURCE_DIR
#
# Every check that fails prints what was expected and what happened; the
# script exits 1 at the end if any failed (a test must be able to fail).
# BLOOMSIMD_TEST_QUICK=1 (the ASan stage) shrinks the large inputs.
set -u
BS=$(realpath "$1")
GEN=$(realpath "$2")
SRC=$(realpath "$3")
export LC_ALL=C # the tool needs no locale; the reference tools (awk, sort) must not use one either
QUICK=${BLOOMSIMD_TEST_QUICK:-0}
T=$(mktemp -d "${TMPDIR:-/tmp}/bloomsimd-cli-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2
# Sanitizer reports (the ASan stage) go to files that done_testing checks, so
# a report from any run fails the test, even from an unchecked helper call.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:log_path=$T/sanitizer"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:log_path=$T/sanitizer"
export TSAN_OPTIONS="${TSAN_OPTIONS:-}:log_path=$T/sanitizer"
failures=0
checks=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run CMD...: runs it with stdout in $T/out, stderr in $T/err, status in $rc.
run() {
  "$@" >"$T/out" 2>"$T/err"
  rc=$?
}

# expect STATUS DESCRIPTION CMD...: runs CMD and checks its exit status.
expect() {
  local want=$1 what=$2
  shift 2
  checks=$((checks + 1))
  run "$@"
  if [ "$rc" != "$want" ]; then
    fail "$what: exit status $rc, expected $want (command: $*)"
    sed 's/^/    stderr: /' "$T/err" | head -5 >&2
  fi
}

# stderr_has TEXT DESCRIPTION: the last run's stderr contains TEXT.
stderr_has() {
  checks=$((checks + 1))
  grep -qF -- "$1" "$T/err" || { fail "$2: stderr lacks '$1'"; sed 's/^/    stderr: /' "$T/err" | head -5 >&2; }
}
stderr_empty() {
  checks=$((checks + 1))
  [ ! -s "$T/err" ] || { fail "$1: stderr not empty"; sed 's/^/    stderr: /' "$T/err" | head -5 >&2; }
}
stdout_has() {
  checks=$((checks + 1))
  grep -qF -- "$1" "$T/out" || { fail "$2: stdout lacks '$1'"; head -5 "$T/out" | sed 's/^/    stdout: /' >&2; }
}
# stdout_is FILE DESCRIPTION: the last run's stdout equals FILE byte for byte.
stdout_is() {
  checks=$((checks + 1))
  cmp -s "$T/out" "$1" || { fail "$2: stdout differs from $1"; cmp "$T/out" "$1" 2>&1 | head -2 | sed 's/^/    /' >&2; }
}
same_file() {
  checks=$((checks + 1))
  cmp -s "$1" "$2" || fail "$3: $1 and $2 differ"
}
equals() { # ACTUAL EXPECTED DESCRIPTION
  checks=$((checks + 1))
  [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

done_testing() {
  for log in "$T"/sanitizer*; do
    [ -e "$log" ] || continue
    fail "sanitizer report in $log:"
    head -30 "$log" >&2
  done
  if [ "$failures" -ne 0 ]; then
    echo "$(basename "$0"): $failures of $checks checks failed" >&2
    exit 1
  fi
  echo "$(basename "$0"): all $checks checks passed"
  exit 0
}

#!/usr/bin/env bash
# run_examples.sh BUILD_DIR SOURCE_DIR [MARKDOWN] — every example in the README
# runs as written (MARKDOWN defaults to SOURCE_DIR/README.md).
#
# Which fenced blocks are run, by their info string:
#   ```c       a block that defines main() is a complete program: compiled with
#              cc -std=c11 -Wall -Wextra -Werror against the build tree
#              (SOURCE_DIR/include, BUILD_DIR/libbloomsimd.so) and run; it must
#              exit 0. A ```c block without main() is a fragment: not compiled.
#   ```sh run  a shell example: run as written by bash -euo pipefail; it must
#              exit 0. The `run` marks it; GitHub still highlights it as sh.
#   anything else (```sh, ```go, indented blocks) is not run: installs, servers,
#              the main job and the full test command, which take minutes.
# Every block runs in one scratch directory, in README order (a later block
# sees the files an earlier one wrote), with BUILD_DIR/cli (the bloomsimd
# command) first on PATH. Fails when the file has no runnable example, when a
# program does not compile, or when any example exits non-zero.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
markdown=${3:-$src/README.md}
[ -f "$markdown" ] || { echo "FAIL: no $markdown" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Split the fenced blocks into numbered files: NNN.c, NNN.sh (other kinds are
# skipped), each with a .line file holding the line of its opening fence.
awk -v dir="$scratch" '
  !inblock && /^```/ {
    info = substr($0, 4); sub(/[ \t]+$/, "", info)
    kind = (info == "c") ? "c" : (info == "sh run") ? "sh" : ""
    inblock = 1; n++
    if (kind != "") { file = sprintf("%s/%03d.%s", dir, n, kind); print NR > (file ".line"); close(file ".line") }
    next
  }
  inblock && /^```[ \t]*$/ { if (kind != "") close(file); inblock = 0; kind = ""; next }
  inblock && kind != "" { print > file }
  END { if (inblock) { print "unterminated fenced block" > "/dev/stderr"; exit 1 } }
' "$markdown" || fail "$markdown: cannot split its fenced blocks"

cli=$build/cli/bloomsimd
[ -x "$cli" ] || fail "no $cli (build the bloomsimd-cli target)"
[ -e "$build/libbloomsimd.so" ] || fail "no $build/libbloomsimd.so (build the bloomsimd target)"
export PATH=$build/cli:$PATH
work=$scratch/work
mkdir "$work"
programs=0 scripts=0
for block in $(cd "$scratch" && ls -- *.c *.sh 2>/dev/null | sort); do # NNN.kind: README order
  block=$scratch/$block
  where="$(basename "$markdown"):$(cat "$block.line")"
  case $block in
  *.c)
    grep -Eq '^[a-z].*[[:space:]]main[[:space:]]*\(' "$block" || continue # a fragment
    exe=${block%.c}
    cc -std=c11 -Wall -Wextra -Werror -I"$src/include" "$block" -o "$exe" -L"$build" -lbloomsimd \
      -Wl,-rpath,"$build" 2>"$exe.log" || { cat "$exe.log" >&2; fail "$where: the C program does not compile"; }
    rc=0
    (cd "$work" && timeout 120 "$exe") >"$exe.out" 2>&1 || rc=$?
    ((rc == 0)) || { cat "$exe.out" >&2; fail "$where: the C program exited $rc"; }
    echo "ok: $where: C program: $(head -n 1 "$exe.out")"
    programs=$((programs + 1))
    ;;
  *.sh)
    rc=0
    (cd "$work" && timeout 120 bash -euo pipefail "$block") >"$block.out" 2>&1 || rc=$?
    ((rc == 0)) || { cat "$block.out" >&2; fail "$where: the shell example exited $rc"; }
    echo "ok: $where: shell example ($(wc -l <"$block") lines, $(wc -l <"$block.out") lines of output)"
    scripts=$((scripts + 1))
    ;;
  esac
done
((programs + scripts > 0)) || fail "$markdown has no runnable example (\`\`\`c with main(), \`\`\`sh run)"
echo "ok: $programs C programs and $scripts shell examples from $(basename "$markdown") ran as written"

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
#   ```sh redis  a Redis session: its `redis-server ...` line starts the real
#              server (on 127.0.0.1, a free port, in the background, stopped by
#              pid afterwards) with the arguments as written, and each
#              `redis-cli ARGS  # REPLY` line must answer REPLY (the reply's
#              lines joined by spaces; "1) 1  2) 1" means the lines 1 and 1),
#              since redis-cli exits 0 on an error reply.
#   anything else (```sh, ```go, indented blocks) is not run: the build from
#              source, installs of packages, the main job and the full test
#              command, which take minutes.
# Every block runs in one scratch directory, in README order (a later block
# sees the files an earlier one wrote), with BUILD_DIR/cli (the bloomsimd
# command) first on PATH and HOME a scratch directory where BUILD_DIR is
# installed as the README installs it (cmake --install build --prefix
# "$HOME/opt/bloomsimd"). The README's first complete C program is saved as
# app.c first ("Save it as app.c"), for the pkg-config line that builds it.
# Fails when the file has no runnable example, when a program does not
# compile, or when any example exits non-zero or answers otherwise.
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
    kind = (info == "c") ? "c" : (info == "sh run") ? "sh" : (info == "sh redis") ? "redis" : ""
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
export HOME=$scratch/home
mkdir "$HOME"
cmake --install "$build" --prefix "$HOME/opt/bloomsimd" >"$scratch/install.log" 2>&1 ||
  { cat "$scratch/install.log" >&2; fail "cmake --install $build --prefix \$HOME/opt/bloomsimd"; }
for block in $(cd "$scratch" && ls -- *.c 2>/dev/null | sort); do
  if grep -Eq '^[a-z].*[[:space:]]main[[:space:]]*\(' "$scratch/$block"; then
    cp "$scratch/$block" "$work/app.c"
    break
  fi
done

# ---- Redis sessions: redis-server and redis-cli as written, on a free port ----
server_pid=
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill "$server_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$server_pid" 2>/dev/null || true
  server_pid=
}
trap 'stop_server; rm -rf "$scratch"' EXIT
norm() { tr '\n\t' '  ' | sed -E 's/ +/ /g; s/^ //; s/ $//'; } # one line, single spaces
run_redis_block() { # BLOCK WHERE: runs the session, comparing each reply with its comment
  local block=$1 where=$2 line cmd want got port
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  while IFS= read -r line || [ -n "$line" ]; do
    cmd=${line%%#*}
    want=
    [[ $line == *"#"* ]] && want=${line#*#}
    want=$(sed -E 's/(^|[[:space:]])[0-9]+\)[[:space:]]/ /g' <<<"$want" | norm)
    case $cmd in
    redis-server*)
      (cd "$work" && eval "set -- ${cmd#redis-server}" &&
        exec redis-server "$@" --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
          --logfile "$scratch/redis.log") &
      server_pid=$!
      for _ in $(seq 100); do
        [ "$(redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null)" = PONG ] && break
        kill -0 "$server_pid" 2>/dev/null || { tail -5 "$scratch/redis.log" >&2; fail "$where: redis-server did not start"; }
        sleep 0.1
      done
      ;;
    redis-cli*)
      [ -n "$server_pid" ] || fail "$where: redis-cli before redis-server"
      got=$(cd "$work" && eval "set -- ${cmd#redis-cli}" && redis-cli -h 127.0.0.1 -p "$port" "$@" 2>&1 | norm)
      [ "$got" = "$want" ] || fail "$where: $(norm <<<"$cmd") answered '$got', the README says '$want'"
      ;;
    *) [ -z "$(norm <<<"$cmd")" ] || fail "$where: a Redis session runs redis-server and redis-cli only: $line" ;;
    esac
  done <"$block"
  stop_server
}

programs=0 scripts=0
for block in $(cd "$scratch" && ls -- *.c *.sh *.redis 2>/dev/null | sort); do # NNN.kind: README order
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
  *.redis)
    if ! command -v redis-server >/dev/null; then
      echo "skipped: $where: Redis session (no redis-server on PATH)"
      continue
    fi
    run_redis_block "$block" "$where"
    echo "ok: $where: Redis session ($(grep -c 'redis-cli' "$block") replies as written)"
    scripts=$((scripts + 1))
    ;;
  esac
done
((programs + scripts > 0)) || fail "$markdown has no runnable example (\`\`\`c with main(), \`\`\`sh run, \`\`\`sh redis)"
echo "ok: $programs C programs and $scripts shell examples and sessions from $(basename "$markdown") ran as written"

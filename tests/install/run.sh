#!/usr/bin/env bash
# run.sh BUILD_DIR SOURCE_DIR — the documented install, used as a user would:
#   1. cmake --install into a scratch prefix (and a DESTDIR-staged one);
#   2. the installed Redis module is executable, redis-server --loadmodule loads
#      it and answers BF.RESERVE/ADD/EXISTS/INFO, keeps the filter through
#      DEBUG RELOAD and through SAVE + a restart;
#   3. examples/quickstart.c builds and runs against the installed package, by
#      pkg-config (whose paths must be clean) and by find_package;
#   4. the installed bloomsimd command creates, fills and queries a filter.
# redis-server listens on 127.0.0.1 on a port chosen free at run time and is
# stopped by its pid on exit, pass or fail.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
scratch=$(mktemp -d)
server_pid=
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill "$server_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}
trap 'stop_server; rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=$scratch/prefix
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -n "$libdir" ] || fail "no CMAKE_INSTALL_LIBDIR in $build/CMakeCache.txt"
cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" || { cat "$scratch/install.log"; fail "cmake --install"; }
echo "ok: installed into a scratch prefix ($(wc -l <"$scratch/install.log") files), libdir $libdir"

# ---- pkg-config: clean paths, the prefix given to --install -------------------
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
libs=$(echo $(pkg-config --libs bloomsimd)) # (pkgconf ends its output with a space)
cflags=$(echo $(pkg-config --cflags bloomsimd))
[ "$libs" = "-L$prefix/$libdir -lbloomsimd" ] || fail "pkg-config --libs: '$libs' (want -L$prefix/$libdir -lbloomsimd)"
[ "$cflags" = "-I$prefix/include" ] || fail "pkg-config --cflags: '$cflags' (want -I$prefix/include)"
echo "ok: pkg-config --cflags --libs: $cflags $libs"
DESTDIR=$scratch/stage cmake --install "$build" --prefix /opt/bloomsimd >/dev/null
staged=$scratch/stage/opt/bloomsimd/$libdir/pkgconfig/bloomsimd.pc
grep -qx 'prefix=/opt/bloomsimd' "$staged" || fail "a DESTDIR install's bloomsimd.pc: $(grep '^prefix=' "$staged")"
echo "ok: DESTDIR=... --prefix /opt/bloomsimd writes prefix=/opt/bloomsimd"

# ---- the C example against the installed package ------------------------------
cc "$src/examples/quickstart.c" -o "$scratch/quickstart_pc" $cflags $libs \
  -Wl,-rpath,"$(pkg-config --variable=libdir bloomsimd)"
loads_installed_library() { # binary (ldd into a variable: grep -q would cut ldd's pipe)
  local deps
  deps=$(ldd "$1")
  grep -q "libbloomsimd.so.0 => $prefix/$libdir/" <<<"$deps" ||
    fail "$1 does not load the installed libbloomsimd: $(grep bloomsimd <<<"$deps")"
}
loads_installed_library "$scratch/quickstart_pc"
"$scratch/quickstart_pc" 10000 0.01 >"$scratch/out.txt" || { cat "$scratch/out.txt"; fail "quickstart (pkg-config) failed"; }
grep -q 'false negatives: 0' "$scratch/out.txt" || fail "quickstart (pkg-config): $(cat "$scratch/out.txt")"
echo "ok: examples/quickstart.c by pkg-config: $(sed -n 3p "$scratch/out.txt")"
cmake -S "$src/tests/install/project" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DBLOOMSIMD_EXAMPLES="$src/examples" >"$scratch/cmake.log" 2>&1 &&
  cmake --build "$scratch/cmake" >>"$scratch/cmake.log" 2>&1 || { tail -20 "$scratch/cmake.log"; fail "find_package build"; }
"$scratch/cmake/quickstart" 10000 0.01 >"$scratch/out.txt" || { cat "$scratch/out.txt"; fail "quickstart (find_package) failed"; }
loads_installed_library "$scratch/cmake/quickstart"
echo "ok: examples/quickstart.c by find_package(bloomsimd): $(sed -n 3p "$scratch/out.txt")"

# ---- the Go package against the installed library --------------------------------
# The Go package's own build compiles the library from the module's sources
# (tests/packages/go.sh tests that); -tags bloomsimd_system links the installed
# one through pkg-config instead, as bindings/go/README.md says. A copy of the
# module outside the repository holds the package's Go files only (no C
# sources, so nothing but the prefix can provide the library); the replace
# directive stands in for the module proxy.
if command -v go >/dev/null; then
  gomod=github.com/libbloomsimd/libbloomsimd
  mkdir -p "$scratch/gomod/bindings/go" "$scratch/goprog"
  # the package and its internal/ packages (internal/probe holds its assembly), without tests
  cp "$src/go.mod" "$scratch/gomod/" &&
    (cd "$src/bindings/go" && cp -- *.go "$scratch/gomod/bindings/go/" && cp -R internal "$scratch/gomod/bindings/go/") &&
    rm -f "$scratch/gomod/bindings/go/"*_test.go "$scratch/gomod/bindings/go/internal/"*/*_test.go
  cat >"$scratch/goprog/go.mod" <<GOMOD
module example.com/guard

go 1.19

require $gomod v0.0.0

replace $gomod => $scratch/gomod
GOMOD
  cat >"$scratch/goprog/main.go" <<'GOMAIN'
package main

import (
	"errors"
	"fmt"
	"os"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"
)

func main() {
	f, err := bloomsimd.New(1000, 0.01)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	f.AddString("alice")
	_, err = bloomsimd.New(0, 0.01)
	fmt.Println(f.ContainsString("alice"), f.ContainsString("bob"), errors.Is(err, bloomsimd.ErrInvalidArgument), bloomsimd.Version())
}
GOMAIN
  got=$(cd "$scratch/goprog" && GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$scratch/gocache" \
    PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" LD_LIBRARY_PATH="$prefix/$libdir" go run -tags bloomsimd_system . 2>&1) ||
    fail "go run against the installed library: $got"
  want="true false true $("$prefix/bin/bloomsimd" --version | head -n 1 | awk '{print $2}')"
  [ "$got" = "$want" ] || fail "Go program against the installed library printed '$got' (want '$want')"
  echo "ok: the Go package (module $gomod, outside the repository) built with -tags bloomsimd_system against the prefix: $got"
else
  echo "skipped: the Go package against the installed library (no go on PATH)"
fi

# ---- the installed command-line tool -------------------------------------------
cli=$prefix/bin/bloomsimd
[ -x "$cli" ] || fail "$cli is not installed or not executable"
[ -f "$prefix/share/man/man1/bloomsimd.1" ] || fail "the man page is not installed"
"$cli" create "$scratch/f.bsf" --capacity 1000 --fpr 0.01
printf 'alpha\nbeta\ngamma\n' | "$cli" add "$scratch/f.bsf"
got=$(printf 'beta\ndelta\n' | "$cli" query "$scratch/f.bsf")
[ "$got" = beta ] || fail "installed bloomsimd query printed '$got' (want beta)"
"$cli" check "$scratch/f.bsf" >/dev/null || fail "installed bloomsimd check"
echo "ok: installed bloomsimd $("$cli" --version | head -n 1 | awk '{print $2}'): create, add, query, check"

# ---- the installed Redis module in redis-server -----------------------------------
module=$prefix/$libdir/redis/modules/bloomsimd.so
[ -f "$module" ] || fail "no module at $module"
[ -x "$module" ] || fail "$module is not executable ($(stat -c %A "$module")): Redis refuses to load it"
server=$(command -v redis-server || echo /usr/bin/redis-server)
data=$scratch/redis
mkdir -p "$data"
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_server() {
  local attempt
  for attempt in 1 2 3; do
    port=$(free_port)
    "$server" --port "$port" --bind 127.0.0.1 --protected-mode yes --dir "$data" --dbfilename dump.rdb \
      --save '' --appendonly no --enable-debug-command local --loadmodule "$module" \
      --logfile "$data/redis.log" --daemonize no &
    server_pid=$!
    for _ in $(seq 100); do
      kill -0 "$server_pid" 2>/dev/null || break
      [ "$(redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null)" = PONG ] && return 0
      sleep 0.1
    done
    stop_server
  done
  tail -20 "$data/redis.log" >&2
  fail "redis-server did not start with the installed module"
}
rc() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
expect() { # expected, command...
  local want=$1 got
  shift
  got=$(rc "$@" 2>&1)
  [ "$got" = "$want" ] || fail "$* answered '$got' (want '$want')"
}
start_server
expect OK BF.RESERVE users 0.01 1000
expect 1 BF.ADD users alice
expect 0 BF.ADD users alice
expect 1 BF.EXISTS users alice
expect 0 BF.EXISTS users bob
expect 1000 BF.INFO users CAPACITY
expect 1 BF.INFO users ITEMS
expect OK DEBUG RELOAD
expect 1 BF.EXISTS users alice
expect OK SAVE
stop_server
start_server
expect 1 BF.EXISTS users alice
expect 0 BF.EXISTS users bob
expect 1 BF.INFO users ITEMS
stop_server
echo "ok: redis-server --loadmodule <prefix>/$libdir/redis/modules/bloomsimd.so: reserve, add, exists, info, DEBUG RELOAD, SAVE and restart"

#!/usr/bin/env bash
# deb.sh BUILD_DIR — the Debian packages as a server's admin installs them (root; sudo otherwise):
#   1. BUILD_DIR (a new build directory, configured here) builds the packages
#      (cmake/Packaging.cmake): prefix /usr, Debian's build flags, cpack;
#   2. lintian: no error, and no warning but the ones in `expected_warnings` below;
#   3. `apt-get install ./*.deb`, as a user would;
#   4. examples/quickstart.c compiled with `pkg-config --cflags --libs bloomsimd` runs
#      against /usr/lib/<multiarch>/libbloomsimd.so.0; the bloomsimd command (and its man
#      page) creates, fills and queries a filter; redis-server, given the package's
#      loadmodule line, loads the module and answers BF.ADD / BF.EXISTS; a Java program
#      compiled against /usr/share/java/bloomsimd.jar runs with no flag;
#   5. the packages, and whatever apt installed for them, are purged on exit, pass or
#      fail: dpkg's list of installed packages is what it was before.
# It refuses to run if one of the packages is already installed (it would remove it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
build=$(cd "$1" && pwd)
work=$(mktemp -d)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(libbloomsimd0 libbloomsimd-dev bloomsimd redis-bloomsimd libbloomsimd-java)
installed() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null | awk '$1 ~ /^.i/ { print $2 }' | sort; }
server_pid=
cleanup() {
  local rc=$?
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -f "$work/before.txt" ]; then
    # purge ours and anything apt pulled in for them; then the list must be the one before
    installed >"$work/after.txt"
    mapfile -t added < <(comm -13 "$work/before.txt" "$work/after.txt")
    if ((${#added[@]})); then
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get purge -y -qq "${added[@]}" >"$work/purge.log" 2>&1 ||
        { cat "$work/purge.log"; rc=1; }
    fi
    installed >"$work/after.txt"
    if ! cmp -s "$work/before.txt" "$work/after.txt"; then
      echo "deb.sh: FAIL: the installed packages differ from before the test:" >&2
      diff "$work/before.txt" "$work/after.txt" >&2 || true
      rc=1
    fi
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
fail() { echo "deb.sh: FAIL: $*" >&2; exit 1; }

# ---- 1. build --------------------------------------------------------------------
t=$(date +%s)
# Debian's hardening flags (dpkg-buildflags) without -g: the packages ship no debug info
cflags="$(dpkg-buildflags --get CFLAGS | sed 's/\(^\| \)-g\( \|$\)/ /') $(dpkg-buildflags --get CPPFLAGS)"
CFLAGS=$cflags LDFLAGS=$(dpkg-buildflags --get LDFLAGS) cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DBLOOMSIMD_DEB=ON -DBLOOMSIMD_BUILD_TESTS=OFF \
  -DBLOOMSIMD_BUILD_BENCH=OFF -DBLOOMSIMD_EMULATED_NEON=OFF >"$work/configure.log" 2>&1 ||
  { tail -n 30 "$work/configure.log"; fail "configure"; }
cmake --build "$build" -j "$(nproc)" >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; fail "build"; }
rm -rf "$build/deb/packages"
(cd "$build" && cpack) >"$work/cpack.log" 2>&1 || { tail -n 30 "$work/cpack.log"; fail "cpack"; }
debs=("$build"/deb/packages/*.deb)
[ ${#debs[@]} -eq ${#packages[@]} ] || fail "cpack made ${#debs[@]} packages, not ${#packages[@]}: ${debs[*]}"
echo "deb.sh: built ${#debs[@]} packages in $(($(date +%s) - t)) s: $(cd "$build/deb/packages" && ls *.deb | tr '\n' ' ')"

# ---- 2. lintian --------------------------------------------------------------------
# Expected, and why:
#   initial-upload-closes-no-bugs   a first Debian upload closes its ITP bug; these packages
#                                   are not uploaded to Debian, so there is none
#   maintscript-calls-ldconfig      CPack's postinst/postrm for libbloomsimd0 (cmake/Packaging.cmake)
expected_warnings='initial-upload-closes-no-bugs|maintscript-calls-ldconfig'
if command -v lintian >/dev/null; then
  lintian --no-cfg "${debs[@]}" >"$work/lintian.txt" 2>&1 || true
  grep -v "running with root privileges" "$work/lintian.txt" | sed 's/^/lintian: /' || true
  if grep -E '^(E|W): ' "$work/lintian.txt" | grep -vE ": ($expected_warnings)( |$)" >/dev/null; then
    fail "lintian reports errors or warnings beyond the expected ones ($expected_warnings)"
  fi
else
  fail "lintian is not installed (scripts/install-deps.sh --test)"
fi

# ---- 3. install as a user would ------------------------------------------------------
for p in "${packages[@]}"; do
  if installed | grep -qx "$p"; then
    trap - EXIT
    rm -rf "$work"
    fail "$p is installed already: this test would remove it"
  fi
done
installed >"$work/before.txt"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${debs[@]}" >"$work/apt.log" 2>&1 ||
  { tail -n 30 "$work/apt.log"; fail "apt-get install ./*.deb"; }
echo "deb.sh: apt-get install: $(comm -13 "$work/before.txt" <(installed) | tr '\n' ' ')"

# ---- 4. use them -----------------------------------------------------------------------
cc -o "$work/quickstart" "$root/examples/quickstart.c" $(pkg-config --cflags --libs bloomsimd) ||
  fail "examples/quickstart.c does not build with pkg-config"
ldd "$work/quickstart" >"$work/ldd.txt"
grep -qE "libbloomsimd.so.0 => (/usr)?/lib/" "$work/ldd.txt" || fail "quickstart does not load /usr/lib's libbloomsimd.so.0: $(cat "$work/ldd.txt")"
"$work/quickstart" 10000 0.01 >"$work/quickstart.txt" || fail "quickstart failed"
grep -q 'false negatives: 0' "$work/quickstart.txt" || fail "quickstart: $(cat "$work/quickstart.txt")"
echo "deb.sh: quickstart with pkg-config: $(sed -n 1p "$work/quickstart.txt")"

[ "$(command -v bloomsimd)" = /usr/bin/bloomsimd ] || fail "bloomsimd is not /usr/bin/bloomsimd"
man -w bloomsimd >/dev/null 2>&1 || [ -f /usr/share/man/man1/bloomsimd.1.gz ] || fail "no man page"
bloomsimd create "$work/f.bsf" --capacity 1000 --fpr 0.01
printf 'alpha\nbeta\n' | bloomsimd add "$work/f.bsf"
[ "$(printf 'beta\ngamma\n' | bloomsimd query "$work/f.bsf")" = beta ] || fail "bloomsimd query"
echo "deb.sh: $(bloomsimd --version): create, add, query"

conf=/usr/share/doc/redis-bloomsimd/bloomsimd.conf
grep -q '^# loadmodule /usr/lib/redis/modules/bloomsimd.so$' "$conf" || fail "$conf has no loadmodule line to copy"
sed 's/^# loadmodule/loadmodule/' "$conf" >"$work/redis.conf"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server "$work/redis.conf" --port "$port" --bind 127.0.0.1 --dir "$work" --save '' --appendonly no \
  --logfile "$work/redis.log" --daemonize no &
server_pid=$!
for _ in $(seq 100); do
  [ "$(redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null)" = PONG ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
got=$(redis-cli -h 127.0.0.1 -p "$port" BF.ADD users alice 2>&1; redis-cli -h 127.0.0.1 -p "$port" BF.EXISTS users alice 2>&1;
  redis-cli -h 127.0.0.1 -p "$port" BF.EXISTS users bob 2>&1) || true
kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
server_pid=
[ "$got" = "$(printf '1\n1\n0')" ] || { tail -n 5 "$work/redis.log" >&2; fail "redis-server with the packaged module answered '$got'"; }
echo "deb.sh: redis-server with the packaged loadmodule line: BF.ADD, BF.EXISTS"

if command -v javac >/dev/null; then
  mkdir -p "$work/java"
  cat >"$work/java/Check.java" <<'JAVA'
import org.bloomsimd.BloomFilter;

public class Check {
    public static void main(String[] args) {
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            f.put("alice");
            System.out.println(f.mightContain("alice") + " " + f.mightContain("bob") + " " + BloomFilter.defaultKernel());
        }
    }
}
JAVA
  javac --release 17 -cp /usr/share/java/bloomsimd.jar -d "$work/java" "$work/java/Check.java"
  got=$(cd "$work" && java -cp /usr/share/java/bloomsimd.jar:"$work/java" Check) || fail "the Java program failed"
  case $got in "true false "*) ;; *) fail "the Java program printed '$got'" ;; esac
  echo "deb.sh: Java against /usr/share/java/bloomsimd.jar, no flag: $got"
fi
echo "deb.sh: ok: lintian, apt-get install, pkg-config, the CLI, redis-server and Java; removing the packages"

#!/usr/bin/env bash
# python.sh BUILD_DIR — the Python package as its users install it, offline:
#   1. `python3 -m build --no-isolation bindings/python` makes the sdist (which carries
#      the library's sources) and, from that sdist, a wheel, with a `cmake` on PATH
#      that fails if anything calls it;
#   2. both are copied to an empty directory, and each is installed into a fresh venv
#      (Debian's NumPy through --system-site-packages) with pip --no-index: the wheel as
#      it is, the sdist compiled there, away from the checkout;
#   3. in each venv: tests/check_installed.py, the kernels (every one of this
#      architecture, the default equal to the C library's, BUILD_DIR's bloomsimd-example),
#      and the package's pytest suite against the installed copy (its C reference
#      program and CLI come from BUILD_DIR): the whole suite on the wheel, the files
#      shipped; on the sdist's own build, test_against_c.py (filters byte-identical to
#      the C library's on every kernel) and test_api.py, to keep the stage short, and
#      the sdist's own test_hash_vectors.py from the unpacked sdist (its vectors ship in it).
# Nothing is written outside a temporary directory but setuptools' build/ and
# bloomsimd.egg-info/ in bindings/python (both ignored by git).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "python.sh: FAIL: $*" >&2; exit 1; }
py=/usr/bin/python3

mkdir -p "$work/nocmake" "$work/empty"
printf '#!/bin/sh\necho "python.sh: the Python build ran cmake" >&2\nexit 127\n' >"$work/nocmake/cmake"
chmod +x "$work/nocmake/cmake"
export PATH=$work/nocmake:$PATH
unset BLOOMSIMD_BUILD_DIR
(cd "$root/bindings/python" && "$py" -m build --no-isolation --outdir "$work/dist" . >"$work/build.log" 2>&1) ||
  { tail -n 40 "$work/build.log"; fail "python3 -m build"; }
cp "$work"/dist/*.tar.gz "$work"/dist/*.whl "$work/empty/"
sdist=$(ls "$work"/empty/*.tar.gz)
wheel=$(ls "$work"/empty/*.whl)
tar tzf "$sdist" >"$work/sdist.txt"
grep -q '/csrc/kernels/avx2.c$' "$work/sdist.txt" || fail "the sdist lacks the library's sources"
grep -q '/tests/fixtures/hash_vectors.txt$' "$work/sdist.txt" || fail "the sdist lacks tests/fixtures/hash_vectors.txt"
echo "python.sh: built $(basename "$sdist") ($(stat -c %s "$sdist") bytes) and $(basename "$wheel") ($(stat -c %s "$wheel") bytes)"

c_default=$("$build/bloomsimd-example" 1000 | sed -n 's/.*(default on this CPU: \([a-z0-9]*\)).*/\1/p')
case $(uname -m) in
  x86_64) want="avx512 avx2 sse42 scalar" ;;
  aarch64) want="neon scalar" ;;
  *) want="scalar" ;;
esac
for what in wheel sdist; do
  venv=$work/venv-$what
  "$py" -m venv --system-site-packages --without-pip "$venv"
  file=$wheel
  [ $what = sdist ] && file=$sdist
  (cd "$work/empty" && "$venv/bin/python" -m pip install -q --no-index --no-build-isolation "$file" \
    >"$work/pip-$what.log" 2>&1) || { tail -n 40 "$work/pip-$what.log"; fail "pip install of the $what"; }
  (cd "$work/empty" && "$venv/bin/python" "$root/bindings/python/tests/check_installed.py") || fail "check_installed.py ($what)"
  got=$(cd "$work/empty" && "$venv/bin/python" -c 'import bloomsimd; print(" ".join(bloomsimd.kernels())); print(bloomsimd.default_kernel())')
  [ "$(sed -n 1p <<<"$got")" = "$want" ] || fail "$what: kernels $(sed -n 1p <<<"$got"), want $want"
  [ "$(sed -n 2p <<<"$got")" = "$c_default" ] || fail "$what: default kernel $(sed -n 2p <<<"$got"), the C library's is $c_default"
  echo "python.sh: $what: kernels $want, default $c_default as the C library's"
  suite=("$root/bindings/python/tests")
  [ $what = sdist ] && suite=("$root/bindings/python/tests/test_against_c.py" "$root/bindings/python/tests/test_api.py")
  (cd "$work/empty" && BLOOMSIMD_BUILD_DIR=$build BLOOMSIMD_EXPECT_PREFIX=$venv PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider "${suite[@]}") || fail "the suite against the installed $what"
  if [ $what = sdist ]; then # the sdist's own tests, unpacked away from the checkout, find their vectors
    mkdir -p "$work/unpacked" && tar xzf "$sdist" -C "$work/unpacked"
    (cd "$work/empty" && BLOOMSIMD_EXPECT_PREFIX=$venv PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -m pytest -q \
      -p no:cacheprovider "$work"/unpacked/*/tests/test_hash_vectors.py) || fail "the sdist's tests/test_hash_vectors.py"
  fi
done
echo "python.sh: ok: the sdist and the wheel install with pip --no-index into fresh venvs and pass the suite"

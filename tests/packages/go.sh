#!/usr/bin/env bash
# go.sh BUILD_DIR — the Go package as a `go get` user gets it, offline:
#   1. the module zip of this tree, made as the module proxy makes it, served from a
#      GOPROXY=file:// directory (goproxy.sh);
#   2. a consumer module in an empty directory, with a fresh module cache, runs
#      `go get` and builds and runs the example of bindings/go/README.md
#      ("Installing"): its answers, and a default kernel equal to the C library's
#      (BUILD_DIR's bloomsimd-example), with every kernel of this architecture;
#   3. `go test` of the package from the module cache (the interop test links a
#      C program with BUILD_DIR's libbloomsimd.a); without -race, which the go
#      stage runs on the same sources: here the build reuses the consumer's
#      cgo objects instead of compiling the C library a second time;
#   4. CGO_ENABLED=0 fails with a message that names cgo.
# Nothing is written outside a temporary directory, removed on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d)
cleanup() {
  # the module cache is read-only by design: go clean unlocks and removes it
  GOPATH=$work/gopath GOFLAGS= go clean -modcache 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "go.sh: FAIL: $*" >&2; exit 1; }

module=github.com/libbloomsimd/libbloomsimd
version=v0.1.0
bash "$root/tests/packages/goproxy.sh" "$work/proxy" || fail "no module proxy"
proxy=$work/proxy/$module/@v
unzip -l "$proxy/$version.zip" >"$work/zip.txt"
grep -q "$module@$version/kernels/avx2.c" "$work/zip.txt" || fail "the zip lacks kernels/avx2.c"
if grep -q "bindings/go/bench/" "$work/zip.txt"; then fail "the zip holds the bench module"; fi

# The consumer: the README's example as its main package, nothing else.
mkdir -p "$work/consumer"
awk '/^## Installing/ { on = 1 } on && /^```go$/ { inblock = 1; next } inblock && /^```$/ { exit } inblock { print }' \
  "$root/bindings/go/README.md" >"$work/consumer/main.go"
grep -q "^func main" "$work/consumer/main.go" || fail "bindings/go/README.md has no main program under 'Installing'"
export GOPATH=$work/gopath GOPROXY=file://$work/proxy GOFLAGS=-mod=mod GONOSUMDB=$module GOSUMDB=off
unset CGO_CFLAGS CGO_LDFLAGS
[ -n "${HOME:-}" ] || export GOCACHE=${GOCACHE:-$build/go-cache}
cd "$work/consumer"
go mod init example.com/consumer >/dev/null 2>&1
go get "$module/bindings/go@$version" 2>&1 | sed 's/^/go get: /'
go build -o consumer . || fail "the consumer does not build"
got=$(./consumer)
echo "$got" | sed 's/^/consumer: /'
c_default=$("$build/bloomsimd-example" 1000 | sed -n 's/.*(default on this CPU: \([a-z0-9]*\)).*/\1/p')
[ -n "$c_default" ] || fail "$build/bloomsimd-example did not name its default kernel"
[ "$(sed -n 1p <<<"$got")" = "true true false" ] || fail "the example's answers"
[ "$(sed -n 2p <<<"$got")" = "default kernel $c_default" ] || fail "Go's default kernel is not the C library's ($c_default)"
case $(uname -m) in
  x86_64) want="avx512 avx2 sse42 scalar" ;;
  aarch64) want="neon scalar" ;;
  *) want="scalar" ;;
esac
[ "$(sed -n 3p <<<"$got")" = "kernels $want" ] || fail "the kernels compiled in are not '$want'"

dir=$(go list -f '{{.Dir}}' "$module/bindings/go")
case $dir in "$GOPATH/pkg/mod/"*) ;; *) fail "the package is not from the module cache: $dir" ;; esac
BLOOMSIMD_BUILD_DIR=$build go test -count=1 "$module/bindings/go" || fail "go test from the module cache"

out=$(CGO_ENABLED=0 go build "$module/bindings/go" 2>&1) && fail "CGO_ENABLED=0 built"
grep -q "needs_cgo" <<<"$out" || fail "CGO_ENABLED=0 said: $out"
echo "go.sh: ok: go get from a file proxy ($(stat -c %s "$proxy/$version.zip") bytes zipped), the README example, go test from the module cache, CGO_ENABLED=0 names cgo"

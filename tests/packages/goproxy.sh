#!/usr/bin/env bash
# goproxy.sh OUT_DIR — a GOPROXY=file://OUT_DIR module proxy serving this tree as
# github.com/libbloomsimd/libbloomsimd v0.1.0: the module zip made as the module proxy
# makes it (modzip.go: the files git tracks or would add, then golang.org/x/mod/zip's
# rules), its .mod, .info and version list. Used by go.sh and
# bindings/go/bench/compare_builds.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
module=github.com/libbloomsimd/libbloomsimd
version=v0.1.0
dir=$out/$module/@v
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$dir"
(cd "$root" && git ls-files -z -c -o --exclude-standard | tar --null -T - -cf - 2>/dev/null) | tar -xf - -C "$tree"
(cd "$root/tests/packages" && GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= go run modzip.go "$tree" "$module" "$version" "$dir/$version.zip")
cp "$tree/go.mod" "$dir/$version.mod"
printf '{"Version":"%s","Time":"2026-12-07T00:00:00Z"}\n' "$version" >"$dir/$version.info"
echo "$version" >"$dir/list"

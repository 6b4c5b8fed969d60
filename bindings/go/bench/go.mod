module github.com/libbloomsimd/libbloomsimd/bindings/go/bench

go 1.19

require (
	github.com/libbloomsimd/libbloomsimd v0.0.0
	github.com/bits-and-blooms/bloom/v3 v3.3.1
	github.com/greatroar/blobloom v0.7.1
)

require github.com/bits-and-blooms/bitset v1.3.1 // indirect

// Offline build: the module of this repository (its root), bits-and-blooms (and
// what its go.mod names) and blobloom from Debian's source trees
// (golang-github-willf-bloom-dev, golang-github-bits-and-blooms-bitset-dev,
// golang-github-twmb-murmur3-dev, golang-github-greatroar-blobloom-dev;
// scripts/install-deps.sh). Directory replacements need no go.sum and no
// network: GOFLAGS=-mod=mod GOPROXY=off.
replace github.com/libbloomsimd/libbloomsimd => ../../..

replace github.com/bits-and-blooms/bloom/v3 => /usr/share/gocode/src/github.com/bits-and-blooms/bloom

replace github.com/bits-and-blooms/bitset => /usr/share/gocode/src/github.com/bits-and-blooms/bitset

replace github.com/twmb/murmur3 => /usr/share/gocode/src/github.com/twmb/murmur3

replace github.com/greatroar/blobloom => /usr/share/gocode/src/github.com/greatroar/blobloom

// blobloom's go.mod names testify for its own tests (never built here):
// an empty stand-in module ends the offline requirement graph (testify-stub/go.mod).
replace github.com/stretchr/testify => ./testify-stub

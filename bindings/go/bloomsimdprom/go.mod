module github.com/libbloomsimd/libbloomsimd/bindings/go/bloomsimdprom

go 1.19

require (
	github.com/libbloomsimd/libbloomsimd v0.0.0
	github.com/prometheus/client_golang v1.14.0
	github.com/prometheus/client_model v0.3.0
	github.com/prometheus/common v0.39.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.1.2 // indirect
	github.com/golang/protobuf v1.5.2 // indirect
	github.com/matttproud/golang_protobuf_extensions v1.0.4 // indirect
	github.com/prometheus/procfs v0.8.0 // indirect
	golang.org/x/sys v0.3.0 // indirect
	google.golang.org/protobuf v1.28.1 // indirect
)

// Offline build: the package from this repository (its module is the
// repository root), and client_golang with
// what it needs from Debian's source trees (golang-github-prometheus-client-golang-dev
// and the packages it depends on; scripts/install-deps.sh --test). Directory
// replacements need no go.sum and no network: GOFLAGS=-mod=mod GOPROXY=off
// (bindings/go/env.sh). The core module keeps no dependency: only this one
// names Prometheus.
replace github.com/libbloomsimd/libbloomsimd => ../../..

replace github.com/prometheus/client_golang => /usr/share/gocode/src/github.com/prometheus/client_golang

replace github.com/prometheus/client_model => /usr/share/gocode/src/github.com/prometheus/client_model

replace github.com/prometheus/common => /usr/share/gocode/src/github.com/prometheus/common

replace github.com/prometheus/procfs => /usr/share/gocode/src/github.com/prometheus/procfs

replace github.com/beorn7/perks => /usr/share/gocode/src/github.com/beorn7/perks

replace github.com/cespare/xxhash/v2 => /usr/share/gocode/src/github.com/cespare/xxhash

replace github.com/golang/protobuf => /usr/share/gocode/src/github.com/golang/protobuf

replace google.golang.org/protobuf => /usr/share/gocode/src/google.golang.org/protobuf

replace golang.org/x/sys => /usr/share/gocode/src/golang.org/x/sys

// Debian's golang-protobuf-extensions-dev has no go.mod, which a directory
// replacement needs: pbutil-module/ is that go.mod, with a link to Debian's
// pbutil package (the only one expfmt, and so promhttp, imports from it).
replace github.com/matttproud/golang_protobuf_extensions => ./pbutil-module

// google.golang.org/protobuf's go.mod names go-cmp for its own tests (never
// built here): an empty stand-in module ends the offline requirement graph.
replace github.com/google/go-cmp => ./stubs/go-cmp

// The Go module is the repository root so that the module zip, which is the
// tree below go.mod, carries the library's C sources (include/, src/,
// kernels/, dispatch/): the package bindings/go compiles them with cgo, and a
// `go get` needs nothing but a C compiler and libxxhash-dev (bindings/go/README.md,
// "Installing"). The import path is github.com/libbloomsimd/libbloomsimd/bindings/go.
module github.com/libbloomsimd/libbloomsimd

go 1.19

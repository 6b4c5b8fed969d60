// Package csources keeps the Go package's C build equal to CMake's: its test
// derives bindings/go's lib_*.c files (one per library source, each
// #including it, a kernel with its instruction set enabled for that file
// alone) and kernel_list.inc from CMakeLists.txt, fails when they differ, and
// rewrites them with
//
//	go test ./internal/csources -update
//
// It is a package of its own, with no cgo, so that it runs even when the C
// build it checks no longer links (a source added to CMakeLists.txt that the
// Go build lacks).
package csources

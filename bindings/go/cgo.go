//go:build !bloomsimd_system

package bloomsimd

// The package compiles libbloomsimd itself, from the module's own copy of the
// library's sources: the module is the repository root, so its zip holds
// include/, src/, kernels/ and dispatch/, and `go get` needs only a C
// compiler and libxxhash-dev. Each lib_*.c file here #includes one library
// source; a kernel's file enables its instruction set for that file alone
// (cgo gives every C file of a package the same flags), and dispatch/ picks
// the kernel at run time by CPUID, as in the CMake build. internal/csources
// derives these files and kernel_list.inc from CMakeLists.txt and its test
// fails when they differ.
//
// -O3 -DNDEBUG are CMake's Release flags; they come after CGO_CFLAGS (whose
// default is -g -O2), so they win. The Go build cache keys this package on its
// own directory's files, never on the sources they include: a changed file
// under src/ in a checkout needs `go clean -cache` or env.sh's CGO_CFLAGS,
// which hashes them. (A module version in the module cache never changes.)
//
// libxxhash is linked by file name (-l:libxxhash.a, Debian's libxxhash-dev),
// so a Go binary needs no libxxhash.so at run time, only libc like every cgo
// binary. To link an installed libbloomsimd instead, build with
// -tags bloomsimd_system (cgo_system.go).

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -I${SRCDIR} -DBLOOMSIMD_STATIC_DEFINE -O3 -DNDEBUG
#cgo LDFLAGS: -l:libxxhash.a -lm -lpthread
#include <bloomsimd.h>
*/
import "C"

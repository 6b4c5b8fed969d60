package bloomsimd

// How the Go build finds libbloomsimd (README "Building"): the header comes
// from the repository's include/, and the static library from the top-level
// CMake build in ../../build (the repository README's build directory):
//
//	cmake -S ../.. -B ../../build -G Ninja -DCMAKE_BUILD_TYPE=Release
//	cmake --build ../../build --target bloomsimd_static
//
// A build elsewhere is named with CGO_LDFLAGS="-L/that/dir": the linker takes
// the first libbloomsimd.a on its search path, and CGO_LDFLAGS comes first.
// Both libraries are linked by file name (-l:lib.a), so a Go binary never
// depends on libbloomsimd.so or libxxhash.so at run time (only on libc, as
// every cgo binary does). libxxhash.a is Debian's libxxhash-dev.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -DBLOOMSIMD_STATIC_DEFINE
#cgo LDFLAGS: -L${SRCDIR}/../../build -l:libbloomsimd.a -l:libxxhash.a -lm -lpthread
#include <bloomsimd.h>
*/
import "C"

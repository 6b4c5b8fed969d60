//go:build bloomsimd_system

package bloomsimd

// With -tags bloomsimd_system the package links the libbloomsimd that
// pkg-config finds (bloomsimd.pc: a Debian libbloomsimd-dev, or
// `cmake --install` with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig) instead of
// compiling its own copy; the lib_*.c files are left out by their build
// constraint. The binary then needs that libbloomsimd.so at run time.

/*
#cgo pkg-config: bloomsimd
#include <bloomsimd.h>
*/
import "C"

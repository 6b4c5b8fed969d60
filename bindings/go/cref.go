package bloomsimd

/*
#include <bloomsimd.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// The C library's own single-key entry points and bit array, unexported:
// the tests (which cannot use cgo themselves) compare the pure-Go paths
// with them byte for byte.

func (f *Filter) cHash(key []byte) uint64 {
	var p unsafe.Pointer
	if len(key) > 0 {
		p = unsafe.Pointer(&key[0])
	}
	h := uint64(C.bloomsimd_hash(f.c, p, C.size_t(len(key))))
	runtime.KeepAlive(f)
	runtime.KeepAlive(key)
	return h
}

func (f *Filter) cAddUint64(key uint64) error {
	err := statusErr(C.bloomsimd_add_u64(f.c, C.uint64_t(key)), "add", "", nil)
	runtime.KeepAlive(f)
	return err
}

func (f *Filter) cAdd(key []byte) error {
	var p unsafe.Pointer
	if len(key) > 0 {
		p = unsafe.Pointer(&key[0])
	}
	err := statusErr(C.bloomsimd_add(f.c, p, C.size_t(len(key))), "add", "", nil)
	runtime.KeepAlive(f)
	runtime.KeepAlive(key)
	return err
}

func (f *Filter) cContainsUint64(key uint64) bool {
	hit := bool(C.bloomsimd_contains_u64(f.c, C.uint64_t(key)))
	runtime.KeepAlive(f)
	return hit
}

// bitArray copies the filter's bit array (nil if it has none).
func (f *Filter) bitArray() []byte {
	var v C.bloomsimd_view
	var pc C.bloomsimd_probe_constants
	if f.c == nil || C.bloomsimd_get_probe(f.c, &v, &pc) != C.BLOOMSIMD_OK || v.blocks == nil {
		return nil
	}
	blockBytes := C.uint64_t(64) // block512
	if v.layout == C.BLOOMSIMD_LAYOUT_SPLIT256 {
		blockBytes = 32
	}
	b := C.GoBytes(v.blocks, C.int(v.nblocks*blockBytes))
	runtime.KeepAlive(f)
	return b
}

// cMapModes are the header's BLOOMSIMD_MAP_* values, in MapMode's order.
func cMapModes() [3]MapMode {
	return [3]MapMode{C.BLOOMSIMD_MAP_READ_ONLY, C.BLOOMSIMD_MAP_WRITABLE, C.BLOOMSIMD_MAP_ACCEPT_UNSYNCED}
}

package bloomsimd

/*
#include <bloomsimd.h>
*/
import "C"

import "runtime"

// cInsertNewHash is the insert-and-report-new of a filter without a single
// bit array (scalable and window filters): one cgo call.
func (f *Filter) cInsertNewHash(h uint64) (bool, error) {
	hv := C.uint64_t(h)
	var out C.uint8_t
	st := C.bloomsimd_add_new_hashes(f.c, &hv, 1, &out, nil)
	runtime.KeepAlive(f)
	return out != 0, statusErr(st, "insert new", "", nil)
}

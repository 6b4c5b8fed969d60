package bloomsimd

/*
#include <stdlib.h>
#include <bloomsimd.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Files are the library's portable format (docs/FORMAT.md): a file saved by
// this package loads in C, in the command-line tool and in any other binding,
// and the other way round.

// MapMode says how Map opens a file: the values of BLOOMSIMD_MAP_* (a test
// checks them against the header).
type MapMode uint

const (
	// ReadOnly maps the file shared and read-only: zero-copy, and many
	// processes mapping one file share one copy in the page cache. Inserts
	// return ErrReadOnly.
	ReadOnly MapMode = 0
	// Writable maps the file shared and writable: inserts go to the file;
	// Sync updates its checksums. One writable mapping per file at a time.
	Writable MapMode = 1
	// AcceptUnsynced (with ReadOnly or Writable) accepts a file whose payload
	// checksum is stale because a writable mapping was never synced.
	AcceptUnsynced MapMode = 2
)

// Save writes the filter to path atomically (temporary file, fsync, rename,
// fsync of the directory): a crash leaves the old file or the new one.
// Errors wrap ErrIO (and the errno, e.g. fs.ErrNotExist) or ErrClosed.
func (f *Filter) Save(path string) error {
	if f.c == nil {
		return ErrClosed
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	defer pinThread()()
	st, errno := C.bloomsimd_save(f.c, cpath)
	runtime.KeepAlive(f)
	return detailErr(st, "save", path, errno)
}

// Load reads a saved filter into memory, validating everything (sizes,
// magic, version, both checksums) first. Errors wrap ErrCorrupt, ErrVersion,
// ErrIO (with the errno), ErrTooLarge or ErrNoMemory.
func Load(path string) (*Filter, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var c *C.bloomsimd_filter
	defer pinThread()()
	st, errno := C.bloomsimd_load(&c, cpath)
	if err := detailErr(st, "load", path, errno); err != nil {
		return nil, err
	}
	return wrap(c), nil
}

// Map maps a saved filter (see MapMode); the file is validated as by Load.
// Single-key calls work over the mapping in Go like over a heap filter.
// Another process truncating a mapped file kills the mapper with SIGBUS (no
// library can prevent that).
func Map(path string, mode MapMode) (*Filter, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var c *C.bloomsimd_filter
	defer pinThread()()
	st, errno := C.bloomsimd_map(&c, cpath, C.unsigned(mode))
	if err := detailErr(st, "map", path, errno); err != nil {
		return nil, err
	}
	f := wrap(c)
	if mode&Writable == 0 {
		f.readOnly = true
		f.probe.RefuseWrites()
	}
	return f, nil
}

// Sync makes a writable mapping's file consistent (checksums, msync). A
// no-op for heap filters and read-only mappings. Exclusive, even with
// Concurrent.
func (f *Filter) Sync() error {
	if f.c == nil {
		return ErrClosed
	}
	defer pinThread()()
	st, errno := C.bloomsimd_sync(f.c)
	runtime.KeepAlive(f)
	return detailErr(st, "sync", "", errno)
}

// MarshalBinary returns the filter in the file format (encoding.BinaryMarshaler).
func (f *Filter) MarshalBinary() ([]byte, error) {
	if f.c == nil {
		return nil, ErrClosed
	}
	n := C.bloomsimd_serialized_size(f.c)
	buf := make([]byte, int(n))
	var written C.size_t
	defer pinThread()()
	st := C.bloomsimd_serialize(f.c, unsafe.Pointer(&buf[0]), n, &written)
	runtime.KeepAlive(f)
	if err := detailErr(st, "serialize", "", nil); err != nil {
		return nil, err
	}
	return buf[:written], nil
}

// Unmarshal builds a new filter from MarshalBinary's bytes (or a file's),
// validated as by Load.
func Unmarshal(data []byte) (*Filter, error) {
	if len(data) == 0 {
		return nil, statusErr(C.BLOOMSIMD_ERR_CORRUPT, "deserialize", "", nil)
	}
	var c *C.bloomsimd_filter
	defer pinThread()()
	st := C.bloomsimd_deserialize(&c, unsafe.Pointer(&data[0]), C.size_t(len(data)))
	if err := detailErr(st, "deserialize", "", nil); err != nil {
		return nil, err
	}
	return wrap(c), nil
}

// UnmarshalBinary replaces f with the filter in data
// (encoding.BinaryUnmarshaler). On error f is unchanged. Exclusive.
func (f *Filter) UnmarshalBinary(data []byte) error {
	g, err := Unmarshal(data)
	if err != nil {
		return err
	}
	runtime.SetFinalizer(g, nil)
	if f.c != nil {
		C.bloomsimd_destroy(f.c)
	}
	*f = *g
	*g = Filter{}
	runtime.SetFinalizer(f, nil)
	runtime.SetFinalizer(f, finalize)
	return nil
}

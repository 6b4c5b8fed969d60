package bloomsimd

/*
#include <bloomsimd.h>
*/
import "C"

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/libbloomsimd/libbloomsimd/bindings/go/internal/probe"
)

// Single keys run in Go over the filter's own bit array: the hash of a byte
// key in xxh3.go, of a 64-bit key in internal/probe (XXH3's 8-byte path or
// mum, with the filter's constants from bloomsimd_get_probe), the probe of
// the filter's layout there too (assembly on amd64 for filters on the avx2
// and avx512 kernels, pure Go otherwise; probe.go there says why and how it
// is chosen). single_test.go checks every probe on every kernel this CPU
// runs byte for byte against the C kernels, for both hashes, and
// vectors_test.go against tests/fixtures/hash_vectors.txt.

// chooseProbe picks the filter's probes (attachView, once the view's fields
// are set).
func (f *Filter) chooseProbe(c probe.Constants) {
	if f.words == nil {
		f.probe = probe.State{}
		return
	}
	var ci C.bloomsimd_info
	C.bloomsimd_get_info(f.c, &ci)
	runtime.KeepAlive(f)
	f.probe = probe.New(probe.Filter{
		Blocks:     unsafe.Pointer(&f.words[0]),
		Nblocks:    f.nblocks,
		Select:     f.sel,
		Split:      f.split,
		Concurrent: f.concurrent,
		ReadOnly:   f.readOnly,
		Items:      f.items,
		Kernel:     C.GoString(ci.kernel),
	}, c)
}

// stringBytes is s's bytes without a copy (never written to).
func stringBytes(s string) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice(*(**byte)(unsafe.Pointer(&s)), len(s))
}

// Hash is XXH3_64bits_withSeed(key, filter seed): the hash every call of
// this filter derives from a byte key (0 for a closed filter).
func (f *Filter) Hash(key []byte) uint64 {
	if f.hash == nil {
		return 0
	}
	return f.hash.hash(key)
}

// HashUint64 is the filter's hash of a 64-bit key: XXH3 of its 8
// little-endian bytes, or mum (WithU64Hash); the hash every call of this
// filter derives from the key (0 for a closed filter).
func (f *Filter) HashUint64(key uint64) uint64 {
	if f.hash == nil {
		return 0
	}
	if f.words != nil {
		return f.probe.HashU64(key)
	}
	if f.cHashU64 {
		k, h := C.uint64_t(key), C.uint64_t(0)
		C.bloomsimd_hash_batch_u64(f.c, &k, 1, &h)
		runtime.KeepAlive(f)
		return uint64(h)
	}
	return f.hash.hashU64(key)
}

// writable reports why single-key inserts cannot run in Go (nil: they can).
func (f *Filter) writable(op string) error {
	if f.c == nil {
		return ErrClosed
	}
	if f.readOnly {
		return statusErr(C.BLOOMSIMD_ERR_READ_ONLY, op, "", nil)
	}
	return nil
}

// AddUint64 inserts one 64-bit key (hashed as its 8 little-endian bytes, as
// in every language binding and the C library, unless the filter was made
// WithU64Hash(HashMum)). Errors: ErrReadOnly, ErrClosed.
//
// It is one call into the probe package (inlined here, so a caller's loop
// makes one call per key), which hashes and probes in assembly on amd64 and
// hands any filter it does not probe to addUint64C.
func (f *Filter) AddUint64(key uint64) error { return probe.AddU64(&f.probe, key) }

// The fallbacks of the single-key methods (AddUint64, ContainsUint64 and
// InsertNewUint64 with the key; Add, Contains and InsertNew with its hash):
// the C calls (filters with no single bit array, read-only and closed
// filters), and for the insert-new methods every key the assembly does not
// probe (pure-Go probes, concurrent filters, whose count is atomic). The
// probe package calls them with the State at the start of the Filter.
func init() {
	probe.ContainsFallback = func(p *probe.State, key uint64) bool { return filterOf(p).containsUint64C(key) }
	probe.AddFallback = func(p *probe.State, key uint64) error { return filterOf(p).addUint64C(key) }
	probe.AddNewFallback = func(p *probe.State, key uint64) (bool, error) {
		f := filterOf(p)
		return f.insertNewHash(f.HashUint64(key))
	}
	probe.ContainsHashFallback = func(p *probe.State, h uint64) bool {
		f := filterOf(p)
		return f.c != nil && f.cContainsHash(h)
	}
	probe.AddHashFallback = func(p *probe.State, h uint64) error {
		f := filterOf(p)
		if err := f.writable("add"); err != nil {
			return err
		}
		return f.cAddHash(h)
	}
	probe.AddNewHashFallback = func(p *probe.State, h uint64) (bool, error) { return filterOf(p).insertNewHash(h) }
}

// Filter.probe is Filter's first field (the constant below does not
// compile otherwise), so a pointer to it is a pointer to its Filter.
const _ uintptr = -unsafe.Offsetof(Filter{}.probe)

func filterOf(p *probe.State) *Filter { return (*Filter)(unsafe.Pointer(p)) }

func (f *Filter) addUint64C(key uint64) error {
	if err := f.writable("add"); err != nil {
		return err
	}
	err := statusErr(C.bloomsimd_add_u64(f.c, C.uint64_t(key)), "add", "", nil)
	runtime.KeepAlive(f)
	return err
}

// Add inserts one byte key. Errors: ErrReadOnly, ErrClosed.
//
// The key is hashed in Go (Hash: XXH3 of any length), then probed by one
// call into the probe package, as AddUint64 probes.
func (f *Filter) Add(key []byte) error { return probe.AddHash(&f.probe, f.Hash(key)) }

// AddString inserts one string key (the same key as Add([]byte(s))).
func (f *Filter) AddString(key string) error { return f.Add(stringBytes(key)) }

// ContainsUint64 reports whether key may be present (false: certainly
// absent; false for a closed filter). One call, as AddUint64.
func (f *Filter) ContainsUint64(key uint64) bool { return probe.ContainsU64(&f.probe, key) }

func (f *Filter) containsUint64C(key uint64) bool {
	hit := f.c != nil && bool(C.bloomsimd_contains_u64(f.c, C.uint64_t(key)))
	runtime.KeepAlive(f)
	return hit
}

// Contains reports whether a byte key may be present (false for a closed
// filter). The hash, then one probe call, as Add.
func (f *Filter) Contains(key []byte) bool { return probe.ContainsHash(&f.probe, f.Hash(key)) }

// ContainsString reports whether a string key may be present.
func (f *Filter) ContainsString(key string) bool { return f.Contains(stringBytes(key)) }

// The C fallbacks for filters without a single bit array: one hash, one call.
func (f *Filter) cAddHash(h uint64) error {
	hv := C.uint64_t(h)
	err := statusErr(C.bloomsimd_add_hashes(f.c, &hv, 1), "add", "", nil)
	runtime.KeepAlive(f)
	return err
}

func (f *Filter) cContainsHash(h uint64) bool {
	hv := C.uint64_t(h)
	hit := C.bloomsimd_contains_hashes(f.c, &hv, 1, nil) == 1
	runtime.KeepAlive(f)
	return hit
}

// InsertNewUint64 inserts key and reports whether it was (probably) absent
// before: the deduplication step, one key at a time. With Concurrent, of
// several goroutines inserting the same new key at least one is told it is
// new. Errors: ErrReadOnly, ErrClosed.
//
// One call into the probe package, as AddUint64.
func (f *Filter) InsertNewUint64(key uint64) (bool, error) { return probe.AddNewU64(&f.probe, key) }

// InsertNew is InsertNewUint64 for a byte key: the hash, then one call, as Add.
func (f *Filter) InsertNew(key []byte) (bool, error) { return probe.AddNewHash(&f.probe, f.Hash(key)) }

// InsertNewString is InsertNewUint64 for a string key.
func (f *Filter) InsertNewString(key string) (bool, error) { return f.InsertNew(stringBytes(key)) }

func (f *Filter) insertNewHash(h uint64) (bool, error) {
	if err := f.writable("insert new"); err != nil {
		return false, err
	}
	if f.probe.AddKind == probe.None {
		return f.cInsertNewHash(h)
	}
	isNew := f.probe.AddNew(h)
	if isNew { // keep Info().Items as the C calls would
		if f.concurrent {
			atomic.AddUint64(f.items, 1)
		} else {
			*f.items++
		}
	}
	runtime.KeepAlive(f)
	return isNew, nil
}

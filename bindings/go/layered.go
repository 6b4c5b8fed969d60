package bloomsimd

/*
#include <stdint.h>
#include <bloomsimd.h>

// As in batch.go: the filter as an integer, so that cgo's pointer check of
// an incomplete struct type does not allocate per call.
static bloomsimd_status gb_add_new_batch_u64(uintptr_t f, const uint64_t *keys, size_t n, uint8_t *out,
                                             size_t *new_count)
{
    return bloomsimd_add_new_batch_u64((bloomsimd_filter *)f, keys, n, out, new_count);
}
static bloomsimd_status gb_add_new_hashes(uintptr_t f, const uint64_t *hashes, size_t n, uint8_t *out,
                                          size_t *new_count)
{
    return bloomsimd_add_new_hashes((bloomsimd_filter *)f, hashes, n, out, new_count);
}
static size_t gb_select_batch_u64(uintptr_t f, const uint64_t *keys, size_t n, uint32_t *indices)
{
    return bloomsimd_select_batch_u64((const bloomsimd_filter *)f, keys, n, indices);
}
static size_t gb_select_hashes(uintptr_t f, const uint64_t *hashes, size_t n, uint32_t *indices)
{
    return bloomsimd_select_hashes((const bloomsimd_filter *)f, hashes, n, indices);
}
*/
import "C"

import (
	"math"
	"runtime"
	"unsafe"
)

// Insert-and-report-new batches, selection vectors, scalable filters and
// sliding windows (the library's layered-filter calls).

// WithGrowth makes a scalable filter: when the newest layer has received
// the keys it was sized for, a new layer factor times its capacity is added,
// and the layers' FPRs (the budget schedule, or fpr*(1-r)*r^i with
// WithTightening(r)) sum to at most fpr, so the whole chain stays within fpr
// (docs/SCALABLE.md). Keys are counted by
// the InsertNew calls (new keys only) and by the Add calls (every key).
// Single keys of a scalable filter go through cgo (one call per key).
func WithGrowth(factor int) Option {
	return func(c *config) {
		if factor < 1 || factor > math.MaxUint32 {
			c.err = argErr("new", "growth must be >= 1")
			return
		}
		c.opts.growth = C.uint32_t(factor)
	}
}

// WithTightening sets r of WithGrowth, in (0, 1): the geometric schedule
// (RedisBloom's with 0.5) instead of the budget schedule.
func WithTightening(r float64) Option {
	return func(c *config) { c.opts.tightening = C.double(r) }
}

// WithWindow makes a sliding window of generations (2..64) filters, each
// sized for capacity keys at fpr: inserts go to the current generation,
// lookups see all of them, Rotate drops the oldest (docs/WINDOWS.md). The
// window's FPR is 1-(1-fpr)^generations <= generations*fpr. Single keys of
// a window go through cgo (one call per key).
func WithWindow(generations int) Option {
	return func(c *config) {
		if generations < 2 || generations > C.BLOOMSIMD_MAX_GENERATIONS {
			c.err = argErr("new", "generations must be in 2..64")
			return
		}
		c.opts.generations = C.uint32_t(generations)
	}
}

// Rotate drops a window's oldest generation and starts a new, empty current
// one. With Concurrent it may run while other goroutines insert and look up
// (no insert is lost, no key of a live generation is missed); without it,
// it is exclusive. Errors: ErrInvalidArgument (not a window), ErrReadOnly,
// ErrClosed.
func (f *Filter) Rotate() error {
	if f.c == nil {
		return ErrClosed
	}
	defer pinThread()()
	st := C.bloomsimd_rotate(f.c)
	runtime.KeepAlive(f)
	return detailErr(st, "rotate", "", nil)
}

func u32p(s []uint32) *C.uint32_t { return (*C.uint32_t)(unsafe.Pointer(&s[0])) }

// InsertNewUint64s inserts a batch in key order and reports, for each key,
// whether it was (probably) absent before: out[i] = keys[i] is new; a key
// repeated within the batch is new only the first time. out may be nil
// (count only); otherwise it must be at least as long as keys (it panics if
// not). Returns the number of new keys. One cgo call. For a scalable filter
// whose grow failed (ErrNoMemory, ErrTooLarge), the keys before the failing
// one are inserted and reported and the count covers them.
func (f *Filter) InsertNewUint64s(keys []uint64, out []bool) (int, error) {
	checkOut(out, len(keys))
	if f.c == nil {
		return 0, ErrClosed
	}
	if len(keys) == 0 {
		return 0, nil
	}
	var count C.size_t
	st := C.gb_add_new_batch_u64(f.handle(), u64p(keys), C.size_t(len(keys)), boolp(out), &count)
	runtime.KeepAlive(f)
	return int(count), statusErr(st, "insert new", "", nil)
}

// InsertNewHashes is InsertNewUint64s for pre-computed hashes.
func (f *Filter) InsertNewHashes(hashes []uint64, out []bool) (int, error) {
	checkOut(out, len(hashes))
	if f.c == nil {
		return 0, ErrClosed
	}
	if len(hashes) == 0 {
		return 0, nil
	}
	var count C.size_t
	st := C.gb_add_new_hashes(f.handle(), u64p(hashes), C.size_t(len(hashes)), boolp(out), &count)
	runtime.KeepAlive(f)
	return int(count), statusErr(st, "insert new", "", nil)
}

func (f *Filter) insertNewChunks(n int, fill func(base int, dst []uint64), out []bool) (int, error) {
	checkOut(out, n)
	if f.c == nil {
		return 0, ErrClosed
	}
	total := 0
	err := f.chunks(n, fill, func(base int, hs []uint64) error {
		var o []bool
		if out != nil {
			o = out[base : base+len(hs)]
		}
		c, err := f.InsertNewHashes(hs, o)
		total += c
		return err
	})
	return total, err
}

// InsertNewStrings is InsertNewUint64s for string keys.
func (f *Filter) InsertNewStrings(keys []string, out []bool) (int, error) {
	return f.insertNewChunks(len(keys), func(base int, dst []uint64) { f.hash.hashStrings(dst, keys[base:]) }, out)
}

// InsertNewBytes is InsertNewUint64s for byte keys.
func (f *Filter) InsertNewBytes(keys [][]byte, out []bool) (int, error) {
	return f.insertNewChunks(len(keys), func(base int, dst []uint64) { f.hash.hashBytes(dst, keys[base:]) }, out)
}

// SelectUint64s appends to dst the indices (ascending) of the keys that may
// be present, and returns the extended slice: a selection vector, as a join
// filter needs. One cgo call; no allocation when dst has room for
// len(keys) more entries. Panics if len(keys) > 2^32-1.
func (f *Filter) SelectUint64s(dst []uint32, keys []uint64) []uint32 {
	if f.c == nil || len(keys) == 0 {
		return dst
	}
	if uint64(len(keys)) > math.MaxUint32 {
		panic("bloomsimd: more than 2^32-1 keys in one selection")
	}
	dst = grow(dst, len(keys))
	tail := dst[len(dst) : len(dst)+len(keys)]
	n := C.gb_select_batch_u64(f.handle(), u64p(keys), C.size_t(len(keys)), u32p(tail))
	runtime.KeepAlive(f)
	return dst[:len(dst)+int(n)]
}

// SelectHashes is SelectUint64s for pre-computed hashes.
func (f *Filter) SelectHashes(dst []uint32, hashes []uint64) []uint32 {
	if f.c == nil || len(hashes) == 0 {
		return dst
	}
	if uint64(len(hashes)) > math.MaxUint32 {
		panic("bloomsimd: more than 2^32-1 keys in one selection")
	}
	dst = grow(dst, len(hashes))
	tail := dst[len(dst) : len(dst)+len(hashes)]
	n := C.gb_select_hashes(f.handle(), u64p(hashes), C.size_t(len(hashes)), u32p(tail))
	runtime.KeepAlive(f)
	return dst[:len(dst)+int(n)]
}

func (f *Filter) selectChunks(dst []uint32, n int, fill func(base int, dst []uint64)) []uint32 {
	if f.c == nil || n == 0 {
		return dst
	}
	_ = f.chunks(n, fill, func(base int, hs []uint64) error {
		start := len(dst)
		dst = f.SelectHashes(dst, hs)
		for i := start; i < len(dst); i++ {
			dst[i] += uint32(base)
		}
		return nil
	})
	return dst
}

// SelectStrings is SelectUint64s for string keys.
func (f *Filter) SelectStrings(dst []uint32, keys []string) []uint32 {
	return f.selectChunks(dst, len(keys), func(base int, d []uint64) { f.hash.hashStrings(d, keys[base:]) })
}

// SelectBytes is SelectUint64s for byte keys.
func (f *Filter) SelectBytes(dst []uint32, keys [][]byte) []uint32 {
	return f.selectChunks(dst, len(keys), func(base int, d []uint64) { f.hash.hashBytes(d, keys[base:]) })
}

// grow returns s with room for n more elements (same length).
func grow(s []uint32, n int) []uint32 {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]uint32, len(s), len(s)+n+len(s)/4)
	copy(t, s)
	return t
}

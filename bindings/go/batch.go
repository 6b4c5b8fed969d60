package bloomsimd

/*
#include <stdint.h>
#include <bloomsimd.h>

// The hot batch entry points take the filter as an integer: cgo checks every
// pointer argument whose type is an incomplete struct by boxing it into an
// interface, one 8-byte allocation per call (Go 1.19); an integer is not
// checked. The keys and outputs are Go memory without Go pointers in it,
// which cgo's rules allow C to read and write during the call.
static bloomsimd_status gb_add_batch_u64(uintptr_t f, const uint64_t *keys, size_t n)
{
    return bloomsimd_add_batch_u64((bloomsimd_filter *)f, keys, n);
}
static size_t gb_contains_batch_u64(uintptr_t f, const uint64_t *keys, size_t n, uint8_t *out)
{
    return bloomsimd_contains_batch_u64((const bloomsimd_filter *)f, keys, n, out);
}
static bloomsimd_status gb_add_hashes(uintptr_t f, const uint64_t *hashes, size_t n)
{
    return bloomsimd_add_hashes((bloomsimd_filter *)f, hashes, n);
}
static size_t gb_contains_hashes(uintptr_t f, const uint64_t *hashes, size_t n, uint8_t *out)
{
    return bloomsimd_contains_hashes((const bloomsimd_filter *)f, hashes, n, out);
}
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Batches: one cgo call per batch (per 1024 keys for strings and []byte),
// no copy of []uint64 or []bool, no allocation per key. Byte keys are hashed
// in Go (xxh3.go) into a pooled buffer and passed to the library's hash entry
// points: C cannot be handed Go pointers to the keys' bytes inside a Go
// slice (cgo's pointer rules), and hashing in Go costs the same as in C.

const hashChunk = 1024

var hashPool = sync.Pool{New: func() any { return new([hashChunk]uint64) }}

// handle is the C filter as the integer the gb_ wrappers take.
func (f *Filter) handle() C.uintptr_t { return C.uintptr_t(uintptr(unsafe.Pointer(f.c))) }

func u64p(s []uint64) *C.uint64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&s[0]))
}

func boolp(s []bool) *C.uint8_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&s[0]))
}

// checkOut panics if out is neither nil nor long enough: a programming
// error, like an index out of range.
func checkOut(out []bool, n int) {
	if out != nil && len(out) < n {
		panic("bloomsimd: out is shorter than keys")
	}
}

// AddUint64s inserts a batch of 64-bit keys with one cgo call. Errors:
// ErrReadOnly, ErrClosed.
func (f *Filter) AddUint64s(keys []uint64) error {
	if f.c == nil {
		return ErrClosed
	}
	if len(keys) == 0 {
		return nil
	}
	err := statusErr(C.gb_add_batch_u64(f.handle(), u64p(keys), C.size_t(len(keys))), "add", "", nil)
	runtime.KeepAlive(f)
	return err
}

// ContainsUint64s looks up a batch: out[i] = keys[i] may be present (false:
// certainly absent). out may be nil to count only; otherwise it must be at
// least as long as keys (it panics if not). Returns the number of
// maybe-present keys (0 for a closed filter).
func (f *Filter) ContainsUint64s(keys []uint64, out []bool) int {
	checkOut(out, len(keys))
	if f.c == nil || len(keys) == 0 {
		return 0
	}
	n := C.gb_contains_batch_u64(f.handle(), u64p(keys), C.size_t(len(keys)), boolp(out))
	runtime.KeepAlive(f)
	return int(n)
}

// AddHashes inserts keys already hashed with Hash or HashUint64 (hash once,
// probe many filters with the same seed).
func (f *Filter) AddHashes(hashes []uint64) error {
	if f.c == nil {
		return ErrClosed
	}
	if len(hashes) == 0 {
		return nil
	}
	err := statusErr(C.gb_add_hashes(f.handle(), u64p(hashes), C.size_t(len(hashes))), "add", "", nil)
	runtime.KeepAlive(f)
	return err
}

// ContainsHashes looks up pre-computed hashes, as ContainsUint64s.
func (f *Filter) ContainsHashes(hashes []uint64, out []bool) int {
	checkOut(out, len(hashes))
	if f.c == nil || len(hashes) == 0 {
		return 0
	}
	n := C.gb_contains_hashes(f.handle(), u64p(hashes), C.size_t(len(hashes)), boolp(out))
	runtime.KeepAlive(f)
	return int(n)
}

// chunks runs fn over chunks of at most hashChunk hashes of n keys, where
// fill(base, dst) hashes keys base .. base+len(dst)-1 into dst. It stops at
// fn's first error. Two closure calls per chunk, none per key.
func (f *Filter) chunks(n int, fill func(base int, dst []uint64), fn func(base int, hashes []uint64) error) error {
	buf := hashPool.Get().(*[hashChunk]uint64)
	defer hashPool.Put(buf)
	for base := 0; base < n; base += hashChunk {
		hs := buf[:min(hashChunk, n-base)]
		fill(base, hs)
		if err := fn(base, hs); err != nil {
			return err
		}
	}
	return nil
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func (s *xxh3Secret) hashStrings(dst []uint64, keys []string) {
	keys = keys[:len(dst)]
	for i, k := range keys {
		dst[i] = s.hash(stringBytes(k))
	}
}

func (s *xxh3Secret) hashBytes(dst []uint64, keys [][]byte) {
	keys = keys[:len(dst)]
	for i, k := range keys {
		dst[i] = s.hash(k)
	}
}

func (f *Filter) addChunks(n int, fill func(base int, dst []uint64)) error {
	if f.c == nil {
		return ErrClosed
	}
	return f.chunks(n, fill, func(_ int, hs []uint64) error { return f.AddHashes(hs) })
}

func (f *Filter) containsChunks(n int, fill func(base int, dst []uint64), out []bool) int {
	checkOut(out, n)
	if f.c == nil {
		return 0
	}
	total := 0
	_ = f.chunks(n, fill, func(base int, hs []uint64) error {
		var o []bool
		if out != nil {
			o = out[base : base+len(hs)]
		}
		total += f.ContainsHashes(hs, o)
		return nil
	})
	return total
}

// AddStrings inserts a batch of string keys (each hashed as its bytes).
func (f *Filter) AddStrings(keys []string) error {
	return f.addChunks(len(keys), func(base int, dst []uint64) { f.hash.hashStrings(dst, keys[base:]) })
}

// ContainsStrings looks up a batch of string keys, as ContainsUint64s.
func (f *Filter) ContainsStrings(keys []string, out []bool) int {
	return f.containsChunks(len(keys), func(base int, dst []uint64) { f.hash.hashStrings(dst, keys[base:]) }, out)
}

// AddBytes inserts a batch of byte keys: keys[i] is one key.
func (f *Filter) AddBytes(keys [][]byte) error {
	return f.addChunks(len(keys), func(base int, dst []uint64) { f.hash.hashBytes(dst, keys[base:]) })
}

// ContainsBytes looks up a batch of byte keys, as ContainsUint64s.
func (f *Filter) ContainsBytes(keys [][]byte, out []bool) int {
	return f.containsChunks(len(keys), func(base int, dst []uint64) { f.hash.hashBytes(dst, keys[base:]) }, out)
}

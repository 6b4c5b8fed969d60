package bloomsimd

/*
#include <bloomsimd.h>
*/
import "C"

import (
	"math/bits"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// The single-key probe of kernels/layout.h (layout 2) in Go, over the
// filter's own bit array:
//
//	h     = XXH3_64bits_withSeed(key, seed)        (xxh3.go)
//	block = ((h >> 32) * nblocks) >> 32            16 32-bit words
//	sel   = SELECT_k[uint32(h) >> 26]              which k of the 16 words
//	bit_w = (uint32(h) * salt[w]) >> 27            which bit of word w
//
// Only the k selected words are touched, in a loop of exactly k rounds (the
// mask always has k bits), so the loop's trip count never mispredicts.
// single_test.go checks every byte against the C kernels.

// salts are kernels/layout.h's BLOOMSIMD_SALTS.
var salts = [16]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947,
	0x5c6bfb31, 0x3c6ef373, 0x9e3779b9, 0x2545f491, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f, 0x165667b1, 0xd3a2646d}

func (f *Filter) addHash(h uint64) {
	if f.split {
		f.splitAddNew(h)
		return
	}
	lo := uint32(h)
	sel := uint32(f.sel[lo>>26])
	base := (((h >> 32) * f.nblocks) >> 32) * 16
	if f.concurrent {
		f.addHashAtomic(base, lo, sel)
		return
	}
	block := f.words[base : base+16 : base+16]
	for ; sel != 0; sel &= sel - 1 {
		w := bits.TrailingZeros32(sel) & 15
		block[w] |= 1 << ((lo * salts[w]) >> 27)
	}
}

// addHashAtomic ORs the key's bits 64 bits at a time, like the C library's
// concurrent inserts (kernels/layout.h bloomsimd_block_or). Go 1.19 has no
// atomic OR, so each word is a compare-and-swap loop: like the C library's
// lock-or it is one atomic read-modify-write of the same aligned 64-bit word,
// so inserts from Go and C never lose each other's bits.
func (f *Filter) addHashAtomic(base uint64, lo, sel uint32) {
	var m [8]uint64
	for s := sel; s != 0; s &= s - 1 {
		w := bits.TrailingZeros32(s) & 15
		m[w>>1] |= uint64(1<<((lo*salts[w])>>27)) << (32 * (w & 1))
	}
	block := f.words64[base/2 : base/2+8 : base/2+8]
	for i := range m {
		if m[i] != 0 {
			orAtomic(&block[i], m[i])
		}
	}
}

// orAtomic sets mask in *p and reports whether any of its bits was clear.
func orAtomic(p *uint64, mask uint64) bool {
	for {
		old := atomic.LoadUint64(p)
		if old&mask == mask {
			return false
		}
		if atomic.CompareAndSwapUint64(p, old, old|mask) {
			return true
		}
	}
}

func (f *Filter) containsHash(h uint64) bool {
	if f.split {
		return f.splitContains(h)
	}
	lo := uint32(h)
	sel := uint32(f.sel[lo>>26])
	base := (((h >> 32) * f.nblocks) >> 32) * 16
	if f.concurrent {
		block := f.words64[base/2 : base/2+8 : base/2+8]
		for ; sel != 0; sel &= sel - 1 {
			w := bits.TrailingZeros32(sel) & 15
			word := uint32(atomic.LoadUint64(&block[w>>1]) >> (32 * (w & 1)))
			if word&(1<<((lo*salts[w])>>27)) == 0 {
				return false
			}
		}
		return true
	}
	block := f.words[base : base+16 : base+16]
	for ; sel != 0; sel &= sel - 1 {
		w := bits.TrailingZeros32(sel) & 15
		if block[w]&(1<<((lo*salts[w])>>27)) == 0 {
			return false
		}
	}
	return true
}

// addNewHash inserts and reports whether any bit was missing before
// (bloomsimd_block_or_report).
func (f *Filter) addNewHash(h uint64) bool {
	if f.split {
		return f.splitAddNew(h)
	}
	lo := uint32(h)
	sel := uint32(f.sel[lo>>26])
	base := (((h >> 32) * f.nblocks) >> 32) * 16
	if f.concurrent {
		var m [8]uint64
		for s := sel; s != 0; s &= s - 1 {
			w := bits.TrailingZeros32(s) & 15
			m[w>>1] |= uint64(1<<((lo*salts[w])>>27)) << (32 * (w & 1))
		}
		block := f.words64[base/2 : base/2+8 : base/2+8]
		isNew := false
		for i := range m {
			if m[i] != 0 && orAtomic(&block[i], m[i]) {
				isNew = true
			}
		}
		return isNew
	}
	block := f.words[base : base+16 : base+16]
	var missing uint32
	for ; sel != 0; sel &= sel - 1 {
		w := bits.TrailingZeros32(sel) & 15
		bit := uint32(1) << ((lo * salts[w]) >> 27)
		missing |= bit &^ block[w]
		block[w] |= bit
	}
	return missing != 0
}

// The split256 probe (kernels/layout_split256.h, Parquet's block rule): the
// block is the same ((h >> 32) * nblocks) >> 32 over 8-word blocks, and
// every word w gets one bit, (uint32(h) * salt[w]) >> 27 with the first 8
// salts. A concurrent filter is read and ORed 64 bits at a time, as the C
// kernels do.
func (f *Filter) splitContains(h uint64) bool {
	lo := uint32(h)
	base := (((h >> 32) * f.nblocks) >> 32) * 8
	if f.concurrent {
		block := f.words64[base/2 : base/2+4 : base/2+4]
		for w := 0; w < 8; w++ {
			word := uint32(atomic.LoadUint64(&block[w>>1]) >> (32 * (w & 1)))
			if word&(1<<((lo*salts[w])>>27)) == 0 {
				return false
			}
		}
		return true
	}
	block := f.words[base : base+8 : base+8]
	for w := 0; w < 8; w++ {
		if block[w]&(1<<((lo*salts[w])>>27)) == 0 {
			return false
		}
	}
	return true
}

// splitAddNew sets the key's 8 bits and reports whether one was missing.
func (f *Filter) splitAddNew(h uint64) bool {
	lo := uint32(h)
	base := (((h >> 32) * f.nblocks) >> 32) * 8
	if f.concurrent {
		block := f.words64[base/2 : base/2+4 : base/2+4]
		isNew := false
		for i := 0; i < 4; i++ {
			m := uint64(1<<((lo*salts[2*i])>>27)) | uint64(1<<((lo*salts[2*i+1])>>27))<<32
			if orAtomic(&block[i], m) {
				isNew = true
			}
		}
		return isNew
	}
	block := f.words[base : base+8 : base+8]
	var missing uint32
	for w := 0; w < 8; w++ {
		bit := uint32(1) << ((lo * salts[w]) >> 27)
		missing |= bit &^ block[w]
		block[w] |= bit
	}
	return missing != 0
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

// HashUint64 is the hash of key's 8 little-endian bytes.
func (f *Filter) HashUint64(key uint64) uint64 {
	if f.hash == nil {
		return 0
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
// in every language binding and the C library). Errors: ErrReadOnly,
// ErrClosed.
func (f *Filter) AddUint64(key uint64) error {
	if err := f.writable("add"); err != nil {
		return err
	}
	if f.words == nil {
		return statusErr(C.bloomsimd_add_u64(f.c, C.uint64_t(key)), "add", "", nil)
	}
	f.addHash(f.hash.hashU64(key))
	runtime.KeepAlive(f)
	return nil
}

// Add inserts one byte key. Errors: ErrReadOnly, ErrClosed.
func (f *Filter) Add(key []byte) error {
	if err := f.writable("add"); err != nil {
		return err
	}
	if f.words == nil {
		return f.cAddHash(f.hash.hash(key))
	}
	f.addHash(f.hash.hash(key))
	runtime.KeepAlive(f)
	return nil
}

// AddString inserts one string key (the same key as Add([]byte(s))).
func (f *Filter) AddString(key string) error { return f.Add(stringBytes(key)) }

// ContainsUint64 reports whether key may be present (false: certainly
// absent; false for a closed filter).
func (f *Filter) ContainsUint64(key uint64) bool {
	if f.words == nil {
		return f.c != nil && bool(C.bloomsimd_contains_u64(f.c, C.uint64_t(key)))
	}
	hit := f.containsHash(f.hash.hashU64(key))
	runtime.KeepAlive(f)
	return hit
}

// Contains reports whether a byte key may be present.
func (f *Filter) Contains(key []byte) bool {
	if f.words == nil {
		return f.c != nil && f.cContainsHash(f.hash.hash(key))
	}
	hit := f.containsHash(f.hash.hash(key))
	runtime.KeepAlive(f)
	return hit
}

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
func (f *Filter) InsertNewUint64(key uint64) (bool, error) {
	return f.insertNewHash(f.hashU64OrZero(key))
}

// InsertNew is InsertNewUint64 for a byte key.
func (f *Filter) InsertNew(key []byte) (bool, error) { return f.insertNewHash(f.Hash(key)) }

// InsertNewString is InsertNewUint64 for a string key.
func (f *Filter) InsertNewString(key string) (bool, error) { return f.InsertNew(stringBytes(key)) }

func (f *Filter) hashU64OrZero(key uint64) uint64 {
	if f.hash == nil {
		return 0
	}
	return f.hash.hashU64(key)
}

func (f *Filter) insertNewHash(h uint64) (bool, error) {
	if err := f.writable("insert new"); err != nil {
		return false, err
	}
	if f.words == nil {
		return f.cInsertNewHash(h)
	}
	isNew := f.addNewHash(h)
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

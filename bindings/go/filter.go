// Package bloomsimd is the Go package of libbloomsimd: cache-line-blocked
// Bloom filters whose batch calls run the library's SIMD kernels through one
// cgo call per batch, and whose single-key calls run in pure Go over the same
// memory.
//
// # Cost of crossing into C
//
// A cgo call costs tens of nanoseconds, as much as a whole single-key probe.
// So batch calls (AddUint64s, ContainsUint64s, AddStrings, ...) make one cgo
// call per batch, never copy the keys, and allocate nothing per key; string
// and []byte batches are hashed in Go into a pooled buffer of hashes and
// handed to the library's hash entry points in one call. Single-key calls
// (Add, Contains, AddUint64, ContainsUint64, AddString, ContainsString) make
// no cgo call: the package implements XXH3, the mum hash of 64-bit keys and
// the block layouts of kernels/layout.h in Go and probes the filter's bit
// array, which it sees as a Go slice over the C memory, with the hash and
// salt constants the library gives (bloomsimd_get_probe). Tests prove both
// paths byte-identical to the C kernels.
//
// # Goroutines
//
// The rules are the C library's (docs/CONCURRENCY.md), and the package adds
// no lock of its own:
//
//   - Without Concurrent: one writer or many readers. Any number of
//     goroutines may call the read-only methods (Contains*, Select*, Hash,
//     Info, EstimateCount, FillRatio, PredictedFPR, Save, MarshalBinary, and
//     Union/Intersect as the source) at once; a writing method (Add*,
//     InsertNew*, Rotate, Clear, Union/Intersect as the destination, Sync)
//     must not run at the same time as any other call on the filter.
//     Switching between the two needs the caller's own synchronisation.
//   - With Concurrent: any mix of inserts and lookups from any number of
//     goroutines and C threads. Single-key inserts in Go use 64-bit atomic
//     compare-and-swap ORs on the same words the C kernels OR with atomic
//     instructions, and lookups use 64-bit atomic loads, so Go and C writers
//     can mix. A window's Rotate may run alongside them too (the library
//     serialises rotations). All of these are relaxed: the filter is not a
//     synchronisation primitive, and a lookup is guaranteed to see an insert
//     only if the insert happens before it by the caller's own
//     synchronisation.
//   - Always exclusive, even with Concurrent: Close, Clear, Sync, and
//     UnmarshalBinary.
//
// The race detector does not see the filter's bits (it only instruments Go
// memory, and the bits are C memory); it does see this package's own state.
//
// # Errors
//
// Failing calls return an *Error that wraps one of the library's status
// codes: errors.Is(err, bloomsimd.ErrCorrupt), errors.Is(err,
// bloomsimd.ErrReadOnly), and for file errors errors.Is(err, fs.ErrNotExist).
package bloomsimd

/*
#include <stdlib.h>
#include <bloomsimd.h>
*/
import "C"

import (
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/libbloomsimd/libbloomsimd/bindings/go/internal/probe"
)

// Filter is a Bloom filter held by the C library. Close it when done; a
// finalizer closes a Filter that is garbage collected unclosed, but only as a
// safety net: the C memory (which can be gigabytes, or a file mapping) is
// invisible to the Go garbage collector, which therefore sees no reason to
// hurry, and a finalizer runs at an unknown time or not at all.
type Filter struct {
	// The single-key probes chosen for this filter (single.go). First, so
	// that the State the probe package hands back to its fallbacks is the
	// Filter's address (filterOf).
	probe probe.State

	c *C.bloomsimd_filter

	// The pure-Go single-key path (single.go); words is nil when the filter
	// has no single bit array this package can probe (then single keys go
	// through the C calls).
	words      []uint32 // nblocks * 16 words (split256: * 8), over C memory
	split      bool     // layout 3, split256 (single.go's split256 probe)
	nblocks    uint64
	sel        *[64]uint16 // SELECT_k of kernels/layout.h section 3 (static C memory)
	concurrent bool
	readOnly   bool
	items      *uint64     // the C filter's count of keys inserted new (bloomsimd_info.items)
	hash       *xxh3Secret // byte keys (XXH3 whatever the 64-bit keys' hash)
	// cHashU64: 64-bit keys of a filter without a probe whose hash is not
	// XXH3 (a layered mum filter, a Parquet filter) are hashed by the library
	cHashU64 bool
}

type config struct {
	opts   C.bloomsimd_options
	kernel string
	err    error
}

// An Option changes how New builds a filter.
type Option func(*config)

// WithSeed sets the hash seed (default 0). Filters combine with Union only
// if their seeds match; a seed also changes every key's bits, which keeps
// colliding keys of one filter from colliding in another.
func WithSeed(seed uint64) Option { return func(c *config) { c.opts.seed = C.uint64_t(seed) } }

// WithKernel forces a kernel by name ("scalar", "sse42", "avx2", "avx512",
// "neon"); the default is the best this CPU runs. New fails with
// ErrKernelUnavailable if the CPU cannot run it.
func WithKernel(name string) Option { return func(c *config) { c.kernel = name } }

// Concurrent lets any number of goroutines (and C threads) insert and look up
// at once, with lock-free atomic ORs (see the package's "Goroutines"). It
// costs insert speed; with a single writer, do not set it.
func Concurrent() Option { return func(c *config) { c.opts.flags |= C.BLOOMSIMD_CONCURRENT } }

// WithoutHugePages never asks the kernel for transparent huge pages.
func WithoutHugePages() Option { return func(c *config) { c.opts.flags |= C.BLOOMSIMD_NO_HUGEPAGES } }

// WithK forces the number of bits set per key (1..16); the default is the k
// that needs the fewest bits for capacity at fpr.
func WithK(k int) Option {
	return func(c *config) {
		if k < 1 || k > C.BLOOMSIMD_MAX_K {
			c.err = argErr("new", "k must be in 1..16")
			return
		}
		c.opts.k = C.uint32_t(k)
	}
}

// The block layouts (kernels/layout.h, kernels/layout_split256.h): 512-bit
// blocks (the library's default, fewer bits per key) or 256-bit split blocks
// (Parquet's layout: faster on most kernels, 6-19% more bits per key).
const (
	LayoutBlock512 = 2
	LayoutSplit256 = 3
)

// WithLayout chooses the block layout (LayoutBlock512 or LayoutSplit256);
// the default is the kernel's. Both probe single keys in pure Go.
func WithLayout(layout int) Option {
	return func(c *config) {
		if layout != LayoutBlock512 && layout != LayoutSplit256 {
			c.err = argErr("new", "layout must be LayoutBlock512 (2) or LayoutSplit256 (3)")
			return
		}
		c.opts.layout = C.uint32_t(layout)
	}
}

// U64Hash names how 64-bit keys are hashed (include/bloomsimd.h,
// BLOOMSIMD_U64_XXH3 and BLOOMSIMD_U64_MUM). Byte and string keys are XXH3
// with either.
type U64Hash int

const (
	// HashXXH3 is XXH3_64bits_withSeed of the key's 8 little-endian bytes:
	// a 64-bit key and the same 8 bytes as a byte key are the same key. The
	// default.
	HashXXH3 U64Hash = 1
	// HashMum is one 64x64 -> 128-bit multiply of two seeded words of the key
	// and one 64-bit multiply (kernels/layout.h section 1): a shorter hash
	// with the same FPR on sequential, strided and structured ids. A 64-bit
	// key is then not the same key as its 8 bytes.
	HashMum U64Hash = 3
)

// WithU64Hash chooses how 64-bit keys are hashed (HashXXH3 or HashMum).
// Both probe single keys in pure Go.
func WithU64Hash(h U64Hash) Option {
	return func(c *config) {
		c.opts.flags &^= C.BLOOMSIMD_U64_XXH3 | C.BLOOMSIMD_U64_MUM
		switch h {
		case HashXXH3:
			c.opts.flags |= C.BLOOMSIMD_U64_XXH3
		case HashMum:
			c.opts.flags |= C.BLOOMSIMD_U64_MUM
		default:
			c.err = argErr("new", "the 64-bit key hash must be HashXXH3 (1) or HashMum (3)")
		}
	}
}

// WithBits forces the filter's size in bits (rounded up to whole 512-bit
// blocks) instead of sizing it from capacity and fpr.
func WithBits(bits uint64) Option { return func(c *config) { c.opts.bits = C.uint64_t(bits) } }

// New creates an empty filter sized for capacity keys at false-positive rate
// fpr (for example 1e7 keys at 0.01). The errors wrap ErrInvalidArgument
// (capacity 0 without WithBits, fpr outside [1e-10, 1) or NaN, a bad
// option), ErrTooLarge, ErrNoMemory or ErrKernelUnavailable.
func New(capacity uint64, fpr float64, opts ...Option) (*Filter, error) {
	var cfg config
	cfg.opts.capacity = C.uint64_t(capacity)
	if fpr == 0 || math.IsNaN(fpr) { // options.fpr 0 would mean "default" in C: here it is a mistake
		return nil, argErr("new", "fpr must be in [1e-10, 1)")
	}
	cfg.opts.fpr = C.double(fpr)
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if cfg.kernel != "" {
		name := C.CString(cfg.kernel)
		defer C.free(unsafe.Pointer(name))
		cfg.opts.kernel = name
	}
	var f *C.bloomsimd_filter
	defer pinThread()()
	if err := detailErr(C.bloomsimd_create_with(&f, &cfg.opts), "new", "", nil); err != nil {
		return nil, err
	}
	return wrap(f), nil
}

// wrap takes ownership of a C filter.
func wrap(c *C.bloomsimd_filter) *Filter {
	f := &Filter{c: c}
	f.attachView()
	runtime.SetFinalizer(f, finalize)
	return f
}

// finalized counts filters closed by the garbage collector (finalizer_test.go).
var finalized atomic.Int64

// finalize is the safety net for a Filter dropped without Close.
func finalize(f *Filter) {
	finalized.Add(1)
	f.Close()
}

// attachView exposes the bit array to the pure-Go single-key path, with the
// hash and salt constants the library gives (bloomsimd_get_probe).
func (f *Filter) attachView() {
	var v C.bloomsimd_view
	var pc C.bloomsimd_probe_constants
	known := func(h C.uint32_t) bool { return h == C.BLOOMSIMD_U64_XXH3 || h == C.BLOOMSIMD_U64_MUM }
	if C.bloomsimd_get_probe(f.c, &v, &pc) != C.BLOOMSIMD_OK || (v.layout != 2 && v.layout != 3) ||
		v.blocks == nil || !known(pc.hash) {
		// no single bit array (layered and Parquet filters), or a layout or
		// hash this package does not implement: single keys go through the
		// C calls, and so do 64-bit keys' hashes unless they are XXH3.
		var ci C.bloomsimd_info
		C.bloomsimd_get_info(f.c, &ci)
		f.hash = newXXH3Secret(uint64(ci.seed))
		f.cHashU64 = ci.flags&C.BLOOMSIMD_U64_XXH3 == 0
		return
	}
	f.nblocks = uint64(v.nblocks)
	f.split = v.layout == 3
	wordsPerBlock := uint64(16)
	if f.split {
		wordsPerBlock = 8
	}
	f.words = unsafe.Slice((*uint32)(v.blocks), f.nblocks*wordsPerBlock)
	f.sel = (*[64]uint16)(unsafe.Pointer(v._select))
	f.concurrent = bool(v.concurrent)
	f.readOnly = bool(v.read_only)
	f.items = (*uint64)(unsafe.Pointer(v.items))
	f.hash = newXXH3Secret(uint64(v.seed))
	c := probe.Constants{Hash: probe.XXH3, Bitflip: uint64(pc.xxh3_bitflip)}
	if pc.hash == C.BLOOMSIMD_U64_MUM {
		c.Hash, c.MumA, c.MumB = probe.Mum, uint64(pc.mum_a), uint64(pc.mum_b)
	}
	for w := range c.Salts {
		c.Salts[w] = uint32(pc.salts[w])
	}
	f.chooseProbe(c)
}

// Close frees the filter (or unmaps its file; a writable mapping is not
// synced: call Sync first). Close is exclusive: no other call on the filter
// may run at the same time, even with Concurrent. Closing twice is a no-op.
// Every later call returns ErrClosed, or false / 0 where it returns no error.
func (f *Filter) Close() error {
	if f.c == nil {
		return nil
	}
	C.bloomsimd_destroy(f.c)
	*f = Filter{}
	runtime.SetFinalizer(f, nil)
	return nil
}

// Clear removes every key. It is exclusive, even with Concurrent. A
// read-only mapped filter returns ErrReadOnly.
func (f *Filter) Clear() error {
	if f.c == nil {
		return ErrClosed
	}
	if f.readOnly {
		return statusErr(C.BLOOMSIMD_ERR_READ_ONLY, "clear", "", nil)
	}
	C.bloomsimd_clear(f.c)
	runtime.KeepAlive(f)
	return nil
}

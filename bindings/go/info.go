package bloomsimd

/*
#include <bloomsimd.h>
*/
import "C"

import (
	"math"
	"runtime"
	"time"
)

// Info describes a filter (bloomsimd_get_info).
type Info struct {
	Capacity    uint64  // as requested (0 if sized by WithBits)
	FPR         float64 // target FPR: requested, or the model's FPR at capacity
	Bits        uint64  // Blocks * 512 (block512) or Blocks * 256 (split256)
	Blocks      uint64  // 64-byte (block512) or 32-byte (split256) blocks
	Layout      int     // LayoutBlock512 or LayoutSplit256
	K           int     // bits set per key
	Seed        uint64
	MemoryBytes uint64 // bytes of the bit array
	Kernel      string // the kernel this filter runs ("avx512", ...)
	Concurrent  bool
	ReadOnly    bool    // a read-only mapping
	PureGo      bool    // single-key calls run in Go over the bit array (no cgo call per key)
	U64Hash     U64Hash // how 64-bit keys are hashed: HashXXH3 or HashMum (0 for a Parquet filter)

	Growth     int     // WithGrowth's factor (0: fixed size)
	Tightening float64 // r of a scalable filter's geometric schedule (0: the budget schedule, or not scalable)
	Layers     int     // 1; the layers of a scalable filter; the generations of a window
	Items      uint64  // keys counted new by InsertNew* (plus every key added to a layered filter)
	// Load is the share of its capacity the filter has taken, from its
	// counters (bloomsimd_info.load): Items / Capacity, over the first
	// layer's capacity for a scalable filter (past 1 once it grew), the
	// fullest live generation's for a window; 0 without a capacity. A plain
	// filter filled by Add* (which does not count) reads 0 here: FillInfo's
	// Load measures it from the bits.
	Load float64

	// Windows only (zero otherwise).
	Generations    int
	Rotations      uint64    // Rotate calls over the filter's life
	CurrentItems   uint64    // keys new to the current generation
	CurrentStarted time.Time // when the current generation started
	OldestStarted  time.Time // when the oldest live generation started
}

func u64HashOf(flags C.uint32_t) U64Hash {
	switch {
	case flags&C.BLOOMSIMD_U64_MUM != 0:
		return HashMum
	case flags&C.BLOOMSIMD_U64_XXH3 != 0:
		return HashXXH3
	}
	return 0
}

func unixNano(ns C.int64_t) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(ns))
}

// Info describes the filter (the zero Info for a closed filter).
func (f *Filter) Info() Info {
	if f.c == nil {
		return Info{}
	}
	var ci C.bloomsimd_info
	C.bloomsimd_get_info(f.c, &ci)
	runtime.KeepAlive(f)
	return Info{
		Capacity:    uint64(ci.capacity),
		FPR:         float64(ci.fpr),
		Bits:        uint64(ci.bits),
		Blocks:      uint64(ci.blocks),
		Layout:      int(ci.layout),
		K:           int(ci.k),
		Seed:        uint64(ci.seed),
		MemoryBytes: uint64(ci.memory_bytes),
		Kernel:      C.GoString(ci.kernel),
		Concurrent:  ci.flags&C.BLOOMSIMD_CONCURRENT != 0,
		ReadOnly:    f.readOnly,
		PureGo:      f.words != nil,
		U64Hash:     u64HashOf(ci.flags),

		Growth:         int(ci.growth),
		Tightening:     float64(ci.tightening),
		Layers:         int(ci.layers),
		Items:          uint64(ci.items),
		Load:           float64(ci.load),
		Generations:    int(ci.generations),
		Rotations:      uint64(ci.rotations),
		CurrentItems:   uint64(ci.current_items),
		CurrentStarted: unixNano(ci.current_started_ns),
		OldestStarted:  unixNano(ci.oldest_started_ns),
	}
}

// FillInfo is how full a filter is, measured from its bits
// (bloomsimd_get_fill_info): it sees every key, however it was inserted.
type FillInfo struct {
	FillRatio      float64 // bits set / bits, over all layers
	EstimatedItems float64 // distinct keys, estimated from the bits (always finite)
	FPRNow         float64 // the FPR a lookup of an absent key has now: the model at the estimate
	Saturated      bool    // so few bits are clear that EstimatedItems is only a bound
	// Load is Info's Load, except for a plain filter that counted no keys
	// (filled by Add*): there EstimatedItems / Capacity.
	Load float64
}

// FillInfo reads every bit of the filter once (about 1 ms per 16 MiB), so
// call it every so many batches or seconds, not per key. It is a read-only
// method (see Goroutines). ErrClosed for a closed filter.
func (f *Filter) FillInfo() (FillInfo, error) {
	if f.c == nil {
		return FillInfo{}, ErrClosed
	}
	var cf C.bloomsimd_fill_info
	C.bloomsimd_get_fill_info(f.c, &cf)
	runtime.KeepAlive(f)
	return FillInfo{
		FillRatio:      float64(cf.fill_ratio),
		EstimatedItems: float64(cf.estimated_items),
		FPRNow:         float64(cf.fpr_now),
		Saturated:      bool(cf.saturated),
		Load:           float64(cf.load),
	}, nil
}

// PredictedFPR is the layout's exact FPR model for this filter's geometry
// after items distinct keys (NaN for a closed filter).
func (f *Filter) PredictedFPR(items uint64) float64 {
	if f.c == nil {
		return math.NaN()
	}
	p := float64(C.bloomsimd_predicted_fpr(f.c, C.uint64_t(items)))
	runtime.KeepAlive(f)
	return p
}

// EstimateCount estimates the number of distinct keys inserted, from the
// fraction of bits set (docs/ESTIMATES.md): 0 for an empty filter, NaN for a
// closed one. It is always finite: a layer with every bit set contributes the
// library's documented bound (bloomsimd_estimate_count in bloomsimd.h), which
// is a floor, not an estimate.
func (f *Filter) EstimateCount() float64 {
	if f.c == nil {
		return math.NaN()
	}
	n := float64(C.bloomsimd_estimate_count(f.c))
	runtime.KeepAlive(f)
	return n
}

// FillRatio is the fraction of bits set, in [0, 1] (NaN for a closed filter).
func (f *Filter) FillRatio() float64 {
	if f.c == nil {
		return math.NaN()
	}
	r := float64(C.bloomsimd_fill_ratio(f.c))
	runtime.KeepAlive(f)
	return r
}

// Union sets f |= src. Both need the same geometry and seed (else an error
// wrapping ErrIncompatible, f untouched); ErrReadOnly for a read-only f.
func (f *Filter) Union(src *Filter) error { return f.setop("union", src) }

// Intersect sets f &= src, with Union's rules.
func (f *Filter) Intersect(src *Filter) error { return f.setop("intersect", src) }

func (f *Filter) setop(op string, src *Filter) error {
	if f.c == nil || src == nil || src.c == nil {
		return ErrClosed
	}
	var st C.bloomsimd_status
	defer pinThread()()
	if op == "union" {
		st = C.bloomsimd_union(f.c, src.c)
	} else {
		st = C.bloomsimd_intersect(f.c, src.c)
	}
	runtime.KeepAlive(f)
	runtime.KeepAlive(src)
	return detailErr(st, op, "", nil)
}

// Version is the loaded library's version, "MAJOR.MINOR.PATCH".
func Version() string { return C.GoString(C.bloomsimd_version_string()) }

// Kernels lists the kernels compiled in, best first (including ones this CPU
// cannot run: see KernelSupported).
func Kernels() []string {
	n := int(C.bloomsimd_kernel_count())
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		names = append(names, C.GoString(C.bloomsimd_kernel_name(C.size_t(i))))
	}
	return names
}

// KernelSupported reports whether this CPU runs the named kernel natively.
func KernelSupported(name string) bool {
	for i := 0; i < int(C.bloomsimd_kernel_count()); i++ {
		c := C.bloomsimd_kernel_name(C.size_t(i))
		if C.GoString(c) == name {
			return bool(C.bloomsimd_kernel_supported(c)) && !bool(C.bloomsimd_kernel_emulated(c))
		}
	}
	return false
}

// DefaultKernel is the kernel New uses without WithKernel ("" if the
// BLOOMSIMD_KERNEL environment variable names one this CPU cannot run).
func DefaultKernel() string {
	c := C.bloomsimd_default_kernel()
	if c == nil {
		return ""
	}
	return C.GoString(c)
}

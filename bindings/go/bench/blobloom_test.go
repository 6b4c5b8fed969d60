package bench

import (
	"runtime"
	"testing"
	"unsafe"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"
	"github.com/libbloomsimd/libbloomsimd/bindings/go/internal/probe"

	"github.com/greatroar/blobloom"
)

// Single keys against greatroar/blobloom, the fastest blocked Bloom filter in
// Go (512-bit blocks like ours, k-1 bits by double hashing in one block). It
// takes a 64-bit hash, not a key: its users hash first. Its rows hand it
// the random 64-bit key itself as that hash, so blobloom does no hashing at
// all, while ours hash every key with XXH3 (AddUint64, ContainsUint64) as a
// user's call does. Both filters are sized for n keys at 1%: ours by New(n,
// 0.01) (each layout), blobloom by NewOptimized{Capacity: n, FPRate: 0.01};
// BenchmarkFPRBlobloom reports what that costs each in bits/key and the FPR
// each measures. Adds go into fresh filters; lookups query filters holding
// the n keys with present keys only or absent keys only (a lookup of an
// absent key may stop at its first clear bit; a present key's reads them
// all).
//
// The absent-key lookups have a third contender of ours, floor-hash-and-load:
// not a filter, but what any lookup made one call at a time must at least
// do, one call, the XXH3 of the key, its block in an array of our block512
// filter's size, and one 32-bit load from it (internal/probe FloorU64). Once
// the array is out of cache that load is the cache miss every contender
// pays, and the floor's ratio to blobloom is the most any single-key lookup
// could gain on it on this machine.

const (
	oursBlock512 = "bloomsimd-block512"
	oursSplit256 = "bloomsimd-split256"
	oursFloor    = "floor-hash-and-load"
	peerBlobloom = "blobloom-given-hash"
)

// floor is FloorU64 over Go memory of the block512 filter's size (its words
// nonzero, so that every page is really there).
func floor(name string) contender {
	return contender{name, func(fx *fixture) func(lo, hi int) {
		fx.singleFilters()
		nblocks := fx.block512.Info().Blocks
		words := make([]uint64, nblocks*8+8)
		for i := range words {
			words[i] = uint64(i)*0x9E3779B97F4A7C15 | 1
		}
		base := unsafe.Pointer(&words[(8-int(uintptr(unsafe.Pointer(&words[0]))/8%8))%8])
		sel := new([64]uint16) // FloorU64 reads no selection row
		p := probe.New(probe.Filter{Blocks: base, Nblocks: nblocks, Select: sel}, probe.Constants{Bitflip: 0x243F6A8885A308D3})
		return func(lo, hi int) {
			for _, k := range fx.absent[lo:hi] {
				if probe.FloorU64(&p, k) {
					sinkInt++
				}
			}
			runtime.KeepAlive(words)
		}
	}}
}

func (fx *fixture) singleFilters() {
	fx.singleOnce.Do(func() {
		fx.block512 = newLayout(fx.n, bloomsimd.LayoutBlock512)
		fx.split256 = newLayout(fx.n, bloomsimd.LayoutSplit256)
		fx.block512.AddUint64s(fx.keys)
		fx.split256.AddUint64s(fx.keys)
		fx.blob = freshBlob(fx)
		for _, k := range fx.keys {
			fx.blob.Add(k)
		}
	})
}

func newLayout(n, layout int) *bloomsimd.Filter {
	f, err := bloomsimd.New(uint64(n), targetFPR, bloomsimd.WithLayout(layout))
	if err != nil {
		panic(err)
	}
	return f
}

func freshBlob(fx *fixture) *blobloom.Filter {
	return blobloom.NewOptimized(blobloom.Config{Capacity: uint64(fx.n), FPRate: targetFPR})
}

// singleAdd, singleContains are one of our single-key loops over a layout.
func singleAdd(name string, layout int) contender {
	return contender{name, func(fx *fixture) func(lo, hi int) {
		f := newLayout(fx.n, layout)
		return func(lo, hi int) {
			for _, k := range fx.keys[lo:hi] {
				f.AddUint64(k)
			}
		}
	}}
}

func singleContains(name string, present bool, filter func(fx *fixture) *bloomsimd.Filter) contender {
	return contender{name, func(fx *fixture) func(lo, hi int) {
		fx.singleFilters()
		f, qs := filter(fx), fx.absent
		if present {
			qs = fx.keys
		}
		return func(lo, hi int) {
			for _, k := range qs[lo:hi] {
				if f.ContainsUint64(k) {
					sinkInt++
				}
			}
		}
	}}
}

func blobContains(present bool) contender {
	return contender{peerBlobloom, func(fx *fixture) func(lo, hi int) {
		fx.singleFilters()
		qs := fx.absent
		if present {
			qs = fx.keys
		}
		return func(lo, hi int) {
			for _, h := range qs[lo:hi] {
				if fx.blob.Has(h) {
					sinkInt++
				}
			}
		}
	}}
}

func block512Of(fx *fixture) *bloomsimd.Filter { return fx.block512 }
func split256Of(fx *fixture) *bloomsimd.Filter { return fx.split256 }

var blobloomOps = []operation{
	{name: "SingleAddUint64",
		ours: []contender{
			singleAdd(oursBlock512, bloomsimd.LayoutBlock512),
			singleAdd(oursSplit256, bloomsimd.LayoutSplit256),
		},
		peer: contender{peerBlobloom, func(fx *fixture) func(lo, hi int) {
			f := freshBlob(fx)
			return func(lo, hi int) {
				for _, h := range fx.keys[lo:hi] {
					f.Add(h)
				}
			}
		}},
	},
	{name: "SingleContainsAbsent",
		ours: []contender{
			singleContains(oursBlock512, false, block512Of),
			singleContains(oursSplit256, false, split256Of),
			floor(oursFloor),
		},
		peer: blobContains(false),
	},
	{name: "SingleContainsPresent",
		ours: []contender{
			singleContains(oursBlock512, true, block512Of),
			singleContains(oursSplit256, true, split256Of),
		},
		peer: blobContains(true),
	},
}

// BenchmarkBlobloom: ns/op per key of each contender, one after the other
// (BenchmarkPairedBlobloom gives the ratios).
func BenchmarkBlobloom(b *testing.B) {
	for _, op := range blobloomOps {
		b.Run(op.name, func(b *testing.B) { benchOperationOf(b, blobloomOps, op.name) })
	}
}

// BenchmarkPairedBlobloom is BenchmarkPaired's paired rounds with blobloom
// as the peer: x = blobloom's time / ours, per round.
func BenchmarkPairedBlobloom(b *testing.B) { benchPaired(b, blobloomOps) }

// BenchmarkFPRBlobloom reports bits/key, k and the FPR measured on fprProbes
// absent keys for each layout of ours and for blobloom, all sized for n keys
// at 1%, and which layout New chooses here (default-layout = 2 for block512,
// 3 for split256: the one whose geometry New(n, 0.01) matches). Its ns/op is
// meaningless.
func BenchmarkFPRBlobloom(b *testing.B) {
	for _, n := range sizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			fx := getFixture(n)
			fx.singleFilters()
			probes := fx.absent[:fprProbes]
			for _, c := range []struct {
				name string
				f    *bloomsimd.Filter
			}{{oursBlock512, fx.block512}, {oursSplit256, fx.split256}} {
				info := c.f.Info()
				b.Run(c.name, func(b *testing.B) {
					b.ReportMetric(float64(info.Bits)/float64(n), "bits/key")
					b.ReportMetric(100*float64(c.f.ContainsUint64s(probes, nil))/fprProbes, "fpr%")
					b.ReportMetric(float64(info.K), "k")
				})
			}
			b.Run(peerBlobloom, func(b *testing.B) {
				fp := 0
				for _, h := range probes {
					if fx.blob.Has(h) {
						fp++
					}
				}
				_, k := blobloom.Optimize(blobloom.Config{Capacity: uint64(n), FPRate: targetFPR})
				b.ReportMetric(float64(fx.blob.NumBits())/float64(n), "bits/key")
				b.ReportMetric(100*float64(fp)/fprProbes, "fpr%")
				b.ReportMetric(float64(k-1), "k") // its first of k hashes picks the block: k-1 bits per key
			})
			b.Run("default-layout", func(b *testing.B) {
				b.ReportMetric(float64(defaultLayout(fx)), "layout")
			})
		})
	}
}

// defaultLayout is the layout New(n, 0.01) chooses on this CPU (and under
// BLOOMSIMD_KERNEL): the one whose bits and k it reproduces.
func defaultLayout(fx *fixture) int {
	d := fx.oursU64.Info()
	for _, c := range []struct {
		layout int
		f      *bloomsimd.Filter
	}{{bloomsimd.LayoutBlock512, fx.block512}, {bloomsimd.LayoutSplit256, fx.split256}} {
		if i := c.f.Info(); i.Bits == d.Bits && i.K == d.K {
			return c.layout
		}
	}
	return 0
}

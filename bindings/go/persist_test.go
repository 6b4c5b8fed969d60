package bloomsimd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSaveLoadRoundTripKeepsBytesAndSeed(t *testing.T) {
	for _, conc := range []bool{false, true} {
		opts := []Option{WithSeed(99)}
		if conc {
			opts = append(opts, Concurrent())
		}
		f := mustNew(t, 5000, 0.001, opts...)
		for _, x := range keys(2, 5000) {
			f.AddUint64(x) // written by Go
		}
		path := filepath.Join(t.TempDir(), "f.bsf")
		if err := f.Save(path); err != nil {
			t.Fatal(err)
		}
		g, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		sameBits(t, "load", f, g)
		if gi, fi := g.Info(), f.Info(); gi.Seed != 99 || gi.K != fi.K || gi.Blocks != fi.Blocks || gi.Concurrent != conc {
			t.Fatalf("loaded info %+v, saved %+v", gi, fi)
		}
		if g.ContainsUint64s(keys(2, 5000), nil) != 5000 {
			t.Fatal("loaded filter lost keys")
		}
	}
}

func TestMarshalUnmarshalBinary(t *testing.T) {
	f := mustNew(t, 2000, 0.01, WithSeed(3))
	f.AddStrings([]string{"a", "bb", "ccc"})
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sameBits(t, "unmarshal", f, g)
	// UnmarshalBinary replaces an open filter, and fills a zero one.
	h := mustNew(t, 10, 0.5)
	if err := h.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "UnmarshalBinary", f, h)
	var z Filter
	if err := z.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if !z.ContainsString("ccc") || !z.Info().PureGo {
		t.Fatal("UnmarshalBinary into a zero Filter")
	}
	// a failed UnmarshalBinary leaves the filter as it was
	if err := h.UnmarshalBinary(data[:50]); !errors.Is(err, ErrCorrupt) {
		t.Fatal(err)
	}
	if !h.ContainsString("bb") {
		t.Fatal("failed UnmarshalBinary changed the filter")
	}
}

func TestWritableMappingPersistsGoInsertsAfterSync(t *testing.T) {
	f := mustNew(t, 10000, 0.01, WithSeed(8))
	path := filepath.Join(t.TempDir(), "w.bsf")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	m, err := Map(path, Writable)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info().ReadOnly || !m.Info().PureGo {
		t.Fatalf("writable mapping info %+v", m.Info())
	}
	ks := keys(4, 10000)
	for _, x := range ks[:5000] {
		if err := m.AddUint64(x); err != nil { // Go writes into the file's pages
			t.Fatal(err)
		}
	}
	if err := m.AddUint64s(ks[5000:]); err != nil {
		t.Fatal(err)
	}
	// a second writable mapping of the same file is refused
	if m2, err := Map(path, Writable); err == nil || !errors.Is(err, ErrIO) {
		if m2 != nil {
			m2.Close()
		}
		t.Fatalf("second writable mapping: %v", err)
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	ref := mustNew(t, 10000, 0.01, WithSeed(8))
	ref.AddUint64s(ks)
	sameBits(t, "writable mapping", m, ref)
	m.Close()
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sameBits(t, "reloaded mapping", g, ref)
}

func TestUnsyncedWritableMappingNeedsAcceptUnsynced(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	path := filepath.Join(t.TempDir(), "u.bsf")
	f.Save(path)
	m, err := Map(path, Writable)
	if err != nil {
		t.Fatal(err)
	}
	m.AddUint64(12345)
	m.Close() // not synced
	if _, err := Map(path, ReadOnly); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unsynced file mapped: %v", err)
	}
	r, err := Map(path, ReadOnly|AcceptUnsynced)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.ContainsUint64(12345) {
		t.Fatal("insert into the unsynced mapping lost")
	}
}

func TestSaveIntoAMissingDirectoryIsErrIO(t *testing.T) {
	f := mustNew(t, 100, 0.01)
	err := f.Save(filepath.Join(t.TempDir(), "no", "such", "dir", "f.bsf"))
	if !errors.Is(err, ErrIO) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Errno == 0 || e.Path == "" {
		t.Fatalf("%#v", err)
	}
}

// In both layouts: a block is 512 bits (64 bytes) in block512, 256 bits (32
// bytes, k 8) in split256.
func TestUnionIntersectEstimateAndInfo(t *testing.T) {
	for _, layout := range []int{LayoutBlock512, LayoutSplit256} {
		unionIntersectEstimateAndInfo(t, layout)
	}
}

func unionIntersectEstimateAndInfo(t *testing.T, layout int) {
	blockBits := uint64(512)
	if layout == LayoutSplit256 {
		blockBits = 256
	}
	a := mustNew(t, 100000, 0.01, WithSeed(4), WithLayout(layout))
	b := mustNew(t, 100000, 0.01, WithSeed(4), WithLayout(layout))
	ka, kb := keys(20, 30000), keys(21, 30000)
	a.AddUint64s(ka)
	b.AddUint64s(kb)
	if err := a.Union(b); err != nil {
		t.Fatal(err)
	}
	if a.ContainsUint64s(ka, nil) != len(ka) || a.ContainsUint64s(kb, nil) != len(kb) {
		t.Fatal("union lost keys")
	}
	est := a.EstimateCount()
	if est < 57000 || est > 63000 {
		t.Fatalf("estimate %v for 60000 keys", est)
	}
	if r := a.FillRatio(); r <= 0 || r >= 1 {
		t.Fatalf("fill ratio %v", r)
	}
	c := mustNew(t, 100000, 0.01, WithSeed(4), WithLayout(layout))
	c.AddUint64s(ka)
	if err := c.Intersect(b); err != nil {
		t.Fatal(err)
	}
	if n := c.ContainsUint64s(ka, nil); n > len(ka)/10 {
		t.Fatalf("intersect of disjoint sets keeps %d keys", n)
	}
	info := a.Info()
	if info.Capacity != 100000 || info.FPR != 0.01 || info.Bits != info.Blocks*blockBits ||
		info.MemoryBytes != info.Blocks*blockBits/8 || info.K < 1 || info.K > 16 || (layout == LayoutSplit256 && info.K != 8) ||
		info.Seed != 4 || info.Kernel == "" || info.Concurrent || !info.PureGo {
		t.Fatalf("layout %d: info %+v", layout, info)
	}
	if p := a.PredictedFPR(100000); p <= 0 || p > 0.01 {
		t.Fatalf("predicted FPR %v at capacity", p)
	}
	if err := a.Clear(); err != nil || a.FillRatio() != 0 || a.EstimateCount() != 0 {
		t.Fatal("clear")
	}
}

func TestKernelsVersionAndOptions(t *testing.T) {
	if Version() == "" || len(Kernels()) == 0 || !KernelSupported("scalar") || KernelSupported("mmx") {
		t.Fatalf("version %q kernels %v", Version(), Kernels())
	}
	if d := DefaultKernel(); !KernelSupported(d) {
		t.Fatalf("default kernel %q", d)
	}
	for _, k := range supportedKernels() {
		f := mustNew(t, 100, 0.01, WithKernel(k), WithoutHugePages())
		if f.Info().Kernel != k {
			t.Fatalf("asked %s, got %s", k, f.Info().Kernel)
		}
	}
	f := mustNew(t, 0, 0.01, WithBits(10000), WithK(3))
	if i := f.Info(); i.Blocks != 20 || i.K != 3 || i.Capacity != 0 {
		t.Fatalf("WithBits/WithK: %+v", i)
	}
}

func TestNoFalseNegativesAcrossSizesAndPaths(t *testing.T) {
	for _, n := range []int{1, 100, 100000} {
		f := mustNew(t, uint64(n), 0.01)
		ks := keys(30, n)
		half := n / 2
		for _, x := range ks[:half] {
			f.AddUint64(x)
		}
		f.AddUint64s(ks[half:])
		out := make([]bool, n)
		if got := f.ContainsUint64s(ks, out); got != n {
			t.Fatalf("n=%d: batch finds %d", n, got)
		}
		for _, x := range ks {
			if !f.ContainsUint64(x) {
				t.Fatalf("n=%d: single-key false negative", n)
			}
		}
		// measured FPR near the target
		if n == 100000 {
			fp := f.ContainsUint64s(keys(31, 1000000), nil)
			if fp > 13000 {
				t.Fatalf("FPR %v at target 1%%", float64(fp)/1e6)
			}
		}
	}
}

func TestMapModesAreTheHeaderValues(t *testing.T) {
	if got := cMapModes(); got != [3]MapMode{ReadOnly, Writable, AcceptUnsynced} {
		t.Fatalf("header %v", got)
	}
}

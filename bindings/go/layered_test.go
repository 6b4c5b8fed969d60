package bloomsimd

import (
	"errors"
	"testing"
)

// Batch insert-and-report-new: in key order, a repeat within the batch is
// new only the first time, the bytes equal a plain batch insert, and the
// count matches out. Info().Items counts new keys from the C batches and
// from the pure-Go single-key path alike.
func TestInsertNewBatchesInOrderAndCountItems(t *testing.T) {
	for _, conc := range []bool{false, true} {
		var opts []Option
		if conc {
			opts = append(opts, Concurrent())
		}
		f := mustNew(t, 20000, 0.0001, opts...)
		ref := mustNew(t, 20000, 0.0001, opts...)
		ks := keys(40, 6000)
		batch := append(append([]uint64(nil), ks[:3000]...), ks[:1000]...) // 1000 repeats inside the batch
		out := make([]bool, len(batch))
		n, err := f.InsertNewUint64s(batch, out)
		if err != nil {
			t.Fatal(err)
		}
		newInOut := 0
		for i, isNew := range out {
			if isNew {
				newInOut++
			}
			if i >= 3000 && isNew {
				t.Fatalf("concurrent=%v: repeat %d reported new", conc, i)
			}
		}
		if n != newInOut || n < 2990 {
			t.Fatalf("concurrent=%v: count %d, out says %d", conc, n, newInOut)
		}
		single := 0
		for _, x := range ks[3000:] {
			if isNew, _ := f.InsertNewUint64(x); isNew {
				single++
			}
		}
		if got := f.Info().Items; got != uint64(n+single) {
			t.Fatalf("concurrent=%v: Items %d, want %d batch + %d single", conc, got, n, single)
		}
		ref.AddUint64s(ks)
		sameBits(t, "InsertNew vs Add", f, ref)
		// the string and []byte forms agree with the single-key calls
		strs := []string{"x", "y", "x", "z"}
		outS := make([]bool, 4)
		if c, err := f.InsertNewStrings(strs, outS); err != nil || c != 3 || !outS[0] || !outS[1] || outS[2] || !outS[3] {
			t.Fatalf("InsertNewStrings: %d %v %v", c, outS, err)
		}
		if c, _ := f.InsertNewBytes([][]byte{[]byte("x"), []byte("w")}, nil); c != 1 {
			t.Fatalf("InsertNewBytes: %d", c)
		}
	}
}

func TestSelectionVectorsMatchLookups(t *testing.T) {
	f := mustNew(t, 10000, 0.01, WithSeed(6))
	f.AddUint64s(keys(50, 10000))
	probe := append(keys(50, 3000), keys(51, 7000)...)
	out := make([]bool, len(probe))
	f.ContainsUint64s(probe, out)
	var want []uint32
	for i, hit := range out {
		if hit {
			want = append(want, uint32(i))
		}
	}
	prefix := []uint32{7, 8}
	got := f.SelectUint64s(append(make([]uint32, 0, 2+len(probe)), prefix...), probe)
	if len(got) != 2+len(want) || got[0] != 7 || got[1] != 8 {
		t.Fatalf("select appended %d, want %d", len(got)-2, len(want))
	}
	for i, w := range want {
		if got[2+i] != w {
			t.Fatalf("index %d: %d, want %d", i, got[2+i], w)
		}
	}
	hs := make([]uint64, len(probe))
	for i, x := range probe {
		hs[i] = f.HashUint64(x)
	}
	if g := f.SelectHashes(nil, hs); len(g) != len(want) {
		t.Fatalf("SelectHashes: %d, want %d", len(g), len(want))
	}
	strs := make([]string, 2500) // crosses a 1024-key chunk: indices must be global
	bs := make([][]byte, 2500)
	for i := range strs {
		strs[i] = name("s", i)
		bs[i] = []byte(strs[i])
		if i%3 == 0 {
			f.AddString(strs[i])
		}
	}
	selS, selB := f.SelectStrings(nil, strs), f.SelectBytes(nil, bs)
	outS := make([]bool, len(strs))
	if c := f.ContainsStrings(strs, outS); c != len(selS) || c != len(selB) {
		t.Fatalf("selected %d / %d, contains %d", len(selS), len(selB), c)
	}
	for i, idx := range selS {
		if !outS[idx] || selB[i] != idx {
			t.Fatalf("selection %d: index %d", i, idx)
		}
	}
	dst := make([]uint32, 0, len(probe))
	if a := testing.AllocsPerRun(20, func() { dst = f.SelectUint64s(dst[:0], probe) }); a != 0 {
		t.Fatalf("SelectUint64s allocates %v times with room in dst", a)
	}
}

func TestLayeredOptionsRejectBadArguments(t *testing.T) {
	for i, opts := range [][]Option{
		{WithGrowth(0)},
		{WithWindow(1)},
		{WithWindow(65)},
		{WithGrowth(2), WithWindow(4)},
		{WithTightening(0.5)},
		{WithGrowth(2), WithTightening(1)},
	} {
		if _, err := New(1000, 0.01, opts...); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("options %d: %v", i, err)
		}
	}
	f := mustNew(t, 100, 0.01)
	if err := f.Rotate(); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Rotate of a plain filter: %v", err)
	}
}

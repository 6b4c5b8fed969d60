package bloomsimd

import (
	"errors"
	"path/filepath"
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
func TestScalableFilterGrowsAndFallsBackToCForSingleKeys(t *testing.T) {
	f := mustNew(t, 1000, 0.01, WithGrowth(2), Concurrent())
	if f.Info().PureGo {
		t.Fatal("a scalable filter has no single bit array")
	}
	ks := keys(60, 20000)
	for _, x := range ks[:5000] {
		if err := f.AddUint64(x); err != nil {
			t.Fatal(err)
		}
	}
	fresh := 0
	for _, x := range ks[5000:10000] {
		if isNew, err := f.InsertNewUint64(x); err != nil {
			t.Fatal(err)
		} else if isNew {
			fresh++
		}
	}
	if _, err := f.InsertNewUint64s(ks[10000:], nil); err != nil {
		t.Fatal(err)
	}
	f.AddString("hello")
	info := f.Info()
	if info.Layers < 4 || info.Growth != 2 || info.Tightening != 0 || fresh < 4900 {
		t.Fatalf("info %+v, %d new", info, fresh)
	}
	for _, x := range ks {
		if !f.ContainsUint64(x) {
			t.Fatal("scalable filter: false negative")
		}
	}
	if f.ContainsUint64s(ks, nil) != len(ks) || !f.ContainsString("hello") {
		t.Fatal("scalable filter: batch false negative")
	}
	if p := f.ContainsUint64s(keys(61, 100000), nil); p > 1500 {
		t.Fatalf("scalable filter FPR %v%% over 1%% target", float64(p)/1000)
	}
}

// A window keeps a key for `generations` rotations after the one it was
// inserted in, then forgets it; Info reports the window's state.
func TestWindowForgetsAfterGenerationsRotations(t *testing.T) {
	for _, conc := range []bool{false, true} {
		opts := []Option{WithWindow(3)}
		if conc {
			opts = append(opts, Concurrent())
		}
		f := mustNew(t, 10000, 0.001, opts...)
		if f.Info().PureGo {
			t.Fatal("a window has no single bit array")
		}
		old := keys(70, 2000)
		if n, err := f.InsertNewUint64s(old, nil); err != nil || n < 1990 {
			t.Fatalf("first insert: %d new, %v", n, err)
		}
		f.AddString("old-string")
		for r := 1; r <= 2; r++ {
			if err := f.Rotate(); err != nil {
				t.Fatal(err)
			}
			if f.ContainsUint64s(old, nil) != len(old) || !f.ContainsString("old-string") {
				t.Fatalf("concurrent=%v: keys lost after %d rotations of a 3-generation window", conc, r)
			}
		}
		if isNew, _ := f.InsertNewUint64(old[0]); isNew {
			t.Fatal("a key still in the window reported new")
		}
		// old[0] was refreshed into the current generation; the rest expire
		if err := f.Rotate(); err != nil {
			t.Fatal(err)
		}
		if left := f.ContainsUint64s(old[1:], nil); left > 10 {
			t.Fatalf("concurrent=%v: %d of %d expired keys still found", conc, left, len(old)-1)
		}
		if !f.ContainsUint64(old[0]) {
			t.Fatal("the refreshed key expired early")
		}
		info := f.Info()
		if info.Generations != 3 || info.Layers != 3 || info.Rotations != 3 || info.CurrentStarted.IsZero() ||
			info.OldestStarted.After(info.CurrentStarted) {
			t.Fatalf("window info %+v", info)
		}
	}
}

// Goroutines insert into a concurrent window while another rotates it: no
// key inserted since the last rotation but one is ever missed. A window of 4
// generations keeps a key through the 3 rotations after its insert began; the
// count read before a batch may already include a rotation still in progress,
// so every batch begun when at most 2 rotations were still to come must be
// whole at the end, and the batch inserted after the last rotation always is.
func TestConcurrentWindowRotateWhileInserting(t *testing.T) {
	const generations, rotations = 4, 20
	f := mustNew(t, 100000, 0.001, WithWindow(generations), Concurrent())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < rotations; i++ {
			f.Rotate()
		}
	}()
	type batch struct {
		keys      []uint64
		rotBefore uint64
	}
	var batches []batch
	ks := keys(80, 50000)
	insert := func(b []uint64) {
		batches = append(batches, batch{b, f.Info().Rotations})
		f.InsertNewUint64s(b[:250], nil)
		for _, x := range b[250:] {
			f.AddUint64(x)
		}
	}
	for i := 0; i+500 <= len(ks)-500; i += 500 {
		insert(ks[i : i+500])
	}
	<-done
	insert(ks[len(ks)-500:])
	checked := 0
	for i, b := range batches {
		if b.rotBefore+generations-2 < rotations {
			continue // rotated out, legitimately
		}
		checked++
		if got := f.ContainsUint64s(b.keys, nil); got != len(b.keys) {
			t.Fatalf("batch %d (begun after %d rotations): %d of %d keys found", i, b.rotBefore, got, len(b.keys))
		}
	}
	t.Logf("%d of %d batches were begun within the window's last %d rotations", checked, len(batches), generations-2)
}

// Scalable filters and windows save, load and marshal like plain ones (the
// layered file format): the loaded filter answers the same, keeps its
// layers, and a window keeps its rotation count.
func TestLayeredFiltersSaveAndLoad(t *testing.T) {
	for _, opts := range [][]Option{{WithGrowth(2)}, {WithWindow(3)}} {
		f := mustNew(t, 1000, 0.01, opts...)
		ks := keys(90, 5000)
		f.InsertNewUint64s(ks, nil)
		if f.Info().Generations > 0 {
			f.Rotate()
		}
		path := filepath.Join(t.TempDir(), "layered.bsf")
		if err := f.Save(path); err != nil {
			t.Fatal(err)
		}
		data, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, open := range []func() (*Filter, error){
			func() (*Filter, error) { return Load(path) },
			func() (*Filter, error) { return Unmarshal(data) },
		} {
			g, err := open()
			if err != nil {
				t.Fatal(err)
			}
			fi, gi := f.Info(), g.Info()
			if gi.Layers != fi.Layers || gi.Rotations != fi.Rotations || gi.Items != fi.Items || gi.Bits != fi.Bits {
				t.Fatalf("loaded %+v, saved %+v", gi, fi)
			}
			if g.ContainsUint64s(ks, nil) != len(ks) {
				t.Fatal("loaded layered filter lost keys")
			}
			g.Close()
		}
	}
}

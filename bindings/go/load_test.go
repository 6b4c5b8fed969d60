package bloomsimd

import (
	"errors"
	"math"
	"testing"
)

// fillTo inserts-and-reports-new keys of stream until Info reports want
// counted keys (a distinct key can be a false positive, which is not
// counted), and returns the next unused key index.
func fillTo(t *testing.T, f *Filter, stream uint64, next int, want uint64) int {
	for {
		have := f.Info().Items
		if have == want {
			return next
		}
		if have > want {
			t.Fatalf("counted %d, past %d", have, want)
		}
		n := int(want - have)
		if _, err := f.InsertNewUint64s(keys(stream, next+n)[next:], nil); err != nil {
			t.Fatal(err)
		}
		next += n
	}
}

// Load is the library's field, reported as it is: exactly 0.79 and 0.81 of
// a plain filter's capacity, over the first layer of a grown one, and from
// the bits (FillInfo) for keys added without counting.
func TestLoadIsTheLibrarys(t *testing.T) {
	f := mustNew(t, 10000, 0.01)
	next := fillTo(t, f, 1, 0, 7900)
	if l := f.Info().Load; l != 0.79 {
		t.Fatalf("Load at 7900 of 10000: %v", l)
	}
	fillTo(t, f, 1, next, 8100)
	fi, err := f.FillInfo()
	if err != nil || f.Info().Load != 0.81 || fi.Load != 0.81 {
		t.Fatalf("Load at 8100 of 10000: %v, FillInfo %+v, %v", f.Info().Load, fi, err)
	}

	g := mustNew(t, 100000, 0.01)
	if err := g.AddUint64s(keys(2, 81000)); err != nil {
		t.Fatal(err)
	}
	gi, _ := g.FillInfo()
	if g.Info().Load != 0 || math.Abs(gi.Load-0.81) > 0.01 || gi.Load != gi.EstimatedItems/100000 {
		t.Fatalf("uncounted keys: Info.Load %v, FillInfo %+v", g.Info().Load, gi)
	}
	if gi.FillRatio <= 0 || gi.FillRatio >= 1 || gi.FPRNow <= 0 || gi.FPRNow >= 0.01 || gi.Saturated {
		t.Fatalf("FillInfo at 81%% of capacity: %+v", gi)
	}

	s := mustNew(t, 1000, 0.01, WithGrowth(2))
	fillTo(t, s, 3, 0, 3000)
	if i := s.Info(); i.Load != 3 || i.Layers < 2 {
		t.Fatalf("grown filter: %+v", i)
	}

	f.Close()
	if _, err := f.FillInfo(); !errors.Is(err, ErrClosed) {
		t.Fatalf("FillInfo of a closed filter: %v", err)
	}
}

package bloomsimd

import (
	"runtime"
	"testing"
	"time"
)

// A Filter dropped without Close is freed by its finalizer (the safety
// net); one closed explicitly is not finalized again.
func TestDroppedFiltersAreFinalized(t *testing.T) {
	before := finalized.Load()
	for i := 0; i < 20; i++ {
		f, err := New(100000, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		f.AddUint64(uint64(i))
	}
	closed, _ := New(1000, 0.01)
	closed.Close()
	deadline := time.Now().Add(10 * time.Second)
	for finalized.Load()-before < 20 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := finalized.Load() - before; got < 20 {
		t.Fatalf("%d of 20 dropped filters finalized", got)
	}
}

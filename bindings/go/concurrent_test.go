package bloomsimd

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Goroutines insert disjoint key sets into one Concurrent filter through
// every insert path (Go single keys with atomic ORs, C batches, C hash
// batches, Go insert-and-report-new) while readers look up keys whose
// insertion was published to them (release/acquire through an atomic
// counter per writer). No reader may miss a published key, and the final
// bytes must equal a single-threaded build of the same keys. Run with -race:
// the detector checks the package's Go state and the publication protocol
// (it does not see the C memory of the bits).
func TestConcurrentGoroutinesMixGoAndCInserts(t *testing.T) {
	const writers, chunk = 4, 500
	// a small filter, 20% full at the end (many goroutines on the same
	// words, yet few bits that a lost update would set again later), and a
	// large one out of L2
	for _, size := range []uint64{512, 1 << 20} {
		perWriter := 2000
		if size > 512 {
			perWriter = 20000
		}
		f := mustNew(t, 0, 0.01, WithBits(size*64), WithK(8), Concurrent())
		ref := mustNew(t, 0, 0.01, WithBits(size*64), WithK(8))
		var published [writers]atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				ks := keys(uint64(100+w), perWriter)
				for base := 0; base < perWriter; base += chunk {
					part := ks[base : base+chunk]
					switch (base / chunk) % 4 {
					case 0:
						for _, x := range part {
							f.AddUint64(x)
						}
					case 1:
						f.AddUint64s(part)
					case 2:
						hs := make([]uint64, len(part))
						for i, x := range part {
							hs[i] = f.HashUint64(x)
						}
						f.AddHashes(hs)
					case 3:
						for _, x := range part {
							f.InsertNewUint64(x)
						}
					}
					published[w].Store(int64(base + chunk)) // release
				}
			}(w)
		}
		var misses atomic.Int64
		for r := 0; r < 2; r++ {
			wg.Add(1)
			go func(r int) {
				defer wg.Done()
				out := make([]bool, perWriter)
				for round := 0; round < 50; round++ {
					for w := 0; w < writers; w++ {
						n := int(published[w].Load()) // acquire
						ks := keys(uint64(100+w), n)
						if r == 0 {
							for _, x := range ks {
								if !f.ContainsUint64(x) {
									misses.Add(1)
								}
							}
						} else if f.ContainsUint64s(ks, out[:n]) != n {
							misses.Add(1)
						}
					}
					f.FillRatio()
				}
			}(r)
		}
		wg.Wait()
		if misses.Load() != 0 {
			t.Fatalf("size %d: readers missed %d published keys", size, misses.Load())
		}
		for w := 0; w < writers; w++ {
			ref.AddUint64s(keys(uint64(100+w), perWriter))
		}
		sameBits(t, "concurrent build vs sequential", f, ref)
	}
}

// Concurrent InsertNew of the same keys from several goroutines: every key
// is reported new by at least one of them.
func TestConcurrentInsertNewReportsEachKeyAtLeastOnce(t *testing.T) {
	f := mustNew(t, 100000, 0.0001, Concurrent())
	ks := keys(200, 20000)
	var newCount [20000]atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, x := range ks {
				if isNew, _ := f.InsertNewUint64(x); isNew {
					newCount[i].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	missed := 0
	for i := range newCount {
		if newCount[i].Load() == 0 {
			missed++
		}
	}
	// a key can look old before any goroutine inserts it only by a false positive
	if missed > 20 {
		t.Fatalf("%d of %d keys never reported new", missed, len(ks))
	}
}

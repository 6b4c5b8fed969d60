package bloomsimd_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"
)

func ExampleNew() {
	f, err := bloomsimd.New(1_000_000, 0.01) // 10^6 keys at 1% false positives
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	f.AddString("https://example.com/") // single keys: pure Go, no cgo call
	fmt.Println(f.ContainsString("https://example.com/"))

	fmt.Println(f.PredictedFPR(1_000_000) <= 0.01) // sized with the exact model of its layout
	// Output:
	// true
	// true
}

// The block layout trades memory for speed. block512 needs the fewest bits
// per key; split256 (Parquet's split-block rule) needs 6% more at 1% and is
// faster on the sse42, avx2 and neon kernels, which default to it. Without
// WithLayout a filter gets the default of the kernel it runs on.
func ExampleWithLayout() {
	for _, layout := range []int{bloomsimd.LayoutBlock512, bloomsimd.LayoutSplit256} {
		f, err := bloomsimd.New(1_000_000, 0.01, bloomsimd.WithLayout(layout))
		if err != nil {
			log.Fatal(err)
		}
		info := f.Info()
		fmt.Printf("layout %d: %.2f bits/key, k=%d\n", info.Layout, float64(info.Bits)/1e6, info.K)
		f.Close()
	}
	// Output:
	// layout 2: 9.91 bits/key, k=6
	// layout 3: 10.53 bits/key, k=8
}

func ExampleFilter_ContainsUint64s() {
	f, err := bloomsimd.New(100_000, 0.001, bloomsimd.WithSeed(42))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	ids := make([]uint64, 1024)
	for i := range ids {
		ids[i] = uint64(i) * 7919
	}
	if err := f.AddUint64s(ids); err != nil { // one cgo call for the whole batch
		log.Fatal(err)
	}
	queries := []uint64{0, 7919, 1, 2}
	out := make([]bool, len(queries))
	n := f.ContainsUint64s(queries, out)
	fmt.Println(n, out)
	// Output: 2 [true true false false]
}

func ExampleFilter_InsertNewString() {
	f, err := bloomsimd.New(1000, 0.001)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for _, msg := range []string{"a", "b", "a", "c", "b"} {
		if isNew, _ := f.InsertNewString(msg); isNew {
			fmt.Print(msg, " ")
		}
	}
	fmt.Println()
	// Output: a b c
}

// A cache-penetration guard: a filter built once from every ID that exists,
// saved, and mapped read-only by each server process (zero-copy: all the
// processes share one copy in the page cache). A request for an ID the
// filter has never seen is answered "not found" without touching the
// database; only the ~0.1% false positives get through.
func Example_cachePenetrationGuard() {
	dir, err := os.MkdirTemp("", "guard")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ids.bsf")

	// Build (a batch job): every existing ID.
	ids := make([]uint64, 50_000)
	for i := range ids {
		ids[i] = 1_000_000 + uint64(i)*3
	}
	builder, err := bloomsimd.New(uint64(len(ids)), 0.001)
	if err != nil {
		log.Fatal(err)
	}
	if err := builder.AddUint64s(ids); err != nil {
		log.Fatal(err)
	}
	if err := builder.Save(path); err != nil { // atomic: readers see the old file or the new one
		log.Fatal(err)
	}
	builder.Close()

	// Serve (each process): map read-only and check requests one at a time.
	guard, err := bloomsimd.Map(path, bloomsimd.ReadOnly)
	if err != nil {
		log.Fatal(err)
	}
	defer guard.Close()
	blocked := 0
	for id := uint64(2_000_000); id < 2_100_000; id++ { // IDs that do not exist
		if !guard.ContainsUint64(id) {
			blocked++
		}
	}
	fmt.Println("existing ID passes:", guard.ContainsUint64(1_000_003))
	fmt.Printf("blocked %.1f%% of requests for missing IDs\n", float64(blocked)/1000)
	fmt.Println("read-only:", errors.Is(guard.AddUint64(1), bloomsimd.ErrReadOnly))
	// Output:
	// existing ID passes: true
	// blocked 99.9% of requests for missing IDs
	// read-only: true
}

// Deduplicating a stream, as a Kafka consumer does, over a sliding window:
// a message ID is remembered for 4 ticks of a ticker (here 15 s each, so
// about a minute) and then forgotten, so memory stays bounded however long
// the stream runs. The consumer and the ticker share one goroutine here;
// with Concurrent, Rotate may also run in its own goroutine while others
// insert.
func Example_dedupWindow() {
	seen, err := bloomsimd.New(1_000_000, 0.001, bloomsimd.WithWindow(4)) // 10^6 IDs per tick
	if err != nil {
		log.Fatal(err)
	}
	defer seen.Close()

	messages := make(chan string)
	go func() {
		for _, id := range []string{"m1", "m2", "m1", "m3", "m2", "m4"} {
			messages <- id
		}
		close(messages)
	}()
	ticker := time.NewTicker(15 * time.Second)
	defer ticker.Stop()
	for open := true; open; {
		select {
		case id, ok := <-messages:
			if !ok {
				open = false
				break
			}
			if isNew, err := seen.InsertNewString(id); err != nil {
				log.Fatal(err)
			} else if isNew {
				fmt.Println("process", id)
			} else {
				fmt.Println("skip duplicate", id)
			}
		case <-ticker.C:
			if err := seen.Rotate(); err != nil {
				log.Fatal(err)
			}
		}
	}

	// A minute later (4 ticks), m1 has left the window.
	for i := 0; i < 4; i++ {
		seen.Rotate()
	}
	isNew, _ := seen.InsertNewString("m1")
	fmt.Println("m1 new again:", isNew)
	// Output:
	// process m1
	// process m2
	// skip duplicate m1
	// process m3
	// skip duplicate m2
	// process m4
	// m1 new again: true
}

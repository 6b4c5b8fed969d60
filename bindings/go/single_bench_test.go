package bloomsimd

import (
	"os"
	"strconv"
	"testing"
)

// BenchmarkSingleKey is one single-key call per op on a filter of
// BLOOMSIMD_SINGLE_N keys (default 10^5) at 1%, for each layout, on the
// default kernel: inserts, and lookups of absent or present keys. It is the
// in-package loop for profiles and instruction counts (go test -cpuprofile,
// valgrind --tool=callgrind on the test binary); bench/ has the comparison.
func BenchmarkSingleKey(b *testing.B) {
	n := 100000
	if s := os.Getenv("BLOOMSIMD_SINGLE_N"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 1 {
			b.Fatalf("BLOOMSIMD_SINGLE_N=%q", s)
		}
		n = int(v)
	}
	present, absent := keys(1, n), keys(2, n)
	for _, layout := range []int{LayoutBlock512, LayoutSplit256} {
		f := mustNew(b, uint64(n), 0.01, WithLayout(layout))
		f.AddUint64s(present)
		lname := map[int]string{LayoutBlock512: "block512", LayoutSplit256: "split256"}[layout]
		b.Run(lname+"/add", func(b *testing.B) {
			g := mustNew(b, uint64(n), 0.01, WithLayout(layout))
			for i := 0; i < b.N; i++ {
				g.AddUint64(present[i%n])
			}
		})
		for _, q := range []struct {
			name string
			ks   []uint64
		}{{"contains-absent", absent}, {"contains-present", present}} {
			b.Run(lname+"/"+q.name, func(b *testing.B) {
				hits := 0
				for i := 0; i < b.N; i++ {
					if f.ContainsUint64(q.ks[i%n]) {
						hits++
					}
				}
				sinkU64 += uint64(hits)
			})
		}
	}
}

package bloomsimd

import (
	"math/rand"
	"testing"
)

var sinkU64 uint64

// Cost of the Go hash alone (what a single-key call pays before its
// probe). The keys are a prepared array walked in order: writing a byte of
// one key and then hashing it would time the store's forwarding into the
// hash's 8-byte loads (a stall of its own), not the hash.
func BenchmarkXXH3(b *testing.B) {
	s := newXXH3Secret(1)
	const keys = 1 << 12
	for _, n := range []int{8, 16, 32, 64, 200, 1024} {
		buf := make([]byte, keys*n)
		rand.New(rand.NewSource(int64(n))).Read(buf)
		b.Run(name("len=", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			var x uint64
			for i := 0; i < b.N; i++ {
				j := i & (keys - 1)
				x += s.hash(buf[j*n : j*n+n])
			}
			sinkU64 = x
		})
	}
	b.Run("u64", func(b *testing.B) {
		var x uint64
		for i := 0; i < b.N; i++ {
			x += s.hashU64(uint64(i))
		}
		sinkU64 = x
	})
}

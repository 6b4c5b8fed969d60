package bloomsimd

import "testing"

var sinkU64 uint64

// Cost of the Go hash alone (what a single-key call pays before its probe).
func BenchmarkXXH3(b *testing.B) {
	s := newXXH3Secret(1)
	for _, n := range []int{8, 16, 64, 200, 1024} {
		key := make([]byte, n)
		b.Run(name("len=", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				key[0] = byte(i)
				sinkU64 += s.hash(key)
			}
		})
	}
	b.Run("u64", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sinkU64 += s.hashU64(uint64(i))
		}
	})
}

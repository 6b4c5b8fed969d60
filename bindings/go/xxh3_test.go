package bloomsimd

import (
	"math/rand"
	"testing"
)

// The Go XXH3 must equal libxxhash (through bloomsimd_hash) bit for bit:
// every length 0..512 crosses every short path (0, 1-3, 4-8, 9-16, 17-128,
// 129-240) and the long path's partial blocks; random lengths up to 10 KiB
// cross its 1024-byte block scrambles. Several seeds, including 0 (the long
// path's default secret) and seeds whose halves differ (the 4..8 path's
// byte swap).
var hashSeeds = []uint64{0, 1, 0x9E3779B97F4A7C15, 0xFFFFFFFF00000000, 0x00000000FFFFFFFF, 12345678901234567}

func TestXXH3MatchesLibxxhashEveryLengthTo512(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	buf := make([]byte, 512)
	rng.Read(buf)
	for _, seed := range hashSeeds {
		f, err := New(1000, 0.01, WithSeed(seed))
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n <= 512; n++ {
			key := buf[:n]
			if got, want := f.Hash(key), f.cHash(key); got != want {
				t.Fatalf("seed %#x len %d: Go %#x, C %#x", seed, n, got, want)
			}
		}
		f.Close()
	}
}

func TestXXH3MatchesLibxxhashRandomLongKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, seed := range hashSeeds {
		f, err := New(1000, 0.01, WithSeed(seed))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			key := make([]byte, 513+rng.Intn(10000))
			rng.Read(key)
			if got, want := f.Hash(key), f.cHash(key); got != want {
				t.Fatalf("seed %#x len %d: Go %#x, C %#x", seed, len(key), got, want)
			}
		}
		f.Close()
	}
}

func TestHashUint64IsTheHashOfItsLittleEndianBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, seed := range hashSeeds {
		f, err := New(1000, 0.01, WithSeed(seed))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10000; i++ {
			k := rng.Uint64()
			b := []byte{byte(k), byte(k >> 8), byte(k >> 16), byte(k >> 24), byte(k >> 32), byte(k >> 40), byte(k >> 48), byte(k >> 56)}
			if got, want := f.HashUint64(k), f.cHash(b); got != want {
				t.Fatalf("seed %#x key %#x: Go %#x, C %#x", seed, k, got, want)
			}
		}
		f.Close()
	}
}

package bloomsimd

import (
	"bytes"
	"fmt"
	"testing"
)

// mix64 is the splitmix64 finalizer, a bijection: keyOf(stream, i) are
// distinct within and across streams (< 2^24 streams of < 2^40 keys), so
// "absent" keys are really absent.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func keyOf(stream, i uint64) uint64 { return mix64(stream<<40 | i) }

func keys(stream uint64, n int) []uint64 {
	ks := make([]uint64, n)
	for i := range ks {
		ks[i] = keyOf(stream, uint64(i))
	}
	return ks
}

// byteKeys are n keys of lengths 0..300 cycling (every XXH3 path).
func byteKeys(stream uint64, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		k := make([]byte, i%301)
		for j := range k {
			k[j] = byte(keyOf(stream, uint64(i))>>(8*(j%8))) * byte(j+1)
		}
		// the key's first bytes carry its index, so keys are distinct
		if len(k) >= 8 {
			for j := 0; j < 8; j++ {
				k[j] = byte(keyOf(stream, uint64(i)) >> (8 * j))
			}
		}
		out[i] = k
	}
	return out
}

// supportedKernels are the kernels this CPU runs natively.
func supportedKernels() []string {
	var ks []string
	for _, k := range Kernels() {
		if KernelSupported(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

func mustNew(t testing.TB, capacity uint64, fpr float64, opts ...Option) *Filter {
	t.Helper()
	f, err := New(capacity, fpr, opts...)
	if err != nil {
		t.Fatalf("New(%d, %g): %v", capacity, fpr, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func sameBits(t *testing.T, what string, a, b *Filter) {
	t.Helper()
	x, y := a.bitArray(), b.bitArray()
	if x == nil || y == nil {
		t.Fatalf("%s: no bit array", what)
	}
	if !bytes.Equal(x, y) {
		diff := 0
		for i := range x {
			if x[i] != y[i] {
				diff++
			}
		}
		t.Fatalf("%s: bit arrays differ in %d of %d bytes", what, diff, len(x))
	}
}

func name(parts ...any) string { return fmt.Sprint(parts...) }

package bloomsimd

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// tests/fixtures/hash_vectors.txt holds the answers every implementation
// of the 64-bit-key probe must give (C, Go, Java, Python; written by
// tests/fixtures/gen_hash_vectors.py from kernels/layout.h, independently of
// any of them). The module root is the repository root, so the file is two
// directories up from this package.
const hashVectorsPath = "../../tests/fixtures/hash_vectors.txt"

type hashVector struct {
	id              U64Hash
	seed, key, hash uint64
}

type probeVector struct {
	layout, k     int
	id            U64Hash
	seed, nblocks uint64
	key, block    uint64
	bits          []int // word*32 + bit within the block
	line          string
}

func readVectors(t *testing.T) (hashes []hashVector, probes []probeVector) {
	t.Helper()
	file, err := os.Open(hashVectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	hex := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return v
	}
	dec := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return v
	}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "hash" && len(f) == 5:
			hashes = append(hashes, hashVector{U64Hash(dec(f[1])), hex(f[2]), hex(f[3]), hex(f[4])})
		case f[0] == "probe" && len(f) == 9:
			v := probeVector{layout: int(dec(f[1])), k: int(dec(f[2])), id: U64Hash(dec(f[3])), seed: hex(f[4]),
				nblocks: dec(f[5]), key: hex(f[6]), block: dec(f[7]), line: line}
			for _, b := range strings.Split(f[8], ",") {
				v.bits = append(v.bits, int(dec(b)))
			}
			probes = append(probes, v)
		default:
			t.Fatalf("bad line: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return hashes, probes
}

// The pure-Go hash of 64-bit keys (XXH3 and mum, from the library's
// constants) is every hash vector.
func TestHashVectorsPureGo(t *testing.T) {
	hashes, _ := readVectors(t)
	count := map[U64Hash]int{}
	for _, v := range hashes {
		f := mustNew(t, 100, 0.01, WithSeed(v.seed), WithU64Hash(v.id))
		if !f.Info().PureGo || f.Info().U64Hash != v.id {
			t.Fatalf("hash %d: PureGo %v, U64Hash %d", v.id, f.Info().PureGo, f.Info().U64Hash)
		}
		if got := f.HashUint64(v.key); got != v.hash {
			t.Fatalf("hash %d seed %x key %x: %x, want %x", v.id, v.seed, v.key, got, v.hash)
		}
		if got := f.probe.HashU64(v.key); got != v.hash {
			t.Fatalf("probe hash %d seed %x key %x: %x, want %x", v.id, v.seed, v.key, got, v.hash)
		}
		f.Close()
		count[v.id]++
	}
	if count[HashXXH3] < 60 || count[HashMum] < 60 {
		t.Fatalf("too few vectors: %v", count)
	}
}

// Layered filters have no probe; their 64-bit keys' hash is still the
// filter's (the library's, for mum).
func TestHashVectorsLayered(t *testing.T) {
	hashes, _ := readVectors(t)
	for _, v := range hashes {
		f := mustNew(t, 100, 0.01, WithSeed(v.seed), WithU64Hash(v.id), WithGrowth(2))
		if f.Info().PureGo {
			t.Fatal("a layered filter probes in Go")
		}
		if got := f.HashUint64(v.key); got != v.hash {
			t.Fatalf("layered, hash %d seed %x key %x: %x, want %x", v.id, v.seed, v.key, got, v.hash)
		}
		f.Close()
	}
}

// Every probe vector on every kernel this CPU runs (so every Go probe:
// assembly and pure Go, plain and concurrent): in an empty filter of the
// row's shape, AddUint64 sets exactly the row's bits of the row's block;
// ContainsUint64 finds the key, and misses it as soon as any one of those
// bits is cleared (so it tests each of them and no other).
func TestProbeVectorsPureGo(t *testing.T) {
	_, probes := readVectors(t)
	if len(probes) < 40 {
		t.Fatalf("only %d probe vectors", len(probes))
	}
	for _, kernel := range supportedKernels() {
		for _, conc := range []bool{false, true} {
			for _, v := range probes {
				blockBits := uint64(512)
				if v.layout == LayoutSplit256 {
					blockBits = 256
				}
				opts := []Option{WithKernel(kernel), WithBits(v.nblocks * blockBits), WithK(v.k),
					WithLayout(v.layout), WithSeed(v.seed), WithU64Hash(v.id)}
				if conc {
					opts = append(opts, Concurrent())
				}
				f := mustNew(t, 0, 0.01, opts...)
				what := name(kernel, " concurrent=", conc, ": ", v.line)
				if !f.Info().PureGo || f.nblocks != v.nblocks {
					t.Fatalf("%s: PureGo %v, %d blocks", what, f.Info().PureGo, f.nblocks)
				}
				if f.ContainsUint64(v.key) {
					t.Fatalf("%s: found in an empty filter", what)
				}
				if err := f.AddUint64(v.key); err != nil {
					t.Fatal(err)
				}
				// the row's block holds exactly the row's bits, and the
				// library counts no other bit set anywhere
				words := int(blockBits / 32)
				want := map[int]bool{}
				var block [16]uint32
				for _, b := range v.bits {
					want[int(v.block)*words*32+b] = true
					block[b/32] |= 1 << (b % 32)
				}
				for w := 0; w < words; w++ {
					if got := f.words[int(v.block)*words+w]; got != block[w] {
						t.Fatalf("%s: word %d of the block is %#x, want %#x", what, w, got, block[w])
					}
				}
				if set := math.Round(f.FillRatio() * float64(f.Info().Bits)); set != float64(len(v.bits)) {
					t.Fatalf("%s: %g bits set, want %d", what, set, len(v.bits))
				}
				if !f.ContainsUint64(v.key) {
					t.Fatalf("%s: not found after AddUint64", what)
				}
				for b := range want {
					f.words[b/32] &^= 1 << (b % 32)
					if f.ContainsUint64(v.key) {
						t.Fatalf("%s: found with bit %d cleared", what, b)
					}
					f.words[b/32] |= 1 << (b % 32)
				}
				f.Close()
			}
		}
	}
}

func TestWithU64HashRefusesUnknownHashes(t *testing.T) {
	for _, h := range []U64Hash{0, 2, 4} {
		if _, err := New(100, 0.01, WithU64Hash(h)); err == nil {
			t.Errorf("WithU64Hash(%d): no error", h)
		}
	}
	f := mustNew(t, 100, 0.01)
	if f.Info().U64Hash != HashXXH3 {
		t.Errorf("default U64Hash %d", f.Info().U64Hash)
	}
}

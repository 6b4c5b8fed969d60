package probe

import (
	"bytes"
	"math/bits"
	"math/rand"
	"testing"
	"unsafe"
)

// The assembly probes against the pure-Go ones over Go memory: for both
// layouts, every k (with a selection table of the same shape as SELECT_k:
// 64 rows of k bits, and random salts, so a probe that read any salts but
// the State's would differ), both hashes, the U64 forms, the one-call
// entries ContainsU64 / AddU64 / AddNewU64 (which hash in the assembly) and
// ContainsHash / AddHash / AddNewHash (which take a hash), each probe's
// filter bytes and answers must equal pure Go's. (single_test.go in the parent package
// checks both against the C kernels.) With the purego tag, or on a CPU
// without AVX2 or AVX-512, the kinds that cannot run are skipped.

// blocks allocates n 64-byte-aligned 64-byte blocks of Go memory.
func blocks(n int) ([]byte, unsafe.Pointer) {
	buf := make([]byte, n*64+64)
	off := (64 - int(uintptr(unsafe.Pointer(&buf[0]))%64)) % 64
	return buf[off : off+n*64], unsafe.Pointer(&buf[off])
}

// selectTable is 64 rows of k bits (not the library's table: any will do).
func selectTable(k int, rng *rand.Rand) *[64]uint16 {
	t := new([64]uint16)
	for i := range t {
		for bits.OnesCount16(t[i]) < k {
			t[i] |= 1 << rng.Intn(16)
		}
	}
	return t
}

type probeOps struct {
	contains, containsU64 func(p *State, x uint64) bool
	add, addU64           func(p *State, x uint64)
	addNew                func(p *State, x uint64) bool
}

var asmOps = map[Kind]probeOps{
	Block512AVX2:   {Block512ContainsAVX2, Block512ContainsU64AVX2, Block512AddAVX2, Block512AddU64AVX2, Block512AddNewAVX2},
	Split256AVX2:   {Split256ContainsAVX2, Split256ContainsU64AVX2, Split256AddAVX2, Split256AddU64AVX2, Split256AddNewAVX2},
	Block512AVX512: {Block512ContainsAVX512, Block512ContainsU64AVX512, Block512AddAVX512, Block512AddU64AVX512, Block512AddNewAVX512},
	Split256AVX512: {Split256ContainsAVX512, Split256ContainsU64AVX512, Split256AddAVX512, Split256AddU64AVX512, Split256AddNewAVX512},
}

// The fallback of AddNewU64 as package bloomsimd's is for a pure-Go probe:
// the probe's AddNew, and the count.
func pureGoAddNew(p *State, key uint64) (bool, error) {
	isNew := p.AddNew(p.HashU64(key))
	if isNew {
		*p.Items++
	}
	return isNew, nil
}

// The same for AddNewHash, whose fallback takes the hash.
func pureGoAddNewHash(p *State, h uint64) (bool, error) {
	isNew := p.AddNew(h)
	if isNew {
		*p.Items++
	}
	return isNew, nil
}

func TestAssemblyMatchesPureGo(t *testing.T) {
	AddNewFallback, AddNewHashFallback = pureGoAddNew, pureGoAddNewHash
	rng := rand.New(rand.NewSource(1))
	ran := 0
	for kind, ops := range asmOps {
		kernel := map[Kind]string{Block512AVX2: "avx2", Split256AVX2: "avx2", Block512AVX512: "avx512",
			Split256AVX512: "avx512"}[kind]
		if !Assembly || !cpuRuns(kernel) {
			continue
		}
		split := kind == Split256AVX2 || kind == Split256AVX512
		for hk := 0; hk < 2*16; hk++ {
			hash, k := Hash(hk/16), hk%16+1 // both hashes, every k
			if split && k > 1 {
				continue // split256 has no k
			}
			const n = 97
			bufA, a := blocks(n)
			bufG, g := blocks(n)
			sel := selectTable(k, rng)
			f := Filter{Blocks: a, Nblocks: n * 2, Select: sel, Split: split, Kernel: kernel}
			if !split {
				f.Nblocks = n
			}
			// random odd salts: the assembly must take the State's, as pure Go does
			c := Constants{Hash: hash, Bitflip: rng.Uint64(), MumA: rng.Uint64(), MumB: rng.Uint64()}
			for w := range c.Salts {
				c.Salts[w] = rng.Uint32() | 1
			}
			var itemsA, itemsG uint64
			f.Items = &itemsA
			pa := New(f, c)
			f.Blocks, f.Kernel, f.Items = g, "scalar", &itemsG
			pg := New(f, c)
			if pa.ContainsKind != kind || pa.AddKind != kind || pg.ContainsKind >= Block512AVX2 {
				t.Fatalf("%v k=%d: probes %v/%v and %v", kind, k, pa.ContainsKind, pa.AddKind, pg.ContainsKind)
			}
			for i := 0; i < 4000; i++ {
				x := rng.Uint64()
				switch i % 4 {
				case 0:
					if i%8 == 4 { // the one-call entry for a hash
						if AddHash(&pa, x) != nil || AddHash(&pg, x) != nil {
							t.Fatalf("%v k=%d: AddHash failed", kind, k)
						}
						break
					}
					ops.add(&pa, x)
					pg.Add(x)
				case 1: // the one-call entries, hashing in the assembly, against pure Go's
					if i%8 == 1 {
						if AddU64(&pa, x) != nil || AddU64(&pg, x) != nil {
							t.Fatalf("%v k=%d: AddU64 failed", kind, k)
						}
						break
					}
					na, ea := AddNewU64(&pa, x)
					ng, eg := AddNewU64(&pg, x)
					if na != ng || ea != nil || eg != nil || itemsA != itemsG {
						t.Fatalf("%v hash %d k=%d: AddNewU64 %v (count %d), pure Go %v (count %d)", kind, hash, k, na,
							itemsA, ng, itemsG)
					}
				case 2:
					if hash == XXH3 { // the XXH3-only U64 forms
						ops.addU64(&pa, x)
						pg.Add(pg.HashU64(x))
					}
				default:
					if i%8 == 7 {
						na, ea := AddNewHash(&pa, x)
						ng, eg := AddNewHash(&pg, x)
						if na != ng || ea != nil || eg != nil || itemsA != itemsG {
							t.Fatalf("%v k=%d: AddNewHash %v (count %d), pure Go %v (count %d)", kind, k, na, itemsA,
								ng, itemsG)
						}
						break
					}
					if na, ng := ops.addNew(&pa, x), pg.AddNew(x); na != ng {
						t.Fatalf("%v k=%d: AddNew %v, pure Go %v", kind, k, na, ng)
					}
				}
				if !bytes.Equal(bufA, bufG) {
					t.Fatalf("%v k=%d: filter bytes differ after key %d", kind, k, i)
				}
				y := rng.Uint64()
				for _, q := range []uint64{x, y} {
					if ca, cg := ops.contains(&pa, q), pg.Contains(q); ca != cg {
						t.Fatalf("%v k=%d: Contains %v, pure Go %v", kind, k, ca, cg)
					}
					if ca, cg := ContainsHash(&pa, q), ContainsHash(&pg, q); ca != cg || cg != pg.Contains(q) {
						t.Fatalf("%v k=%d: ContainsHash %v, pure Go %v", kind, k, ca, cg)
					}
					if ca, cg := ContainsU64(&pa, q), ContainsU64(&pg, q); ca != cg || cg != pg.Contains(pg.HashU64(q)) {
						t.Fatalf("%v hash %d k=%d: ContainsU64 %v, pure Go %v", kind, hash, k, ca, cg)
					}
					if hash == XXH3 {
						if ca, cg := ops.containsU64(&pa, q), pg.Contains(pg.HashU64(q)); ca != cg {
							t.Fatalf("%v k=%d: ContainsU64 %v, pure Go %v", kind, k, ca, cg)
						}
					}
				}
				if !ops.contains(&pa, x) && i%4 == 0 || !ContainsU64(&pa, x) && i%4 == 1 ||
					!ContainsHash(&pa, x) && (i%8 == 4 || i%8 == 7) {
					t.Fatalf("%v k=%d: false negative", kind, k)
				}
			}
			ran++
		}
	}
	t.Logf("%d probe/k combinations compared", ran)
	if Assembly && cpuRuns("avx2") && ran == 0 {
		t.Fatal("no assembly probe ran")
	}
}

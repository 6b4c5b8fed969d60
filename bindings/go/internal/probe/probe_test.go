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
// the State's would differ), both hashes, the one-call entries ContainsU64
// / AddU64 / AddNewU64 (which hash in the assembly) and ContainsHash /
// AddHash / AddNewHash (which take a hash), and the Go forms on an assembly
// kind (Contains, Add, AddNew), each probe's
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

// The assembly kinds and the kernel that runs each.
var asmKinds = map[Kind]string{Block512AVX2: "avx2", Split256AVX2: "avx2", Block512AVX512: "avx512", Split256AVX512: "avx512"}

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
	for kind, kernel := range asmKinds {
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
				case 0: // x as a hash: the one-call entry, or the Go form on an assembly kind
					if i%8 == 4 {
						if AddHash(&pa, x) != nil || AddHash(&pg, x) != nil {
							t.Fatalf("%v k=%d: AddHash failed", kind, k)
						}
						break
					}
					pa.Add(x)
					pg.Add(x)
				case 1: // x as a key: the one-call entries, hashing in the assembly, against pure Go's
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
					if na, ng := pa.AddNew(x), pg.AddNew(x); na != ng {
						t.Fatalf("%v k=%d: AddNew %v, pure Go %v", kind, k, na, ng)
					}
				default:
					na, ea := AddNewHash(&pa, x)
					ng, eg := AddNewHash(&pg, x)
					if na != ng || ea != nil || eg != nil || itemsA != itemsG {
						t.Fatalf("%v k=%d: AddNewHash %v (count %d), pure Go %v (count %d)", kind, k, na, itemsA,
							ng, itemsG)
					}
				}
				if !bytes.Equal(bufA, bufG) {
					t.Fatalf("%v k=%d: filter bytes differ after key %d", kind, k, i)
				}
				y := rng.Uint64()
				for _, q := range []uint64{x, y} {
					if ca, cg := ContainsHash(&pa, q), ContainsHash(&pg, q); ca != cg || cg != pg.Contains(q) ||
						pa.Contains(q) != cg {
						t.Fatalf("%v k=%d: ContainsHash %v, pure Go %v", kind, k, ca, cg)
					}
					if ca, cg := ContainsU64(&pa, q), ContainsU64(&pg, q); ca != cg || cg != pg.Contains(pg.HashU64(q)) {
						t.Fatalf("%v hash %d k=%d: ContainsU64 %v, pure Go %v", kind, hash, k, ca, cg)
					}
				}
				if i%4 == 1 && !ContainsU64(&pa, x) || i%4 != 1 && !ContainsHash(&pa, x) {
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

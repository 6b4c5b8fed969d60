package bloomsimd

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/libbloomsimd/libbloomsimd/bindings/go/internal/probe"
)

// insertGoAndC inserts ks into goF one key per pure-Go call (every newEvery-th
// key through InsertNewUint64, which must report a key new exactly when
// cSingle, holding the same keys so far in identical bits, lacks it), into
// cSingle one exported C call per key, and into cBatch in one C batch.
func insertGoAndC(t *testing.T, what string, goF, cSingle, cBatch *Filter, ks []uint64, newEvery int) {
	t.Helper()
	for i, x := range ks {
		if i%newEvery != newEvery-1 {
			if err := goF.AddUint64(x); err != nil {
				t.Fatal(err)
			}
		} else if isNew, err := goF.InsertNewUint64(x); err != nil || isNew == cSingle.cContainsUint64(x) {
			t.Fatalf("%s: InsertNewUint64 of key %d: %v %v, C contains it: %v", what, i, isNew, err,
				cSingle.cContainsUint64(x))
		}
		if err := cSingle.cAddUint64(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := cBatch.AddUint64s(ks); err != nil {
		t.Fatal(err)
	}
}

// The single-key path in Go (internal/probe: assembly for filters on the
// avx2 and avx512 kernels, pure Go otherwise) must write exactly the bytes
// the C kernels write, for every kernel this CPU runs, every k of block512
// (named: k 8 alone would take the kernel's default layout), several seeds,
// plain and concurrent filters, and both key kinds; and answer exactly as C
// does. Every kernel runs, so every probe this build and CPU have runs
// (TestSingleKeyProbeFollowsKernel checks which); go test -tags purego runs
// the same tests on the pure-Go probes alone.
func TestSingleKeyGoIsByteIdenticalToCKernels(t *testing.T) {
	for _, kernel := range supportedKernels() {
		for k := 1; k <= 16; k++ {
			for _, seed := range []uint64{0, 0x9E3779B97F4A7C15} {
				for _, conc := range []bool{false, true} {
					opts := []Option{WithKernel(kernel), WithK(k), WithSeed(seed), WithLayout(LayoutBlock512)}
					if conc {
						opts = append(opts, Concurrent())
					}
					what := name(kernel, " k=", k, " seed=", seed, " concurrent=", conc)
					ks := keys(uint64(k), 3000)
					goF := mustNew(t, 3000, 0.01, opts...)
					cBatch := mustNew(t, 3000, 0.01, opts...)
					cSingle := mustNew(t, 3000, 0.01, opts...)
					if !goF.Info().PureGo {
						t.Fatalf("%s: single keys do not run in Go", what)
					}
					insertGoAndC(t, what, goF, cSingle, cBatch, ks, 3)
					sameBits(t, what+" go vs C batch", goF, cBatch)
					sameBits(t, what+" go vs C single", goF, cSingle)

					// Lookups: Go single, C single and C batch agree on present and absent keys.
					probe := append(keys(uint64(k), 3000), keys(1000+uint64(k), 20000)...)
					out := make([]bool, len(probe))
					cBatch.ContainsUint64s(probe, out)
					for i, x := range probe {
						g := goF.ContainsUint64(x)
						if g != out[i] || g != goF.cContainsUint64(x) {
							t.Fatalf("%s: key %d: Go %v, C batch %v, C single %v", what, i, g, out[i], goF.cContainsUint64(x))
						}
						if i < 3000 && !g {
							t.Fatalf("%s: false negative for key %d", what, i)
						}
					}
				}
			}
		}
	}
}

// Byte keys, in both layouts and in the kernel's default one.
func TestSingleByteKeysGoIsByteIdenticalToC(t *testing.T) {
	for _, kernel := range supportedKernels() {
		for _, conc := range []bool{false, true} {
			for _, layout := range []int{0, LayoutBlock512, LayoutSplit256} {
				opts := []Option{WithKernel(kernel), WithSeed(77)}
				if layout != 0 {
					opts = append(opts, WithLayout(layout))
				}
				if conc {
					opts = append(opts, Concurrent())
				}
				bk := byteKeys(5, 4000)
				strs := make([]string, len(bk))
				for i := range bk {
					strs[i] = string(bk[i])
				}
				goF := mustNew(t, 4000, 0.001, opts...)
				goS := mustNew(t, 4000, 0.001, opts...)
				cF := mustNew(t, 4000, 0.001, opts...)
				batchS := mustNew(t, 4000, 0.001, opts...)
				batchB := mustNew(t, 4000, 0.001, opts...)
				for i, key := range bk {
					if err := goF.Add(key); err != nil {
						t.Fatal(err)
					}
					if err := goS.AddString(strs[i]); err != nil {
						t.Fatal(err)
					}
					if err := cF.cAdd(key); err != nil {
						t.Fatal(err)
					}
				}
				if err := batchS.AddStrings(strs); err != nil {
					t.Fatal(err)
				}
				if err := batchB.AddBytes(bk); err != nil {
					t.Fatal(err)
				}
				what := name(kernel, " layout=", layout, " concurrent=", conc)
				if !goF.Info().PureGo {
					t.Fatalf("%s: single keys do not run in Go", what)
				}
				sameBits(t, what+" Add vs C add", goF, cF)
				sameBits(t, what+" AddString vs C add", goS, cF)
				sameBits(t, what+" AddStrings vs C add", batchS, cF)
				sameBits(t, what+" AddBytes vs C add", batchB, cF)

				absent := byteKeys(6, 4000)
				absentS := make([]string, len(absent))
				for i := range absent {
					absentS[i] = string(absent[i])
				}
				out := make([]bool, len(absent))
				outB := make([]bool, len(absent))
				nS := cF.ContainsStrings(absentS, out)
				nB := cF.ContainsBytes(absent, outB)
				count := 0
				for i, key := range absent {
					g := cF.Contains(key)
					if g != out[i] || g != outB[i] || g != cF.ContainsString(absentS[i]) {
						t.Fatalf("%s: absent key %d: Contains %v, ContainsStrings %v, ContainsBytes %v", what, i, g, out[i], outB[i])
					}
					if g {
						count++
					}
				}
				if nS != count || nB != count {
					t.Fatalf("%s: counts %d %d, want %d", what, nS, nB, count)
				}
				if n := cF.ContainsStrings(strs, nil); n != len(strs) {
					t.Fatalf("%s: %d of %d inserted strings found", what, n, len(strs))
				}
				for i, key := range bk {
					if !cF.Contains(key) || !cF.ContainsString(strs[i]) {
						t.Fatalf("%s: false negative for key %d", what, i)
					}
				}
			}
		}
	}
}

// A filter spanning many blocks with the largest block index: the block
// derivation must use all 32 high hash bits (no overflow at 2^20 blocks of
// block512, 2^21 of split256).
func TestSingleKeyLargeFilterMatchesC(t *testing.T) {
	for _, opts := range [][]Option{{WithBits(512 << 20), WithK(7)}, {WithBits(512 << 20), WithLayout(LayoutSplit256)}} {
		goF := mustNew(t, 0, 0.01, opts...)
		cF := mustNew(t, 0, 0.01, opts...)
		ks := keys(9, 200000)
		for _, x := range ks {
			goF.AddUint64(x)
		}
		cF.AddUint64s(ks)
		sameBits(t, name("2^20 blocks, k=", goF.Info().K), goF, cF)
	}
}

func TestInsertNewSingleReportsFirstInsertOnly(t *testing.T) {
	for _, conc := range []bool{false, true} {
		var opts []Option
		if conc {
			opts = append(opts, Concurrent())
		}
		f := mustNew(t, 10000, 0.001, opts...)
		ref := mustNew(t, 10000, 0.001, opts...)
		ks := keys(11, 5000)
		fresh := 0
		for _, x := range ks {
			isNew, err := f.InsertNewUint64(x)
			if err != nil {
				t.Fatal(err)
			}
			if isNew {
				fresh++
			}
			again, _ := f.InsertNewUint64(x)
			if again {
				t.Fatalf("concurrent=%v: a key reported new twice", conc)
			}
		}
		// at 0.1% FPR, a handful of keys may look old on first insert
		if fresh < 4950 {
			t.Fatalf("concurrent=%v: only %d of 5000 distinct keys reported new", conc, fresh)
		}
		isNew, _ := f.InsertNew([]byte("hello"))
		again, _ := f.InsertNewString("hello")
		if !isNew || again {
			t.Fatalf("InsertNew/InsertNewString: %v %v", isNew, again)
		}
		ref.AddUint64s(ks)
		ref.Add([]byte("hello"))
		sameBits(t, "InsertNew vs AddUint64s", f, ref)
	}
}

// InsertNewUint64 and InsertNew (one probe call: the assembly on the avx2
// and avx512 kernels) report new exactly the keys the C library's
// insert-new reports new, on every kernel, layout and hash, plain and
// concurrent, leave the same bits, and count them in Info().Items as the C
// calls do.
func TestInsertNewSingleMatchesCOnEveryKernel(t *testing.T) {
	seq := keys(71, 3000)
	seq = append(seq, seq[:1000]...) // repeats
	for _, kernel := range supportedKernels() {
		for _, layout := range []int{LayoutBlock512, LayoutSplit256} {
			for _, h := range []U64Hash{HashXXH3, HashMum} {
				for _, conc := range []bool{false, true} {
					opts := []Option{WithKernel(kernel), WithLayout(layout), WithU64Hash(h)}
					if conc {
						opts = append(opts, Concurrent())
					}
					what := name(kernel, " layout=", layout, " hash=", int(h), " concurrent=", conc)
					f, ref := mustNew(t, 3000, 0.01, opts...), mustNew(t, 3000, 0.01, opts...)
					out := make([]bool, 1)
					fresh := uint64(0)
					for i, x := range seq {
						isNew, err := f.InsertNewUint64(x)
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						if _, err := ref.InsertNewUint64s([]uint64{x}, out); err != nil {
							t.Fatal(err)
						}
						if isNew != out[0] || (i >= 3000 && isNew) {
							t.Fatalf("%s: key %d new %v, the C call says %v", what, i, isNew, out[0])
						}
						if isNew {
							fresh++
						}
					}
					// byte keys of every length path (InsertNew: the Go hash, then
					// one call), against the C library's batch of one
					bk := byteKeys(72, 1500)
					bk = append(bk, bk[:500]...)
					for i, key := range bk {
						isNew, err := f.InsertNew(key)
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						if _, err := ref.InsertNewBytes([][]byte{key}, out); err != nil {
							t.Fatal(err)
						}
						if isNew != out[0] || (i >= 1500 && isNew) {
							t.Fatalf("%s: byte key %d new %v, the C call says %v", what, i, isNew, out[0])
						}
						if isNew {
							fresh++
						}
					}
					if f.Info().Items != fresh || ref.Info().Items != fresh {
						t.Fatalf("%s: Items %d (C %d), %d reported new", what, f.Info().Items, ref.Info().Items, fresh)
					}
					sameBits(t, what, f, ref)
					f.Close()
					ref.Close()
				}
			}
		}
	}
}

func TestSingleKeysAllocateNothing(t *testing.T) {
	f := mustNew(t, 1000, 0.01)
	key := []byte("0123456789abcdef")
	s := "0123456789abcdef"
	allocs := testing.AllocsPerRun(100, func() {
		f.AddUint64(42)
		f.ContainsUint64(42)
		f.Add(key)
		f.Contains(key)
		f.AddString(s)
		f.ContainsString(s)
	})
	if allocs != 0 {
		t.Fatalf("single-key calls allocate %v times", allocs)
	}
	ks := keys(1, 1024)
	out := make([]bool, 1024)
	strs := make([]string, 1024)
	for i := range strs {
		strs[i] = string(bytes.Repeat([]byte{byte(i)}, 16))
	}
	f.AddStrings(strs) // warm the pool
	allocs = testing.AllocsPerRun(100, func() {
		f.AddUint64s(ks)
		f.ContainsUint64s(ks, out)
		f.AddStrings(strs)
		f.ContainsStrings(strs, out)
	})
	if allocs != 0 {
		t.Fatalf("batch calls allocate %v times", allocs)
	}
}

// The split256 layout's pure-Go probe writes exactly the C kernels' bytes and
// answers as they do: every kernel, plain and concurrent, two seeds, u64 and
// byte keys, single inserts and insert-and-report-new.
func TestSingleKeySplit256GoIsByteIdenticalToC(t *testing.T) {
	for _, kernel := range supportedKernels() {
		for _, seed := range []uint64{0, 0x9E3779B97F4A7C15} {
			for _, conc := range []bool{false, true} {
				opts := []Option{WithKernel(kernel), WithSeed(seed), WithLayout(LayoutSplit256)}
				if conc {
					opts = append(opts, Concurrent())
				}
				what := name(kernel, " split256 seed=", seed, " concurrent=", conc)
				ks := keys(77, 3000)
				goF := mustNew(t, 3000, 0.01, opts...)
				cBatch := mustNew(t, 3000, 0.01, opts...)
				if !goF.Info().PureGo {
					t.Fatalf("%s: single keys do not run in Go", what)
				}
				for i, x := range ks {
					if i%2 == 0 {
						if err := goF.AddUint64(x); err != nil {
							t.Fatal(err)
						}
					} else if isNew, err := goF.InsertNewUint64(x); err != nil || isNew == cBatch.cContainsUint64(x) {
						// new exactly when C's identical bits lack the key
						t.Fatalf("%s: InsertNewUint64 of key %d: %v %v, C contains it: %v", what, i, isNew, err,
							cBatch.cContainsUint64(x))
					}
					if err := goF.AddString(name("s", x)); err != nil {
						t.Fatal(err)
					}
					if err := cBatch.cAddUint64(x); err != nil {
						t.Fatal(err)
					}
					if err := cBatch.cAddHash(cBatch.Hash([]byte(name("s", x)))); err != nil {
						t.Fatal(err)
					}
				}
				sameBits(t, what, goF, cBatch)
				probe := append(keys(77, 3000), keys(78, 20000)...)
				out := make([]bool, len(probe))
				cBatch.ContainsUint64s(probe, out)
				for i, x := range probe {
					if g := goF.ContainsUint64(x); g != out[i] || (i < 3000 && !g) {
						t.Fatalf("%s: key %d: Go %v, C %v", what, i, g, out[i])
					}
				}
				if isNew, _ := goF.InsertNewUint64(ks[0]); isNew {
					t.Fatalf("%s: a present key reported new", what)
				}
			}
		}
	}
}

// The probe a filter runs follows its kernel, so that forcing a kernel
// (WithKernel, BLOOMSIMD_KERNEL) forces the probe and the tests above, which
// run every kernel, run every probe: on amd64 the assembly for avx2 and
// avx512 (a concurrent filter's inserts stay in Go, atomic), pure Go for
// the others and with -tags purego.
func TestSingleKeyProbeFollowsKernel(t *testing.T) {
	seen := map[probe.Kind]bool{}
	for _, kernel := range supportedKernels() {
		for _, layout := range []int{LayoutBlock512, LayoutSplit256} {
			for _, conc := range []bool{false, true} {
				opts := []Option{WithKernel(kernel), WithLayout(layout)}
				if conc {
					opts = append(opts, Concurrent())
				}
				f := mustNew(t, 1000, 0.01, opts...)
				goKind := map[bool]map[int]probe.Kind{
					false: {LayoutBlock512: probe.Block512, LayoutSplit256: probe.Split256},
					true:  {LayoutBlock512: probe.Block512Atomic, LayoutSplit256: probe.Split256Atomic},
				}[conc][layout]
				want := goKind
				if probe.Assembly {
					switch kernel {
					case "avx512":
						want = map[int]probe.Kind{LayoutBlock512: probe.Block512AVX512, LayoutSplit256: probe.Split256AVX512}[layout]
					case "avx2":
						want = map[int]probe.Kind{LayoutBlock512: probe.Block512AVX2, LayoutSplit256: probe.Split256AVX2}[layout]
					}
				}
				wantAdd := want
				if conc {
					wantAdd = goKind
				}
				if f.probe.ContainsKind != want || f.probe.AddKind != wantAdd {
					t.Errorf("%s layout %d concurrent=%v: probes %v/%v, want %v/%v", kernel, layout, conc,
						f.probe.ContainsKind, f.probe.AddKind, want, wantAdd)
				}
				seen[f.probe.ContainsKind], seen[f.probe.AddKind] = true, true
			}
		}
	}
	t.Logf("probes run by the tests on this CPU: %v", seen)
	if seen[probe.None] {
		t.Error("a filter with a bit array has no Go probe")
	}
	l, err := New(1000, 0.01, WithGrowth(2))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.probe.ContainsKind != probe.None || l.probe.AddKind != probe.None {
		t.Errorf("a layered filter probes in Go: %v/%v", l.probe.ContainsKind, l.probe.AddKind)
	}
}

// Mum filters (WithU64Hash(HashMum)) probe in Go too, with the library's
// constants: the same bytes and answers as the C kernels on every kernel
// (so every probe, with the hash computed by the one-call entries), both
// layouts, plain and concurrent.
func TestSingleKeyMumGoIsByteIdenticalToC(t *testing.T) {
	type shape struct{ layout, k int }
	shapes := []shape{{LayoutBlock512, 1}, {LayoutBlock512, 7}, {LayoutBlock512, 16}, {LayoutSplit256, 8}}
	for _, kernel := range supportedKernels() {
		for _, s := range shapes {
			for _, conc := range []bool{false, true} {
				opts := []Option{WithKernel(kernel), WithK(s.k), WithLayout(s.layout), WithSeed(0xC0FFEE),
					WithU64Hash(HashMum)}
				if conc {
					opts = append(opts, Concurrent())
				}
				what := name(kernel, " layout=", s.layout, " k=", s.k, " concurrent=", conc)
				ks := keys(uint64(90+s.k), 3000)
				goF := mustNew(t, 3000, 0.01, opts...)
				cSingle := mustNew(t, 3000, 0.01, opts...)
				cBatch := mustNew(t, 3000, 0.01, opts...)
				if !goF.Info().PureGo || !goF.probe.Mum {
					t.Fatalf("%s: single keys do not run in Go with mum", what)
				}
				insertGoAndC(t, what, goF, cSingle, cBatch, ks, 2)
				sameBits(t, what+" go vs C single", goF, cSingle)
				sameBits(t, what+" go vs C batch", goF, cBatch)
				probe := append(keys(uint64(90+s.k), 3000), keys(uint64(190+s.k), 20000)...)
				out := make([]bool, len(probe))
				cBatch.ContainsUint64s(probe, out)
				for i, x := range probe {
					if g := goF.ContainsUint64(x); g != out[i] || g != goF.cContainsUint64(x) || (i < 3000 && !g) {
						t.Fatalf("%s: key %d: Go %v, C %v", what, i, g, out[i])
					}
				}
			}
		}
	}
}

// A read-only mapping refuses AddUint64 with ErrReadOnly and keeps its bits,
// and answers ContainsUint64 as the writable filter it was saved from, on
// every kernel, layout and hash: its adds go through the probe package's
// fallback while its lookups stay in the probe.
func TestSingleKeyReadOnlyMappingRefusesAdds(t *testing.T) {
	in, absent := keys(61, 500), keys(62, 500)
	for _, kernel := range supportedKernels() {
		for _, layout := range []int{LayoutBlock512, LayoutSplit256} {
			for _, h := range []U64Hash{HashXXH3, HashMum} {
				what := fmt.Sprintf("%s, layout %d, hash %d", kernel, layout, h)
				f := mustNew(t, 1000, 0.01, WithKernel(kernel), WithLayout(layout), WithU64Hash(h))
				for _, x := range in {
					if err := f.AddUint64(x); err != nil {
						t.Fatalf("%s: add: %v", what, err)
					}
				}
				path := filepath.Join(t.TempDir(), "ro.bsf")
				if err := f.Save(path); err != nil {
					t.Fatal(err)
				}
				m, err := Map(path, ReadOnly)
				if err != nil {
					t.Fatalf("%s: map: %v", what, err)
				}
				before, _ := m.MarshalBinary()
				for _, x := range absent[:50] {
					if err := m.AddUint64(x); !errors.Is(err, ErrReadOnly) {
						t.Fatalf("%s: AddUint64 on a read-only mapping: %v", what, err)
					}
				}
				after, _ := m.MarshalBinary()
				if !bytes.Equal(before, after) {
					t.Fatalf("%s: a refused add changed the filter", what)
				}
				for _, x := range append(append([]uint64(nil), in...), absent...) {
					if m.ContainsUint64(x) != f.ContainsUint64(x) {
						t.Fatalf("%s: the mapping answers %x unlike its filter", what, x)
					}
				}
				m.Close()
				f.Close()
			}
		}
	}
}

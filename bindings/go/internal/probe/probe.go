// Package probe is the Go package's single-key probe: the bits of one hash
// in one block of a filter's bit array, tested, set, or set with a report,
// exactly as the C kernels do. It is its own package because a cgo package
// cannot hold Go assembly (probe_amd64.s).
//
// The layouts are kernels/layout.h (block512) and kernels/layout_split256.h
// (split256):
//
//	block = ((h >> 32) * nblocks) >> 32            block512: 16 32-bit words; split256: 8
//	sel   = SELECT_k[uint32(h) >> 26]              block512: which k of the 16 words
//	bit_w = (uint32(h) * salt[w]) >> 27            which bit of word w (split256: every w < 8)
//
// Each filter gets its probes once, when it is made (New): on amd64 a filter
// whose kernel is avx2 or avx512 probes in assembly (the whole block in one
// or two vector registers), others in pure Go. The kernel decides because
// the library has already checked that this CPU and OS run it (CPUID and
// XGETBV), and because it makes the choice testable: forcing a kernel
// (WithKernel, BLOOMSIMD_KERNEL) forces the probe, so the package's tests,
// which run every kernel this CPU runs byte for byte against the C kernels,
// run every probe. The build tag purego leaves the assembly out.
//
// A lookup never stops at the first clear bit. A branch on a bit of a block
// still being fetched is mispredicted about half the time for absent keys,
// and each misprediction discards the work of the calls after it that had
// begun in its shadow. Testing all k bits and branching once, on the answer,
// lets consecutive calls overlap their cache misses (README.md of the Go
// package, "Single keys against blobloom", has the figures).
package probe

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Kind names one implementation of a single-key operation.
type Kind uint8

const (
	None           Kind = iota // no bit array this package probes: the caller's C call
	Block512                   // pure Go
	Split256                   // pure Go
	Block512Atomic             // pure Go, 64-bit atomic loads and compare-and-swap ORs (concurrent filters)
	Split256Atomic             // pure Go, likewise
	Block512AVX2               // probe_amd64.s
	Split256AVX2               // probe_amd64.s
	Block512AVX512             // probe_amd64.s
	Split256AVX512             // probe_amd64.s
)

var names = [...]string{"none", "go-block512", "go-split256", "go-block512-atomic", "go-split256-atomic",
	"avx2-block512", "avx2-split256", "avx512-block512", "avx512-split256"}

func (k Kind) String() string { return names[k] }

// Hash names how a 64-bit key becomes its hash h (bloomsimd_probe_constants.hash).
type Hash uint8

const (
	XXH3 Hash = iota // XXH3_64bits_withSeed of the key's 8 little-endian bytes (hash 1)
	Mum              // one 64x64 -> 128-bit multiply, folded, and one 64-bit multiply (hash 3)
)

// Constants are what the library gives a binding's probe
// (bloomsimd_get_probe): the hash and its seed-derived words, and the
// layout's salts. Nothing of them is copied into this package.
type Constants struct {
	Hash       Hash
	Bitflip    uint64     // XXH3: its 4..8-byte path's constant of the seed
	MumA, MumB uint64     // Mum: the seed's two words
	Salts      [16]uint32 // bit_w = (uint32(h) * Salts[w]) >> 27; split256 uses the first 8
}

// State is everything a single-key call reads. The assembly reads Blocks,
// Nblocks, sel, lanes, Bitflip and salts at the offsets go_asm.h gives: the
// salts come in with the State pointer, as a memory operand beside the
// fields every probe reads anyway, so the assembly has no copy of them
// either (the same one vpmulld with a memory operand as a RIP-relative
// table would be).
type State struct {
	Blocks  unsafe.Pointer // block 0 (C memory, 64-byte aligned)
	Nblocks uint64
	sel     *[64]uint16     // block512: SELECT_k of kernels/layout.h section 3 (static C memory)
	lanes   *[64][16]uint32 // block512: sel[i] as 16 words of 0 or 1, word w for bit w (AVX2)
	picks   *selection      // block512: sel[i] as the list of its words (pure Go)

	Bitflip    uint64 // XXH3's constant for 8-byte keys, kept here to be read with the rest
	MumA, MumB uint64 // Mum's words of the seed
	Mum        bool   // 64-bit keys hash with Mum (the U64 entries read it)

	salts [16]uint32 // the library's salts (Constants.Salts)

	// AddKind also serves AddNew; None where the keys go to the fallbacks (a
	// filter with no bit array here, as the zero State is; a read-only
	// filter's adds). AddNewU64 runs AddKind's assembly kinds, which are
	// never concurrent, and counts each new key in *Items.
	ContainsKind, AddKind Kind
	Items                 *uint64 // the C filter's count of keys inserted new (bloomsimd_view.items)
}

// Filter describes a filter's bit array as the C library's view gives it.
type Filter struct {
	Blocks     unsafe.Pointer
	Nblocks    uint64
	Select     *[64]uint16 // block512's SELECT_k (nil for split256)
	Split      bool        // layout split256
	Concurrent bool
	ReadOnly   bool    // AddU64 goes to AddFallback, which refuses
	Items      *uint64 // the count of keys inserted new, which AddNewU64 keeps
	Kernel     string  // the filter's kernel ("avx512", ...)
}

// New chooses the probes of a filter.
func New(f Filter, c Constants) State {
	p := State{Blocks: f.Blocks, Nblocks: f.Nblocks, Bitflip: c.Bitflip, MumA: c.MumA, MumB: c.MumB,
		Mum: c.Hash == Mum, salts: c.Salts, Items: f.Items}
	p.ContainsKind, p.AddKind = Block512, Block512
	if f.Split {
		p.ContainsKind, p.AddKind = Split256, Split256
	} else {
		p.sel = f.Select
		t := tablesOf(f.Select)
		p.lanes, p.picks = &t.lanes, &t.picks
	}
	if f.Concurrent {
		p.ContainsKind, p.AddKind = p.ContainsKind+2, p.AddKind+2 // the Atomic kinds
	}
	if asm := asmKind(f.Kernel, f.Split); asm != None {
		// Lookups read whole blocks with vector loads, concurrent or not:
		// bits only go from 0 to 1, so any mix of old and new bytes a racing
		// read sees is a valid answer (the C kernels read the same way).
		// Concurrent inserts stay atomic, in Go.
		p.ContainsKind = asm
		if !f.Concurrent {
			p.AddKind = asm
		}
	}
	if f.ReadOnly {
		p.RefuseWrites()
	}
	return p
}

// RefuseWrites sends adds to the fallbacks (the filter became read-only).
func (p *State) RefuseWrites() { p.AddKind = None }

// One 64-bit key per call: ContainsU64, AddU64 and AddNewU64 (probe_amd64.s on amd64,
// probe_other.go elsewhere) hash the key with the filter's hash and probe
// it, in one call that a caller's one-line method inlines, so a loop of
// single-key calls makes one call per key. Keys of a filter this package
// does not probe (ContainsKind / AddKind None) go to the fallbacks, which
// package bloomsimd sets once to its C calls; p is the State of the
// caller's filter.
var (
	ContainsFallback func(p *State, key uint64) bool
	AddFallback      func(p *State, key uint64) error
	AddNewFallback   func(p *State, key uint64) (bool, error) // every key AddNewU64 does not probe
)

// One byte key per call: ContainsHash, AddHash and AddNewHash take the
// key's hash (the caller hashes byte keys: XXH3 of any length) and probe it
// as the U64 entries do, so a byte-key method is the hash call and one
// probe call. Their fallbacks take the hash.
var (
	ContainsHashFallback func(p *State, h uint64) bool
	AddHashFallback      func(p *State, h uint64) error
	AddNewHashFallback   func(p *State, h uint64) (bool, error) // every hash AddNewHash does not probe
)

// containsHashGo is ContainsHash for the kinds that run in Go.
func containsHashGo(p *State, h uint64) bool {
	if p.ContainsKind == None {
		return ContainsHashFallback(p, h)
	}
	return p.Contains(h)
}

// addHashGo is AddHash for the kinds that run in Go.
func addHashGo(p *State, h uint64) error {
	if p.AddKind == None {
		return AddHashFallback(p, h)
	}
	p.Add(h)
	return nil
}

// addNewHashGo is AddNewHash where the assembly does not probe: the
// caller's own path keeps the count, atomically on concurrent filters.
func addNewHashGo(p *State, h uint64) (isNew bool, err error) { return AddNewHashFallback(p, h) }

// containsU64Go is ContainsU64 for the kinds that run in Go (and where the
// assembly hands a key over).
func containsU64Go(p *State, key uint64) bool {
	if p.ContainsKind == None {
		return ContainsFallback(p, key)
	}
	return p.Contains(p.HashU64(key))
}

// addNewU64Go is AddNewU64 where the assembly does not probe: the caller's
// own path keeps the count, atomically on concurrent filters.
func addNewU64Go(p *State, key uint64) (isNew bool, err error) { return AddNewFallback(p, key) }

// addU64Go is AddU64 for the kinds that run in Go.
func addU64Go(p *State, key uint64) error {
	if p.AddKind == None {
		return AddFallback(p, key)
	}
	p.Add(p.HashU64(key))
	return nil
}

// selection lists, for each of the 64 rows of SELECT_k, its k words: the
// pure-Go probes loop over them. (A loop of bits.TrailingZeros32 over the
// row would be shorter, but without TZCNT, in the amd64 baseline, that is
// BSF, which on Intel CPUs depends on its destination register's old value:
// the previous key's loaded word, so each call would wait for the last one's
// cache miss.)
type selection struct {
	k     int
	words [64][16]uint8
}

// tables are the expansions of one SELECT_k table.
type tables struct {
	lanes [64][16]uint32
	picks selection
}

var (
	tablesMu   sync.Mutex
	tableCache = map[*[64]uint16]*tables{} // one per k (5 KiB): SELECT_k is one static table per k
)

// tablesOf expands a selection table, once per table per process.
func tablesOf(sel *[64]uint16) *tables {
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if t := tableCache[sel]; t != nil {
		return t
	}
	t := new(tables)
	t.picks.k = bits.OnesCount16(sel[0]) // every row has k bits
	for i := range sel {
		n := 0
		for w := 0; w < 16; w++ {
			t.lanes[i][w] = uint32(sel[i] >> w & 1)
			if sel[i]>>w&1 != 0 && n < 16 {
				t.picks.words[i][n] = uint8(w)
				n++
			}
		}
	}
	tableCache[sel] = t
	return t
}

// Contains, AddNew and Add are the pure-Go probes of hash h, for the kinds
// that run in Go (the one-call entries send the assembly kinds to
// probe_amd64.s and never here). Contains reports whether every bit of h is
// set; AddNew sets them and reports whether one was missing; Add sets them.
// An assembly kind reaching them anyway is probed as its layout in Go: its
// lookups through ContainsHash (a concurrent filter's lookups have an
// assembly kind, and their vector loads are the racy-safe read), its adds
// as plain stores (AddKind is an assembly kind only on filters that are not
// concurrent).
func (p *State) Contains(h uint64) bool {
	switch p.ContainsKind {
	case Block512:
		return p.block512Contains(h)
	case Split256:
		return p.split256Contains(h)
	case Block512Atomic:
		return p.block512ContainsAtomic(h)
	case Split256Atomic:
		return p.split256ContainsAtomic(h)
	default:
		return ContainsHash(p, h)
	}
}

func (p *State) AddNew(h uint64) bool {
	switch p.AddKind {
	case Block512, Block512AVX2, Block512AVX512:
		return p.block512AddNew(h)
	case Split256, Split256AVX2, Split256AVX512:
		return p.split256AddNew(h)
	case Block512Atomic:
		return p.block512AddNewAtomic(h)
	default:
		return p.split256AddNewAtomic(h)
	}
}

func (p *State) Add(h uint64) { p.AddNew(h) }

// HashU64 is the filter's hash of a 64-bit key: MumU64 or XXH3U64.
func (p *State) HashU64(key uint64) uint64 {
	if p.Mum {
		return p.MumU64(key)
	}
	return p.XXH3U64(key)
}

// MumU64 is hash 3 of kernels/layout.h section 1:
//
//	p = (key ^ a) * (bswap64(key) ^ b)      the full 128-bit product (bits.Mul64: one MULQ on amd64)
//	h = (lo64(p) ^ hi64(p)) * 0x9E3779B97F4A7C15
//	h ^ h >> 32
//
// bswap64 puts the key's low bytes, where sequential ids differ, in the high
// bytes of the second operand, so every key byte reaches both product
// halves; the second multiply spreads what the product leaves structured.
func (p *State) MumU64(key uint64) uint64 {
	hi, lo := bits.Mul64(key^p.MumA, bits.ReverseBytes64(key)^p.MumB)
	h := (lo ^ hi) * 0x9E3779B97F4A7C15
	return h ^ h>>32
}

// XXH3U64 is XXH3_64bits_withSeed of key's 8 little-endian bytes (the
// package bloomsimd's hashU64, and probe_amd64.s's HASH_U64): XXH3's
// 4..8-byte path, rrmxmx(rotl64(key, 32) ^ Bitflip, 8).
func (p *State) XXH3U64(key uint64) uint64 {
	const primeMX2 = 0x9FB21C651E98DF25
	h := bits.RotateLeft64(key, 32) ^ p.Bitflip
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= primeMX2
	h ^= (h >> 35) + 8
	h *= primeMX2
	return h ^ h>>28
}

func (p *State) block512(h uint64) *[16]uint32 {
	return (*[16]uint32)(unsafe.Add(p.Blocks, ((h>>32)*p.Nblocks>>32)*64))
}

func (p *State) split256(h uint64) *[8]uint32 {
	return (*[8]uint32)(unsafe.Add(p.Blocks, ((h>>32)*p.Nblocks>>32)*32))
}

// block512Contains: the loop always runs exactly k times, so its branch is
// predicted, and the answer is one branch.
func (p *State) block512Contains(h uint64) bool {
	lo := uint32(h)
	b := p.block512(h)
	var missing uint32
	for _, w := range p.picks.words[lo>>26][:p.picks.k] {
		w &= 15
		missing |= 1 << (lo * p.salts[w] >> 27) &^ b[w]
	}
	return missing == 0
}

func (p *State) block512AddNew(h uint64) bool {
	lo := uint32(h)
	b := p.block512(h)
	var missing uint32
	for _, w := range p.picks.words[lo>>26][:p.picks.k] {
		w &= 15
		bit := uint32(1) << (lo * p.salts[w] >> 27)
		missing |= bit &^ b[w]
		b[w] |= bit
	}
	return missing != 0
}

func (p *State) split256Contains(h uint64) bool {
	lo := uint32(h)
	b := p.split256(h)
	missing := 1<<(lo*p.salts[0]>>27)&^b[0] | 1<<(lo*p.salts[1]>>27)&^b[1] |
		1<<(lo*p.salts[2]>>27)&^b[2] | 1<<(lo*p.salts[3]>>27)&^b[3] |
		1<<(lo*p.salts[4]>>27)&^b[4] | 1<<(lo*p.salts[5]>>27)&^b[5] |
		1<<(lo*p.salts[6]>>27)&^b[6] | 1<<(lo*p.salts[7]>>27)&^b[7]
	return missing == 0
}

func (p *State) split256AddNew(h uint64) bool {
	lo := uint32(h)
	b := p.split256(h)
	var missing uint32
	for w := 0; w < 8; w++ {
		bit := uint32(1) << (lo * p.salts[w] >> 27)
		missing |= bit &^ b[w]
		b[w] |= bit
	}
	return missing != 0
}

// The concurrent probes read and OR 64 bits at a time, like the C library's
// concurrent calls (kernels/layout.h bloomsimd_block_or): each insert is one
// atomic read-modify-write of an aligned 64-bit word, so inserts from Go and
// C never lose each other's bits. Go 1.19 has no atomic OR: a
// compare-and-swap loop.

// masks512 is the key's bits as the block's 8 64-bit words.
func (p *State) masks512(h uint64) (m [8]uint64) {
	lo := uint32(h)
	for _, w := range p.picks.words[lo>>26][:p.picks.k] {
		w &= 15
		m[w>>1] |= uint64(1<<(lo*p.salts[w]>>27)) << (32 * (w & 1))
	}
	return m
}

func (p *State) masks256(h uint64) (m [4]uint64) {
	lo := uint32(h)
	for i := range m {
		m[i] = uint64(1<<(lo*p.salts[2*i]>>27)) | uint64(1<<(lo*p.salts[2*i+1]>>27))<<32
	}
	return m
}

func (p *State) block512ContainsAtomic(h uint64) bool {
	m := p.masks512(h)
	b := (*[8]uint64)(unsafe.Pointer(p.block512(h)))
	var missing uint64
	for i := range m {
		if m[i] != 0 {
			missing |= m[i] &^ atomic.LoadUint64(&b[i])
		}
	}
	return missing == 0
}

func (p *State) split256ContainsAtomic(h uint64) bool {
	m := p.masks256(h)
	b := (*[4]uint64)(unsafe.Pointer(p.split256(h)))
	var missing uint64
	for i := range m {
		missing |= m[i] &^ atomic.LoadUint64(&b[i])
	}
	return missing == 0
}

func (p *State) block512AddNewAtomic(h uint64) bool {
	m := p.masks512(h)
	b := (*[8]uint64)(unsafe.Pointer(p.block512(h)))
	isNew := false
	for i := range m {
		if m[i] != 0 && orAtomic(&b[i], m[i]) {
			isNew = true
		}
	}
	return isNew
}

func (p *State) split256AddNewAtomic(h uint64) bool {
	m := p.masks256(h)
	b := (*[4]uint64)(unsafe.Pointer(p.split256(h)))
	isNew := false
	for i := range m {
		if orAtomic(&b[i], m[i]) {
			isNew = true
		}
	}
	return isNew
}

// orAtomic sets mask in *p and reports whether any of its bits was clear.
func orAtomic(p *uint64, mask uint64) bool {
	for {
		old := atomic.LoadUint64(p)
		if old&mask == mask {
			return false
		}
		if atomic.CompareAndSwapUint64(p, old, old|mask) {
			return true
		}
	}
}

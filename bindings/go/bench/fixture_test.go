// Package bench compares package bloomsimd with bits-and-blooms/bloom/v3
// (README.md in the parent directory has the table and the commands). It is
// its own module so that the bloomsimd module itself depends on nothing.
package bench

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/greatroar/blobloom"
)

const (
	targetFPR = 0.01
	batch     = 1024
	keyBytes  = 16
	fprProbes = 2000000 // absent keys for the measured FPR (1% -> ~20000 hits, sigma 0.7%)
)

// sizes are the key counts benchmarked: BLOOMSIMD_BENCH_SIZES (e.g.
// "1e5,1e7"), or 10^5 and 10^7, or 10^5 alone with -short.
func sizes() []int {
	spec := os.Getenv("BLOOMSIMD_BENCH_SIZES")
	if spec == "" {
		spec = "1e5,1e7"
		if testing.Short() {
			spec = "1e5"
		}
	}
	var out []int
	for _, s := range strings.Split(spec, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || v < batch {
			panic("BLOOMSIMD_BENCH_SIZES: bad size " + s)
		}
		out = append(out, int(v))
	}
	return out
}

func sizeName(n int) string {
	e := 0
	for m := n; m >= 10 && m%10 == 0; m /= 10 {
		e++
	}
	if pow := intPow10(e); pow == n {
		return fmt.Sprintf("n=1e%d", e)
	}
	return fmt.Sprintf("n=%d", n)
}

func intPow10(e int) int {
	p := 1
	for ; e > 0; e-- {
		p *= 10
	}
	return p
}

// fixture holds one size's keys and filled filters, built once per process.
// Keys are random (math/rand, fixed seeds); queries alternate present and
// absent keys (a 50% hit rate: neither filter can stop at the first clear
// bit for every key).
type fixture struct {
	n                int
	keys, queries    []uint64
	absent           []uint64
	keyBuf, queryBuf []byte   // 16-byte keys, back to back
	strs, queryStrs  []string // the same bytes as strings (no copy)

	oursU64, oursStr *bloomsimd.Filter
	bbU64, bbStr     *bloom.BloomFilter

	// The single-key comparison with blobloom (blobloom_test.go): our filter
	// in each layout and blobloom's, filled with keys (blobloom's key is
	// its own hash), built on first use.
	singleOnce         sync.Once
	block512, split256 *bloomsimd.Filter
	blob               *blobloom.Filter

	fprOnce sync.Once
	fprRes  fprResult
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[int]*fixture{}
)

func getFixture(n int) *fixture {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f, ok := fixtures[n]; ok {
		return f
	}
	f := &fixture{n: n}
	rng := rand.New(rand.NewSource(int64(n)))
	f.keys = make([]uint64, n)
	for i := range f.keys {
		f.keys[i] = rng.Uint64()
	}
	f.absent = make([]uint64, max(n, fprProbes)) // n for the all-absent lookups
	for i := range f.absent {
		f.absent[i] = rng.Uint64() // a collision with a present key has probability ~n/2^64
	}
	f.queries = make([]uint64, n)
	for i := range f.queries {
		if i%2 == 0 {
			f.queries[i] = f.keys[rng.Intn(n)]
		} else {
			f.queries[i] = f.absent[i]
		}
	}
	f.keyBuf = make([]byte, n*keyBytes)
	f.queryBuf = make([]byte, n*keyBytes)
	rng.Read(f.keyBuf)
	for i := 0; i < n; i++ {
		q := f.queryBuf[i*keyBytes : (i+1)*keyBytes]
		if i%2 == 0 {
			j := rng.Intn(n)
			copy(q, f.keyBuf[j*keyBytes:(j+1)*keyBytes])
		} else {
			rng.Read(q)
		}
	}
	f.strs = stringsOver(f.keyBuf, n)
	f.queryStrs = stringsOver(f.queryBuf, n)

	var err error
	if f.oursU64, err = bloomsimd.New(uint64(n), targetFPR); err != nil {
		panic(err)
	}
	if f.oursStr, err = bloomsimd.New(uint64(n), targetFPR); err != nil {
		panic(err)
	}
	f.oursU64.AddUint64s(f.keys)
	f.oursStr.AddStrings(f.strs)
	f.bbU64 = bloom.NewWithEstimates(uint(n), targetFPR)
	f.bbStr = bloom.NewWithEstimates(uint(n), targetFPR)
	var buf [8]byte
	for _, k := range f.keys {
		binary.LittleEndian.PutUint64(buf[:], k)
		f.bbU64.Add(buf[:])
	}
	for i := 0; i < n; i++ {
		f.bbStr.Add(f.key(i))
	}
	fixtures[n] = f
	return f
}

func (f *fixture) key(i int) []byte { return f.keyBuf[i*keyBytes : (i+1)*keyBytes : (i+1)*keyBytes] }
func (f *fixture) query(i int) []byte {
	return f.queryBuf[i*keyBytes : (i+1)*keyBytes : (i+1)*keyBytes]
}

// stringsOver views buf as n strings of keyBytes bytes each (no copy).
func stringsOver(buf []byte, n int) []string {
	out := make([]string, n)
	for i := range out {
		b := buf[i*keyBytes : (i+1)*keyBytes]
		out[i] = *(*string)(unsafe.Pointer(&b)) // a string header is a slice header's first two words
	}
	return out
}

package bench

import (
	"encoding/binary"
	"runtime"
	"testing"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"

	"github.com/bits-and-blooms/bloom/v3"
)

// Each benchmark's op is one key: ns/op is nanoseconds per key. Batches are
// 1024 keys (one cgo call each). Adds and insert-new go into fresh filters
// sized for n; lookups query the fixture's filled filters with 50% present
// keys. bits-and-blooms has no batch call: its uint64 keys are the 8
// little-endian bytes through Add/Test, as its users write them.

var sinkBool bool
var sinkInt int

// contender is one implementation of one operation over keys [lo, hi) of a
// fixture; setup makes its state (fresh filters) before timing.
type contender struct {
	name  string
	setup func(fx *fixture) func(lo, hi int)
}

type operation struct {
	name  string
	ours  []contender
	peer  contender
	pairs [][2]int // which ours index is paired with the peer (paired.go)
}

func freshOurs(fx *fixture) *bloomsimd.Filter {
	f, err := bloomsimd.New(uint64(fx.n), targetFPR)
	if err != nil {
		panic(err)
	}
	return f
}

func freshBB(fx *fixture) *bloom.BloomFilter { return bloom.NewWithEstimates(uint(fx.n), targetFPR) }

func le(buf *[8]byte, k uint64) []byte {
	binary.LittleEndian.PutUint64(buf[:], k)
	return buf[:]
}

var operations = []operation{
	{name: "AddUint64",
		ours: []contender{
			{"bloomsimd-batch1024", func(fx *fixture) func(lo, hi int) {
				f := freshOurs(fx)
				return func(lo, hi int) { f.AddUint64s(fx.keys[lo:hi]) }
			}},
			{"bloomsimd-single", func(fx *fixture) func(lo, hi int) {
				f := freshOurs(fx)
				return func(lo, hi int) {
					for _, k := range fx.keys[lo:hi] {
						f.AddUint64(k)
					}
				}
			}},
		},
		peer: contender{"bitsandblooms", func(fx *fixture) func(lo, hi int) {
			f := freshBB(fx)
			var buf [8]byte
			return func(lo, hi int) {
				for _, k := range fx.keys[lo:hi] {
					f.Add(le(&buf, k))
				}
			}
		}},
	},
	{name: "ContainsUint64",
		ours: []contender{
			{"bloomsimd-batch1024", func(fx *fixture) func(lo, hi int) {
				out := make([]bool, batch)
				return func(lo, hi int) {
					for ; lo < hi; lo += batch {
						end := min(lo+batch, hi)
						sinkInt += fx.oursU64.ContainsUint64s(fx.queries[lo:end], out)
					}
				}
			}},
			{"bloomsimd-single", func(fx *fixture) func(lo, hi int) {
				return func(lo, hi int) {
					for _, k := range fx.queries[lo:hi] {
						if fx.oursU64.ContainsUint64(k) {
							sinkInt++
						}
					}
				}
			}},
		},
		peer: contender{"bitsandblooms", func(fx *fixture) func(lo, hi int) {
			var buf [8]byte
			return func(lo, hi int) {
				for _, k := range fx.queries[lo:hi] {
					if fx.bbU64.Test(le(&buf, k)) {
						sinkInt++
					}
				}
			}
		}},
	},
	{name: "AddStr16",
		ours: []contender{
			{"bloomsimd-batch1024", func(fx *fixture) func(lo, hi int) {
				f := freshOurs(fx)
				return func(lo, hi int) {
					for ; lo < hi; lo += batch {
						f.AddStrings(fx.strs[lo:min(lo+batch, hi)])
					}
				}
			}},
			{"bloomsimd-single", func(fx *fixture) func(lo, hi int) {
				f := freshOurs(fx)
				return func(lo, hi int) {
					for i := lo; i < hi; i++ {
						f.Add(fx.key(i))
					}
				}
			}},
		},
		peer: contender{"bitsandblooms", func(fx *fixture) func(lo, hi int) {
			f := freshBB(fx)
			return func(lo, hi int) {
				for i := lo; i < hi; i++ {
					f.Add(fx.key(i))
				}
			}
		}},
	},
	{name: "ContainsStr16",
		ours: []contender{
			{"bloomsimd-batch1024", func(fx *fixture) func(lo, hi int) {
				out := make([]bool, batch)
				return func(lo, hi int) {
					for ; lo < hi; lo += batch {
						sinkInt += fx.oursStr.ContainsStrings(fx.queryStrs[lo:min(lo+batch, hi)], out)
					}
				}
			}},
			{"bloomsimd-single", func(fx *fixture) func(lo, hi int) {
				return func(lo, hi int) {
					for i := lo; i < hi; i++ {
						if fx.oursStr.Contains(fx.query(i)) {
							sinkInt++
						}
					}
				}
			}},
		},
		peer: contender{"bitsandblooms", func(fx *fixture) func(lo, hi int) {
			return func(lo, hi int) {
				for i := lo; i < hi; i++ {
					if fx.bbStr.Test(fx.query(i)) {
						sinkInt++
					}
				}
			}
		}},
	},
	{name: "InsertNewUint64",
		ours: []contender{
			{"bloomsimd-batch1024", func(fx *fixture) func(lo, hi int) {
				f := freshOurs(fx)
				out := make([]bool, batch)
				return func(lo, hi int) {
					for ; lo < hi; lo += batch {
						end := min(lo+batch, hi)
						n, _ := f.InsertNewUint64s(fx.keys[lo:end], out[:end-lo])
						sinkInt += n
					}
				}
			}},
			{"bloomsimd-single", func(fx *fixture) func(lo, hi int) {
				f := freshOurs(fx)
				return func(lo, hi int) {
					for _, k := range fx.keys[lo:hi] {
						if isNew, _ := f.InsertNewUint64(k); isNew {
							sinkInt++
						}
					}
				}
			}},
		},
		peer: contender{"bitsandblooms-TestAndAdd", func(fx *fixture) func(lo, hi int) {
			f := freshBB(fx)
			var buf [8]byte
			return func(lo, hi int) {
				for _, k := range fx.keys[lo:hi] {
					if !f.TestAndAdd(le(&buf, k)) {
						sinkInt++
					}
				}
			}
		}},
	},
}

// runKeys calls fn over b.N keys in windows of `batch`, cycling over the
// fixture's n keys. Besides ns/op (wall time) it reports cpu-ns/op, the
// thread's CPU time per key: on a shared machine whose load exceeds its
// cores, wall time also counts the time the thread waited for a core.
func runKeys(b *testing.B, n int, fn func(lo, hi int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	c0 := threadCPU()
	defer func() { b.ReportMetric(float64(threadCPU()-c0)/float64(b.N), "cpu-ns/op") }()
	for done, pos := 0, 0; done < b.N; {
		cnt := min(batch, b.N-done)
		if pos+cnt > n {
			pos = 0
		}
		fn(pos, pos+cnt)
		pos += cnt
		done += cnt
	}
}

func benchOperation(b *testing.B, name string) { benchOperationOf(b, operations, name) }

func benchOperationOf(b *testing.B, ops []operation, name string) {
	var op *operation
	for i := range ops {
		if ops[i].name == name {
			op = &ops[i]
		}
	}
	for _, n := range sizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			fx := getFixture(n)
			for _, c := range append(append([]contender(nil), op.ours...), op.peer) {
				b.Run(c.name, func(b *testing.B) {
					fn := c.setup(fx)
					runKeys(b, n, fn)
				})
			}
		})
	}
}

func BenchmarkAddUint64(b *testing.B)       { benchOperation(b, "AddUint64") }
func BenchmarkContainsUint64(b *testing.B)  { benchOperation(b, "ContainsUint64") }
func BenchmarkAddStr16(b *testing.B)        { benchOperation(b, "AddStr16") }
func BenchmarkContainsStr16(b *testing.B)   { benchOperation(b, "ContainsStr16") }
func BenchmarkInsertNewUint64(b *testing.B) { benchOperation(b, "InsertNewUint64") }

// BenchmarkFPR reports each filter's memory (bits/key) and measured FPR on
// fprProbes absent random keys, both sized for n keys at 1%. Its ns/op is
// meaningless (measured once per process).
func BenchmarkFPR(b *testing.B) {
	for _, n := range sizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			fx := getFixture(n)
			r := fx.fpr()
			b.Run("bloomsimd", func(b *testing.B) {
				b.ReportMetric(r.oursBits, "bits/key")
				b.ReportMetric(100*r.oursFPR, "fpr%")
				b.ReportMetric(float64(r.oursK), "k")
			})
			b.Run("bitsandblooms", func(b *testing.B) {
				b.ReportMetric(r.bbBits, "bits/key")
				b.ReportMetric(100*r.bbFPR, "fpr%")
				b.ReportMetric(float64(r.bbK), "k")
			})
		})
	}
}

type fprResult struct {
	oursBits, oursFPR, bbBits, bbFPR float64
	oursK, bbK                       int
}

func (fx *fixture) fpr() fprResult {
	fx.fprOnce.Do(func() {
		n := float64(fx.n)
		info := fx.oursU64.Info()
		fp := 0
		var buf [8]byte
		for _, k := range fx.absent[:fprProbes] {
			if fx.bbU64.Test(le(&buf, k)) {
				fp++
			}
		}
		fx.fprRes = fprResult{
			oursBits: float64(info.Bits) / n,
			oursFPR:  float64(fx.oursU64.ContainsUint64s(fx.absent[:fprProbes], nil)) / fprProbes,
			oursK:    info.K,
			bbBits:   float64(fx.bbU64.Cap()) / n,
			bbFPR:    float64(fp) / fprProbes,
			bbK:      int(fx.bbU64.K()),
		}
	})
	return fx.fprRes
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

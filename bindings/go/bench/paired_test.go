package bench

import (
	"os"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// BenchmarkPaired measures the ratio targets the way a shared, noisy
// machine allows (shared/plan/COMMON.md): for each operation, each of R
// rounds runs one of our contenders and bits-and-blooms on the same window of
// keys back to back (the order alternating), so both halves of a pair see the
// same machine state. It reports the per-round ratio peer/ours (how many
// times faster we are) as its median, 10th and 90th percentiles and the
// median over the quietest tenth of rounds (the smallest ours+peer wall
// time), plus the same median ratio in thread CPU time (which excludes time
// the thread was not scheduled). Run it with -benchtime 1x; its ns/op is
// meaningless. R is BLOOMSIMD_BENCH_ROUNDS (default 41; 11 with -short).
func BenchmarkPaired(b *testing.B) { benchPaired(b, operations) }

// pairedRoundCount is BLOOMSIMD_BENCH_ROUNDS, or 41 (11 with -short).
func pairedRoundCount() int {
	rounds := 41
	if testing.Short() {
		rounds = 11
	}
	if s := os.Getenv("BLOOMSIMD_BENCH_ROUNDS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			rounds = v
		}
	}
	return rounds
}

func benchPaired(b *testing.B, ops []operation) {
	rounds := pairedRoundCount()
	for _, n := range sizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			fx := getFixture(n)
			for _, op := range ops {
				for _, ours := range op.ours {
					b.Run(op.name+"/"+ours.name, func(b *testing.B) {
						r := pairedRounds(fx, op.name, ours, op.peer, rounds)
						b.ReportMetric(r.oursNs, "ours-ns/key")
						b.ReportMetric(r.peerNs, "peer-ns/key")
						b.ReportMetric(r.oursCPU, "ours-cpu-ns/key")
						b.ReportMetric(r.peerCPU, "peer-cpu-ns/key")
						b.ReportMetric(r.p10, "x-p10")
						b.ReportMetric(r.median, "x-median")
						b.ReportMetric(r.p90, "x-p90")
						b.ReportMetric(r.quiet, "x-quiet10")
						b.ReportMetric(r.cpuP10, "x-cpu-p10")
						b.ReportMetric(r.cpuMedian, "x-cpu-median")
						b.ReportMetric(r.cpuP90, "x-cpu-p90")
					})
				}
			}
		})
	}
}

type pairedResult struct {
	oursNs, peerNs, oursCPU, peerCPU, p10, median, p90, quiet, cpuP10, cpuMedian, cpuP90 float64
}

var pairedCache = map[string]pairedResult{}

// threadCPU is clock_gettime(CLOCK_THREAD_CPUTIME_ID): nanosecond CPU time
// of this thread (getrusage's is counted in scheduler ticks, too coarse for
// a round of a few milliseconds).
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

func pairedRounds(fx *fixture, op string, ours, peer contender, rounds int) pairedResult {
	key := sizeName(fx.n) + "/" + op + "/" + ours.name + "/" + strconv.Itoa(rounds)
	if r, ok := pairedCache[key]; ok {
		return r
	}
	runtime.LockOSThread() // thread CPU time is this goroutine's
	defer runtime.UnlockOSThread()
	window := min(65536, fx.n)
	fo, fp := ours.setup(fx), peer.setup(fx)
	run := func(fn func(lo, hi int), lo int) (time.Duration, time.Duration) {
		c0, t0 := threadCPU(), time.Now()
		for i := lo; i < lo+window; i += batch {
			fn(i, min(i+batch, lo+window))
		}
		return time.Since(t0), threadCPU() - c0
	}
	type round struct{ ours, peer, oursCPU, peerCPU, ratio, cpuRatio float64 }
	rs := make([]round, rounds)
	for r := range rs {
		lo := (r * window) % (fx.n - window + 1)
		var wo, wp, co, cp time.Duration
		if r%2 == 0 {
			wo, co = run(fo, lo)
			wp, cp = run(fp, lo)
		} else {
			wp, cp = run(fp, lo)
			wo, co = run(fo, lo)
		}
		w := float64(window)
		rs[r] = round{float64(wo) / w, float64(wp) / w, float64(co) / w, float64(cp) / w, float64(wp) / float64(wo),
			float64(cp) / float64(co)}
	}
	pick := func(get func(round) float64, subset []round, q float64) float64 {
		v := make([]float64, len(subset))
		for i, r := range subset {
			v[i] = get(r)
		}
		sort.Float64s(v)
		return v[int(q*float64(len(v)-1)+0.5)]
	}
	ratio := func(r round) float64 { return r.ratio }
	res := pairedResult{
		oursNs:    pick(func(r round) float64 { return r.ours }, rs, 0.5),
		peerNs:    pick(func(r round) float64 { return r.peer }, rs, 0.5),
		oursCPU:   pick(func(r round) float64 { return r.oursCPU }, rs, 0.5),
		peerCPU:   pick(func(r round) float64 { return r.peerCPU }, rs, 0.5),
		p10:       pick(ratio, rs, 0.1),
		median:    pick(ratio, rs, 0.5),
		p90:       pick(ratio, rs, 0.9),
		cpuP10:    pick(func(r round) float64 { return r.cpuRatio }, rs, 0.1),
		cpuMedian: pick(func(r round) float64 { return r.cpuRatio }, rs, 0.5),
		cpuP90:    pick(func(r round) float64 { return r.cpuRatio }, rs, 0.9),
	}
	quiet := append([]round(nil), rs...)
	sort.Slice(quiet, func(i, j int) bool { return quiet[i].ours+quiet[i].peer < quiet[j].ours+quiet[j].peer })
	res.quiet = pick(ratio, quiet[:(len(quiet)+9)/10], 0.5)
	pairedCache[key] = res
	return res
}

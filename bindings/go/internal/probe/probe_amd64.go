//go:build amd64 && !purego

package probe

// Assembly reports whether this build has the assembly probes.
const Assembly = true

// asmKind is the assembly probe (probe_amd64.s) for a filter on this
// kernel and layout, or None. The kernel's name says that the library found
// the CPU and OS able to run it (dispatch/cpu_features.c: CPUID and XGETBV;
// its avx512 kernel needs AVX-512 F, BW, DQ and VL, its avx2 kernel AVX2), so
// a filter forced to avx2 on an AVX-512 CPU (WithKernel, BLOOMSIMD_KERNEL)
// probes as an AVX2-only CPU would. This package checks the CPU again
// itself (cpuRuns), so that a probe never runs where its instructions
// cannot.
func asmKind(kernel string, split bool) Kind {
	if !cpuRuns(kernel) {
		return None
	}
	switch {
	case kernel == "avx512" && split:
		return Split256AVX512
	case kernel == "avx512":
		return Block512AVX512
	case kernel == "avx2" && split:
		return Split256AVX2
	case kernel == "avx2":
		return Block512AVX2
	}
	return None
}

// cpuRuns reports whether this CPU and OS run the probes of a kernel
// ("avx2", "avx512"; false for any other name).
func cpuRuns(kernel string) bool {
	switch kernel {
	case "avx2":
		return cpu.avx2
	case "avx512":
		return cpu.avx512
	}
	return false
}

var cpu = detect()

type features struct{ avx2, avx512 bool }

// detect reads CPUID and XCR0 once per process: AVX2 needs the CPU's AVX
// and AVX2 and the OS saving YMM state (XCR0 bits 1, 2); the AVX-512 probes
// need F, DQ, BW, VL and BMI2 (the library's avx512 kernel's set) and the OS
// saving opmask and ZMM state (XCR0 bits 5, 6, 7).
func detect() (f features) {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return f
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return f
	}
	xcr0, _ := xgetbv()
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2, bmi2, avx512f, avx512dq, avx512bw, avx512vl = 1 << 5, 1 << 8, 1 << 16, 1 << 17, 1 << 30, 1 << 31
	f.avx2 = xcr0&0x6 == 0x6 && ebx7&avx2 != 0
	const avx512All = avx512f | avx512dq | avx512bw | avx512vl | bmi2
	f.avx512 = f.avx2 && xcr0&0xe6 == 0xe6 && ebx7&avx512All == avx512All
	return f
}

// cpuid and xgetbv are the instructions (probe_amd64.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// ContainsU64, AddU64 and AddNewU64 (probe.go): the assembly probes for
// the asm kinds, with the filter's hash (XXH3 or Mum) computed in the same
// call; any other kind jumps to containsU64Go / addU64Go / addNewU64Go. Not noescape: the
// fallbacks hand p to package bloomsimd.
func ContainsU64(p *State, key uint64) bool
func AddU64(p *State, key uint64) error
func AddNewU64(p *State, key uint64) (isNew bool, err error)

// ContainsHash, AddHash and AddNewHash (probe.go): the same for a hash
// computed by the caller (a byte key's); any other kind jumps to
// containsHashGo / addHashGo / addNewHashGo.
func ContainsHash(p *State, h uint64) bool
func AddHash(p *State, h uint64) error
func AddNewHash(p *State, h uint64) (isNew bool, err error)

// FloorU64 is not a probe: it hashes the key as the U64 probes do, finds
// its 64-byte block and reads one word of it, nothing more (its answer means
// nothing). The benchmarks call it as the floor of any single-key lookup
// made one call at a time: what the call, the hash and one cache miss cost.
// The filter must be block512 (it reads 64-byte blocks).
//
//go:noescape
func FloorU64(p *State, key uint64) bool

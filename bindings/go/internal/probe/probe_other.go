//go:build !amd64 || purego

package probe

// Without the assembly probes (another architecture, or the purego build
// tag) every filter probes in pure Go; these names only keep probe.go's
// switches compiling and are never chosen.

// Assembly reports whether this build has the assembly probes.
const Assembly = false

func asmKind(kernel string, split bool) Kind { return None }

func cpuRuns(kernel string) bool { return false }

// ContainsU64, AddU64 and AddNewU64 (probe.go) run in Go here.
func ContainsU64(p *State, key uint64) bool                  { return containsU64Go(p, key) }
func AddU64(p *State, key uint64) error                      { return addU64Go(p, key) }
func AddNewU64(p *State, key uint64) (isNew bool, err error) { return addNewU64Go(p, key) }

// ContainsHash, AddHash and AddNewHash (probe.go) run in Go here.
func ContainsHash(p *State, h uint64) bool                  { return containsHashGo(p, h) }
func AddHash(p *State, h uint64) error                      { return addHashGo(p, h) }
func AddNewHash(p *State, h uint64) (isNew bool, err error) { return addNewHashGo(p, h) }

func Block512ContainsAVX2(p *State, h uint64) bool        { return p.block512Contains(h) }
func Block512ContainsU64AVX2(p *State, key uint64) bool   { return p.block512Contains(p.XXH3U64(key)) }
func Block512AddAVX2(p *State, h uint64)                  { p.block512AddNew(h) }
func Block512AddU64AVX2(p *State, key uint64)             { p.block512AddNew(p.XXH3U64(key)) }
func Block512AddNewAVX2(p *State, h uint64) bool          { return p.block512AddNew(h) }
func Split256ContainsAVX2(p *State, h uint64) bool        { return p.split256Contains(h) }
func Split256ContainsU64AVX2(p *State, key uint64) bool   { return p.split256Contains(p.XXH3U64(key)) }
func Split256AddAVX2(p *State, h uint64)                  { p.split256AddNew(h) }
func Split256AddU64AVX2(p *State, key uint64)             { p.split256AddNew(p.XXH3U64(key)) }
func Split256AddNewAVX2(p *State, h uint64) bool          { return p.split256AddNew(h) }
func Block512ContainsAVX512(p *State, h uint64) bool      { return p.block512Contains(h) }
func Block512ContainsU64AVX512(p *State, key uint64) bool { return p.block512Contains(p.XXH3U64(key)) }
func Block512AddAVX512(p *State, h uint64)                { p.block512AddNew(h) }
func Block512AddU64AVX512(p *State, key uint64)           { p.block512AddNew(p.XXH3U64(key)) }
func Block512AddNewAVX512(p *State, h uint64) bool        { return p.block512AddNew(h) }
func Split256ContainsAVX512(p *State, h uint64) bool      { return p.split256Contains(h) }
func Split256ContainsU64AVX512(p *State, key uint64) bool { return p.split256Contains(p.XXH3U64(key)) }
func Split256AddAVX512(p *State, h uint64)                { p.split256AddNew(h) }
func Split256AddU64AVX512(p *State, key uint64)           { p.split256AddNew(p.XXH3U64(key)) }
func Split256AddNewAVX512(p *State, h uint64) bool        { return p.split256AddNew(h) }

// FloorU64 is not a probe: it hashes the key, finds its 64-byte block and
// reads one word of it (probe_amd64.go).
func FloorU64(p *State, key uint64) bool {
	h := p.XXH3U64(key)
	return p.block512(h)[0]&uint32(h) == uint32(h)
}

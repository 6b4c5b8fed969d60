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

// FloorU64 is not a probe: it hashes the key, finds its 64-byte block and
// reads one word of it (probe_amd64.go).
func FloorU64(p *State, key uint64) bool {
	h := p.XXH3U64(key)
	return p.block512(h)[0]&uint32(h) == uint32(h)
}

package bloomsimd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildDir is where the Go build found libbloomsimd.a (cgo.go): the
// repository's build/ unless BLOOMSIMD_BUILD_DIR says otherwise (the test
// stage of scripts/test.sh sets it together with CGO_LDFLAGS).
func buildDir() string {
	if d := os.Getenv("BLOOMSIMD_BUILD_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "build")
}

// interopTool compiles testdata/interop.c against the same static library:
// a separate C process that shares nothing with this one but the file.
func interopTool(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler:", err)
	}
	lib := filepath.Join(buildDir(), "libbloomsimd.a")
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("%s: %v (set BLOOMSIMD_BUILD_DIR)", lib, err)
	}
	bin := filepath.Join(t.TempDir(), "interop")
	cmd := exec.Command(cc, "-std=c11", "-O1", "-I../../include", "-DBLOOMSIMD_STATIC_DEFINE", "testdata/interop.c",
		lib, "-l:libxxhash.a", "-lm", "-lpthread", "-o", bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building interop: %v\n%s", err, out)
	}
	return bin
}

func TestFilesWrittenByGoLoadInCAndViceVersa(t *testing.T) {
	tool := interopTool(t)
	const n, seed = 20000, 4242
	dir := t.TempDir()

	// Go writes (pure-Go single keys for half, C batches for the other half), C checks.
	f := mustNew(t, 2*n, 0.01, WithSeed(seed))
	for i := uint64(0); i < n; i++ {
		if i%2 == 0 {
			f.AddUint64(keyOf(7, i))
		} else {
			f.AddUint64s([]uint64{keyOf(7, i)})
		}
		f.AddString(fmt.Sprintf("key-%d", i))
	}
	goFile := filepath.Join(dir, "from-go.bsf")
	if err := f.Save(goFile); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "check", goFile, fmt.Sprint(n), fmt.Sprint(seed)).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("C could not read the Go file: %v\n%s", err, out)
	}

	// C writes, Go loads and maps, and the bytes equal Go's own build.
	cFile := filepath.Join(dir, "from-c.bsf")
	if out, err := exec.Command(tool, "write", cFile, fmt.Sprint(n), fmt.Sprint(seed)).CombinedOutput(); err != nil {
		t.Fatalf("C write: %v\n%s", err, out)
	}
	for _, open := range []func() (*Filter, error){
		func() (*Filter, error) { return Load(cFile) },
		func() (*Filter, error) { return Map(cFile, ReadOnly) },
	} {
		g, err := open()
		if err != nil {
			t.Fatal(err)
		}
		for i := uint64(0); i < n; i++ {
			if !g.ContainsUint64(keyOf(7, i)) || !g.ContainsString(fmt.Sprintf("key-%d", i)) {
				t.Fatalf("Go misses C's key %d", i)
			}
		}
		sameBits(t, "C file vs Go build", g, f)
		g.Close()
	}
}

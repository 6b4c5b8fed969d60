package bloomsimd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildDir is the CMake build the interop test links its C program with:
// the repository's build/ unless BLOOMSIMD_BUILD_DIR says otherwise (env.sh
// sets it). That library is CMake's, not the package's own copy (cgo.go), so
// the test also proves the two builds write and read the same files.
func buildDir() string {
	if d := os.Getenv("BLOOMSIMD_BUILD_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "build")
}

// interopTool compiles testdata/interop.c against the CMake build's static
// library: a separate C process that shares nothing with this one but the file.
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

// The command-line tool (cli/, built with the library into BUILD_DIR/cli/bloomsimd,
// or BLOOMSIMD_CLI) reads a file Go wrote, and Go reads the file it builds from the
// same keys byte for byte. Skipped only when this build has no CLI.
func TestFilesWrittenByGoWorkInTheCLIAndViceVersa(t *testing.T) {
	cli := os.Getenv("BLOOMSIMD_CLI")
	if cli == "" {
		cli = filepath.Join(buildDir(), "cli", "bloomsimd")
	}
	if _, err := os.Stat(cli); err != nil {
		t.Skipf("no command-line tool in this build (%v)", err)
	}
	const n, seed = 5000, 99
	dir := t.TempDir()
	var lines, u64s strings.Builder
	f := mustNew(t, 2*n, 0.01, WithSeed(seed))
	for i := uint64(0); i < n; i++ {
		key := fmt.Sprintf("key-%d", i)
		fmt.Fprintln(&lines, key)
		fmt.Fprintln(&u64s, keyOf(7, i))
		f.AddString(key)
		f.AddUint64(keyOf(7, i))
	}
	linesPath, u64Path := filepath.Join(dir, "lines.txt"), filepath.Join(dir, "u64.txt")
	os.WriteFile(linesPath, []byte(lines.String()), 0o644)
	os.WriteFile(u64Path, []byte(u64s.String()), 0o644)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(cli, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("bloomsimd %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}

	goFile := filepath.Join(dir, "go.bsf")
	if err := f.Save(goFile); err != nil {
		t.Fatal(err)
	}
	run("check", goFile)
	if got := run("query", "-c", goFile, linesPath); got != fmt.Sprint(n) {
		t.Fatalf("CLI finds %s of %d string keys in the Go file", got, n)
	}
	if got := run("query", "-c", "--u64", goFile, u64Path); got != fmt.Sprint(n) {
		t.Fatalf("CLI finds %s of %d u64 keys in the Go file", got, n)
	}

	cliFile := filepath.Join(dir, "cli.bsf")
	run("create", cliFile, "--capacity", fmt.Sprint(2*n), "--fpr", "0.01", "--seed", fmt.Sprint(seed))
	run("add", cliFile, linesPath)
	run("add", "--u64", cliFile, u64Path)
	g, err := Load(cliFile)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sameBits(t, "CLI file vs Go build", g, f)
}

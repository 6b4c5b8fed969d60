package csources

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// This test derives bindings/go's lib_*.c files and kernel_list.inc from
// CMakeLists.txt and fails if a file there differs from what it derives, so a
// source, a kernel or a kernel's flags added to the CMake build cannot be
// missing from the Go build. It regenerates them with
//
//	go test ./internal/csources -update
var update = flag.Bool("update", false, "rewrite the lib_*.c files and kernel_list.inc from CMakeLists.txt")

const generatedBy = "Generated from CMakeLists.txt by internal/csources (go test ./internal/csources -update)."

// cmakeKernel is one bloomsimd_kernel(name flags...) line: arch is the GOARCH
// whose branch of CMakeLists.txt lists it ("" for every architecture).
type cmakeKernel struct {
	name, arch string
	flags      []string
}

// cmakeBuild reads the library's sources and kernels from CMakeLists.txt:
// BLOOMSIMD_CORE_SOURCES, the directories globbed into
// BLOOMSIMD_EXTRA_CORE_SOURCES, and the bloomsimd_kernel lines in the x86-64
// and AArch64 branches. A kernel under if(BLOOMSIMD_EMULATED_NEON) is the
// NEON kernel through SIMDe on x86, a test aid that needs libsimde-dev: the
// Go build leaves it out.
func cmakeBuild(t *testing.T, root string) (sources []string, kernels []cmakeKernel) {
	text, err := os.ReadFile(filepath.Join(root, "CMakeLists.txt"))
	if err != nil {
		t.Fatal(err)
	}
	core := regexp.MustCompile(`(?s)set\(BLOOMSIMD_CORE_SOURCES\s+([^)]*)\)`).FindSubmatch(text)
	if core == nil {
		t.Fatal("CMakeLists.txt: no set(BLOOMSIMD_CORE_SOURCES ...)")
	}
	sources = strings.Fields(string(core[1]))
	glob := regexp.MustCompile(`(?s)file\(GLOB BLOOMSIMD_EXTRA_CORE_SOURCES([^)]*)\)`).FindSubmatch(text)
	if glob == nil {
		t.Fatal("CMakeLists.txt: no file(GLOB BLOOMSIMD_EXTRA_CORE_SOURCES ...)")
	}
	for _, pattern := range regexp.MustCompile(`\$\{PROJECT_SOURCE_DIR\}/(\S+)`).FindAllSubmatch(glob[1], -1) {
		matches, err := filepath.Glob(filepath.Join(root, string(pattern[1])))
		if err != nil || len(matches) == 0 {
			t.Fatalf("CMakeLists.txt: %s matches no file (%v)", pattern[1], err)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(root, m)
			sources = append(sources, filepath.ToSlash(rel))
		}
	}

	// The kernel lines, with the branch each one is in.
	arch, depth, emulatedDepth := "", 0, -1
	kernelLine := regexp.MustCompile(`^bloomsimd_kernel\((\w+)([^)]*)\)`)
	scanner := bufio.NewScanner(bytes.NewReader(text))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		switch {
		case strings.HasPrefix(line, "if(CMAKE_SYSTEM_PROCESSOR MATCHES") && strings.Contains(line, "x86_64"):
			arch, depth = "amd64", 1
		case strings.HasPrefix(line, "elseif(CMAKE_SYSTEM_PROCESSOR MATCHES") && strings.Contains(line, "aarch64") && depth == 1:
			arch = "arm64"
		case strings.HasPrefix(line, "if(BLOOMSIMD_EMULATED_NEON)"):
			depth++
			emulatedDepth = depth
		case strings.HasPrefix(line, "if("):
			if depth > 0 {
				depth++
			}
		case strings.HasPrefix(line, "endif("):
			if depth == emulatedDepth {
				emulatedDepth = -1
			}
			if depth > 0 {
				depth--
				if depth == 0 {
					arch = ""
				}
			}
		case kernelLine.MatchString(line):
			m := kernelLine.FindStringSubmatch(line)
			if emulatedDepth < 0 {
				kernels = append(kernels, cmakeKernel{name: m[1], arch: arch, flags: strings.Fields(m[2])})
			}
		}
	}
	if len(kernels) == 0 || kernels[len(kernels)-1].name != "scalar" {
		t.Fatalf("CMakeLists.txt: no kernel list ending with scalar found (%v)", kernels)
	}
	return sources, kernels
}

// targetOf turns a kernel's -m flags into the target string of GCC's
// `#pragma GCC target` and clang's target attribute: -mavx2 -mbmi2 is
// "avx2,bmi2". A flag that is not an -m flag has no such equivalent, and the
// test fails rather than build the kernel differently from CMake.
func targetOf(t *testing.T, k cmakeKernel) string {
	var isa []string
	for _, f := range k.flags {
		if !strings.HasPrefix(f, "-m") {
			t.Fatalf("kernel %s: flag %q has no target-pragma equivalent; teach csources_test.go", k.name, f)
		}
		isa = append(isa, strings.TrimPrefix(f, "-m"))
	}
	return strings.Join(isa, ",")
}

// wrapperName is the file of this package that compiles path (relative to
// the repository root): src/persist/file.c is lib_src_persist_file.c; a
// kernel for one architecture gets that GOARCH as its suffix, which Go's
// build rules (and so the module's users' builds) honour for C files too.
func wrapperName(path, arch string) string {
	name := "lib_" + strings.ReplaceAll(strings.TrimSuffix(path, ".c"), "/", "_")
	if arch != "" {
		name += "_" + arch
	}
	return name + ".c"
}

const wrapperHead = "//go:build !bloomsimd_system\n\n"

func sourceWrapper(path string) string {
	return wrapperHead + "// " + generatedBy + "\n" +
		"// The library's " + path + ", compiled at the baseline instruction set like every\n" +
		"// file outside kernels/ (src/baseline.h refuses anything else), with _GNU_SOURCE as CMake defines it.\n" +
		"#define _GNU_SOURCE 1\n" +
		"#include \"../../" + path + "\"\n"
}

// kernelWrapper enables the kernel's instruction set for its file alone, as
// CMake's per-file flags do; cgo has one set of flags for every C file of a
// package. The intrinsics and libc headers come first, outside the target
// region, so that only the kernel's own functions are built for it.
func kernelWrapper(t *testing.T, k cmakeKernel) string {
	path := "kernels/" + k.name + ".c"
	var b strings.Builder
	b.WriteString(wrapperHead + "// " + generatedBy + "\n")
	if len(k.flags) == 0 {
		b.WriteString("// The library's " + path + " (baseline instruction set, as in CMakeLists.txt).\n")
		b.WriteString("#include \"../../" + path + "\"\n")
		return b.String()
	}
	target := targetOf(t, k)
	fmt.Fprintf(&b, "// The library's %s with its instruction set (CMakeLists.txt: %s) enabled for\n", path, strings.Join(k.flags, " "))
	b.WriteString("// this file alone: GCC's target pragma, or clang's target attribute on every function.\n")
	b.WriteString("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n#include <xxhash.h>\n")
	if k.arch == "amd64" {
		b.WriteString("#include <immintrin.h>\n")
	}
	fmt.Fprintf(&b, "#if defined(__clang__)\n#pragma clang attribute push(__attribute__((target(%q))), apply_to = function)\n", target)
	fmt.Fprintf(&b, "#elif defined(__GNUC__)\n#pragma GCC push_options\n#pragma GCC target(%q)\n", target)
	b.WriteString("#else\n#error \"bloomsimd: the kernels need GCC or clang (target pragmas)\"\n#endif\n")
	b.WriteString("#include \"../../" + path + "\"\n")
	b.WriteString("#if defined(__clang__)\n#pragma clang attribute pop\n#else\n#pragma GCC pop_options\n#endif\n")
	return b.String()
}

// kernelList is CMake's generated kernel_list.inc for every architecture at
// once: the kernels best first, each under the branch that compiles it.
func kernelList(kernels []cmakeKernel) string {
	macro := map[string]string{"amd64": "defined(__x86_64__)", "arm64": "defined(__aarch64__)"}
	var b strings.Builder
	b.WriteString("/* " + generatedBy + "\n * The kernels best first, as CMake's kernel_list.inc for this architecture. */\n")
	open := ""
	for _, k := range kernels {
		if k.arch != open {
			if open != "" {
				b.WriteString("#endif\n")
			}
			if k.arch != "" {
				b.WriteString("#if " + macro[k.arch] + "\n")
			}
			open = k.arch
		}
		b.WriteString("BLOOMSIMD_KERNEL_ENTRY(" + k.name + ")\n")
	}
	if open != "" {
		b.WriteString("#endif\n")
	}
	return b.String()
}

func TestCSources(t *testing.T) {
	pkg := filepath.Join("..", "..") // bindings/go
	root := filepath.Join(pkg, "..", "..")
	sources, kernels := cmakeBuild(t, root)
	want := map[string]string{"kernel_list.inc": kernelList(kernels)}
	arches := map[string]string{}
	for _, s := range sources {
		want[wrapperName(s, "")] = sourceWrapper(s)
	}
	for _, k := range kernels {
		if k.arch != "" && k.arch != "amd64" && k.arch != "arm64" {
			t.Fatalf("kernel %s: architecture %q", k.name, k.arch)
		}
		name := wrapperName("kernels/"+k.name+".c", k.arch)
		want[name] = kernelWrapper(t, k)
		arches[name] = k.arch
	}

	have, _ := filepath.Glob(filepath.Join(pkg, "lib_*.c"))
	for _, path := range have {
		name := filepath.Base(path)
		if _, ok := want[name]; !ok {
			if *update {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s compiles no source of CMakeLists.txt: remove it (go test ./internal/csources -update)", name)
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(pkg, name))
		if err == nil && string(got) == want[name] {
			continue
		}
		if *update {
			if err := os.WriteFile(filepath.Join(pkg, name), []byte(want[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is not what CMakeLists.txt gives (go test ./internal/csources -update): %v", name, err)
	}

	// Go's file-name rules must keep each wrapper on the architectures its
	// kernel is for, and no others (a name ending in a GOOS would vanish).
	for _, goarch := range []string{"amd64", "arm64", "riscv64"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", goarch, true
		for _, name := range names {
			if !strings.HasSuffix(name, ".c") {
				continue
			}
			match, err := ctx.MatchFile(pkg, name)
			if err != nil {
				t.Fatal(err)
			}
			if wantMatch := arches[name] == "" || arches[name] == goarch; match != wantMatch {
				t.Errorf("%s: built on linux/%s = %v, want %v", name, goarch, match, wantMatch)
			}
		}
	}
}

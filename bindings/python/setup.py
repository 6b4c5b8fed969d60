"""Builds bloomsimd._bloomsimd, the C extension, with libbloomsimd compiled into it.

Where the library comes from:
  csrc/ (an sdist)          the library's sources: `setup.py sdist` (and so `python3 -m build`)
                            copies include/, src/, kernels/, dispatch/ and CMakeLists.txt
                            from the checkout into the sdist, so it builds anywhere
  ../.. (a checkout)        the same files in place
  BLOOMSIMD_BUILD_DIR=DIR   a CMake build's DIR/libbloomsimd.a instead (tests/run.sh: the
                            suite links the very library its C reference program uses)

Compiling the sources needs a C compiler and libxxhash-dev, nothing else: no CMake. The
sources and each kernel's flags come from CMakeLists.txt (kernel_build below), every
kernel of this architecture is compiled with its own instruction set, and dispatch/ picks
one at run time by CPUID, as in the CMake build. libxxhash is linked statically when its
libxxhash.a exists (Debian's libxxhash-dev), so the wheel needs only libc at run time.

The module includes only include/bloomsimd.h. The library's symbols are hidden in it
(-fvisibility=hidden, -Wl,--exclude-libs,ALL), so it cannot clash with another copy.

BLOOMSIMD_SANITIZE=address,undefined builds with those sanitizers (for a library built the
same way); BLOOMSIMD_WERROR=1 turns the extension's own warnings into errors.
"""
import os
import platform
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)  # setuptools takes the sources relative to this file
# An sdist carries the sources in csrc/; a checkout has them two levels up.
LIBRARY_DIRS = ("include", "src", "kernels", "dispatch")
ROOT = os.path.join(HERE, "csrc") if os.path.isdir(os.path.join(HERE, "csrc")) else os.path.normpath(
    os.path.join(HERE, "..", ".."))
HEADER = os.path.join(ROOT, "include", "bloomsimd.h")


def version():
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#define BLOOMSIMD_VERSION_%s (\d+)" % p, text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def kernel_build():
    """(sources, kernels) of CMakeLists.txt for this machine: the library's sources
    (BLOOMSIMD_CORE_SOURCES and the globbed directories) and [(name, flags)] best first,
    from the bloomsimd_kernel lines of this architecture's branch. The NEON kernel that
    CMake also builds on x86 through SIMDe (a test aid) is left out."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    sources = re.search(r"set\(BLOOMSIMD_CORE_SOURCES\s+([^)]*)\)", text).group(1).split()
    globbed = re.search(r"file\(GLOB BLOOMSIMD_EXTRA_CORE_SOURCES([^)]*)\)", text).group(1)
    for pattern in re.findall(r"\$\{PROJECT_SOURCE_DIR\}/(\S+)/\*\.c", globbed):
        sources += sorted(pattern + "/" + n for n in os.listdir(os.path.join(ROOT, pattern)) if n.endswith(".c"))
    machine = platform.machine().lower()
    arch = "x86_64" if machine in ("x86_64", "amd64") else "aarch64" if machine in ("aarch64", "arm64") else None
    kernels, branch, depth, emulated = [], None, 0, None
    for line in (line.strip() for line in text.splitlines()):
        if line.startswith("if(CMAKE_SYSTEM_PROCESSOR MATCHES") and "x86_64" in line:
            branch, depth = "x86_64", 1
        elif line.startswith("elseif(CMAKE_SYSTEM_PROCESSOR MATCHES") and "aarch64" in line and depth == 1:
            branch = "aarch64"
        elif line.startswith("if("):
            if depth:
                depth += 1
                if line.startswith("if(BLOOMSIMD_EMULATED_NEON)"):
                    emulated = depth
        elif line.startswith("endif("):
            if depth == emulated:
                emulated = None
            if depth:
                depth -= 1
                branch = branch if depth else None
        else:
            m = re.match(r"bloomsimd_kernel\((\w+)([^)]*)\)", line)
            if m and emulated is None and branch in (None, arch):
                kernels.append((m.group(1), m.group(2).split()))
    if not kernels or kernels[-1][0] != "scalar":
        raise SystemExit("bloomsimd: no kernel list ending with scalar in %s/CMakeLists.txt" % ROOT)
    return sources, kernels


def pkg_config_libs(module, fallback):
    try:
        out = subprocess.check_output(["pkg-config", "--libs", module], text=True)
    except (OSError, subprocess.CalledProcessError):
        return fallback
    return out.split()


class BuildExt(build_ext):
    def compile_library(self, extra_args):
        """Compiles the library's sources and kernels (two at a time by default, as many as
        -j/--parallel says); returns the object files."""
        if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
            raise SystemExit("bloomsimd: the libbloomsimd sources are not at %s; build from the sdist or a "
                             "checkout, or set BLOOMSIMD_BUILD_DIR to a build holding libbloomsimd.a" % ROOT)
        sources, kernels = kernel_build()
        generated = os.path.join(os.path.abspath(self.build_temp), "generated")
        os.makedirs(generated, exist_ok=True)
        with open(os.path.join(generated, "kernel_list.inc"), "w", encoding="utf-8") as f:
            f.write("".join("BLOOMSIMD_KERNEL_ENTRY(%s)\n" % name for name, _ in kernels))
        jobs = [(s, []) for s in sources] + [("kernels/%s.c" % name, flags) for name, flags in kernels]
        output = os.path.join(os.path.abspath(self.build_temp), "libbloomsimd")
        args = ["-std=c11", "-O3", "-fvisibility=hidden"] + extra_args
        macros = [("_GNU_SOURCE", "1"), ("NDEBUG", None), ("BLOOMSIMD_STATIC_DEFINE", None)]
        paths = [os.path.join(ROOT, s) for s, _ in jobs]
        for obj in self.compiler.object_filenames(paths, output_dir=output):
            os.makedirs(os.path.dirname(obj), exist_ok=True)

        def compile_one(job):
            path, flags = job
            return self.compiler.compile([path], output_dir=output, macros=macros,
                                         include_dirs=[os.path.join(ROOT, "include"), generated],
                                         extra_postargs=args + flags)[0]

        with ThreadPoolExecutor(max_workers=int(self.parallel or 2)) as pool:
            return list(pool.map(compile_one, zip(paths, (f for _, f in jobs))))

    def build_extensions(self):
        compile_args = ["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
                        "-Wno-missing-field-initializers"]
        sanitize = os.environ.get("BLOOMSIMD_SANITIZE")
        sanitize_args = ["-fsanitize=" + sanitize, "-fno-omit-frame-pointer",
                         "-fno-sanitize-recover=all"] if sanitize else []
        static_xxhash = subprocess.run(self.compiler.compiler[:1] + ["-print-file-name=libxxhash.a"],
                                       capture_output=True, text=True).stdout.strip()
        xxhash = ["-l:libxxhash.a"] if os.path.isabs(static_xxhash) else pkg_config_libs("libxxhash", ["-lxxhash"])
        link_args = ["-Wl,--exclude-libs,ALL"] + xxhash + ["-lm", "-lpthread"]
        build = os.environ.get("BLOOMSIMD_BUILD_DIR")
        if build:
            library = os.path.join(os.path.abspath(build), "libbloomsimd.a")
            if not os.path.exists(library):
                raise SystemExit("bloomsimd: %s missing: cmake --build %s --target bloomsimd_static" % (library, build))
            objects = [library]
        else:
            objects = self.compile_library(sanitize_args)
            if not sanitize:  # Python's CFLAGS have -g: 10 MB of DWARF in a 1 MB module
                link_args.append("-Wl,--strip-debug")
        if os.environ.get("BLOOMSIMD_WERROR"):
            compile_args.append("-Werror")
        compile_args += sanitize_args
        if sanitize:
            link_args.append("-fsanitize=" + sanitize)
        for ext in self.extensions:
            ext.extra_objects += objects
            ext.depends += objects  # a rebuilt library relinks the module
            ext.extra_compile_args += compile_args
            ext.extra_link_args += link_args
        super().build_extensions()


class Sdist(sdist):
    """Puts the library's sources into the sdist as csrc/ (from the checkout, or from the
    csrc/ of the sdist being rebuilt), so that the sdist builds with no checkout, and the
    shared test vectors into tests/fixtures/, so that its tests run with no checkout."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        csrc = os.path.join(base_dir, "csrc")
        for d in LIBRARY_DIRS:
            shutil.copytree(os.path.join(ROOT, d), os.path.join(csrc, d),
                            ignore=shutil.ignore_patterns("*.o", "__pycache__"))
        shutil.copy2(os.path.join(ROOT, "CMakeLists.txt"), csrc)
        # the answers every binding's tests check (tests/test_hash_vectors.py): from the
        # checkout's tests/fixtures/ (an sdist being rebuilt already has them in tests/)
        vectors = os.path.join(base_dir, "tests", "fixtures", "hash_vectors.txt")
        if not os.path.exists(vectors):
            os.makedirs(os.path.dirname(vectors), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, "tests", "fixtures", "hash_vectors.txt"), vectors)


SOURCES = ["module.c", "errors.c", "options.c", "filter.c", "keys.c", "batch.c", "arrow.c", "batch_ops.c",
           "persist.c", "setops.c"]

setup(
    name="bloomsimd",
    version=version(),
    description="SIMD Bloom filters: zero-copy NumPy and Arrow batches that release the GIL",
    long_description=open(os.path.join(HERE, "README.md"), encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.10",
    install_requires=["numpy"],
    packages=["bloomsimd"],
    package_data={"bloomsimd": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("bloomsimd._bloomsimd", [os.path.join("src", s) for s in SOURCES],
                           include_dirs=[os.path.join(ROOT, "include")], depends=[HEADER, "src/pybloomsimd.h"])],
    cmdclass={"build_ext": BuildExt, "sdist": Sdist},
    zip_safe=False,
)

"""Builds bloomsimd._bloomsimd, the C extension, linked with libbloomsimd.a.

Where the static library comes from:
  BLOOMSIMD_BUILD_DIR=DIR   a CMake build of the repository holding DIR/libbloomsimd.a
                            (the tests and the benchmark use the tree's build/)
  otherwise                 CMake builds it from this checkout into build/libbloomsimd/
                            (only the bloomsimd_static target; needs cmake, a C compiler,
                            pkg-config, libxxhash-dev and libsimde-dev)

The module includes only include/bloomsimd.h. The library's symbols are hidden in it
(-Wl,--exclude-libs,ALL), so it cannot clash with another copy of libbloomsimd.

BLOOMSIMD_SANITIZE=address,undefined builds the module with those sanitizers (for a
library built the same way); BLOOMSIMD_WERROR=1 turns warnings into errors.
"""
import os
import re
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
HEADER = os.path.join(ROOT, "include", "bloomsimd.h")
os.chdir(HERE)  # setuptools takes the sources relative to this file


def version():
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#define BLOOMSIMD_VERSION_%s (\d+)" % p, text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def cmake_build():
    """Builds libbloomsimd.a from this checkout; returns its build directory."""
    if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
        raise SystemExit("bloomsimd: the libbloomsimd sources are not at %s; build from a checkout, or set "
                         "BLOOMSIMD_BUILD_DIR to a build holding libbloomsimd.a" % ROOT)
    cmake = shutil.which("cmake")
    if not cmake:
        raise SystemExit("bloomsimd: cmake not found (apt-get install cmake), or set BLOOMSIMD_BUILD_DIR")
    build = os.path.join(HERE, "build", "libbloomsimd")
    configure = [cmake, "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                 "-DBLOOMSIMD_BUILD_TESTS=OFF", "-DBLOOMSIMD_BUILD_BENCH=OFF"]
    if shutil.which("ninja") and not os.path.exists(os.path.join(build, "Makefile")):
        configure += ["-G", "Ninja"]
    subprocess.check_call(configure)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    subprocess.check_call([cmake, "--build", build, "--target", "bloomsimd_static", "--parallel", jobs])
    return build


def pkg_config_libs(module, fallback):
    try:
        out = subprocess.check_output(["pkg-config", "--libs", module], text=True)
    except (OSError, subprocess.CalledProcessError):
        return fallback
    return out.split()


class BuildExt(build_ext):
    def build_extensions(self):
        build = os.environ.get("BLOOMSIMD_BUILD_DIR") or cmake_build()
        library = os.path.join(os.path.abspath(build), "libbloomsimd.a")
        if not os.path.exists(library):
            raise SystemExit("bloomsimd: %s missing: cmake --build %s --target bloomsimd_static" % (library, build))
        compile_args = ["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
                        "-Wno-missing-field-initializers"]
        link_args = ["-Wl,--exclude-libs,ALL"] + pkg_config_libs("libxxhash", ["-lxxhash"]) + ["-lm", "-lpthread"]
        if os.environ.get("BLOOMSIMD_WERROR"):
            compile_args.append("-Werror")
        sanitize = os.environ.get("BLOOMSIMD_SANITIZE")
        if sanitize:
            compile_args += ["-fsanitize=" + sanitize, "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"]
            link_args.append("-fsanitize=" + sanitize)
        for ext in self.extensions:
            ext.extra_objects.append(library)
            ext.depends.append(library)  # a rebuilt library relinks the module
            ext.extra_compile_args += compile_args
            ext.extra_link_args += link_args
        super().build_extensions()


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
    cmdclass={"build_ext": BuildExt},
    zip_safe=False,
)

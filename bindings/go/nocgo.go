//go:build !cgo

package bloomsimd

// Without cgo the package cannot be built: it is libbloomsimd's C code. The
// compiler stops here with a message that says so, before the rest of the
// package's missing C symbols.
const _ = bloomsimd_needs_cgo__build_with_CGO_ENABLED_1_and_a_C_compiler_and_libxxhash_dev

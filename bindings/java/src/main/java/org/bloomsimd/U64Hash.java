package org.bloomsimd;

/**
 * How 64-bit keys ({@code put(long)}, {@code mightContain(long)}, the {@code long[]} batches) are
 * hashed ({@code include/bloomsimd.h}, {@code BLOOMSIMD_U64_XXH3} and {@code BLOOMSIMD_U64_MUM}).
 * Byte and string keys are XXH3 with either. A filter's file records its hash.
 */
public enum U64Hash {
    /**
     * XXH3_64bits_withSeed of the key's 8 little-endian bytes: a 64-bit key and the same 8 bytes as
     * a byte key are the same key. The default.
     */
    XXH3(0x8),
    /**
     * One 64x64 -> 128-bit multiply of two seeded words of the key and one 64-bit multiply
     * ({@code kernels/layout.h} section 1): a shorter hash with the same FPR on sequential, strided
     * and structured ids. A 64-bit key is then not the same key as its 8 bytes.
     */
    MUM(0x10);

    /** The header's flag (bloomsimd_options.flags, bloomsimd_info.flags). */
    final int flag;

    U64Hash(int flag) {
        this.flag = flag;
    }

    /** The hash a filter's flags name, or null for one this package does not know (Parquet's). */
    static U64Hash ofFlags(long flags) {
        return (flags & MUM.flag) != 0 ? MUM : (flags & XXH3.flag) != 0 ? XXH3 : null;
    }
}

package org.bloomsimd;

/**
 * The block layouts ({@code include/bloomsimd.h}, "Block layouts"). Every kernel reads and writes
 * both, and a filter's file records its layout.
 */
public enum Layout {
    /** The kernel's default (the layout measured fastest for it). */
    DEFAULT(0),
    /** 64-byte blocks, k of 16 32-bit words get one bit each: the fewest bits per key. */
    BLOCK512(2),
    /** 32-byte blocks, every one of 8 words gets one bit (k = 8): Parquet's split-block rules. */
    SPLIT256(3);

    final int id;

    Layout(int id) {
        this.id = id;
    }

    static Layout of(long id) {
        return id == 3 ? SPLIT256 : id == 2 ? BLOCK512 : DEFAULT;
    }
}

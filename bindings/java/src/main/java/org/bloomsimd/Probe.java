package org.bloomsimd;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The single-key lookup of a 64-bit key in pure Java, over the filter's own bit array (a direct
 * {@link ByteBuffer} of the C memory), so {@link BloomFilter#mightContain(long)} costs no JNI
 * crossing. The same bits as the C kernels, by the rules of {@code kernels/layout.h} (layout 2,
 * block512) and {@code kernels/layout_split256.h} (layout 3, split256):
 *
 * <pre>
 *   h     = XXH3_64bits_withSeed(8 little-endian bytes of key, seed)
 *         = rrmxmx(rotl64(key, 32) ^ bitflip(seed), 8)     (XXH3's 4..8-byte path; both
 *                                                              32-bit reads of an 8-byte key)
 *   block = ((h >>> 32) * nblocks) >>> 32                    (unsigned; nblocks <= 2^32)
 *   lo    = (int) h
 *   block512:  sel = SELECT_k[lo >>> 26], a 16-bit mask with k bits: for each word w in sel,
 *              bit (lo * SALT[w]) >>> 27 of 32-bit word w of the 64-byte block
 *   split256:  for each word w of 0..7, bit (lo * SALT[w]) >>> 27 of word w of the 32-byte block
 * </pre>
 *
 * The SELECT_k table comes from the library ({@code bloomsimd_view.select}), never a copy. Words are
 * little-endian 32-bit, read plainly, or as halves of opaque (atomic, unordered) 64-bit reads when
 * the filter is concurrent, as the C library's relaxed 64-bit loads. Not used (the JNI call instead) for layered
 * filters, which have no single bit array, and bit arrays of 2 GiB or more, which a ByteBuffer
 * cannot span. ProbeTest checks every answer against the C kernels for every k and layout.
 */
final class Probe {
    /** kernels/layout.h's BLOOMSIMD_SALTS (split256 uses the first 8). */
    private static final int[] SALT = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b,
        0x9efc4947, 0x5c6bfb31, 0x3c6ef373, 0x9e3779b9, 0x2545f491, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f, 0x165667b1,
        0xd3a2646d};
    /** 64-bit words: a concurrent filter's writers OR 64 bits at a time, and the view's contract asks readers for 64-bit atomic loads. */
    private static final VarHandle WORD64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long PRIME_MX2 = 0x9FB21C651E98DF25L;
    /** XXH3's default secret, bytes 8..15 and 16..23, little-endian. */
    private static final long SECRET_8 = 0x1cad21f72c81017cL;
    private static final long SECRET_16 = 0xdb979083e96dd4deL;

    private final ByteBuffer words;
    private final long nblocks;
    private final int[] select;
    private final long bitflip;
    private final boolean split;
    private final boolean concurrent;

    private Probe(ByteBuffer words, long nblocks, int[] select, long seed, boolean split, boolean concurrent) {
        this.words = words.order(ByteOrder.LITTLE_ENDIAN);
        this.nblocks = nblocks;
        this.select = select;
        this.bitflip = bitflip(seed);
        this.split = split;
        this.concurrent = concurrent;
    }

    /** The probe of a filter, or null when only the JNI call can answer (see above). */
    static Probe of(long handle) {
        long[] g = new long[6];
        short[] sel = new short[64];
        ByteBuffer words = Native.view(handle, g, sel);
        if (words == null) {
            return null;
        }
        boolean split = g[3] == Layout.SPLIT256.id;
        if (!split && g[3] != Layout.BLOCK512.id) {
            return null; // a layout this package does not implement: the C call answers
        }
        int[] select = null;
        if (!split) {
            select = new int[64];
            for (int i = 0; i < 64; i++) {
                select[i] = sel[i] & 0xffff;
            }
        }
        return new Probe(words, g[0], select, g[2], split, g[4] != 0);
    }

    /** XXH3's constant of the 4..8-byte path for this seed: the seed with its low half byte-swapped on top. */
    static long bitflip(long seed) {
        long mixed = seed ^ ((long) Integer.reverseBytes((int) seed) << 32);
        return (SECRET_8 ^ SECRET_16) - mixed;
    }

    /** XXH3_64bits_withSeed of key's 8 little-endian bytes. */
    static long hash(long key, long bitflip) {
        long h = Long.rotateLeft(key, 32) ^ bitflip;
        h ^= Long.rotateLeft(h, 49) ^ Long.rotateLeft(h, 24);
        h *= PRIME_MX2;
        h ^= (h >>> 35) + 8;
        h *= PRIME_MX2;
        return h ^ (h >>> 28);
    }

    long hash(long key) {
        return hash(key, bitflip);
    }

    boolean contains(long key) {
        long h = hash(key, bitflip);
        int lo = (int) h;
        long block = ((h >>> 32) * nblocks) >>> 32;
        if (split) {
            int base = (int) block << 5;
            for (int w = 0; w < 8; w++) {
                if ((word(base + 4 * w) & (1 << ((lo * SALT[w]) >>> 27))) == 0) {
                    return false;
                }
            }
            return true;
        }
        int base = (int) block << 6;
        for (int sel = select[lo >>> 26]; sel != 0; sel &= sel - 1) {
            int w = Integer.numberOfTrailingZeros(sel);
            if ((word(base + 4 * w) & (1 << ((lo * SALT[w]) >>> 27))) == 0) {
                return false;
            }
        }
        return true;
    }

    /** The 32-bit word at offset: read plainly, or as its half of an opaque (atomic, unordered) 64-bit read. */
    private int word(int offset) {
        if (!concurrent) {
            return words.getInt(offset);
        }
        long pair = (long) WORD64.getOpaque(words, offset & ~7);
        return (int) (pair >>> ((offset & 4) << 3));
    }
}

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
 *   h     = XXH3_64bits_withSeed(8 little-endian bytes of key, seed)      (U64Hash.XXH3)
 *         = rrmxmx(rotl64(key, 32) ^ bitflip, 8)     (XXH3's 4..8-byte path; both 32-bit
 *                                                     reads of an 8-byte key)
 *   h     = mum(key): p = (key ^ a) * (bswap64(key) ^ b), 128 bits       (U64Hash.MUM)
 *           h = (lo64(p) ^ hi64(p)) * 0x9E3779B97F4A7C15; h ^ (h >>> 32)
 *   block = ((h >>> 32) * nblocks) >>> 32                    (unsigned; nblocks <= 2^32)
 *   lo    = (int) h
 *   block512:  sel = SELECT_k[lo >>> 26], a 16-bit mask with k bits: for each word w in sel,
 *              bit (lo * SALT[w]) >>> 27 of 32-bit word w of the 64-byte block
 *   split256:  for each word w of 0..7, bit (lo * SALT[w]) >>> 27 of word w of the 32-byte block
 * </pre>
 *
 * Everything a filter's seed and layout make of these comes from the library
 * ({@code bloomsimd_get_probe}, through {@code Native.view}): XXH3's bitflip, mum's a and b, the
 * SALT and SELECT_k tables; nothing is copied here. Words are little-endian 32-bit, read plainly,
 * or as halves of opaque (atomic, unordered) 64-bit reads when the filter is concurrent, as the C
 * library's relaxed 64-bit loads. Not used (the JNI call instead) for layered filters, which have
 * no single bit array, Parquet filters (XXH64 of a value's encoding), a hash this class does not
 * know, and bit arrays of 2 GiB or more, which a ByteBuffer cannot span. ProbeTest checks every
 * answer against the C kernels for every k, layout and hash; VectorsTest checks the hash and the
 * whole probe against {@code tests/fixtures/hash_vectors.txt}.
 */
final class Probe {
    /** 64-bit words: a concurrent filter's writers OR 64 bits at a time, and the view's contract asks readers for 64-bit atomic loads. */
    private static final VarHandle WORD64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long PRIME_MX2 = 0x9FB21C651E98DF25L;
    private static final long MUM_FOLD = 0x9E3779B97F4A7C15L;

    private final ByteBuffer words;
    private final long nblocks;
    private final int[] select;
    private final int[] salt;
    private final boolean mum;
    private final long bitflip;
    private final long mumA;
    private final long mumB;
    private final boolean split;
    private final boolean concurrent;

    private Probe(ByteBuffer words, long[] g, int[] select, int[] salt) {
        this.words = words.order(ByteOrder.LITTLE_ENDIAN);
        this.nblocks = g[0];
        this.select = select;
        this.salt = salt;
        this.split = g[3] == Layout.SPLIT256.id;
        this.concurrent = g[4] != 0;
        this.mum = g[6] == U64Hash.MUM.flag; // bloomsimd_probe_constants.hash is the header's flag
        this.bitflip = g[7];
        this.mumA = g[8];
        this.mumB = g[9];
    }

    /** The probe of a filter, or null when only the JNI call can answer (see above). */
    static Probe of(long handle) {
        long[] g = new long[10];
        short[] sel = new short[64];
        int[] salt = new int[16];
        ByteBuffer words = Native.view(handle, g, sel, salt);
        if (words == null) {
            return null;
        }
        boolean split = g[3] == Layout.SPLIT256.id;
        if (!split && g[3] != Layout.BLOCK512.id) {
            return null; // a layout this package does not implement: the C call answers
        }
        if (g[6] != U64Hash.XXH3.flag && g[6] != U64Hash.MUM.flag) {
            return null; // a hash this package does not implement: likewise
        }
        int[] select = null;
        if (!split) {
            select = new int[64];
            for (int i = 0; i < 64; i++) {
                select[i] = sel[i] & 0xffff;
            }
        }
        return new Probe(words, g, select, salt);
    }

    /** XXH3_64bits_withSeed of key's 8 little-endian bytes, given the seed's bitflip. */
    static long xxh3(long key, long bitflip) {
        long h = Long.rotateLeft(key, 32) ^ bitflip;
        h ^= Long.rotateLeft(h, 49) ^ Long.rotateLeft(h, 24);
        h *= PRIME_MX2;
        h ^= (h >>> 35) + 8;
        h *= PRIME_MX2;
        return h ^ (h >>> 28);
    }

    /**
     * Mum of key with the seed's words a and b. The 128-bit product's high half is unsigned;
     * {@link Math#multiplyHigh} is the signed one, which is smaller by y when x is negative (as a
     * signed number x = x_unsigned - 2^64, so x * y loses 2^64 * y) and by x when y is: adding
     * those back gives the unsigned high half (mod 2^64).
     */
    static long mum(long key, long a, long b) {
        long x = key ^ a;
        long y = Long.reverseBytes(key) ^ b;
        long hi = Math.multiplyHigh(x, y) + ((x >> 63) & y) + ((y >> 63) & x);
        long h = (x * y ^ hi) * MUM_FOLD;
        return h ^ (h >>> 32);
    }

    /** The filter's hash of a 64-bit key. */
    long hash(long key) {
        return mum ? mum(key, mumA, mumB) : xxh3(key, bitflip);
    }

    /** The block of hash h: Lemire's multiply-shift of its high 32 bits onto 0..nblocks-1. */
    long block(long h) {
        return ((h >>> 32) * nblocks) >>> 32;
    }

    /**
     * Every probed bit is read and the answer is one test at the end, with no branch per word (an
     * absent key finds a clear bit in a word about half the time, which a loop that returned early
     * mispredicts). split256 reads its block as four 64-bit words, two 32-bit words each (little-
     * endian: word w in the low half): each buffer read costs a bounds and a state check, and
     * halving them took a cached lookup from about 21 to 14 ns on Zen 3 (OpenJDK 17).
     */
    boolean contains(long key) {
        long h = hash(key);
        int lo = (int) h;
        long block = block(h);
        if (split) {
            int base = (int) block << 5;
            long missing = 0; // the probed bits that are clear
            for (int w = 0; w < 8; w += 2) {
                long bits = (1L << ((lo * salt[w]) >>> 27)) | (1L << (32 + ((lo * salt[w + 1]) >>> 27)));
                missing |= ~word64(base + 4 * w) & bits;
            }
            return missing == 0;
        }
        int missing = 0;
        int base = (int) block << 6;
        for (int sel = select[lo >>> 26]; sel != 0; sel &= sel - 1) {
            int w = Integer.numberOfTrailingZeros(sel);
            missing |= ~word(base + 4 * w) & (1 << ((lo * salt[w]) >>> 27));
        }
        return missing == 0;
    }

    /** Test hook: the bit array (VectorsTest writes a probe vector's bits into it). */
    ByteBuffer wordsForTest() {
        return words;
    }

    /** The 64-bit word at offset (a multiple of 8): read plainly, or opaquely (atomic, unordered). */
    private long word64(int offset) {
        return concurrent ? (long) WORD64.getOpaque(words, offset) : words.getLong(offset);
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

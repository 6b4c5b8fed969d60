package org.bloomsimd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * tests/fixtures/hash_vectors.txt, the answers every implementation of the 64-bit-key probe must
 * give (written by tests/fixtures/gen_hash_vectors.py from kernels/layout.h, independently of any
 * of them): the pure-Java hash of both hashes, and the whole pure-Java probe. The build passes the
 * directory as -Dbloomsimd.fixtures; without it, the repository's, from bindings/java.
 */
class VectorsTest {
    private static List<String[]> rows(String kind) throws IOException {
        String dir = System.getProperty("bloomsimd.fixtures", "../../tests/fixtures");
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(dir, "hash_vectors.txt"))) {
            String[] f = line.trim().split("\\s+");
            if (f[0].equals(kind)) {
                out.add(f);
            }
        }
        return out;
    }

    private static long hex(String s) {
        return Long.parseUnsignedLong(s, 16);
    }

    private static U64Hash hashOf(String id) {
        switch (id) {
            case "1":
                return U64Hash.XXH3;
            case "3":
                return U64Hash.MUM;
            default:
                throw new AssertionError("unknown hash id " + id);
        }
    }

    @Test
    void javaHashIsEveryHashVector() throws IOException {
        int[] count = new int[4];
        for (String[] f : rows("hash")) {
            assertEquals(5, f.length, String.join(" ", f));
            long seed = hex(f[2]);
            long key = hex(f[3]);
            long want = hex(f[4]);
            try (BloomFilter b = BloomFilter.builder().expectedInsertions(100).seed(seed).u64Hash(hashOf(f[1])).build()) {
                assertTrue(b.probesInJava());
                assertEquals(hashOf(f[1]), b.u64Hash());
                assertEquals(want, b.javaHash(key), String.join(" ", f));
                assertEquals(want, b.hash(key), "the library: " + String.join(" ", f));
            }
            count[Integer.parseInt(f[1])]++;
        }
        assertTrue(count[1] >= 60 && count[3] >= 60, "too few vectors: xxh3 " + count[1] + ", mum " + count[3]);
    }

    /**
     * Each probe row, on every kernel this CPU runs, plain and concurrent: in an empty filter of the
     * row's shape holding exactly the row's bits in the row's block, the Java probe finds the key,
     * and misses it once any one of those bits is cleared: it tests each of them and no other.
     * The library's own put sets exactly those bits (so the row is the filter's, not only Java's).
     */
    @Test
    void javaProbeIsEveryProbeVector() throws IOException {
        List<String[]> probes = rows("probe");
        assertTrue(probes.size() >= 40, "only " + probes.size() + " probe vectors");
        for (String kernel : TestSupport.kernels()) {
            for (boolean concurrent : new boolean[] {false, true}) {
                for (String[] f : probes) {
                    String what = kernel + " concurrent=" + concurrent + ": " + String.join(" ", f);
                    assertEquals(9, f.length, what);
                    Layout layout = Layout.of(Long.parseLong(f[1]));
                    int k = Integer.parseInt(f[2]);
                    long nblocks = Long.parseLong(f[5]);
                    long key = hex(f[6]);
                    int block = Integer.parseInt(f[7]);
                    int blockBytes = layout == Layout.SPLIT256 ? 32 : 64;
                    List<Integer> bits = new ArrayList<>();
                    for (String b : f[8].split(",")) {
                        bits.add(Integer.parseInt(b));
                    }
                    assertEquals(k, bits.size(), what);
                    try (BloomFilter b = BloomFilter.builder().bits(nblocks * blockBytes * 8).hashFunctions(k)
                            .layout(layout).seed(hex(f[4])).u64Hash(hashOf(f[3])).kernel(kernel)
                            .concurrent(concurrent).build()) {
                        Probe p = b.probeForTest();
                        assertNotNull(p, what);
                        ByteBuffer words = p.wordsForTest();
                        assertEquals(nblocks * blockBytes, words.capacity(), what);
                        assertFalse(b.mightContain(key), what);
                        for (int bit : bits) {
                            setBit(words, block * blockBytes, bit, true);
                        }
                        assertTrue(b.mightContain(key), what);
                        for (int bit : bits) {
                            setBit(words, block * blockBytes, bit, false);
                            assertFalse(b.mightContain(key), what + ": found with bit " + bit + " cleared");
                            setBit(words, block * blockBytes, bit, true);
                        }
                        // the library's put leaves the array as it is: the row's bits are its own
                        ByteBuffer before = copy(words);
                        assertFalse(b.put(key), what);
                        assertEquals(before, copy(words), what);
                        double[] fill = new double[Native.INFO_DOUBLES];
                        Native.info(b.handleForTest(), new long[10], fill);
                        assertEquals(bits.size(), Math.round(fill[3] * nblocks * blockBytes * 8), what);
                    }
                }
            }
        }
    }

    private static void setBit(ByteBuffer words, int base, int bit, boolean on) {
        int at = base + 4 * (bit / 32);
        int mask = 1 << (bit % 32);
        int w = words.getInt(at);
        words.putInt(at, on ? w | mask : w & ~mask);
    }

    private static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.capacity());
        for (int i = 0; i < b.capacity(); i++) {
            c.put(i, b.get(i));
        }
        return c;
    }
}

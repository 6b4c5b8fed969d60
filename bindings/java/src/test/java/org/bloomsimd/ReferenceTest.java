package org.bloomsimd;

import static org.bloomsimd.TestSupport.bytesOf;
import static org.bloomsimd.TestSupport.cFilter;
import static org.bloomsimd.TestSupport.keys;
import static org.bloomsimd.TestSupport.probes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every insert path gives the bytes the C library gives for the same keys, seed and geometry. */
class ReferenceTest {
    @TempDir Path dir;

    static Stream<Arguments> geometries() {
        List<Arguments> a = new ArrayList<>();
        for (String kernel : TestSupport.kernels()) {
            a.add(Arguments.of(kernel, 0, Layout.BLOCK512, 0L));
            a.add(Arguments.of(kernel, 0, Layout.SPLIT256, 42L));
            a.add(Arguments.of(kernel, 1, Layout.BLOCK512, 7L));
            a.add(Arguments.of(kernel, 8, Layout.BLOCK512, -1L));
            a.add(Arguments.of(kernel, 16, Layout.BLOCK512, 0x123456789abcdefL));
        }
        return a.stream();
    }

    private BloomFilter javaFilter(String kernel, int k, Layout layout, long seed) {
        return BloomFilter.builder().expectedInsertions(5000).fpp(0.01).seed(seed).hashFunctions(k).layout(layout)
                .kernel(kernel).build();
    }

    @ParameterizedTest(name = "{0} k={1} {2} seed={3}")
    @MethodSource("geometries")
    void putIsAddNewU64(String kernel, int k, Layout layout, long seed) throws Exception {
        Path c = cFilter(dir, "c.bsf", 5000, 0.01, seed, k, layout, kernel, 4000, "new");
        try (BloomFilter f = javaFilter(kernel, k, layout, seed)) {
            assertEquals(kernel, f.kernel());
            int fresh = 0;
            for (long key : keys(4000)) {
                fresh += f.put(key) ? 1 : 0;
            }
            assertTrue(fresh > 3900 && fresh <= 4000, "new keys " + fresh);
            assertArrayEquals(Files.readAllBytes(c), bytesOf(f, dir));
        }
    }

    @ParameterizedTest(name = "{0} k={1} {2} seed={3}")
    @MethodSource("geometries")
    void batchesAreTheCBatches(String kernel, int k, Layout layout, long seed) throws Exception {
        Path batch = cFilter(dir, "batch.bsf", 5000, 0.01, seed, k, layout, kernel, 4000, "batch");
        Path fresh = cFilter(dir, "new.bsf", 5000, 0.01, seed, k, layout, kernel, 4000, "new");
        long[] keys = keys(4000);
        try (BloomFilter a = javaFilter(kernel, k, layout, seed); BloomFilter b = javaFilter(kernel, k, layout, seed)) {
            a.putAll(keys);
            assertArrayEquals(Files.readAllBytes(batch), bytesOf(a, dir));
            boolean[] isNew = b.putNew(keys);
            assertArrayEquals(Files.readAllBytes(fresh), bytesOf(b, dir));
            // the batch's answers are the single-key answers of the same sequence
            try (BloomFilter c = javaFilter(kernel, k, layout, seed)) {
                for (int i = 0; i < keys.length; i++) {
                    assertEquals(c.put(keys[i]), isNew[i], "key " + i);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} k={1} {2} seed={3}")
    @MethodSource("geometries")
    void stringKeysAreUtf8Bytes(String kernel, int k, Layout layout, long seed) throws Exception {
        Path c = cFilter(dir, "bytes.bsf", 5000, 0.01, seed, k, layout, kernel, 3000, "bytes");
        try (BloomFilter f = javaFilter(kernel, k, layout, seed)) {
            for (int i = 0; i < 3000; i++) {
                f.put("key-" + i);
            }
            assertArrayEquals(Files.readAllBytes(c), bytesOf(f, dir));
        }
    }

    @ParameterizedTest(name = "{0} k={1} {2} seed={3}")
    @MethodSource("geometries")
    void lookupsAnswerAsC(String kernel, int k, Layout layout, long seed) throws Exception {
        // a small filter, overfilled, so that many probes are false positives: answers of both kinds
        Path c = cFilter(dir, "q.bsf", 2000, 0.05, seed, k, layout, kernel, 3000, "batch");
        String expected = TestSupport.run("query", c.toString(), "20000");
        long[] probes = probes(20000);
        for (BloomFilter f : new BloomFilter[] {BloomFilter.load(c, kernel, false), BloomFilter.map(c, kernel)}) {
            try (f) {
                boolean[] batch = f.mightContainAll(probes);
                StringBuilder single = new StringBuilder();
                StringBuilder batched = new StringBuilder();
                for (int i = 0; i < probes.length; i++) {
                    single.append(f.mightContain(probes[i]) ? '1' : '0');
                    batched.append(batch[i] ? '1' : '0');
                }
                assertEquals(expected, single.toString());
                assertEquals(expected, batched.toString());
                long hits = expected.chars().filter(ch -> ch == '1').count();
                assertTrue(hits > 100 && hits < 19900, "hits " + hits);
            }
        }
    }

    @Test
    void byteKeyFormsAgree() throws Exception {
        Path c = cFilter(dir, "bytes.bsf", 5000, 0.01, 9, 0, Layout.BLOCK512, null, 1000, "bytes");
        byte[] expected = Files.readAllBytes(c);
        byte[][] keys = new byte[1000][];
        int total = 0;
        for (int i = 0; i < 1000; i++) {
            keys[i] = ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            total += keys[i].length;
        }
        byte[] data = new byte[total];
        int[] offsets = new int[1001];
        for (int i = 0, o = 0; i < 1000; i++) {
            System.arraycopy(keys[i], 0, data, o, keys[i].length);
            o += keys[i].length;
            offsets[i + 1] = o;
        }
        java.nio.ByteBuffer dd = java.nio.ByteBuffer.allocateDirect(total + 3).position(3);
        dd.put(data).position(3);
        java.nio.ByteBuffer ob = java.nio.ByteBuffer.allocateDirect(4 * 1001).order(java.nio.ByteOrder.nativeOrder());
        ob.asIntBuffer().put(offsets);
        java.nio.IntBuffer od = ob.asIntBuffer();
        List<java.util.function.Consumer<BloomFilter>> forms = List.of(
            f -> { for (byte[] k : keys) f.put(k); },
            f -> { for (byte[] k : keys) f.put(java.nio.ByteBuffer.wrap(k)); },
            f -> { for (byte[] k : keys) f.put(java.nio.ByteBuffer.allocateDirect(k.length).put(k).flip()); },
            f -> { for (byte[] k : keys) f.put(java.nio.ByteBuffer.wrap(k).asReadOnlyBuffer()); },
            f -> { byte[] padded = new byte[keys[5].length + 4]; System.arraycopy(keys[5], 0, padded, 2, keys[5].length);
                   for (int i = 0; i < 1000; i++) { if (i == 5) f.put(padded, 2, keys[5].length); else f.put(keys[i]); } },
            f -> f.putNew(data, offsets),
            f -> f.putNew(dd, od, null, 0),
            f -> f.putNew(java.nio.ByteBuffer.wrap(data), java.nio.IntBuffer.wrap(offsets), new boolean[1000], 0));
        for (int i = 0; i < forms.size(); i++) {
            try (BloomFilter f = BloomFilter.builder().expectedInsertions(5000).fpp(0.01).seed(9).layout(Layout.BLOCK512)
                    .build()) {
                forms.get(i).accept(f);
                assertArrayEquals(expected, bytesOf(f, dir), "form " + i);
                for (byte[] k : keys) {
                    assertTrue(f.mightContain(k));
                    assertTrue(f.mightContain(java.nio.ByteBuffer.wrap(k)));
                }
                boolean[] all = f.mightContainAll(data, offsets);
                boolean[] direct = new boolean[1000];
                assertEquals(1000, f.mightContainAll(dd, od, direct, 0));
                for (int j = 0; j < 1000; j++) {
                    assertTrue(all[j] && direct[j]);
                }
            }
        }
    }
}

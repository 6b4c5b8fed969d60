package org.bloomsimd;

import static org.bloomsimd.TestSupport.bytesOf;
import static org.bloomsimd.TestSupport.keys;
import static org.bloomsimd.TestSupport.probes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Guava-shaped calls and the batches, against each other and the library's numbers. */
class ApiTest {
    @TempDir Path dir;

    @Test
    void putReportsWhetherTheFilterChanged() {
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            assertTrue(f.put(42L));
            assertFalse(f.put(42L));
            assertTrue(f.mightContain(42L));
            assertTrue(f.put("sale"));
            assertFalse(f.put("sale"));
            assertTrue(f.mightContain("sale"));
            assertTrue(f.mightContain(new StringBuilder("sa").append("le")));
            assertFalse(f.put("sale".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            assertTrue(f.put("Grüße"));
            assertTrue(f.mightContain("Grüße".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
    }

    @Test
    void noFalseNegativesAndFprNearTarget() {
        try (BloomFilter f = BloomFilter.create(100_000, 0.01)) {
            long[] keys = keys(100_000);
            f.putAll(keys);
            for (long k : keys) {
                assertTrue(f.mightContain(k));
            }
            int fp = f.mightContainAll(probes(200_000), 0, 200_000, null, 0);
            double fpr = fp / 200_000.0;
            assertTrue(fpr > 0.007 && fpr < 0.013, "fpr " + fpr);
            double bitsPerKey = f.bitSize() / 100_000.0;
            assertTrue(bitsPerKey > 9 && bitsPerKey < 11.5, "bits/key " + bitsPerKey);
            assertEquals(100_000, f.approximateElementCount(), 3000);
            assertEquals(0.01, f.expectedFpp(), 0.002);
        }
    }

    @Test
    void batchesMatchSingleKeys() {
        long[] keys = keys(10_000);
        long[] probes = probes(10_000);
        try (BloomFilter a = BloomFilter.create(5000, 0.05); BloomFilter b = BloomFilter.create(5000, 0.05)) {
            a.putAll(keys, 100, 5000);
            for (int i = 100; i < 5100; i++) {
                b.put(keys[i]);
            }
            boolean[] out = new boolean[10_003];
            int hits = a.mightContainAll(probes, 0, 10_000, out, 3);
            int count = 0;
            for (int i = 0; i < 10_000; i++) {
                assertEquals(b.mightContain(probes[i]), out[i + 3], "probe " + i);
                count += out[i + 3] ? 1 : 0;
            }
            assertEquals(count, hits);
            assertTrue(hits > 0, "some false positives expected at 5%");
            // direct and heap LongBuffers, native order, with a position
            ByteBuffer raw = ByteBuffer.allocateDirect(8 * 10_010).order(ByteOrder.nativeOrder());
            LongBuffer direct = raw.asLongBuffer();
            direct.position(10).put(probes).position(10);
            boolean[] out2 = new boolean[10_000];
            assertEquals(hits, a.mightContainAll(direct, out2, 0));
            assertEquals(10, direct.position());
            boolean[] out3 = new boolean[10_000];
            assertEquals(hits, a.mightContainAll(LongBuffer.wrap(probes), out3, 0));
            for (int i = 0; i < 10_000; i++) {
                assertEquals(out[i + 3], out2[i]);
                assertEquals(out[i + 3], out3[i]);
            }
        }
    }

    @Test
    void putNewReportsRepeatsInTheBatchOnce() {
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            long[] keys = {1, 2, 1, 3, 2, 4};
            boolean[] isNew = f.putNew(keys);
            assertArrayEquals(new boolean[] {true, true, false, true, false, true}, isNew);
            assertEquals(0, f.putNew(keys, 0, keys.length, null, 0));
            ByteBuffer raw = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
            raw.putLong(5).putLong(5).flip();
            boolean[] out = new boolean[2];
            assertEquals(1, f.putNew(raw.asLongBuffer(), out, 0));
            assertArrayEquals(new boolean[] {true, false}, out);
            f.putAll(LongBuffer.wrap(new long[] {77}));
            assertTrue(f.mightContain(77));
        }
    }

    @Test
    void unionCompatibilityAndCopy() throws Exception {
        try (BloomFilter a = BloomFilter.create(10_000, 0.01); BloomFilter b = BloomFilter.create(10_000, 0.01);
                BloomFilter other = BloomFilter.builder().expectedInsertions(10_000).fpp(0.01).seed(1).build();
                BloomFilter bigger = BloomFilter.create(20_000, 0.01)) {
            assertTrue(a.isCompatible(b));
            assertFalse(a.isCompatible(other));
            assertFalse(a.isCompatible(bigger));
            a.putAll(keys(100));
            b.put(-5L);
            try (BloomFilter c = a.copy()) {
                a.putAll(b);
                assertTrue(a.mightContain(-5L));
                assertEquals(c.mightContain(-5L), c.mightContainAll(new long[] {-5L})[0]);
                for (long k : keys(100)) {
                    assertTrue(c.mightContain(k));
                }
                c.put(-5L);
                byte[] x = bytesOf(a, dir);
                byte[] y = bytesOf(c, dir);
                // payloads equal (the headers' items counters differ: put counts, putAll does not)
                assertArrayEquals(java.util.Arrays.copyOfRange(x, 4096, x.length),
                        java.util.Arrays.copyOfRange(y, 4096, y.length));
            }
            BloomFilterException e = assertThrows(BloomFilterException.class, () -> a.putAll(other));
            assertEquals(Status.INCOMPATIBLE, e.status());
        }
    }

    @Test
    void introspection() {
        try (BloomFilter f = BloomFilter.builder().expectedInsertions(1000).fpp(0.001).seed(99).hashFunctions(5)
                .layout(Layout.BLOCK512).kernel("scalar").concurrent(true).build()) {
            assertEquals(99, f.seed());
            assertEquals(5, f.hashFunctions());
            assertEquals(Layout.BLOCK512, f.layout());
            assertEquals("scalar", f.kernel());
            assertTrue(f.isConcurrent());
            assertEquals(1000, f.expectedInsertions());
            assertEquals(0, f.bitSize() % 512);
            assertEquals(0, f.approximateElementCount());
            assertEquals(0.0, f.expectedFpp());
            assertTrue(f.toString().contains("kernel=scalar"), f.toString());
            assertEquals(f.hash(12345), f.javaHash(12345));
            f.put(1L);
            f.clear();
            assertEquals(0, f.approximateElementCount());
            assertFalse(f.mightContain(1L));
        }
        try (BloomFilter s = BloomFilter.builder().expectedInsertions(1000).layout(Layout.SPLIT256).build()) {
            assertEquals(Layout.SPLIT256, s.layout());
            assertEquals(8, s.hashFunctions());
            assertEquals(0, s.bitSize() % 256);
        }
        assertNotEquals("", BloomFilter.libraryVersion());
        assertTrue(BloomFilter.kernelSupported("scalar"));
        assertFalse(BloomFilter.kernelSupported("nonesuch"));
    }

    @Test
    void zeroExpectedInsertionsIsOneAsInGuava() {
        try (BloomFilter f = BloomFilter.create(0, 0.01)) {
            assertTrue(f.put(1L));
            assertTrue(f.mightContain(1L));
        }
    }

    @Test
    void batchesAndProbesAllocateNothingPerKey() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        long[] keys = keys(100_000);
        boolean[] out = new boolean[keys.length];
        ByteBuffer raw = ByteBuffer.allocateDirect(8 * keys.length).order(ByteOrder.nativeOrder());
        raw.asLongBuffer().put(keys);
        LongBuffer direct = raw.asLongBuffer();
        try (BloomFilter f = BloomFilter.create(100_000, 0.01)) {
            long[] allocated = new long[5];
            for (int round = 0; round < 3; round++) { // the last round counts: the JIT has settled
                long tid = Thread.currentThread().getId();
                long t0 = threads.getThreadAllocatedBytes(tid);
                f.putAll(keys);
                long t1 = threads.getThreadAllocatedBytes(tid);
                f.mightContainAll(keys, 0, keys.length, out, 0);
                long t2 = threads.getThreadAllocatedBytes(tid);
                f.putNew(direct, out, 0);
                long t3 = threads.getThreadAllocatedBytes(tid);
                int hits = 0;
                for (long k : keys) {
                    hits += f.mightContain(k) ? 1 : 0;
                }
                long t4 = threads.getThreadAllocatedBytes(tid);
                assertEquals(keys.length, hits);
                allocated = new long[] {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
            }
            // a few hundred bytes at most per call (the JNI and Objects checks), never per key
            for (int i = 0; i < 4; i++) {
                assertTrue(allocated[i] < 4096, "call " + i + " allocated " + allocated[i] + " bytes for 10^5 keys");
            }
        }
    }
}

package org.bloomsimd;

import static org.bloomsimd.TestSupport.keys;
import static org.bloomsimd.TestSupport.probes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pure-Java single-key lookup answers exactly as the C kernels, for every kernel this CPU runs,
 * every k of block512, split256, concurrent or not, heap, loaded or mapped.
 */
class ProbeTest {
    @TempDir Path dir;

    /**
     * ctest runs this class once per kernel with BLOOMSIMD_KERNEL set; where this CPU lacks that
     * kernel every filter made with the process default would fail to create, so the run is skipped
     * (as the C suites skip a kernel the CPU lacks).
     */
    @BeforeEach
    void forcedKernelRunsHere() {
        String forced = System.getenv("BLOOMSIMD_JAVA_EXPECT_KERNEL");
        Assumptions.assumeTrue(forced == null || BloomFilter.kernelSupported(forced),
                forced + " does not run on this CPU");
    }

    static Stream<Arguments> cases() {
        List<Arguments> a = new ArrayList<>();
        for (String kernel : TestSupport.kernels()) {
            for (int k = 1; k <= 16; k++) {
                a.add(Arguments.of(kernel, Layout.BLOCK512, k, k % 2 == 0));
            }
            a.add(Arguments.of(kernel, Layout.SPLIT256, 8, false));
            a.add(Arguments.of(kernel, Layout.SPLIT256, 8, true));
        }
        return a.stream();
    }

    /** Every answer of f's Java probe against the JNI single-key call and the batch kernel. */
    private static void agree(BloomFilter f, long[] inserted, long[] probes) {
        assertTrue(f.probesInJava(), "pure-Java probe expected for " + f);
        long h = f.handleForTest();
        boolean[] batch = f.mightContainAll(probes);
        int hits = 0;
        for (int i = 0; i < probes.length; i++) {
            boolean java = f.mightContain(probes[i]);
            assertEquals(Native.containsU64(h, probes[i]), java, "probe " + i);
            assertEquals(batch[i], java, "probe " + i);
            hits += java ? 1 : 0;
        }
        // the probes must exercise both answers, or the comparison proves little
        assertTrue(hits > probes.length / 100 && hits < probes.length - probes.length / 100, "hits " + hits);
        for (long k : inserted) {
            assertTrue(f.mightContain(k));
        }
    }

    @ParameterizedTest(name = "{0} {1} k={2} concurrent={3}")
    @MethodSource("cases")
    void javaProbeIsTheKernel(String kernel, Layout layout, int k, boolean concurrent) throws Exception {
        try (BloomFilter f = BloomFilter.builder().expectedInsertions(2000).fpp(0.05).hashFunctions(k).layout(layout)
                .kernel(kernel).concurrent(concurrent).seed(k * 1000003L).build()) {
            assertEquals(kernel, f.kernel());
            assertEquals(k, f.hashFunctions());
            fillAndAgreeLiveMappedLoaded(f, kernel, "p.bsf");
        }
    }

    /**
     * Puts 6000 keys into f (three times the tests' capacity: many false
     * positives), then requires the Java probe to agree with C on f, and on
     * its saved file mapped and loaded, which keep f's 64-bit-key hash.
     */
    private void fillAndAgreeLiveMappedLoaded(BloomFilter f, String kernel, String fileName) throws Exception {
        long[] keys = keys(6000);
        long[] probes = probes(20_000);
        f.putAll(keys);
        agree(f, keys, probes);
        Path file = dir.resolve(fileName);
        f.save(file);
        try (BloomFilter m = BloomFilter.map(file, kernel); BloomFilter l = BloomFilter.load(file, kernel, false)) {
            assertEquals(f.u64Hash(), l.u64Hash());
            agree(m, keys, probes);
            agree(l, keys, probes);
        }
    }

    static Stream<Arguments> mumCases() {
        List<Arguments> a = new ArrayList<>();
        for (String kernel : TestSupport.kernels()) {
            for (boolean concurrent : new boolean[] {false, true}) {
                for (int k : new int[] {1, 7, 16}) {
                    a.add(Arguments.of(kernel, Layout.BLOCK512, k, concurrent));
                }
                a.add(Arguments.of(kernel, Layout.SPLIT256, 8, concurrent));
            }
        }
        return a.stream();
    }

    /** Mum filters probe in Java too, with the library's constants: the same answers as C. */
    @ParameterizedTest(name = "mum {0} {1} k={2} concurrent={3}")
    @MethodSource("mumCases")
    void javaProbeIsTheKernelForMum(String kernel, Layout layout, int k, boolean concurrent) throws Exception {
        try (BloomFilter f = BloomFilter.builder().expectedInsertions(2000).fpp(0.05).hashFunctions(k).layout(layout)
                .kernel(kernel).concurrent(concurrent).seed(k * 7919L).u64Hash(U64Hash.MUM).build()) {
            assertEquals(U64Hash.MUM, f.u64Hash());
            fillAndAgreeLiveMappedLoaded(f, kernel, "mum.bsf");
        }
    }

    static Stream<Arguments> putCases() {
        List<Arguments> a = new ArrayList<>();
        for (String kernel : TestSupport.kernels()) {
            for (U64Hash hash : U64Hash.values()) {
                for (boolean concurrent : new boolean[] {false, true}) {
                    for (int k = 1; k <= 16; k++) {
                        a.add(Arguments.of(kernel, Layout.BLOCK512, k, concurrent, hash));
                    }
                    a.add(Arguments.of(kernel, Layout.SPLIT256, 8, concurrent, hash));
                }
            }
        }
        return a.stream();
    }

    /**
     * put(long), one key a call, is the library's batch insert-and-report-new: the same report for
     * every key (a quarter of them repeats, so both answers occur), the same bytes saved (bits and
     * the header's count of new keys).
     */
    @ParameterizedTest(name = "put {0} {1} k={2} concurrent={3} {4}")
    @MethodSource("putCases")
    void javaPutIsTheLibrarys(String kernel, Layout layout, int k, boolean concurrent, U64Hash hash)
            throws Exception {
        long[] fresh = keys(3000);
        long[] seq = new long[4000];
        for (int i = 0; i < seq.length; i++) {
            seq[i] = i < fresh.length ? fresh[i] : fresh[(i * 7) % fresh.length];
        }
        BloomFilter.Builder b = BloomFilter.builder().expectedInsertions(2000).fpp(0.05).hashFunctions(k)
                .layout(layout).kernel(kernel).concurrent(concurrent).seed(k * 31L).u64Hash(hash);
        try (BloomFilter f = b.build(); BloomFilter ref = b.build()) {
            boolean[] want = ref.putNew(seq);
            int told = 0;
            for (int i = 0; i < seq.length; i++) {
                assertEquals(want[i], f.put(seq[i]), "key " + i);
                told += want[i] ? 1 : 0;
            }
            assertTrue(told > 1000 && told < seq.length, "new keys " + told);
            assertEquals(ref.readInfo(null)[8], f.readInfo(null)[8], "keys counted new");
            assertEquals(told, f.readInfo(null)[8]);
            assertArrayEquals(TestSupport.bytesOf(ref, dir), TestSupport.bytesOf(f, dir));
        }
    }

    /** A read-only mapping refuses put, and still answers in Java. */
    @Test
    void mappedFilterPutIsRefused() throws Exception {
        Path file = dir.resolve("ro.bsf");
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            f.put(1L);
            f.save(file);
        }
        try (BloomFilter m = BloomFilter.map(file)) {
            assertTrue(m.probesInJava());
            BloomFilterException e = assertThrows(BloomFilterException.class, () -> m.put(2L));
            assertEquals(Status.READ_ONLY, e.status());
            assertTrue(m.mightContain(1L));
        }
    }

    @Test
    void hashIsTheLibrarys() {
        SplittableRandom r = new SplittableRandom(1);
        for (long seed : new long[] {0, 1, -1, 0x8000_0000L, 0xdead_beef_cafe_f00dL, r.nextLong()}) {
            for (U64Hash hash : U64Hash.values()) {
                try (BloomFilter f = BloomFilter.builder().expectedInsertions(10).seed(seed).u64Hash(hash).build()) {
                    for (int i = 0; i < 10_000; i++) {
                        long key = i < 100 ? i - 50 : r.nextLong();
                        assertEquals(f.hash(key), f.javaHash(key), hash + " seed " + seed + " key " + key);
                    }
                }
            }
        }
    }

    /** Run by ctest with BLOOMSIMD_KERNEL set: the default filter must run that kernel. */
    @Test
    void forcedKernelIsTheOneThatRuns() {
        String expected = System.getenv("BLOOMSIMD_JAVA_EXPECT_KERNEL");
        Assumptions.assumeTrue(expected != null, "not forced");
        Assumptions.assumeTrue(BloomFilter.kernelSupported(expected), expected + " does not run on this CPU");
        long[] keys = keys(3000);
        try (BloomFilter f = BloomFilter.create(1000, 0.05)) {
            assertEquals(expected, f.kernel());
            f.putAll(keys);
            agree(f, keys, probes(20_000));
        }
    }
}

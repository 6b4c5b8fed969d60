package org.bloomsimd;

import static org.bloomsimd.TestSupport.bytesOf;
import static org.bloomsimd.TestSupport.cFilter;
import static org.bloomsimd.TestSupport.keys;
import static org.bloomsimd.TestSupport.probes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.SequenceInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** save/load/map/writeTo/readFrom in the library's format, with files written by C and the CLI. */
class PersistenceTest {
    @TempDir Path dir;

    @Test
    void roundTrips() throws Exception {
        try (BloomFilter f = BloomFilter.builder().expectedInsertions(20_000).fpp(0.001).seed(77).build()) {
            f.putAll(keys(20_000));
            Path file = dir.resolve("f.bsf");
            f.save(file);
            byte[] saved = Files.readAllBytes(file);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            f.writeTo(out);
            assertArrayEquals(saved, out.toByteArray());
            boolean[] expected = f.mightContainAll(probes(50_000));
            for (BloomFilter g : new BloomFilter[] {BloomFilter.load(file), BloomFilter.map(file),
                    BloomFilter.readFrom(new ByteArrayInputStream(saved)), BloomFilter.load(file, "scalar", true)}) {
                try (g) {
                    assertEquals(f.seed(), g.seed());
                    assertEquals(f.bitSize(), g.bitSize());
                    assertTrue(g.isCompatible(f));
                    assertArrayEquals(expected, g.mightContainAll(probes(50_000)));
                    for (long k : keys(20_000)) {
                        assertTrue(g.mightContain(k));
                    }
                }
            }
            try (BloomFilter c = BloomFilter.load(file, "scalar", true)) {
                assertTrue(c.isConcurrent());
                assertEquals("scalar", c.kernel());
            }
        }
    }

    @Test
    void readFromLeavesWhatFollows() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BloomFilter a = BloomFilter.create(100, 0.01); BloomFilter b = BloomFilter.create(300, 0.01)) {
            a.put(1L);
            b.put(2L);
            a.writeTo(out);
            b.writeTo(out);
        }
        out.write("tail".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
        try (BloomFilter a = BloomFilter.readFrom(in); BloomFilter b = BloomFilter.readFrom(in)) {
            assertTrue(a.mightContain(1L));
            assertTrue(b.mightContain(2L));
            assertFalse(a.isCompatible(b));
        }
        assertArrayEquals("tail".getBytes(java.nio.charset.StandardCharsets.US_ASCII), in.readAllBytes());
    }

    @Test
    void readFromShortReads() throws Exception {
        // a stream that returns at most 3 bytes per read, as a slow socket might
        byte[] bytes;
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            f.putAll(keys(1000));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            f.writeTo(out);
            bytes = out.toByteArray();
        }
        java.io.InputStream slow = new java.io.FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int read(byte[] b, int off, int len) throws java.io.IOException {
                return super.read(b, off, Math.min(len, 3));
            }
        };
        try (BloomFilter g = BloomFilter.readFrom(new SequenceInputStream(slow, new ByteArrayInputStream(new byte[0])))) {
            for (long k : keys(1000)) {
                assertTrue(g.mightContain(k));
            }
            assertArrayEquals(bytes, bytesOf(g, dir));
        }
    }

    @Test
    void filesWrittenByC() throws Exception {
        for (Layout layout : new Layout[] {Layout.BLOCK512, Layout.SPLIT256}) {
            Path c = cFilter(dir, "c-" + layout + ".bsf", 10_000, 0.01, 1234, 0, layout, null, 10_000, "new");
            String expected = TestSupport.run("query", c.toString(), "30000");
            try (BloomFilter f = BloomFilter.load(c); BloomFilter m = BloomFilter.map(c)) {
                assertEquals(layout, f.layout());
                assertEquals(1234, f.seed());
                for (long k : keys(10_000)) {
                    assertTrue(f.mightContain(k));
                    assertTrue(m.mightContain(k));
                    assertFalse(f.put(k)); // already in: the filter does not change
                }
                long[] probes = probes(30_000);
                StringBuilder got = new StringBuilder();
                for (long p : probes) {
                    got.append(m.mightContain(p) ? '1' : '0');
                }
                assertEquals(expected, got.toString());
                // written back from Java, the file is the C file
                assertArrayEquals(Files.readAllBytes(c), bytesOf(f, dir));
            }
        }
    }

    @Test
    void sharedWithTheCommandLineTool() throws Exception {
        String cli = System.getProperty("bloomsimd.cli");
        org.junit.jupiter.api.Assumptions.assumeTrue(cli != null && Files.isExecutable(Path.of(cli)), "no CLI");
        Path file = dir.resolve("users.bsf");
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            for (int i = 0; i < 100; i++) {
                f.put("user:" + i);
            }
            f.save(file);
        }
        // the CLI reads keys one per line and prints those that may be present
        Process p = new ProcessBuilder(cli, "query", file.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.getOutputStream().write("user:5\nuser:77\nnobody-here\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(out.contains("user:5") && out.contains("user:77"), out);
        assertFalse(out.contains("nobody-here"), out);
    }

    @Test
    void layeredFilesFallBackToJni() throws Exception {
        String cli = System.getProperty("bloomsimd.cli");
        org.junit.jupiter.api.Assumptions.assumeTrue(cli != null && Files.isExecutable(Path.of(cli)), "no CLI");
        Path file = dir.resolve("growing.bsf");
        Process p = new ProcessBuilder(cli, "create", file.toString(), "--capacity", "1000", "--growth", "2")
                .redirectErrorStream(true).start();
        String msg = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), msg);
        try (BloomFilter f = BloomFilter.load(file)) {
            assertFalse(f.probesInJava(), "a scalable filter has no single bit array");
            long[] keys = keys(5000); // five times the first layer: it grows
            // distinct keys, so at most 5000 are new; a few answer "maybe present" from
            // the layers' false positives as they fill (about 25, sd 5, over random key
            // sets in either layout)
            int fresh = f.putNew(keys, 0, keys.length, null, 0);
            assertTrue(fresh > 5000 - 60 && fresh <= 5000, "new keys: " + fresh);
            for (long k : keys) {
                assertTrue(f.mightContain(k));
            }
            long[] probes = probes(20_000);
            boolean[] batch = f.mightContainAll(probes);
            for (int i = 0; i < probes.length; i++) {
                assertEquals(batch[i], f.mightContain(probes[i]));
            }
            f.save(file);
        }
        try (BloomFilter m = BloomFilter.map(file)) {
            assertFalse(m.probesInJava());
            for (long k : keys(5000)) {
                assertTrue(m.mightContain(k));
            }
        }
    }
}

package org.bloomsimd;

import static org.bloomsimd.TestSupport.bytesOf;
import static org.bloomsimd.TestSupport.keys;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every bad input gets a specific exception, and a failed call changes nothing. */
class BadInputTest {
    @TempDir Path dir;

    private static BloomFilterException library(Status status, org.junit.jupiter.api.function.Executable call) {
        BloomFilterException e = assertThrows(BloomFilterException.class, call);
        assertEquals(status, e.status(), e.getMessage());
        assertTrue(e.getMessage().startsWith("bloomsimd: "), e.getMessage());
        return e;
    }

    @Test
    void sizes() {
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(-1, 0.01));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().bits(-1));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().hashFunctions(-1));
        library(Status.TOO_LARGE, () -> BloomFilter.create(Long.MAX_VALUE, 0.01));
        BloomFilterException e = library(Status.INVALID_ARGUMENT,
                () -> BloomFilter.builder().expectedInsertions(100).hashFunctions(17).build());
        assertFalse(e.detail().isEmpty());
        library(Status.INVALID_ARGUMENT,
                () -> BloomFilter.builder().expectedInsertions(100).hashFunctions(5).layout(Layout.SPLIT256).build());
    }

    @Test
    void fpp() {
        for (double bad : new double[] {0, -0.1, 1, 1.5, Double.NaN, 1e-11}) {
            BloomFilterException e = library(Status.INVALID_ARGUMENT, () -> BloomFilter.create(1000, bad));
            assertFalse(e.detail().isEmpty(), "detail for fpp " + bad);
        }
        BloomFilterException e = library(Status.INVALID_ARGUMENT, () -> BloomFilter.create(1000, 1e-11));
        assertTrue(e.detail().contains("1e-11") || e.detail().contains("minimum"), e.detail());
    }

    @Test
    void kernels() {
        library(Status.KERNEL_UNAVAILABLE, () -> BloomFilter.builder().expectedInsertions(10).kernel("nonesuch").build());
    }

    @Test
    void nullsAndIndices() {
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            assertThrows(NullPointerException.class, () -> f.put((byte[]) null));
            assertThrows(NullPointerException.class, () -> f.put((CharSequence) null));
            assertThrows(NullPointerException.class, () -> f.put((ByteBuffer) null));
            assertThrows(NullPointerException.class, () -> f.putAll((long[]) null));
            assertThrows(NullPointerException.class, () -> f.putAll((BloomFilter) null));
            assertThrows(NullPointerException.class, () -> f.mightContainAll((long[]) null));
            assertThrows(NullPointerException.class, () -> f.writeTo(null));
            assertThrows(NullPointerException.class, () -> BloomFilter.readFrom(null));
            assertThrows(IndexOutOfBoundsException.class, () -> f.put(new byte[4], 2, 3));
            assertThrows(IndexOutOfBoundsException.class, () -> f.putAll(new long[4], -1, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> f.mightContainAll(new long[4], 0, 4, new boolean[3], 0));
            assertThrows(IndexOutOfBoundsException.class, () -> f.putNew(new long[4], 0, 4, new boolean[4], 1));
            assertThrows(IllegalArgumentException.class, () -> f.putAll(new byte[0], new int[0]));
            assertEquals(0, f.approximateElementCount());
        }
    }

    @Test
    void buffers() {
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            LongBuffer bigEndian = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN).asLongBuffer();
            assertThrows(IllegalArgumentException.class, () -> f.putAll(bigEndian));
            LongBuffer readOnly = LongBuffer.wrap(new long[] {1}).asReadOnlyBuffer();
            assertThrows(IllegalArgumentException.class, () -> f.putAll(readOnly));
            assertThrows(IllegalArgumentException.class,
                    () -> f.putAll(ByteBuffer.allocateDirect(4), IntBuffer.wrap(new int[] {0, 1})));
            assertEquals(0, f.approximateElementCount());
        }
    }

    @Test
    void badOffsetsInsertNothing() throws Exception {
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            f.put(7L);
            byte[] before = bytesOf(f, dir);
            byte[] data = "abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            library(Status.INVALID_ARGUMENT, () -> f.putAll(data, new int[] {0, 2, 1}));  // decreasing
            library(Status.INVALID_ARGUMENT, () -> f.putAll(data, new int[] {0, 3, 7}));  // past the data
            library(Status.INVALID_ARGUMENT, () -> f.putNew(data, new int[] {0, -1}));    // 2^32-1 unsigned
            ByteBuffer dd = ByteBuffer.allocateDirect(6).put(data).flip();
            IntBuffer od = ByteBuffer.allocateDirect(12).order(ByteOrder.nativeOrder()).asIntBuffer().put(new int[] {0, 4, 9});
            od.flip();
            library(Status.INVALID_ARGUMENT, () -> f.putAll(dd, od));
            assertArrayEquals(before, bytesOf(f, dir));
        }
    }

    @Test
    void closedFilters() {
        BloomFilter f = BloomFilter.create(1000, 0.01);
        f.close();
        f.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> f.put(1L));
        assertThrows(IllegalStateException.class, () -> f.mightContain(1L));
        assertThrows(IllegalStateException.class, () -> f.mightContain("x"));
        assertThrows(IllegalStateException.class, () -> f.putAll(new long[] {1}));
        assertThrows(IllegalStateException.class, f::copy);
        assertThrows(IllegalStateException.class, f::approximateElementCount);
        assertEquals("BloomFilter[closed]", f.toString());
    }

    @Test
    void corruptStreams() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            f.putAll(keys(500));
            f.writeTo(bytes);
        }
        byte[] good = bytes.toByteArray();
        // truncated anywhere: header, payload, last byte
        for (int len : new int[] {0, 7, 100, 4096, 4100, good.length - 1}) {
            byte[] cut = Arrays.copyOf(good, len);
            library(Status.CORRUPT, () -> BloomFilter.readFrom(new ByteArrayInputStream(cut)));
        }
        // one flipped bit in the magic, the header, the payload
        for (int at : new int[] {0, 33, 4096 + 17, good.length - 1}) {
            byte[] bad = good.clone();
            bad[at] ^= 0x10;
            BloomFilterException e = assertThrows(BloomFilterException.class,
                    () -> BloomFilter.readFrom(new ByteArrayInputStream(bad)));
            assertEquals(Status.CORRUPT, e.status(), "flip at " + at + ": " + e.getMessage());
            assertFalse(e.detail().isEmpty());
        }
        // a newer format version
        byte[] newer = good.clone();
        newer[8] = 99;
        BloomFilterException e = assertThrows(BloomFilterException.class,
                () -> BloomFilter.readFrom(new ByteArrayInputStream(newer)));
        assertTrue(e.status() == Status.VERSION || e.status() == Status.CORRUPT, e.getMessage());
        // the stream's own exception arrives as it was thrown
        InputStream failing = new InputStream() {
            int n;

            @Override
            public int read() throws IOException {
                throw new IOException("disk on fire");
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (n++ > 0) {
                    throw new IOException("disk on fire");
                }
                int k = Math.min(len, 100);
                System.arraycopy(good, 0, b, off, k);
                return k;
            }
        };
        IOException io = assertThrows(IOException.class, () -> BloomFilter.readFrom(failing));
        assertEquals("disk on fire", io.getMessage());
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            OutputStream broken = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    throw new IOException("pipe closed");
                }
            };
            assertEquals("pipe closed", assertThrows(IOException.class, () -> f.writeTo(broken)).getMessage());
        }
    }

    @Test
    void files() throws Exception {
        library(Status.IO, () -> BloomFilter.load(dir.resolve("missing.bsf")));
        library(Status.IO, () -> BloomFilter.map(dir.resolve("missing.bsf")));
        Path junk = dir.resolve("junk.bsf");
        Files.write(junk, new byte[5000]);
        library(Status.CORRUPT, () -> BloomFilter.load(junk));
        library(Status.CORRUPT, () -> BloomFilter.map(junk));
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            library(Status.IO, () -> f.save(dir.resolve("no/such/dir/f.bsf")));
            assertThrows(IllegalArgumentException.class, () -> f.save(Path.of("a\0b")));
            Path file = dir.resolve("f.bsf");
            f.put(3L);
            f.save(file);
            try (BloomFilter m = BloomFilter.map(file)) {
                BloomFilterException e = library(Status.READ_ONLY, () -> m.put(4L));
                library(Status.READ_ONLY, () -> m.putAll(new long[] {4L}));
                library(Status.READ_ONLY, () -> m.putAll(f));
                assertTrue(m.mightContain(3L));
                assertEquals(m.mightContain(4L), m.mightContainAll(new long[] {4L})[0], e.getMessage());
            }
        }
    }
}

package org.bloomsimd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Keys and the C reference program (src/test/c/reference.c) shared by the tests. */
final class TestSupport {
    private TestSupport() {}

    static final long KEY_STEP = 0x9E3779B97F4A7C15L;
    static final long PROBE_STEP = 0xC2B2AE3D27D4EB4FL;

    /** The reference's u64 key i. */
    static long key(long i) {
        return (i + 1) * KEY_STEP;
    }

    /** The reference's probe key i (almost all absent from a filter of key(...)). */
    static long probe(long i) {
        return (i + 1) * PROBE_STEP;
    }

    static long[] keys(int n) {
        long[] k = new long[n];
        for (int i = 0; i < n; i++) {
            k[i] = key(i);
        }
        return k;
    }

    static long[] probes(int n) {
        long[] k = new long[n];
        for (int i = 0; i < n; i++) {
            k[i] = probe(i);
        }
        return k;
    }

    static String reference() {
        String r = System.getProperty("bloomsimd.reference");
        if (r == null) {
            throw new IllegalStateException("-Dbloomsimd.reference=PATH (the build's bloomsimd-java-reference) is not set");
        }
        return r;
    }

    /** Runs the reference; returns its stdout, failing the test on a non-zero exit. */
    static String run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(reference());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().remove("BLOOMSIMD_KERNEL");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("reference timed out: " + cmd);
        }
        assertEquals(0, p.exitValue(), "reference failed: " + cmd);
        return new String(out, StandardCharsets.US_ASCII).trim();
    }

    /** The reference's filter of n keys, saved to file. */
    static Path cFilter(Path dir, String name, long capacity, double fpr, long seed, int k, Layout layout,
            String kernel, int n, String mode) throws IOException, InterruptedException {
        Path file = dir.resolve(name);
        run("build", file.toString(), Long.toUnsignedString(capacity), Double.toString(fpr), Long.toUnsignedString(seed),
                Integer.toString(k), Integer.toString(layout.id), kernel == null ? "-" : kernel, Integer.toString(n), mode);
        return file;
    }

    /** The bytes save() writes. */
    static byte[] bytesOf(BloomFilter f, Path dir) throws IOException {
        Path file = Files.createTempFile(dir, "java", ".bsf");
        f.save(file);
        return Files.readAllBytes(file);
    }

    /** The kernels this CPU runs natively. */
    static List<String> kernels() {
        List<String> k = new ArrayList<>();
        for (String name : new String[] {"scalar", "sse42", "avx2", "avx512", "neon"}) {
            if (BloomFilter.kernelSupported(name)) {
                k.add(name);
            }
        }
        return k;
    }
}

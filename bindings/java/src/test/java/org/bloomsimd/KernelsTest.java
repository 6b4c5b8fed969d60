package org.bloomsimd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The kernel list is the C library's, best first, and the default kernel is the best this CPU runs. */
class KernelsTest {
    @Test
    void defaultIsTheBestKernelThisCpuRuns() {
        List<String> kernels = BloomFilter.kernels();
        assertEquals("scalar", kernels.get(kernels.size() - 1), kernels.toString());
        String best = kernels.stream().filter(BloomFilter::kernelSupported).findFirst().orElseThrow();
        String forced = System.getenv("BLOOMSIMD_KERNEL");
        assertEquals(forced == null || forced.isEmpty() ? best : forced, BloomFilter.defaultKernel());
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            assertEquals(BloomFilter.defaultKernel(), f.kernel());
        }
    }

    @Test
    void everyListedKernelThisCpuRunsBuildsAFilter() {
        for (String k : BloomFilter.kernels()) {
            if (BloomFilter.kernelSupported(k)) {
                try (BloomFilter f = BloomFilter.builder().expectedInsertions(1000).fpp(0.01).kernel(k).build()) {
                    f.put(42L);
                    assertEquals(k, f.kernel());
                    assertTrue(f.mightContain(42L));
                }
            }
        }
    }

    @Test
    void theJarsCopyIsNamedByPlatform() {
        String path = Native.resourcePath("libbloomsimd_jni.so");
        String arch = System.getProperty("os.arch");
        if (arch.equals("amd64")) {
            assertEquals("/org/bloomsimd/native/linux-x86_64/libbloomsimd_jni.so", path);
        } else if (arch.equals("aarch64")) {
            assertEquals("/org/bloomsimd/native/linux-aarch64/libbloomsimd_jni.so", path);
        }
    }
}

package org.bloomsimd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Native memory is freed by close() at once, and by the Cleaner when a caller forgets. */
class CleanerTest {
    @Test
    void closeFreesAtOnce() {
        BloomFilter f = BloomFilter.create(1000, 0.01);
        long live = BloomFilter.liveFilters();
        BloomFilter c = f.copy();
        assertEquals(live + 1, BloomFilter.liveFilters());
        c.close();
        f.close();
        assertEquals(live - 1, BloomFilter.liveFilters());
    }

    @Test
    void forgottenFiltersAreFreed() throws InterruptedException {
        long before = BloomFilter.liveFilters();
        for (int i = 0; i < 200; i++) {
            BloomFilter f = BloomFilter.create(100_000, 0.01); // 120 KiB each, never closed
            f.put(i);
        }
        assertTrue(BloomFilter.liveFilters() >= before + 1);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (BloomFilter.liveFilters() > before && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertTrue(BloomFilter.liveFilters() <= before,
                "filters still alive: " + (BloomFilter.liveFilters() - before));
    }
}

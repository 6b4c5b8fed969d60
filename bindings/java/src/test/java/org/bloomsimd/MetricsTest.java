package org.bloomsimd;

import static org.bloomsimd.TestSupport.keys;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMX;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The MXBean read through the platform MBean server, as jconsole or a JMX agent reads it. */
class MetricsTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final String[] ATTRIBUTES = {"Items", "Capacity", "Bits", "MemoryBytes", "Layers", "FillRatio",
        "EstimatedItems", "PredictedFpr", "TargetFpr", "LoadRatio"};

    /** Puts distinct keys until the filter counts n (a false positive is not counted). */
    private static void counted(BloomFilter f, long n) {
        long next = 1L << 40;
        while (f.readInfo(null)[8] < n) {
            f.put(next++ * 0x9E3779B97F4A7C15L);
        }
        assertEquals(n, f.readInfo(null)[8]);
    }

    @Test
    void attributesAreTheLibrarysFields() throws Exception {
        try (BloomFilter f = BloomFilter.builder().expectedInsertions(10_000).fpp(0.01).concurrent(true).build()) {
            counted(f, 8_100);
            ObjectName on = BloomFilterMetrics.register(SERVER, "seen", f);
            try {
                assertEquals(new ObjectName("org.bloomsimd:type=BloomFilter,name=seen"), on);
                assertTrue(JMX.isMXBeanInterface(BloomFilterMXBean.class));
                MBeanAttributeInfo[] infos = SERVER.getMBeanInfo(on).getAttributes();
                assertEquals(ATTRIBUTES.length, infos.length);
                for (MBeanAttributeInfo a : infos) {
                    assertTrue(a.isReadable() && !a.isWritable(), a.getName());
                }

                double[] d = new double[Native.INFO_DOUBLES];
                long[] l = f.readInfo(d);
                AttributeList got = SERVER.getAttributes(on, ATTRIBUTES);
                assertEquals(ATTRIBUTES.length, got.size());
                Object[] want = {l[8], l[0], l[1], l[5], (int) l[7], d[3], d[1], d[2], d[0], d[4]};
                for (int i = 0; i < ATTRIBUTES.length; i++) {
                    Attribute a = (Attribute) got.get(i);
                    assertEquals(ATTRIBUTES[i], a.getName());
                    assertEquals(want[i], a.getValue(), ATTRIBUTES[i]);
                }
                assertEquals(8_100L, SERVER.getAttribute(on, "Items"));
                assertEquals(0.81, (double) SERVER.getAttribute(on, "LoadRatio"));
                assertEquals(f.approximateElementCount(), Math.round((double) SERVER.getAttribute(on, "EstimatedItems")));
                assertEquals(f.expectedFpp(), (double) SERVER.getAttribute(on, "PredictedFpr"));

                // a proxy, as a JMX client in another JVM would build
                BloomFilterMXBean proxy = JMX.newMXBeanProxy(SERVER, on, BloomFilterMXBean.class);
                assertEquals(10_000, proxy.getCapacity());
                assertEquals(1, proxy.getLayers());
                assertThrows(InstanceAlreadyExistsException.class, () -> BloomFilterMetrics.register(SERVER, "seen", f));
            } finally {
                assertTrue(BloomFilterMetrics.unregister(SERVER, "seen"));
            }
            assertFalse(SERVER.isRegistered(on));
            assertFalse(BloomFilterMetrics.unregister(SERVER, "seen"));
        }
    }

    @Test
    void oneReadingServesAPollAndRefreshReadsAgain() {
        try (BloomFilter f = BloomFilter.create(100_000, 0.01)) {
            f.putAll(keys(79_000)); // not counted: the load comes from the bits
            BloomFilterMetrics m = new BloomFilterMetrics(f);
            assertEquals(0, m.getItems());
            double load = m.getLoadRatio();
            assertEquals(0.79, load, 0.01);
            f.putAll(keys(81_000));
            assertEquals(load, m.getLoadRatio(), "within MAX_AGE_NANOS, the same reading");
            m.refresh();
            assertEquals(0.81, m.getLoadRatio(), 0.01);
            assertTrue(m.getLoadRatio() > load);
        }
    }

    @Test
    void theLockIsHeldWhileTheFilterIsRead() throws Exception {
        ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            BloomFilterMetrics m = new BloomFilterMetrics(f, rw.readLock());
            rw.writeLock().lock();
            CompletableFuture<Long> read = CompletableFuture.supplyAsync(m::getCapacity);
            try {
                assertThrows(TimeoutException.class, () -> read.get(300, TimeUnit.MILLISECONDS),
                        "the reading waited for the writer");
            } finally {
                rw.writeLock().unlock();
            }
            assertEquals(1000L, read.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void namesAreQuotedWhenTheyMustBe() throws Exception {
        assertEquals("org.bloomsimd:type=BloomFilter,name=user-ids", BloomFilterMetrics.objectName("user-ids").toString());
        ObjectName odd = BloomFilterMetrics.objectName("a,b=c");
        assertEquals("a,b=c", ObjectName.unquote(odd.getKeyProperty("name")));
        assertThrows(IllegalArgumentException.class, () -> BloomFilterMetrics.objectName(""));
        try (BloomFilter f = BloomFilter.create(10)) {
            BloomFilterMetrics.register(SERVER, "a,b=c", f);
            assertTrue(SERVER.isRegistered(odd));
            assertTrue(BloomFilterMetrics.unregister(SERVER, "a,b=c"));
        }
        BloomFilter closed = BloomFilter.create(10);
        closed.close();
        assertThrows(IllegalStateException.class, () -> new BloomFilterMetrics(closed).getItems());
    }
}

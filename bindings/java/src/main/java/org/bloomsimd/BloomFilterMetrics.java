package org.bloomsimd;

import java.lang.management.ManagementFactory;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * A filter as a JMX MXBean ({@link BloomFilterMXBean}), with nothing beyond the JDK. The caller
 * registers it and unregisters it (before closing the filter):
 *
 * <pre>{@code
 * BloomFilterMetrics.register(ManagementFactory.getPlatformMBeanServer(), "seen", seen);
 * ...
 * BloomFilterMetrics.unregister(ManagementFactory.getPlatformMBeanServer(), "seen");
 * }</pre>
 *
 * <p>Reading the fill reads every bit of the filter once (about 1 ms per 16 MiB), so one reading
 * serves every attribute for {@link #MAX_AGE_NANOS}: a JMX client polls attributes one by one,
 * and they then describe the same moment, for the cost of one pass. The reading happens on the
 * JMX client's thread, while the application may put: a filter built with {@code
 * concurrent(true)} can be read at any time; for any other, pass the lock its writers hold
 * ({@link #BloomFilterMetrics(BloomFilter, Lock)}: the read lock of their ReadWriteLock, say). A
 * closed filter's attributes throw IllegalStateException.
 */
public final class BloomFilterMetrics implements BloomFilterMXBean {
    /** How long one reading of the filter serves the attributes: 1 s. */
    public static final long MAX_AGE_NANOS = 1_000_000_000L;

    private final BloomFilter filter;
    private final Lock lock;
    private long[] longs;
    private double[] doubles;
    private long readAt;

    /** The filter's MXBean; the filter must be concurrent if it is written while it is read. */
    public BloomFilterMetrics(BloomFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        this.lock = null;
    }

    /** The filter's MXBean; {@code lock} is held while the filter is read. */
    public BloomFilterMetrics(BloomFilter filter, Lock lock) {
        this.filter = Objects.requireNonNull(filter, "filter");
        this.lock = Objects.requireNonNull(lock, "lock");
    }

    /**
     * {@code org.bloomsimd:type=BloomFilter,name=NAME}, NAME quoted (ObjectName.quote) when it
     * holds a character an ObjectName value cannot ({@code , = : " * ?}, a newline).
     *
     * @throws IllegalArgumentException for an empty name
     */
    public static ObjectName objectName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a filter needs a non-empty name");
        }
        boolean plain = name.chars().noneMatch(c -> ",=:\"*?\n".indexOf(c) >= 0);
        try {
            return new ObjectName("org.bloomsimd:type=BloomFilter,name=" + (plain ? name : ObjectName.quote(name)));
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("filter name " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * Registers {@code metrics} as {@link #objectName(String) objectName(name)} in {@code server}
     * ({@link ManagementFactory#getPlatformMBeanServer()} for jconsole and agents).
     *
     * @throws JMException InstanceAlreadyExistsException if the name is taken
     */
    public static ObjectName register(MBeanServer server, String name, BloomFilterMetrics metrics)
            throws JMException {
        ObjectName on = objectName(name);
        server.registerMBean(metrics, on);
        return on;
    }

    /** Registers the MXBean of a concurrent filter (or of one nobody writes while it is read). */
    public static ObjectName register(MBeanServer server, String name, BloomFilter filter) throws JMException {
        return register(server, name, new BloomFilterMetrics(filter));
    }

    /** Unregisters the filter named {@code name}; false if none was registered under it. */
    public static boolean unregister(MBeanServer server, String name) throws MBeanRegistrationException {
        try {
            server.unregisterMBean(objectName(name));
            return true;
        } catch (InstanceNotFoundException e) {
            return false;
        }
    }

    /** Reads the filter if the last reading is older than MAX_AGE_NANOS (or there is none). */
    private synchronized void fresh() {
        long now = System.nanoTime();
        if (longs != null && now - readAt < MAX_AGE_NANOS) {
            return;
        }
        double[] d = new double[Native.INFO_DOUBLES];
        long[] l;
        if (lock != null) {
            lock.lock();
            try {
                l = filter.readInfo(d);
            } finally {
                lock.unlock();
            }
        } else {
            l = filter.readInfo(d);
        }
        longs = l;
        doubles = d;
        readAt = now;
    }

    private synchronized long longAt(int i) {
        fresh();
        return longs[i];
    }

    private synchronized double doubleAt(int i) {
        fresh();
        return doubles[i];
    }

    /** Forgets the last reading: the next attribute reads the filter again. */
    public synchronized void refresh() {
        longs = null;
    }

    @Override
    public long getItems() {
        return longAt(8);
    }

    @Override
    public long getCapacity() {
        return longAt(0);
    }

    @Override
    public long getBits() {
        return longAt(1);
    }

    @Override
    public long getMemoryBytes() {
        return longAt(5);
    }

    @Override
    public int getLayers() {
        return (int) longAt(7);
    }

    @Override
    public double getFillRatio() {
        return doubleAt(3);
    }

    @Override
    public double getEstimatedItems() {
        return doubleAt(1);
    }

    @Override
    public double getPredictedFpr() {
        return doubleAt(2);
    }

    @Override
    public double getTargetFpr() {
        return doubleAt(0);
    }

    @Override
    public double getLoadRatio() {
        return doubleAt(4);
    }
}

package org.bloomsimd;

/**
 * What JMX shows of one filter: the attributes a {@link BloomFilterMetrics} registered as {@code
 * org.bloomsimd:type=BloomFilter,name=NAME} serves to jconsole, VisualVM, the JMX exporter of
 * Prometheus or any other JMX client. They are the gauges of the Go and Python collectors under
 * the same names (Items is bloomsimd_items, LoadRatio is bloomsimd_load_ratio, ...), and each is a
 * field of the library ({@code bloomsimd_get_info}, {@code bloomsimd_get_fill_info}), reported as
 * it is. docs/OPERATIONS.md says what each means and when to act.
 */
public interface BloomFilterMXBean {
    /** Keys the filter counted: those {@code put} reported new (a layered filter: every key). */
    long getItems();

    /** Keys the filter was sized for (a scalable filter: its first layer; a window: each generation). */
    long getCapacity();

    /** Bits of the filter's bit arrays, all layers. */
    long getBits();

    /** Bytes of the filter's bit arrays, all layers. */
    long getMemoryBytes();

    /** Layers: 1, a scalable filter's layers, a window's generations. */
    int getLayers();

    /** Share of the filter's bits that are set. */
    double getFillRatio();

    /** Distinct keys estimated from the bits set. */
    double getEstimatedItems();

    /** False-positive rate of a lookup now: the filter's FPR model at its estimated keys. */
    double getPredictedFpr();

    /** False-positive rate the filter was sized for. */
    double getTargetFpr();

    /**
     * Share of its capacity the filter has taken (0.8 = 80%: the usual alarm): its counted keys
     * over its capacity (a scalable filter: its first layer's; a window: its fullest generation's),
     * or its estimated keys where it counted none (keys added by {@code putAll}).
     */
    double getLoadRatio();
}

package org.bloomsimd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A cache-line-blocked Bloom filter of libbloomsimd, with the shapes of Guava's
 * {@code com.google.common.hash.BloomFilter} where Guava has one ({@link #create}, {@link #put},
 * {@link #mightContain}, {@link #putAll(BloomFilter)}, {@link #isCompatible},
 * {@link #approximateElementCount}, {@link #expectedFpp}, {@link #writeTo}, {@link #readFrom},
 * {@link #copy}) and batches Guava does not have, run by the library's SIMD kernels in one JNI
 * call per batch.
 *
 * <p>Every key touches one block of 64 (or 32) bytes, so a lookup costs at most one cache miss,
 * where Guava's filter costs k. {@link #mightContain(long)} runs in pure Java over the filter's
 * memory (no JNI call); every other call is one JNI call.
 *
 * <p><b>Keys.</b> A {@code long} is hashed as its 8 little-endian bytes, a {@code byte[]} or
 * {@link ByteBuffer} as its bytes, a {@link CharSequence} as its UTF-8 bytes: the same key is the
 * same key in C, Go, Python, the command-line tool and the Redis module, so a filter saved by one
 * answers alike in all of them.
 *
 * <p><b>Threads.</b> A filter allows many concurrent readers, or one writer and no readers. One
 * built with {@link Builder#concurrent(boolean) concurrent(true)} (or loaded with
 * {@code concurrent}) allows any mix of concurrent puts and lookups.
 *
 * <p><b>Memory.</b> The bit array is native memory: {@link #close()} frees it at once; a filter
 * that is never closed is freed by a {@link Cleaner} once it is unreachable. Any call after
 * {@code close()} throws {@link IllegalStateException}; closing while another thread still uses
 * the filter is the caller's error (as freeing memory another thread reads).
 *
 * <p><b>Errors.</b> A library failure throws {@link BloomFilterException} with the library's
 * {@link Status} and its one-line reason.
 */
public final class BloomFilter implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int CONCURRENT = 0x1;
    private static final int MAP_READ_ONLY = 0x0;
    private static final int STREAM_CHUNK = 64 * 1024;

    private long handle;
    private Probe probe;
    private final Cleaner.Cleanable cleanable;

    /** Frees the C filter: run once, by close() or by the Cleaner; holds no reference to the filter. */
    private static final class Release implements Runnable {
        private final long handle;

        Release(long handle) {
            this.handle = handle;
        }

        @Override
        public void run() {
            Native.destroy(handle);
        }
    }

    private BloomFilter(long handle) {
        this.handle = handle;
        this.cleanable = CLEANER.register(this, new Release(handle));
        this.probe = Probe.of(handle);
    }

    // ---- creating ---------------------------------------------------------------------------

    /**
     * A filter for {@code expectedInsertions} keys at false-positive probability {@code fpp}, as
     * Guava's {@code create}: the fewest blocks whose modelled FPR at that many keys is at most
     * {@code fpp}, seed 0, the best kernel this CPU runs (or {@code BLOOMSIMD_KERNEL}).
     *
     * @param expectedInsertions at least 0 (0 is taken as 1, as Guava does)
     * @param fpp in [1e-10, 1)
     * @throws IllegalArgumentException if expectedInsertions is negative
     * @throws BloomFilterException INVALID_ARGUMENT for fpp out of range or NaN, TOO_LARGE beyond the
     *     layout's limits (2^32 blocks), NO_MEMORY, KERNEL_UNAVAILABLE (BLOOMSIMD_KERNEL names a
     *     kernel this CPU cannot run)
     */
    public static BloomFilter create(long expectedInsertions, double fpp) {
        return builder().expectedInsertions(expectedInsertions).fpp(fpp).build();
    }

    /** {@link #create(long, double)} at 3%, Guava's default. */
    public static BloomFilter create(long expectedInsertions) {
        return create(expectedInsertions, 0.03);
    }

    /** Everything {@code bloomsimd_options} can say: seed, k, explicit size, kernel, layout, threads. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a new filter; zero or unset means "derive it" or "the default", as in C. */
    public static final class Builder {
        private long capacity;
        private double fpr = 0.01;
        private long bits;
        private int k;
        private long seed;
        private String kernel;
        private boolean concurrent;
        private Layout layout = Layout.DEFAULT;
        private U64Hash u64Hash = U64Hash.XXH3;

        private Builder() {}

        /** Expected number of distinct keys (0 with {@link #bits} only). */
        public Builder expectedInsertions(long n) {
            if (n < 0) {
                throw new IllegalArgumentException("expectedInsertions (" + n + ") must be >= 0");
            }
            capacity = n;
            return this;
        }

        /**
         * Target false-positive probability at expectedInsertions, in [1e-10, 1); default 0.01.
         *
         * @throws BloomFilterException INVALID_ARGUMENT for 0 (other bad values fail in {@link #build})
         */
        public Builder fpp(double fpp) {
            if (fpp == 0) { // the C options would take 0 as "the default"; Guava's create refuses it
                throw new BloomFilterException(Status.INVALID_ARGUMENT.code(), "fpp 0 is outside [1e-10, 1)");
            }
            fpr = fpp;
            return this;
        }

        /** An explicit size in bits, rounded up to whole blocks. */
        public Builder bits(long bits) {
            if (bits < 0) {
                throw new IllegalArgumentException("bits (" + bits + ") must be >= 0");
            }
            this.bits = bits;
            return this;
        }

        /** Bits set per key, 1..16 (block512; split256 sets 8); 0: the one that needs the fewest blocks. */
        public Builder hashFunctions(int k) {
            if (k < 0) {
                throw new IllegalArgumentException("hashFunctions (" + k + ") must be >= 0");
            }
            this.k = k;
            return this;
        }

        /** The hash seed (any value; 0 by default). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** "scalar", "sse42", "avx2", "avx512", "neon", or null for the best this CPU runs. */
        public Builder kernel(String kernel) {
            this.kernel = kernel;
            return this;
        }

        /** Lock-free atomic inserts: any number of threads may put and look up at once. */
        public Builder concurrent(boolean concurrent) {
            this.concurrent = concurrent;
            return this;
        }

        /** The block layout; {@link Layout#DEFAULT} is the kernel's. */
        public Builder layout(Layout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
            return this;
        }

        /** How 64-bit keys are hashed; {@link U64Hash#XXH3} by default. Both probe in pure Java. */
        public Builder u64Hash(U64Hash hash) {
            this.u64Hash = Objects.requireNonNull(hash, "hash");
            return this;
        }

        /**
         * The new filter.
         *
         * @throws BloomFilterException as {@link BloomFilter#create(long, double)}, and
         *     INVALID_ARGUMENT for k above 16 or split256 with a k other than 8,
         *     KERNEL_UNAVAILABLE for an unknown kernel or one this CPU cannot run
         */
        public BloomFilter build() {
            long cap = capacity == 0 && bits == 0 ? 1 : capacity;
            return new BloomFilter(Native.create(cap, fpr, bits, k, seed, kernel,
                    (concurrent ? CONCURRENT : 0) | u64Hash.flag, layout.id));
        }
    }

    // ---- single keys -------------------------------------------------------------------------

    /**
     * Inserts a key and reports whether the filter changed, i.e. whether the key was (probably)
     * absent before: Guava's meaning of {@code put}. With a concurrent filter, of several threads
     * putting the same new key at least one is told it is new.
     *
     * @throws BloomFilterException READ_ONLY for a mapped filter
     */
    public boolean put(long key) {
        boolean r = Native.addNewU64(handle(), key);
        Reference.reachabilityFence(this);
        return r;
    }

    /** {@link #put(long)} for the bytes of a key. */
    public boolean put(byte[] key) {
        return put(key, 0, key.length);
    }

    /** {@link #put(long)} for {@code key[offset .. offset + length)}. */
    public boolean put(byte[] key, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, key.length);
        boolean r = Native.bytes(1, handle(), key, offset, length);
        Reference.reachabilityFence(this);
        return r;
    }

    /** {@link #put(long)} for the UTF-8 bytes of a string key (an unpaired surrogate becomes '?'). */
    public boolean put(CharSequence key) {
        return put(utf8(key));
    }

    /** {@link #put(long)} for the buffer's remaining bytes (its position is left alone). */
    public boolean put(ByteBuffer key) {
        return byteBuffer(1, key);
    }

    /** False if the key is certainly absent; true if it may be present. No JNI call for most filters. */
    public boolean mightContain(long key) {
        Probe p = probe;
        if (p != null) {
            boolean r = p.contains(key);
            Reference.reachabilityFence(this);
            return r;
        }
        boolean r = Native.containsU64(handle(), key);
        Reference.reachabilityFence(this);
        return r;
    }

    /** {@link #mightContain(long)} for the bytes of a key. */
    public boolean mightContain(byte[] key) {
        return mightContain(key, 0, key.length);
    }

    /** {@link #mightContain(long)} for {@code key[offset .. offset + length)}. */
    public boolean mightContain(byte[] key, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, key.length);
        boolean r = Native.bytes(0, handle(), key, offset, length);
        Reference.reachabilityFence(this);
        return r;
    }

    /** {@link #mightContain(long)} for the UTF-8 bytes of a string key. */
    public boolean mightContain(CharSequence key) {
        return mightContain(utf8(key));
    }

    /** {@link #mightContain(long)} for the buffer's remaining bytes (its position is left alone). */
    public boolean mightContain(ByteBuffer key) {
        return byteBuffer(0, key);
    }

    private boolean byteBuffer(int op, ByteBuffer key) {
        long h = handle();
        int pos = key.position();
        int len = key.remaining();
        boolean r;
        if (key.isDirect()) {
            r = Native.direct(op, h, key, pos, len);
        } else if (key.hasArray()) {
            r = Native.bytes(op, h, key.array(), key.arrayOffset() + pos, len);
        } else { // a read-only heap buffer: its array is not ours to see
            byte[] copy = new byte[len];
            key.duplicate().get(copy);
            r = Native.bytes(op, h, copy, 0, len);
        }
        Reference.reachabilityFence(this);
        return r;
    }

    private static byte[] utf8(CharSequence key) {
        return key.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** XXH3_64bits_withSeed of key's 8 little-endian bytes with this filter's seed. */
    public long hash(long key) {
        long r = Native.hashU64(handle(), key);
        Reference.reachabilityFence(this);
        return r;
    }

    // ---- batches of 64-bit keys ----------------------------------------------------------------

    /**
     * Inserts every key, in one JNI call (the kernel pipelines hashing and memory accesses).
     *
     * @throws BloomFilterException READ_ONLY for a mapped filter
     */
    public void putAll(long[] keys) {
        putAll(keys, 0, keys.length);
    }

    /** {@link #putAll(long[])} for {@code keys[offset .. offset + length)}. */
    public void putAll(long[] keys, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, keys.length);
        Native.u64Array(Native.ADD, handle(), keys, offset, length, null, 0);
        Reference.reachabilityFence(this);
    }

    /** Looks up every key: {@code result[i]} is {@link #mightContain(long) mightContain(keys[i])}. */
    public boolean[] mightContainAll(long[] keys) {
        boolean[] out = new boolean[keys.length];
        mightContainAll(keys, 0, keys.length, out, 0);
        return out;
    }

    /**
     * Looks up {@code keys[offset .. offset + length)} into {@code out[outOffset ..]}, allocating
     * nothing. {@code out} may be null to only count.
     *
     * @return how many may be present
     */
    public int mightContainAll(long[] keys, int offset, int length, boolean[] out, int outOffset) {
        Objects.checkFromIndexSize(offset, length, keys.length);
        if (out != null) {
            Objects.checkFromIndexSize(outOffset, length, out.length);
        }
        long r = Native.u64Array(Native.CONTAINS, handle(), keys, offset, length, out, outOffset);
        Reference.reachabilityFence(this);
        return (int) r;
    }

    /**
     * Inserts every key, in order, reporting which were new: {@code result[i]} is what
     * {@link #put(long) put(keys[i])} would return, so a key repeated in the batch is new only the
     * first time (deduplication in one pass).
     */
    public boolean[] putNew(long[] keys) {
        boolean[] out = new boolean[keys.length];
        putNew(keys, 0, keys.length, out, 0);
        return out;
    }

    /**
     * {@link #putNew(long[])} for {@code keys[offset .. offset + length)} into
     * {@code out[outOffset ..]} (null: only count).
     *
     * @return how many were new
     */
    public int putNew(long[] keys, int offset, int length, boolean[] out, int outOffset) {
        Objects.checkFromIndexSize(offset, length, keys.length);
        if (out != null) {
            Objects.checkFromIndexSize(outOffset, length, out.length);
        }
        long r = Native.u64Array(Native.ADD_NEW, handle(), keys, offset, length, out, outOffset);
        Reference.reachabilityFence(this);
        return (int) r;
    }

    /**
     * Inserts the buffer's remaining keys (its position is left alone). A direct buffer in native
     * (little-endian) order is read where it is, with no copy (off-heap keys); a heap buffer
     * through its array.
     *
     * @throws IllegalArgumentException for a direct buffer in big-endian order, or a read-only heap
     *     buffer
     */
    public void putAll(LongBuffer keys) {
        u64Buffer(Native.ADD, keys, null, 0);
    }

    /** {@link #mightContainAll(long[], int, int, boolean[], int)} for the buffer's remaining keys. */
    public int mightContainAll(LongBuffer keys, boolean[] out, int outOffset) {
        return (int) u64Buffer(Native.CONTAINS, keys, out, outOffset);
    }

    /** {@link #putNew(long[], int, int, boolean[], int)} for the buffer's remaining keys. */
    public int putNew(LongBuffer keys, boolean[] out, int outOffset) {
        return (int) u64Buffer(Native.ADD_NEW, keys, out, outOffset);
    }

    private long u64Buffer(int op, LongBuffer keys, boolean[] out, int outOffset) {
        int n = keys.remaining();
        if (out != null) {
            Objects.checkFromIndexSize(outOffset, n, out.length);
        }
        long h = handle();
        long r;
        if (keys.isDirect()) {
            requireNativeOrder(keys.order(), "keys");
            r = Native.u64Direct(op, h, keys, 8L * keys.position(), n, out, outOffset);
        } else if (keys.hasArray()) {
            r = Native.u64Array(op, h, keys.array(), keys.arrayOffset() + keys.position(), n, out, outOffset);
        } else {
            throw new IllegalArgumentException("keys: a read-only heap LongBuffer has no array to read; "
                    + "pass a long[] or a direct buffer");
        }
        Reference.reachabilityFence(this);
        return r;
    }

    private static void requireNativeOrder(ByteOrder order, String what) {
        if (order != ByteOrder.nativeOrder()) {
            throw new IllegalArgumentException(what + ": a direct buffer must be in native byte order ("
                    + ByteOrder.nativeOrder() + "), not " + order);
        }
    }

    // ---- batches of byte keys: data + offsets (Arrow binary/utf8) ---------------------------

    /**
     * Inserts byte keys laid out as an Arrow binary or utf8 array: key i is
     * {@code data[offsets[i] .. offsets[i + 1])}, {@code offsets.length - 1} keys. The library
     * checks the offsets (non-decreasing, within data) first and then inserts nothing if they are
     * bad.
     *
     * @throws BloomFilterException INVALID_ARGUMENT for bad offsets, READ_ONLY for a mapped filter
     * @throws IllegalArgumentException if offsets is empty
     */
    public void putAll(byte[] data, int[] offsets) {
        keysArray(Native.ADD, data, offsets, null);
    }

    /** Looks up the keys of {@link #putAll(byte[], int[])}'s layout: one answer per key. */
    public boolean[] mightContainAll(byte[] data, int[] offsets) {
        boolean[] out = new boolean[count(offsets.length)];
        keysArray(Native.CONTAINS, data, offsets, out);
        return out;
    }

    /** Inserts and reports new, in key order, for {@link #putAll(byte[], int[])}'s layout. */
    public boolean[] putNew(byte[] data, int[] offsets) {
        boolean[] out = new boolean[count(offsets.length)];
        keysArray(Native.ADD_NEW, data, offsets, out);
        return out;
    }

    private static int count(int offsets) {
        if (offsets < 1) {
            throw new IllegalArgumentException("offsets must hold n + 1 entries (at least 1)");
        }
        return offsets - 1;
    }

    private long keysArray(int op, byte[] data, int[] offsets, boolean[] out) {
        int n = count(offsets.length);
        long r = Native.keysArray(op, handle(), data, 0, data.length, offsets, 0, n, out, 0);
        Reference.reachabilityFence(this);
        return r;
    }

    /**
     * {@link #putAll(byte[], int[])} over buffers, e.g. an Arrow vector's own memory: key i is the
     * bytes {@code offsets[i] .. offsets[i + 1]} counted from {@code data.position()}, within
     * {@code data.remaining()}; {@code offsets.remaining() - 1} keys. Both direct (no copy; offsets
     * in native order) or both heap buffers with arrays. Positions are left alone.
     */
    public void putAll(ByteBuffer data, IntBuffer offsets) {
        keysBuffer(Native.ADD, data, offsets, null, 0);
    }

    /** Looks up the keys of {@link #putAll(ByteBuffer, IntBuffer)} into {@code out[outOffset ..]}; returns the hits. */
    public int mightContainAll(ByteBuffer data, IntBuffer offsets, boolean[] out, int outOffset) {
        return (int) keysBuffer(Native.CONTAINS, data, offsets, out, outOffset);
    }

    /** Inserts and reports new for {@link #putAll(ByteBuffer, IntBuffer)}'s keys; returns how many were new. */
    public int putNew(ByteBuffer data, IntBuffer offsets, boolean[] out, int outOffset) {
        return (int) keysBuffer(Native.ADD_NEW, data, offsets, out, outOffset);
    }

    private long keysBuffer(int op, ByteBuffer data, IntBuffer offsets, boolean[] out, int outOffset) {
        int n = count(offsets.remaining());
        if (out != null) {
            Objects.checkFromIndexSize(outOffset, n, out.length);
        }
        long h = handle();
        long r;
        if (data.isDirect() && offsets.isDirect()) {
            requireNativeOrder(offsets.order(), "offsets");
            r = Native.keysDirect(op, h, data, data.position(), data.remaining(), offsets, 4L * offsets.position(), n,
                    out, outOffset);
        } else if (data.hasArray() && offsets.hasArray()) {
            r = Native.keysArray(op, h, data.array(), data.arrayOffset() + data.position(), data.remaining(),
                    offsets.array(), offsets.arrayOffset() + offsets.position(), n, out, outOffset);
        } else {
            throw new IllegalArgumentException("data and offsets must both be direct buffers or both have arrays");
        }
        Reference.reachabilityFence(this);
        return r;
    }

    // ---- whole filters -----------------------------------------------------------------------

    /**
     * Adds every key of {@code other} to this filter (bitwise OR), as Guava's {@code putAll}.
     *
     * @throws BloomFilterException INCOMPATIBLE if the filters differ in size, k, layout or seed
     *     ({@link #isCompatible}), READ_ONLY for a mapped filter
     */
    public void putAll(BloomFilter other) {
        Native.union(handle(), other.handle());
        Reference.reachabilityFence(this);
        Reference.reachabilityFence(other);
    }

    /** Whether {@link #putAll(BloomFilter)} can combine the two: same blocks, k, layout and seed. */
    public boolean isCompatible(BloomFilter other) {
        if (other == this) {
            return true;
        }
        long[] a = info(null);
        long[] b = other.info(null);
        return a[1] == b[1] && a[2] == b[2] && a[3] == b[3] && a[4] == b[4] && a[7] == b[7] && a[9] == b[9];
    }

    /** An independent copy: the same geometry, seed, kernel, flags and keys (always writable, on the heap). */
    public BloomFilter copy() {
        BloomFilter c = new BloomFilter(Native.copy(handle()));
        Reference.reachabilityFence(this);
        return c;
    }

    /** Removes every key. No other thread may use the filter meanwhile, even a concurrent one. */
    public void clear() {
        Native.clear(handle());
        Reference.reachabilityFence(this);
    }

    /**
     * The number of distinct keys put so far, estimated from the bits set (as Guava's), rounded;
     * within a few percent up to the filter's capacity.
     */
    public long approximateElementCount() {
        double[] d = new double[Native.INFO_DOUBLES];
        info(d);
        return Math.round(d[1]);
    }

    /**
     * The probability that {@link #mightContain} answers true for a key never put, now: the
     * layout's exact model at the estimated number of keys (Guava: the same question, answered
     * (bits set / bits)^k).
     */
    public double expectedFpp() {
        double[] d = new double[Native.INFO_DOUBLES];
        info(d);
        return d[2];
    }

    /** Bits of the filter (blocks times 512, or 256 in split256). */
    public long bitSize() {
        return info(null)[1];
    }

    /** Bits set per key (k). */
    public int hashFunctions() {
        return (int) info(null)[3];
    }

    /** The hash seed. */
    public long seed() {
        return info(null)[4];
    }

    /** The block layout. */
    public Layout layout() {
        return Layout.of(info(null)[9]);
    }

    /** How 64-bit keys are hashed (null for a Parquet filter, whose keys are XXH64 of their encoding). */
    public U64Hash u64Hash() {
        return U64Hash.ofFlags(info(null)[6]);
    }

    /** The capacity the filter was created for (0 if only bits were given). */
    public long expectedInsertions() {
        return info(null)[0];
    }

    /** Whether concurrent puts are allowed. */
    public boolean isConcurrent() {
        return (info(null)[6] & CONCURRENT) != 0;
    }

    /** The kernel this filter runs: "scalar", "sse42", "avx2", "avx512" or "neon". */
    public String kernel() {
        String k = Native.info(handle(), new long[10], null);
        Reference.reachabilityFence(this);
        return k;
    }

    /** Whether single-key {@link #mightContain(long)} runs in pure Java (false: through JNI). */
    public boolean probesInJava() {
        handle();
        return probe != null;
    }

    private long[] info(double[] doubles) {
        long[] l = new long[10];
        Native.info(handle(), l, doubles);
        Reference.reachabilityFence(this);
        return l;
    }

    /**
     * One reading of the library's info (longs: capacity, bits, blocks, k, seed, memory_bytes,
     * flags, layers, items, layout) and, when doubles is not null, fill info (target fpr,
     * estimated count, fpr now, fill ratio, load), for {@link BloomFilterMetrics}.
     */
    long[] readInfo(double[] doubles) {
        return info(doubles);
    }

    @Override
    public String toString() {
        if (handle == 0) {
            return "BloomFilter[closed]";
        }
        long[] l = info(null);
        return "BloomFilter[bits=" + l[1] + ", k=" + l[3] + ", layout=" + Layout.of(l[9]) + ", kernel=" + kernel()
                + ", seed=" + l[4] + (isConcurrent() ? ", concurrent" : "") + "]";
    }

    // ---- persistence: the library's portable format (docs/FORMAT.md) --------------------------

    /**
     * Writes the filter in the library's format, byte for byte what {@link #save} writes, straight
     * from its memory in 64 KiB pieces. The stream is not closed or flushed.
     *
     * @throws IOException whatever the stream throws (the stream then holds a prefix, which
     *     {@link #readFrom} rejects as CORRUPT)
     */
    public void writeTo(OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        Native.writeTo(handle(), out, new byte[STREAM_CHUNK]);
        Reference.reachabilityFence(this);
    }

    /**
     * Reads one filter that {@link #writeTo} (or any binding's serialize) wrote, validating its
     * header before allocating and its checksum after; reads exactly the filter's bytes, so what
     * follows in the stream stays unread.
     *
     * @throws BloomFilterException CORRUPT (bad magic, checksum, sizes, or a stream that ends
     *     early), VERSION (a newer format), NO_MEMORY
     * @throws IOException whatever the stream throws
     */
    public static BloomFilter readFrom(InputStream in) throws IOException {
        return readFrom(in, null, false);
    }

    /** {@link #readFrom(InputStream)} onto a given kernel (null: the default), made concurrent if asked. */
    public static BloomFilter readFrom(InputStream in, String kernel, boolean concurrent) throws IOException {
        Objects.requireNonNull(in, "in");
        return new BloomFilter(Native.readFrom(in, new byte[STREAM_CHUNK], kernel, concurrent ? CONCURRENT : 0));
    }

    /**
     * Saves atomically: a temporary file beside it, fsync, rename, fsync of the directory; a crash
     * leaves the old file or the new one. The file loads in C, Go, Python, the command-line tool
     * ({@code bloomsimd query FILE}) and the Redis module.
     *
     * @throws BloomFilterException IO (the detail names the failing call and errno)
     */
    public void save(Path path) {
        Native.save(handle(), pathBytes(path));
        Reference.reachabilityFence(this);
    }

    /**
     * Loads a saved file into a new filter on the heap (writable).
     *
     * @throws BloomFilterException IO (missing or unreadable), CORRUPT, VERSION, NO_MEMORY
     */
    public static BloomFilter load(Path path) {
        return load(path, null, false);
    }

    /** {@link #load(Path)} onto a given kernel (null: the default), made concurrent if asked. */
    public static BloomFilter load(Path path, String kernel, boolean concurrent) {
        return new BloomFilter(Native.load(pathBytes(path), false, 0, kernel, concurrent ? CONCURRENT : 0));
    }

    /**
     * Maps a saved file read-only: zero-copy, shared with every process mapping it; puts throw
     * READ_ONLY. The file must not be truncated while mapped (the process would get SIGBUS).
     *
     * @throws BloomFilterException IO, CORRUPT, VERSION
     */
    public static BloomFilter map(Path path) {
        return map(path, null);
    }

    /** {@link #map(Path)} onto a given kernel (null: the default). */
    public static BloomFilter map(Path path, String kernel) {
        return new BloomFilter(Native.load(pathBytes(path), true, MAP_READ_ONLY, kernel, 0));
    }

    private static byte[] pathBytes(Path path) {
        String s = path.toString();
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("path contains a NUL character");
        }
        String encoding = System.getProperty("sun.jnu.encoding");
        Charset cs = encoding != null && Charset.isSupported(encoding) ? Charset.forName(encoding)
                : StandardCharsets.UTF_8;
        byte[] b = s.getBytes(cs);
        byte[] z = new byte[b.length + 1];
        System.arraycopy(b, 0, z, 0, b.length);
        return z;
    }

    // ---- library ---------------------------------------------------------------------------

    /** The version of the C library inside the JNI library, "MAJOR.MINOR.PATCH". */
    public static String libraryVersion() {
        return Native.version();
    }

    /** Whether this CPU runs the kernel natively (not emulated). */
    public static boolean kernelSupported(String name) {
        return Native.kernelSupported(Objects.requireNonNull(name, "name"));
    }

    /**
     * The kernels compiled into the JNI library, best first, whether or not this CPU runs them:
     * "avx512", "avx2", "sse42", "scalar" on x86-64 (and "neon", emulated, in a build with the
     * tests' SIMDe kernel), "neon", "scalar" on AArch64.
     */
    public static List<String> kernels() {
        return List.of(Native.kernels());
    }

    /**
     * The kernel a new filter runs when none is named: the best one this CPU runs, the same one
     * the C library picks (or {@code BLOOMSIMD_KERNEL}'s).
     */
    public static String defaultKernel() {
        return Native.defaultKernel();
    }

    /** Frees the native memory now. Idempotent. */
    @Override
    public void close() {
        if (handle != 0) {
            handle = 0;
            probe = null;
            cleanable.clean();
        }
    }

    private long handle() {
        long h = handle;
        if (h == 0) {
            throw new IllegalStateException("bloomsimd: filter is closed");
        }
        return h;
    }

    /** Test hook: filters alive in the JNI library (created and not yet freed). */
    static long liveFilters() {
        return Native.liveFilters();
    }

    /** Test hook: the C filter, for calling the library directly. */
    long handleForTest() {
        return handle();
    }

    /** Test hook: the pure-Java hash, for comparison with the library's. */
    long javaHash(long key) {
        Probe p = probe;
        if (p == null) {
            throw new IllegalStateException("no pure-Java probe for this filter");
        }
        return p.hash(key);
    }

    /** Test hook: the pure-Java probe (null when the JNI call answers). */
    Probe probeForTest() {
        handle();
        return probe;
    }
}

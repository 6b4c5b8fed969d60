package org.bloomsimd.bench;

import com.google.common.hash.Funnels;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.bloomsimd.BloomFilter;

/**
 * org.bloomsimd.BloomFilter beside Guava's BloomFilter in one JVM: per-key put and mightContain,
 * the batches, bits per key and measured FPR, at 1% for each size; then the bits per key each
 * needs for a measured FPR of 1% and of 0.1%; then a filter built in the Redis module (the one
 * {@code -Dbloomsimd.redis.module} or {@code --redis-module} names), fetched through the library's
 * file format and asked the same questions here as BF.MEXISTS.
 *
 * <p>Each size runs paired rounds: Guava and bloomsimd measured back to back, their order
 * alternating from round to round, so drift on a shared machine hits both alike; the table gives
 * the median ns/key over the rounds and the spread (min..max), and each ratio is the median of the
 * per-round ratios. The first round of each size is a warm-up and is dropped. Times are the
 * measuring thread's CPU time, so a shared machine's descheduling does not count.
 *
 * <pre>
 *   java -Dbloomsimd.jni=... -cp bloomsimd.jar:bloomsimd-bench.jar:/usr/share/java/guava.jar \
 *       org.bloomsimd.bench.Bench [--sizes 100000,1000000,10000000] [--rounds 7] [--fpp 0.01]
 *       [--sweep-keys 1000000 | --no-sweep] [--redis-module bloomsimd.so | --no-redis]
 *       [--redis-keys 1000000] [--redis-server /usr/bin/redis-server] [--quick] [--short]
 * </pre>
 *
 * Lookups probe n keys of which half were inserted, in an order unrelated to the insert order.
 * FPR is measured on n (at least 10^6) keys never inserted. Every answer that can be checked is:
 * no false negatives on either side, and the Redis module's answers equal the fetched copy's;
 * a wrong one ends the run with exit status 2.
 */
public final class Bench {
    private static long sink;

    private Bench() {}

    static long key(long i) {
        return (i + 1) * 0x9E3779B97F4A7C15L;
    }

    static long absent(long i) {
        return ~((i + 1) * 0xC2B2AE3D27D4EB4FL);
    }

    /** One measurement: ns per key of each case, for one round. */
    interface Case {
        double run();
    }

    static final class Row {
        final String name;
        final List<Double> guava = new ArrayList<>();
        final List<Double> ours = new ArrayList<>();

        Row(String name) {
            this.name = name;
        }

        /** The median of the per-round ratios Guava / bloomsimd. */
        double ratio() {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < guava.size(); i++) {
                ratios.add(guava.get(i) / ours.get(i));
            }
            return median(ratios);
        }
    }

    static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = a.length;
        return n % 2 == 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    }

    static String spread(List<Double> v) {
        double min = v.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max = v.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return String.format(Locale.ROOT, "%.2f..%.2f", min, max);
    }

    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * ns per key of r, in this thread's CPU time (CLOCK_THREAD_CPUTIME_ID): on a machine shared
     * with other jobs, time spent descheduled is not counted (cache pollution by them still is).
     */
    static double timed(int n, Runnable r) {
        long t0 = THREADS.getCurrentThreadCpuTime();
        r.run();
        return (THREADS.getCurrentThreadCpuTime() - t0) / (double) n;
    }

    /** Thrown when an answer is wrong: the run stops with exit status 2. */
    static final class WrongAnswer extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WrongAnswer(String what) {
            super(what);
        }
    }

    static final String USAGE = "usage: Bench [--sizes N,N,...] [--rounds R] [--fpp P] [--sweep-keys N | --no-sweep]\n"
            + "             [--redis-module bloomsimd.so | --no-redis] [--redis-keys N] [--redis-server PATH] [--quick] [--short]\n"
            + "  defaults: --sizes 1e5,1e6,1e7 --rounds 7 --fpp 0.01 --sweep-keys 1e6 --redis-keys 1e6, the Redis section\n"
            + "  with the module bench.sh names when redis-server is installed; --quick: 1e5 keys, 2 rounds, sweep and\n"
            + "  Redis on 1e5 keys; --short: a few lines with units";

    public static void main(String[] args) throws IOException {
        long[] sizes = {100_000, 1_000_000, 10_000_000};
        int rounds = 7;
        double fpp = 0.01;
        int sweepKeys = 1_000_000;
        int redisKeys = 1_000_000;
        // bench.sh names the build's module; the section runs when redis-server is installed
        String redisModule = System.getProperty("bloomsimd.redis.module");
        String redisServer = "/usr/bin/redis-server";
        boolean redisAsked = false;
        boolean shortForm = false;
        if (Arrays.asList(args).contains("--quick")) { // first, so that explicit options override it
            sizes = new long[] {100_000};
            rounds = 2;
            sweepKeys = 100_000;
            redisKeys = 100_000;
        }
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes":
                    sizes = Arrays.stream(args[++i].split(",")).mapToLong(s -> (long) Double.parseDouble(s)).toArray();
                    break;
                case "--rounds":
                    rounds = Integer.parseInt(args[++i]);
                    break;
                case "--fpp":
                    fpp = Double.parseDouble(args[++i]);
                    break;
                case "--sweep-keys":
                    sweepKeys = (int) Double.parseDouble(args[++i]);
                    break;
                case "--no-sweep":
                    sweepKeys = 0;
                    break;
                case "--redis-module":
                    redisModule = args[++i];
                    redisAsked = true;
                    break;
                case "--no-redis":
                    redisModule = null;
                    break;
                case "--redis-server":
                    redisServer = args[++i];
                    break;
                case "--redis-keys":
                    redisKeys = (int) Double.parseDouble(args[++i]);
                    break;
                case "--quick":
                    break;
                case "--short":
                    shortForm = true;
                    break;
                case "--help":
                case "-h":
                    System.out.println(USAGE);
                    return;
                default:
                    System.err.println(USAGE);
                    System.exit(2);
            }
        }
        try {
            String head = cpu() + "; " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                    + "; Guava 31.1 BloomFilter<Long> (Funnels.longFunnel())";
            if (!shortForm) {
                System.out.println("# " + head + "; ns/key = thread CPU time");
            }
            warmUp(fpp);
            List<SizeResult> results = new ArrayList<>();
            for (long size : sizes) {
                SizeResult r = run((int) size, rounds, fpp);
                results.add(r);
                if (!shortForm) {
                    r.print();
                }
            }
            List<Sweep> sweeps = new ArrayList<>();
            if (sweepKeys > 0) {
                for (double target : new double[] {0.01, 0.001}) {
                    Sweep sw = sweep(sweepKeys, target);
                    sweeps.add(sw);
                    if (!shortForm) {
                        sw.print();
                    }
                }
            }
            RedisShare redis = null;
            if (redisModule != null && !redisAsked
                    && !(Files.isExecutable(Path.of(redisServer)) && Files.isRegularFile(Path.of(redisModule)))) {
                System.out.println("# the Redis section skipped: no " + redisServer + " or " + redisModule);
                redisModule = null;
            }
            if (redisModule != null) {
                redis = redisShare(redisServer, redisModule, redisKeys, Math.max(rounds, 1));
                if (!shortForm) {
                    redis.print();
                }
            }
            if (shortForm) {
                printShort(head, rounds, results, sweeps, redis);
            }
        } catch (WrongAnswer e) {
            System.err.println("Bench: WRONG ANSWER: " + e.getMessage());
            System.exit(2);
        }
        if (!shortForm) {
            System.out.println("# sink " + (sink & 1));
        }
    }

    static String exp(long n) {
        int e = (int) Math.round(Math.log10(n));
        return (long) Math.pow(10, e) == n ? "1e" + e : Long.toString(n);
    }

    static String ns(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f ns", v) : String.format(Locale.ROOT, "%.3g ns", v);
    }

    /** The main job's form (scripts/bench.sh): a few lines with units, medians and median per-round ratios. */
    static void printShort(String head, int rounds, List<SizeResult> results, List<Sweep> sweeps, RedisShare redis) {
        System.out.printf(Locale.ROOT, "Java package, kernel %s, %s: ns per key of thread CPU time, %d paired rounds "
                + "against Guava at %s; '40x' = Guava's per-key calls take 40 times as long%n",
                results.isEmpty() ? "?" : results.get(0).kernel, head, rounds, results.isEmpty() ? "?"
                : pct(results.get(0).fpp));
        for (SizeResult r : results) {
            System.out.printf(Locale.ROOT, "  %-4s putAll %s (%.0fx), mightContainAll %s (%.0fx), mightContain(long) %s "
                    + "(%.1fx), put %s (%.1fx)%n", exp(r.n), ns(median(r.putAll.ours)), r.putAll.ratio(),
                    ns(median(r.getAll.ours)), r.getAll.ratio(), ns(median(r.get.ours)), r.get.ratio(),
                    ns(median(r.put.ours)), r.put.ratio());
        }
        if (!sweeps.isEmpty()) {
            StringBuilder b = new StringBuilder("  bits/key for a measured FPR of");
            for (Sweep sw : sweeps) {
                b.append(String.format(Locale.ROOT, " %s: %.2f (Guava %.2f, %+.1f%%);", pct(sw.target), sw.ours,
                        sw.guava, 100 * (sw.ours / sw.guava - 1)));
            }
            System.out.println(b.substring(0, b.length() - 1) + " at " + exp(sweeps.get(0).n) + " keys");
        }
        if (redis != null) {
            System.out.printf(Locale.ROOT, "  %-4s Redis module -> Java through the file format: fetched in %.1f ms, "
                    + "%d/%d answers equal; BF.MEXISTS %s/key (wall, pipelined) vs mightContainAll %s%n",
                    exp(redis.n), redis.fetchMs, redis.probes, redis.probes, ns(redis.mexistsNs), ns(redis.batchNs));
        }
    }

    /** 0.01 as "1%", 0.001 as "0.1%". */
    static String pct(double p) {
        return new java.math.BigDecimal(100 * p).round(new java.math.MathContext(3)).stripTrailingZeros()
                .toPlainString() + "%";
    }

    // The per-key loops, as methods of their own so that the warm-up compiles exactly them.
    static long guavaPut(com.google.common.hash.BloomFilter<Long> g, long[] keys) {
        long s = 0;
        for (long k : keys) {
            s += g.put(k) ? 1 : 0;
        }
        return s;
    }

    static long guavaGet(com.google.common.hash.BloomFilter<Long> g, long[] keys) {
        long s = 0;
        for (long k : keys) {
            s += g.mightContain(k) ? 1 : 0;
        }
        return s;
    }

    static long ourPut(BloomFilter b, long[] keys) {
        long s = 0;
        for (long k : keys) {
            s += b.put(k) ? 1 : 0;
        }
        return s;
    }

    static long ourGet(BloomFilter b, long[] keys) {
        long s = 0;
        for (long k : keys) {
            s += b.mightContain(k) ? 1 : 0;
        }
        return s;
    }

    /** Every loop ~20 times on a small filter, so the JIT has compiled them before any round counts. */
    static void warmUp(double fpp) {
        int n = 50_000;
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = key(i);
        }
        boolean[] out = new boolean[n];
        for (int r = 0; r < 20; r++) {
            com.google.common.hash.BloomFilter<Long> g = com.google.common.hash.BloomFilter.create(
                    Funnels.longFunnel(), n, fpp);
            try (BloomFilter b = BloomFilter.create(n, fpp)) {
                sink += guavaPut(g, keys) + guavaGet(g, keys) + ourPut(b, keys) + ourGet(b, keys);
                b.putAll(keys);
                sink += b.mightContainAll(keys, 0, n, out, 0) + b.putNew(keys, 0, n, out, 0);
            }
        }
    }

    static SizeResult run(int n, int rounds, double fpp) {
        long[] keys = new long[n];
        long[] probes = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = key(i);
            // half inserted keys (every other, scattered), half absent ones
            probes[i] = (i & 1) == 0 ? key((i * 7919L) % n) : absent(i);
        }
        boolean[] out = new boolean[n];
        Row put = new Row("put(long), per key");
        Row get = new Row("mightContain(long), per key");
        Row putAll = new Row("putAll(long[]) vs Guava put per key");
        Row getAll = new Row("mightContainAll(long[]) vs Guava per key");
        Row putNew = new Row("putNew(long[]) vs Guava put per key");
        String kernel = "";
        double oursBits = 0;
        double guavaBits = 0;
        double oursFpr = 0;
        double guavaFpr = 0;
        long[] allocated = {-1, -1, -1};
        for (int r = 0; r <= rounds; r++) {
            boolean guavaFirst = (r & 1) == 0;
            com.google.common.hash.BloomFilter<Long> g = com.google.common.hash.BloomFilter.create(
                    Funnels.longFunnel(), n, fpp);
            BloomFilter b = BloomFilter.create(n, fpp);
            BloomFilter b2 = BloomFilter.create(n, fpp);
            BloomFilter b3 = BloomFilter.create(n, fpp);
            kernel = b.kernel();
            double[] t = new double[10];
            for (int side = 0; side < 2; side++) {
                boolean doGuava = (side == 0) == guavaFirst;
                if (doGuava) {
                    t[0] = timed(n, () -> sink += guavaPut(g, keys));
                    t[1] = timed(n, () -> sink += guavaGet(g, probes));
                } else {
                    t[2] = timed(n, () -> sink += ourPut(b, keys));
                    t[3] = timed(n, () -> sink += ourGet(b, probes));
                    long a0 = allocatedBytes();
                    t[4] = timed(n, () -> b2.putAll(keys));
                    long a1 = allocatedBytes();
                    t[5] = timed(n, () -> sink += b2.mightContainAll(probes, 0, n, out, 0));
                    long a2 = allocatedBytes();
                    t[6] = timed(n, () -> sink += b3.putNew(keys, 0, n, out, 0));
                    long a3 = allocatedBytes();
                    if (r == rounds) { // the JIT has settled
                        allocated = new long[] {a1 - a0, a2 - a1, a3 - a2};
                    }
                }
            }
            if (r > 0) { // round 0 warms up
                put.guava.add(t[0]);
                put.ours.add(t[2]);
                get.guava.add(t[1]);
                get.ours.add(t[3]);
                putAll.guava.add(t[0]);
                putAll.ours.add(t[4]);
                getAll.guava.add(t[1]);
                getAll.ours.add(t[5]);
                putNew.guava.add(t[0]);
                putNew.ours.add(t[6]);
            }
            if (r == rounds) {
                int m = Math.max(n, 1_000_000);
                long[] none = new long[m];
                for (int i = 0; i < m; i++) {
                    none[i] = absent(n + i) ^ 0x5555_5555_5555_5555L;
                }
                long gfp = 0;
                for (long k : none) {
                    gfp += g.mightContain(k) ? 1 : 0;
                }
                guavaFpr = gfp / (double) m;
                oursFpr = b.mightContainAll(none, 0, m, null, 0) / (double) m;
                oursBits = b.bitSize() / (double) n;
                guavaBits = guavaBitSize(n, fpp) / (double) n;
                for (long k : keys) { // no false negatives, on either side
                    if (!b.mightContain(k) || !g.mightContain(k)) {
                        throw new WrongAnswer("a false negative at n = " + n);
                    }
                }
            }
            b.close();
            b2.close();
            b3.close();
        }
        SizeResult res = new SizeResult(n, fpp, rounds, kernel, put, get, putAll, getAll, putNew);
        res.guavaBits = guavaBits;
        res.oursBits = oursBits;
        res.guavaFpr = guavaFpr;
        res.oursFpr = oursFpr;
        res.allocated = allocated;
        return res;
    }

    /** One size's paired rounds. */
    static final class SizeResult {
        final int n;
        final double fpp;
        final int rounds;
        final String kernel;
        final Row put;
        final Row get;
        final Row putAll;
        final Row getAll;
        final Row putNew;
        double guavaBits;
        double oursBits;
        double guavaFpr;
        double oursFpr;
        long[] allocated;

        SizeResult(int n, double fpp, int rounds, String kernel, Row put, Row get, Row putAll, Row getAll, Row putNew) {
            this.n = n;
            this.fpp = fpp;
            this.rounds = rounds;
            this.kernel = kernel;
            this.put = put;
            this.get = get;
            this.putAll = putAll;
            this.getAll = getAll;
            this.putNew = putNew;
        }

        void print() {
            System.out.printf(Locale.ROOT, "%n## n = %d, fpp %.3g, %d paired rounds (bloomsimd kernel %s)%n%n", n, fpp,
                    rounds, kernel);
            System.out.println("| case | Guava ns/key (spread) | bloomsimd ns/key (spread) | speed-up (median of rounds) |");
            System.out.println("|---|---:|---:|---:|");
            for (Row row : List.of(put, get, putAll, getAll, putNew)) {
                System.out.printf(Locale.ROOT, "| %s | %.2f (%s) | %.2f (%s) | %.2fx |%n", row.name, median(row.guava),
                        spread(row.guava), median(row.ours), spread(row.ours), row.ratio());
            }
            System.out.printf(Locale.ROOT, "%nbits/key: Guava %.2f, bloomsimd %.2f; measured FPR on %d absent keys: "
                    + "Guava %.4f%%, bloomsimd %.4f%%%n", guavaBits, oursBits, Math.max(n, 1_000_000), 100 * guavaFpr,
                    100 * oursFpr);
            System.out.printf(Locale.ROOT, "bytes allocated by one call on %d keys (last round): putAll %d, "
                    + "mightContainAll into a boolean[] %d, putNew into a boolean[] %d%n", n, allocated[0], allocated[1],
                    allocated[2]);
        }
    }

    private static final com.sun.management.ThreadMXBean ALLOC =
            java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean
                    ? (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean()
                    : null;

    /** Bytes this thread has allocated on the Java heap so far (-1 if the JVM cannot tell). */
    static long allocatedBytes() {
        return ALLOC != null && ALLOC.isThreadAllocatedMemorySupported()
                ? ALLOC.getThreadAllocatedBytes(Thread.currentThread().getId()) : -1;
    }

    /** Guava's optimalNumOfBits (its BloomFilter.create sizing), rounded up to its 64-bit words. */
    static long guavaBitSize(long n, double p) {
        long bits = (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2)));
        return (bits + 63) / 64 * 64;
    }

    // ---- bits per key at an equal measured FPR ----------------------------------------------

    /**
     * The bits per key each filter needs for a measured FPR of {@code target} at n keys. Each side
     * is sized by its own fpp parameter, at 0.5, 0.7, 1, 1.4 and 2 times the target; each point's
     * FPR is measured on 0.02 n / target (at least n) keys never inserted (about 2% error on the
     * FPR at n = 10^6), and ln(FPR) is interpolated linearly in bits/key between the two points
     * around the target. Guava's size is what its writeTo writes (6 bytes of header, then the
     * bit array's 64-bit words), not a formula.
     */
    static final class Sweep {
        final int n;
        final double target;
        final int absent;
        final List<double[]> oursPoints = new ArrayList<>(); // {fpp given, bits/key, measured FPR}
        final List<double[]> guavaPoints = new ArrayList<>();
        double ours;
        double guava;

        Sweep(int n, double target, int absent) {
            this.n = n;
            this.target = target;
            this.absent = absent;
        }

        void print() {
            System.out.printf(Locale.ROOT, "%n## bits/key for a measured FPR of %s, n = %d (FPR on %d absent keys)%n%n",
                    pct(target), n, absent);
            System.out.println("| fpp given | Guava bits/key | Guava measured FPR | bloomsimd bits/key | bloomsimd measured FPR |");
            System.out.println("|---:|---:|---:|---:|---:|");
            for (int i = 0; i < oursPoints.size(); i++) {
                double[] g = guavaPoints.get(i);
                double[] o = oursPoints.get(i);
                System.out.printf(Locale.ROOT, "| %.3g | %.2f | %.4f%% | %.2f | %.4f%% |%n", o[0], g[1], 100 * g[2], o[1],
                        100 * o[2]);
            }
            System.out.printf(Locale.ROOT, "%nat a measured FPR of %s: Guava %.2f bits/key, bloomsimd %.2f (%+.1f%%)%n",
                    pct(target), guava, ours, 100 * (ours / guava - 1));
        }
    }

    static Sweep sweep(int n, double target) {
        int m = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(n, Math.round(0.02 * n / target)));
        Sweep sw = new Sweep(n, target, m);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = key(i);
        }
        long[] none = new long[m];
        for (int i = 0; i < m; i++) {
            none[i] = absent(n + i) ^ 0x3333_3333_3333_3333L;
        }
        for (double f : new double[] {0.5, 0.7, 1, 1.4, 2}) {
            double fpp = target * f;
            try (BloomFilter b = BloomFilter.create(n, fpp)) {
                b.putAll(keys);
                if (b.mightContainAll(keys, 0, n, null, 0) != n) {
                    throw new WrongAnswer("a false negative in the sweep, fpp " + fpp);
                }
                sw.oursPoints.add(new double[] {fpp, b.bitSize() / (double) n,
                    b.mightContainAll(none, 0, m, null, 0) / (double) m});
            }
            com.google.common.hash.BloomFilter<Long> g = com.google.common.hash.BloomFilter.create(
                    Funnels.longFunnel(), n, fpp);
            sink += guavaPut(g, keys);
            if (guavaGet(g, keys) != n) {
                throw new WrongAnswer("a false negative in Guava's filter, fpp " + fpp);
            }
            ByteArrayOutputStream image = new ByteArrayOutputStream();
            try {
                g.writeTo(image);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            sw.guavaPoints.add(new double[] {fpp, 8.0 * (image.size() - 6) / n, guavaGet(g, none) / (double) m});
        }
        sw.ours = atFpr(sw.oursPoints, target);
        sw.guava = atFpr(sw.guavaPoints, target);
        return sw;
    }

    /** bits/key where ln(FPR), interpolated linearly between the points around target, is ln(target). */
    static double atFpr(List<double[]> points, double target) {
        List<double[]> pts = new ArrayList<>();
        for (double[] p : points) {
            if (p[2] > 0) {
                pts.add(p);
            }
        }
        pts.sort((a, b) -> Double.compare(a[1], b[1]));
        if (pts.size() < 2) {
            return Double.NaN;
        }
        int i = 0;
        while (i < pts.size() - 2 && pts.get(i + 1)[2] > target) {
            i++;
        }
        double[] a = pts.get(i);
        double[] b = pts.get(i + 1);
        double la = Math.log(a[2]);
        double lb = Math.log(b[2]);
        return la == lb ? (a[1] + b[1]) / 2 : a[1] + (Math.log(target) - la) * (b[1] - a[1]) / (lb - la);
    }

    // ---- a filter shared with the Redis module through the file format -------------------------

    /** The smallest RESP client: pipelined commands of bulk strings, replies parsed from one buffer. */
    static final class Resp implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private int end;

        Resp(int port) throws IOException {
            socket = new Socket(InetAddress.getByName("127.0.0.1"), port);
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        }

        void send(Object... args) throws IOException {
            head('*', args.length);
            for (Object a : args) {
                bulk(a instanceof byte[] ? (byte[]) a : a.toString().getBytes(StandardCharsets.UTF_8));
            }
        }

        /** A command of a name, a key and 8-byte items: keys[from .. to) as little-endian bytes. */
        void sendKeys(String command, String key, long[] keys, int from, int to) throws IOException {
            head('*', 2 + to - from);
            bulk(command.getBytes(StandardCharsets.US_ASCII));
            bulk(key.getBytes(StandardCharsets.UTF_8));
            byte[] item = new byte[8];
            for (int i = from; i < to; i++) {
                long k = keys[i];
                for (int b = 0; b < 8; b++) {
                    item[b] = (byte) (k >>> (8 * b));
                }
                bulk(item);
            }
        }

        private void head(char type, int n) throws IOException {
            out.write(type);
            out.write(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
            out.write('\r');
            out.write('\n');
        }

        private void bulk(byte[] v) throws IOException {
            head('$', v.length);
            out.write(v);
            out.write('\r');
            out.write('\n');
        }

        Object call(Object... args) throws IOException {
            send(args);
            out.flush();
            return read();
        }

        void flush() throws IOException {
            out.flush();
        }

        private int next() throws IOException {
            if (pos == end) {
                end = in.read(buf, 0, buf.length);
                pos = 0;
                if (end <= 0) {
                    throw new IOException("redis: connection closed");
                }
            }
            return buf[pos++];
        }

        private String line() throws IOException {
            StringBuilder s = new StringBuilder();
            for (int c; (c = next()) != '\r';) {
                s.append((char) c);
            }
            next(); // '\n'
            return s.toString();
        }

        Object read() throws IOException {
            int type = next();
            String l = line();
            switch (type) {
                case '+':
                    return l;
                case '-':
                    throw new IOException("redis: " + l);
                case ':':
                    return Long.parseLong(l);
                case '$': {
                    int n = Integer.parseInt(l);
                    if (n < 0) {
                        return null;
                    }
                    byte[] v = new byte[n];
                    for (int i = 0; i < n; i++) {
                        v[i] = (byte) next();
                    }
                    next();
                    next();
                    return v;
                }
                case '*': {
                    int n = Integer.parseInt(l);
                    List<Object> a = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        a.add(read());
                    }
                    return a;
                }
                default:
                    throw new IOException("redis: unexpected reply type " + (char) type);
            }
        }

        /** An array of integer replies (BF.MADD, BF.MEXISTS) into out[at ..]; returns how many. */
        int readFlags(boolean[] out, int at) throws IOException {
            int type = next();
            String l = line();
            if (type == '-') {
                throw new IOException("redis: " + l);
            }
            if (type != '*') {
                throw new IOException("redis: expected an array, got " + (char) type + l);
            }
            int n = Integer.parseInt(l);
            for (int i = 0; i < n; i++) {
                if (next() != ':') {
                    throw new IOException("redis: expected an integer in the array");
                }
                out[at + i] = next() == '1';
                next(); // '\r'
                next(); // '\n'
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static final int REDIS_CHUNK = 1000; // items per BF.MADD / BF.MEXISTS
    static final int REDIS_WINDOW = 32; // commands in flight

    /** Sends keys in commands of REDIS_CHUNK items, REDIS_WINDOW in flight; the replies into out. */
    static void pipelined(Resp c, String command, long[] keys, boolean[] out) throws IOException {
        int n = keys.length;
        int sent = 0;
        int received = 0;
        while (received < n) {
            while (sent < n && sent - received < REDIS_WINDOW * REDIS_CHUNK) {
                int to = Math.min(n, sent + REDIS_CHUNK);
                c.sendKeys(command, "shared", keys, sent, to);
                sent = to;
            }
            c.flush();
            received += c.readFlags(out, received);
        }
    }

    /** What the Redis section measured: wall times (the server is another process). */
    static final class RedisShare {
        int n;
        int probes;
        String version;
        long bytes;
        double maddNs;
        double fetchMs;
        double mexistsNs;
        double batchNs;
        double singleNs;
        boolean inJava;
        String filter;
        int rounds;

        void print() {
            System.out.printf(Locale.ROOT, "%n## a filter shared with the Redis module (redis-server %s), %d keys%n%n", version,
                    n);
            System.out.printf(Locale.ROOT, "BF.RESERVE shared 0.01 %d NONSCALING, then BF.MADD of the keys as 8-byte "
                    + "little-endian items (%d a command, pipelined): %.0f ns/item, wall%n", n, REDIS_CHUNK, maddNs);
            System.out.printf(Locale.ROOT, "fetched into Java through the file format (BF.SCANDUMP chunks after the "
                    + "module's header, then BloomFilter.readFrom): %.1f ms wall for %d bytes; %s%n", fetchMs, bytes,
                    filter);
            System.out.printf(Locale.ROOT, "the same %d lookups (half present), medians of %d alternating rounds: "
                    + "BF.MEXISTS %.0f ns/key (wall, %d a command, pipelined); on the fetched copy mightContainAll %.2f "
                    + "ns/key, mightContain(long) %.2f ns/key (%s, thread CPU time); every answer equal%n", probes, rounds,
                    mexistsNs, REDIS_CHUNK, batchNs, singleNs, inJava ? "pure Java" : "JNI");
        }
    }

    static RedisShare redisShare(String server, String module, int n, int rounds) throws IOException {
        if (!Files.isExecutable(Path.of(server)) || !Files.isRegularFile(Path.of(module))) {
            throw new IOException("Redis section: " + server + " or " + module + " missing");
        }
        Path dir = Files.createTempDirectory("bloomsimd-bench-redis");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        Path log = dir.resolve("redis.log");
        Process redis = new ProcessBuilder(server, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", dir.toString(), "--loadmodule", Path.of(module).toAbsolutePath().toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            Resp c = null;
            for (int i = 0; i < 200 && c == null && redis.isAlive(); i++) {
                try {
                    c = new Resp(port);
                } catch (IOException notYet) {
                    try {
                        Thread.sleep(25);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted");
                    }
                }
            }
            if (c == null) {
                throw new IOException("redis-server did not start: " + Files.readString(log));
            }
            try (Resp r = c) {
                return redisRounds(r, n, rounds);
            }
        } finally {
            redis.destroy();
            try {
                redis.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Files.deleteIfExists(log);
            Files.deleteIfExists(dir);
        }
    }

    static RedisShare redisRounds(Resp c, int n, int rounds) throws IOException {
        RedisShare res = new RedisShare();
        res.n = n;
        res.probes = n;
        String info = new String((byte[]) c.call("INFO", "server"), StandardCharsets.UTF_8);
        res.version = info.replaceAll("(?s).*redis_version:([^\r\n]*).*", "$1");
        long[] keys = new long[n];
        long[] probes = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = key(i);
            probes[i] = (i & 1) == 0 ? key((i * 7919L) % n) : absent(i);
        }
        c.call("BF.RESERVE", "shared", "0.01", Integer.toString(n), "NONSCALING");
        boolean[] added = new boolean[n];
        long t0 = System.nanoTime();
        pipelined(c, "BF.MADD", keys, added);
        res.maddNs = (System.nanoTime() - t0) / (double) n;

        // Redis -> Java: BF.SCANDUMP's chunk 1 is the module's own header; the rest, concatenated,
        // is the library's file format, which readFrom reads.
        t0 = System.nanoTime();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (long it = 0;;) {
            @SuppressWarnings("unchecked")
            List<Object> chunk = (List<Object>) c.call("BF.SCANDUMP", "shared", Long.toString(it));
            it = (Long) chunk.get(0);
            if (it == 0) {
                break;
            }
            if (it > 1) {
                body.write((byte[]) chunk.get(1));
            }
        }
        res.bytes = body.size();
        try (BloomFilter copy = BloomFilter.readFrom(new ByteArrayInputStream(body.toByteArray()))) {
            res.fetchMs = (System.nanoTime() - t0) / 1e6;
            res.inJava = copy.probesInJava();
            res.filter = copy.toString();

            // rounds: BF.MEXISTS and the copy's lookups back to back, order alternating; medians
            boolean[] redisSays = new boolean[n];
            boolean[] batch = new boolean[n];
            boolean[] single = new boolean[n];
            List<Double> mexists = new ArrayList<>();
            List<Double> batchNs = new ArrayList<>();
            List<Double> singleNs = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                for (int side = 0; side < 2; side++) {
                    if ((side == 0) == ((r & 1) == 0)) {
                        long t1 = System.nanoTime();
                        pipelined(c, "BF.MEXISTS", probes, redisSays);
                        mexists.add((System.nanoTime() - t1) / (double) n);
                    } else {
                        batchNs.add(timed(n, () -> sink += copy.mightContainAll(probes, 0, n, batch, 0)));
                        singleNs.add(timed(n, () -> {
                            for (int i = 0; i < n; i++) {
                                single[i] = copy.mightContain(probes[i]);
                            }
                        }));
                    }
                }
                for (int i = 0; i < n; i++) {
                    if ((i & 1) == 0 && !redisSays[i]) {
                        throw new WrongAnswer("BF.MEXISTS: a false negative for probe " + i);
                    }
                    if (batch[i] != redisSays[i] || single[i] != redisSays[i]) {
                        throw new WrongAnswer("probe " + i + ": BF.MEXISTS says " + redisSays[i] + ", the fetched copy "
                                + batch[i] + " (batch) / " + single[i] + " (single)");
                    }
                }
            }
            res.mexistsNs = median(mexists);
            res.batchNs = median(batchNs);
            res.singleNs = median(singleNs);
            res.rounds = rounds;
        }
        return res;
    }

    static String cpu() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    String model = line.substring(line.indexOf(':') + 1).trim();
                    String family = "";
                    String mod = "";
                    for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                        if (l.startsWith("cpu family") && family.isEmpty()) {
                            family = l.substring(l.indexOf(':') + 1).trim();
                        } else if (l.startsWith("model\t") && mod.isEmpty()) {
                            mod = l.substring(l.indexOf(':') + 1).trim();
                        }
                    }
                    return model + " (family " + family + ", model " + mod + ")";
                }
            }
        } catch (IOException e) {
            // not Linux: fall through
        }
        return System.getProperty("os.arch");
    }
}

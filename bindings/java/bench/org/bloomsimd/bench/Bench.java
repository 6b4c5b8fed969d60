package org.bloomsimd.bench;

import com.google.common.hash.Funnels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.bloomsimd.BloomFilter;

/**
 * org.bloomsimd.BloomFilter beside Guava's BloomFilter in one JVM: per-key put and mightContain,
 * the batches, bits per key and measured FPR, at 1% for each size.
 *
 * <p>Each size runs paired rounds: Guava and bloomsimd measured back to back, their order
 * alternating from round to round, so drift on a shared machine hits both alike; the table gives
 * the median ns/key over the rounds and the spread (min..max), and each ratio is the median of the
 * per-round ratios. The first round of each size is a warm-up and is dropped. Times are the
 * measuring thread's CPU time, so a shared machine's descheduling does not count.
 *
 * <pre>
 *   java -Dbloomsimd.jni=... -cp bloomsimd.jar:bloomsimd-bench.jar:/usr/share/java/guava.jar \
 *       org.bloomsimd.bench.Bench [--sizes 100000,1000000,10000000] [--rounds 7] [--fpp 0.01] [--quick]
 * </pre>
 *
 * Lookups probe n keys of which half were inserted, in an order unrelated to the insert order.
 * FPR is measured on n (at least 10^6) keys never inserted.
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

    public static void main(String[] args) throws IOException {
        long[] sizes = {100_000, 1_000_000, 10_000_000};
        int rounds = 7;
        double fpp = 0.01;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes":
                    sizes = Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
                    break;
                case "--rounds":
                    rounds = Integer.parseInt(args[++i]);
                    break;
                case "--fpp":
                    fpp = Double.parseDouble(args[++i]);
                    break;
                case "--quick":
                    sizes = new long[] {100_000};
                    rounds = 2;
                    break;
                default:
                    System.err.println("usage: Bench [--sizes N,N,...] [--rounds R] [--fpp P] [--quick]");
                    System.exit(2);
            }
        }
        System.out.println("# " + cpu() + "; " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.version") + "; Guava 31.1 BloomFilter<Long> (Funnels.longFunnel()); "
                + "ns/key = thread CPU time");
        warmUp(fpp);
        for (long size : sizes) {
            run((int) size, rounds, fpp);
        }
        System.out.println("# sink " + (sink & 1));
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

    static void run(int n, int rounds, double fpp) {
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
                    t[4] = timed(n, () -> b2.putAll(keys));
                    t[5] = timed(n, () -> sink += b2.mightContainAll(probes, 0, n, out, 0));
                    t[6] = timed(n, () -> sink += b3.putNew(keys, 0, n, out, 0));
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
                        throw new AssertionError("false negative");
                    }
                }
            }
            b.close();
            b2.close();
            b3.close();
        }
        System.out.printf(Locale.ROOT, "%n## n = %d, fpp %.3g, %d paired rounds (bloomsimd kernel %s)%n%n", n, fpp,
                rounds, kernel);
        System.out.println("| case | Guava ns/key (spread) | bloomsimd ns/key (spread) | speed-up (median of rounds) |");
        System.out.println("|---|---:|---:|---:|");
        for (Row row : List.of(put, get, putAll, getAll, putNew)) {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < row.guava.size(); i++) {
                ratios.add(row.guava.get(i) / row.ours.get(i));
            }
            System.out.printf(Locale.ROOT, "| %s | %.2f (%s) | %.2f (%s) | %.2fx |%n", row.name, median(row.guava),
                    spread(row.guava), median(row.ours), spread(row.ours), median(ratios));
        }
        System.out.printf(Locale.ROOT, "%nbits/key: Guava %.2f, bloomsimd %.2f; measured FPR on %d absent keys: "
                + "Guava %.4f%%, bloomsimd %.4f%%%n", guavaBits, oursBits, Math.max(n, 1_000_000), 100 * guavaFpr,
                100 * oursFpr);
    }

    /** Guava's optimalNumOfBits (its BloomFilter.create sizing), rounded up to its 64-bit words. */
    static long guavaBitSize(long n, double p) {
        long bits = (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2)));
        return (bits + 63) / 64 * 64;
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

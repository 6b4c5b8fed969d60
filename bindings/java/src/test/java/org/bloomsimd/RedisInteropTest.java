package org.bloomsimd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A filter built in the Redis module (BF.MADD) and dumped with BF.SCANDUMP (or BFX.EXPORT) loads
 * here through readFrom and answers as BF.MEXISTS does; one built here and sent with BFX.IMPORT
 * answers BF.MEXISTS as mightContain does. Skipped without redis-server or the module build.
 */
class RedisInteropTest {
    @TempDir Path dir;

    /** The smallest RESP client: commands as arrays of bulk strings, replies parsed to Java values. */
    private static final class Resp implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        Resp(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        Object call(Object... args) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (Object a : args) {
                byte[] v = a instanceof byte[] ? (byte[]) a : a.toString().getBytes(StandardCharsets.UTF_8);
                b.write(("$" + v.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                b.write(v);
                b.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(b.toByteArray());
            out.flush();
            return read();
        }

        private String line() throws IOException {
            StringBuilder s = new StringBuilder();
            for (int c; (c = in.read()) != '\r';) {
                if (c < 0) {
                    throw new IOException("connection closed");
                }
                s.append((char) c);
            }
            in.read(); // '\n'
            return s.toString();
        }

        private Object read() throws IOException {
            int type = in.read();
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
                    byte[] v = in.readNBytes(n);
                    in.readNBytes(2);
                    return v;
                }
                case '*': {
                    int n = Integer.parseInt(l);
                    List<Object> a = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        a.add(read());
                    }
                    return a;
                }
                default:
                    throw new IOException("unexpected reply type " + (char) type);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** What a test does with a live server. */
    private interface WithRedis {
        void run(Resp c) throws Exception;
    }

    /** Starts redis-server with the module on 127.0.0.1 (a free port), runs body, stops it by its process. */
    private void withRedis(WithRedis body) throws Exception {
        String module = System.getProperty("bloomsimd.redis.module");
        Path server = Path.of("/usr/bin/redis-server");
        Assumptions.assumeTrue(module != null && Files.isRegularFile(Path.of(module)), "no module build");
        Assumptions.assumeTrue(Files.isExecutable(server), "no redis-server");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        Process redis = new ProcessBuilder(server.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--loadmodule", module)
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try {
            Resp r = null;
            for (int i = 0; i < 100 && r == null; i++) {
                try {
                    r = new Resp(port);
                } catch (IOException notYet) {
                    Thread.sleep(50);
                }
            }
            assertTrue(r != null, "redis-server did not start: " + Files.readString(dir.resolve("redis.log")));
            try (Resp c = r) {
                body.run(c);
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** BF.MEXISTS key of probe:0 .. probe:n-1, as booleans. */
    @SuppressWarnings("unchecked")
    private static boolean[] redisProbes(Resp c, String key, int n) throws IOException {
        List<Object> exists = new ArrayList<>(List.of("BF.MEXISTS", key));
        for (int i = 0; i < n; i++) {
            exists.add("probe:" + i);
        }
        List<Object> answers = (List<Object>) c.call(exists.toArray());
        boolean[] says = new boolean[n];
        for (int i = 0; i < n; i++) {
            says[i] = (Long) answers.get(i) == 1;
        }
        return says;
    }

    @Test
    void scandumpLoadsHere() throws Exception {
        withRedis(c -> {
            assertEquals("OK", c.call("BF.RESERVE", "users", "0.01", "10000"));
            List<Object> add = new ArrayList<>(List.of("BF.MADD", "users"));
            for (int i = 0; i < 5000; i++) {
                add.add("user:" + i);
            }
            c.call(add.toArray());
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            long it = 0;
            while (true) {
                @SuppressWarnings("unchecked")
                List<Object> chunk = (List<Object>) c.call("BF.SCANDUMP", "users", Long.toString(it));
                it = (Long) chunk.get(0);
                if (it == 0) {
                    break;
                }
                if (it > 1) { // iterator 1 carries the module's own header; the rest is the library's format
                    body.write((byte[]) chunk.get(1));
                }
            }
            // BFX.EXPORT replies with the same bytes in one piece
            assertArrayEquals(body.toByteArray(), (byte[]) c.call("BFX.EXPORT", "users"));
            boolean[] redisSays = redisProbes(c, "users", 20_000);
            try (BloomFilter f = BloomFilter.readFrom(new ByteArrayInputStream(body.toByteArray()))) {
                for (int i = 0; i < 5000; i++) {
                    assertTrue(f.mightContain("user:" + i));
                }
                int hits = 0;
                for (int i = 0; i < 20_000; i++) {
                    assertEquals(redisSays[i], f.mightContain("probe:" + i), "probe:" + i);
                    hits += redisSays[i] ? 1 : 0;
                }
                assertTrue(hits < 400, "false positives " + hits);
                assertFalse(f.put("user:1"));
            }
        });
    }

    @Test
    void aFilterBuiltHereIsServedByBfxImport() throws Exception {
        withRedis(c -> {
            try (BloomFilter f = BloomFilter.create(10_000, 0.01)) {
                for (int i = 0; i < 5000; i++) {
                    f.put("user:" + i);
                }
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                f.writeTo(bytes);
                assertEquals("OK", c.call("BFX.IMPORT", "from-java", bytes.toByteArray()));
                List<Object> exists = new ArrayList<>(List.of("BF.MEXISTS", "from-java"));
                for (int i = 0; i < 5000; i++) {
                    exists.add("user:" + i);
                }
                @SuppressWarnings("unchecked")
                List<Object> present = (List<Object>) c.call(exists.toArray());
                assertTrue(present.stream().allMatch(v -> (Long) v == 1), "an inserted key is absent in Redis");
                boolean[] redisSays = redisProbes(c, "from-java", 20_000);
                for (int i = 0; i < 20_000; i++) {
                    assertEquals(f.mightContain("probe:" + i), redisSays[i], "probe:" + i);
                }
                assertArrayEquals(bytes.toByteArray(), (byte[]) c.call("BFX.EXPORT", "from-java"));
                IOException refused = assertThrows(IOException.class,
                        () -> c.call("BFX.IMPORT", "from-java", bytes.toByteArray()));
                assertTrue(refused.getMessage().contains("item exists"), refused.getMessage());
            }
        });
    }
}

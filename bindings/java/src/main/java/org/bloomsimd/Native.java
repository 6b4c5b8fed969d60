package org.bloomsimd;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.util.Locale;

/**
 * The JNI library ({@code native/bloomsimd_jni.c}) and where it is found, in this order:
 *
 * <ol>
 *   <li>the system property {@code bloomsimd.jni}: the library file itself;
 *   <li>{@code java.library.path} ({@code -Djava.library.path=PREFIX/lib}): {@code libbloomsimd_jni.so};
 *   <li>next to the jar: the jar's own directory, then {@code ../../lib} and {@code ../../lib64}
 *       from it (an install puts the jar in {@code PREFIX/share/java} and the library in
 *       {@code PREFIX/lib}, or {@code PREFIX/lib/<multiarch>} with prefix /usr on Debian), so an
 *       installed jar needs no flag;
 *   <li>inside the jar: {@code org/bloomsimd/native/linux-<arch>/libbloomsimd_jni.so}, the copy
 *       the Maven artifact carries for each architecture it was built for. It is copied to a
 *       file in a new private temporary directory (owner-only permissions), loaded, and both
 *       are deleted at once: the loaded library stays mapped, and nothing is left behind even
 *       if the JVM is killed.
 * </ol>
 */
final class Native {
    static final String LIBRARY = "bloomsimd_jni";

    static {
        load();
    }

    private Native() {}

    private static void load() {
        String explicit = System.getProperty("bloomsimd.jni");
        if (explicit != null && !explicit.isEmpty()) {
            System.load(new File(explicit).getAbsolutePath());
            return;
        }
        UnsatisfiedLinkError first;
        try {
            System.loadLibrary(LIBRARY);
            return;
        } catch (UnsatisfiedLinkError e) {
            first = e;
        }
        String file = System.mapLibraryName(LIBRARY);
        File jarDir = jarDirectory();
        if (jarDir != null) {
            for (String rel : new String[] {".", "../../lib", "../../lib64", "../lib"}) {
                File candidate = new File(new File(jarDir, rel), file);
                if (candidate.isFile()) {
                    System.load(candidate.getAbsolutePath());
                    return;
                }
            }
            // PREFIX/lib/<multiarch triplet> (GNUInstallDirs with prefix /usr on Debian)
            File[] multiarch = new File(jarDir, "../../lib").listFiles(File::isDirectory);
            if (multiarch != null) {
                for (File dir : multiarch) {
                    File candidate = new File(dir, file);
                    if (candidate.isFile()) {
                        System.load(candidate.getAbsolutePath());
                        return;
                    }
                }
            }
        }
        String resource = resourcePath(file);
        UnsatisfiedLinkError e;
        try {
            if (loadFromJar(resource)) {
                return;
            }
            e = new UnsatisfiedLinkError("bloomsimd: " + file + " not found on java.library.path ("
                    + System.getProperty("java.library.path") + "), next to the jar (" + jarDir + ") or in it ("
                    + (resource == null ? "no copy for os.arch " + System.getProperty("os.arch") : resource)
                    + "); set -Djava.library.path=PREFIX/lib or -Dbloomsimd.jni=FILE");
        } catch (IOException | UnsatisfiedLinkError | SecurityException failure) {
            e = new UnsatisfiedLinkError("bloomsimd: the jar's " + resource + " could not be loaded: " + failure);
            e.addSuppressed(failure);
        }
        e.addSuppressed(first);
        throw e;
    }

    /** The jar's copy for this platform, or null if the jar carries none for it. */
    static String resourcePath(String file) {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> null;
        };
        return os.equals("linux") && arch != null ? "/org/bloomsimd/native/linux-" + arch + "/" + file : null;
    }

    private static boolean loadFromJar(String resource) throws IOException {
        if (resource == null) {
            return false;
        }
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in == null) {
                return false;
            }
            Path dir = Files.createTempDirectory("bloomsimd-jni",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path copy = dir.resolve(resource.substring(resource.lastIndexOf('/') + 1));
            try {
                Files.copy(in, copy);
                System.load(copy.toAbsolutePath().toString());
            } finally {
                Files.deleteIfExists(copy);
                Files.deleteIfExists(dir);
            }
            return true;
        }
    }

    private static File jarDirectory() {
        try {
            CodeSource source = Native.class.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                return null;
            }
            File f = new File(source.getLocation().toURI());
            return f.isFile() ? f.getParentFile() : f;
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            return null;
        }
    }

    // Batch operations (the op argument).
    static final int ADD = 0;
    static final int CONTAINS = 1;
    static final int ADD_NEW = 2;

    static native long create(long capacity, double fpr, long bits, int k, long seed, String kernel, int flags,
            int layout);

    static native void destroy(long h);

    static native long liveFilters();

    static native long copy(long h);

    static native void clear(long h);

    static native boolean addNewU64(long h, long key);

    static native boolean containsU64(long h, long key);

    static native long hashU64(long h, long key);

    /** op 0: contains, 1: add-new. */
    static native boolean bytes(int op, long h, byte[] a, int off, int len);

    static native boolean direct(int op, long h, Buffer buf, int pos, int len);

    static native long u64Array(int op, long h, long[] keys, int off, int n, boolean[] out, int outOff);

    static native long u64Direct(int op, long h, Buffer keys, long pos, int n, boolean[] out, int outOff);

    static native long keysArray(int op, long h, byte[] data, int dataOff, int dataLen, int[] offsets, int offOff,
            int n, boolean[] out, int outOff);

    static native long keysDirect(int op, long h, Buffer data, long dataPos, long dataLen, Buffer offsets,
            long offPos, int n, boolean[] out, int outOff);

    static native void union(long dst, long src);

    /** Length of info's doubles: target fpr, estimated count, fpr now, fill ratio, load. */
    static final int INFO_DOUBLES = 5;

    static native String info(long h, long[] longs, double[] doubles);

    static native ByteBuffer view(long h, long[] geometry, short[] select, int[] salts);

    static native String version();

    static native String statusString(int status);

    static native boolean kernelSupported(String name);

    static native String[] kernels();

    static native String defaultKernel();

    static native void writeTo(long h, OutputStream out, byte[] chunk);

    static native long readFrom(InputStream in, byte[] chunk, String kernel, int flags);

    static native void save(long h, byte[] path);

    static native long load(byte[] path, boolean map, int mapFlags, String kernel, int flags);

    static native void sync(long h);
}

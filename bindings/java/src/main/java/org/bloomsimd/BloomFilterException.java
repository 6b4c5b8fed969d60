package org.bloomsimd;

/**
 * A library call failed: {@link #status()} is the library's status code, {@link #detail()} its
 * one-line reason ({@code bloomsimd_last_error}: the value and the check, e.g. "fpr 1e-11 is below
 * the minimum 1e-10"). The status is the contract; the detail is for people and logs and may change
 * between versions.
 *
 * <p>Unchecked, like Guava's {@code IllegalArgumentException}s, so {@code put} and
 * {@code mightContain} need no {@code try}. Argument errors the JVM itself catches before the call
 * (a null key, an index outside an array, a negative size) are the JDK's exceptions instead:
 * {@link NullPointerException}, {@link IndexOutOfBoundsException}, {@link IllegalArgumentException}.
 * An {@link java.io.IOException} thrown by a caller's stream reaches the caller as it was thrown.
 */
public final class BloomFilterException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final String detail;

    /** Called by the native library (and by the package for its own checks). */
    BloomFilterException(int code, String detail) {
        super(message(code, detail));
        this.status = Status.of(code);
        this.detail = detail == null ? "" : detail;
    }

    private static String message(int code, String detail) {
        String name = Status.of(code) == Status.UNKNOWN ? "status " + code : Native.statusString(code);
        return detail == null || detail.isEmpty() ? "bloomsimd: " + name : "bloomsimd: " + name + ": " + detail;
    }

    /** The library's status code. */
    public Status status() {
        return status;
    }

    /** Why the call failed, in one line; "" when the library had nothing to add. */
    public String detail() {
        return detail;
    }
}

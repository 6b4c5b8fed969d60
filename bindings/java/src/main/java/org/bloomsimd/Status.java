package org.bloomsimd;

/**
 * The library's status codes ({@code bloomsimd_status} in {@code include/bloomsimd.h}), as carried by
 * {@link BloomFilterException#status()}. {@code OK} never appears in an exception.
 */
public enum Status {
    OK(0),
    /** A null pointer, NaN, out-of-range value or unknown flag reached the library. */
    INVALID_ARGUMENT(1),
    /** The size overflows or exceeds the layout's limits. */
    TOO_LARGE(2),
    /** An allocation failed. */
    NO_MEMORY(3),
    /** An unknown kernel name, or one this CPU cannot run. */
    KERNEL_UNAVAILABLE(4),
    /** A system call failed (the detail names it). */
    IO(5),
    /** Serialized data failed validation. */
    CORRUPT(6),
    /** Serialized data has an unsupported format version. */
    VERSION(7),
    /** Two filters differ in geometry, seed or hash. */
    INCOMPATIBLE(8),
    /** A write to a read-only (mapped) filter. */
    READ_ONLY(9),
    /** A value this version of the package does not know. */
    UNKNOWN(-1);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The C enum's value. */
    public int code() {
        return code;
    }

    /** The status with this C value; {@link #UNKNOWN} for any other. */
    public static Status of(int code) {
        for (Status s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return UNKNOWN;
    }
}

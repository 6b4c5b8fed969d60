/*
 * bloomsimd_jni.c — the JNI side of org.bloomsimd (class org.bloomsimd.Native).
 *
 * A client of the library: it includes only include/bloomsimd.h and links
 * libbloomsimd.a statically, with the library's symbols hidden
 * (-Wl,--exclude-libs,ALL), so it cannot clash with another copy loaded in
 * the same JVM (a Python or Redis host, say).
 *
 * Conventions
 *   - A filter is a jlong handle (the bloomsimd_filter pointer). The Java side
 *     never passes 0 (it checks for a closed filter first).
 *   - A failing library call throws org.bloomsimd.BloomFilterException with
 *     the status and bloomsimd_last_error(), read on this thread right after
 *     the call, before anything else can overwrite it.
 *   - Batches take primitive arrays with GetPrimitiveArrayCritical (no copy,
 *     the GC waits for the call) or direct buffers (GetDirectBufferAddress):
 *     one JNI crossing per batch and nothing allocated per key. The Java side
 *     has checked every index and length, so nothing here reads out of bounds.
 *   - Streams call back into Java (OutputStream.write / InputStream.read)
 *     through one caller-provided byte[] chunk; an exception the stream throws
 *     stays pending and reaches the caller as it is.
 */
#include <jni.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomsimd.h"

static jclass exception_class;  /* org.bloomsimd.BloomFilterException, a global ref */
static jmethodID exception_init; /* (int status, String detail) */
static jmethodID output_write;   /* OutputStream.write(byte[], int, int) */
static jmethodID input_read;     /* InputStream.read(byte[], int, int) */
static atomic_long live_filters; /* created minus destroyed through this library: the Cleaner test */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass local = (*env)->FindClass(env, "org/bloomsimd/BloomFilterException");
    if (!local) return JNI_ERR;
    exception_class = (*env)->NewGlobalRef(env, local);
    exception_init = (*env)->GetMethodID(env, local, "<init>", "(ILjava/lang/String;)V");
    jclass out = (*env)->FindClass(env, "java/io/OutputStream");
    jclass in = (*env)->FindClass(env, "java/io/InputStream");
    if (!exception_class || !exception_init || !out || !in) return JNI_ERR;
    output_write = (*env)->GetMethodID(env, out, "write", "([BII)V");
    input_read = (*env)->GetMethodID(env, in, "read", "([BII)I");
    if (!output_write || !input_read) return JNI_ERR;
    return JNI_VERSION_1_8;
}

/* Throws BloomFilterException(status, last error); returns status != OK. */
static int check(JNIEnv *env, bloomsimd_status status)
{
    if (status == BLOOMSIMD_OK) return 0;
    if ((*env)->ExceptionCheck(env)) return 1; /* a stream's own exception wins */
    char detail[256];
    snprintf(detail, sizeof detail, "%s", bloomsimd_last_error()); /* copy before any other call */
    jstring text = (*env)->NewStringUTF(env, detail);
    if (!text) return 1; /* OutOfMemoryError pending */
    jobject e = (*env)->NewObject(env, exception_class, exception_init, (jint)status, text);
    if (e) (*env)->Throw(env, (jthrowable)e);
    return 1;
}

static bloomsimd_filter *F(jlong h) { return (bloomsimd_filter *)(intptr_t)h; }

static jlong handle(bloomsimd_filter *f)
{
    if (f) atomic_fetch_add(&live_filters, 1);
    return (jlong)(intptr_t)f;
}

/* A Java string as a C string (modified UTF-8 is plain ASCII for kernel names); NULL for null. */
static const char *chars(JNIEnv *env, jstring s) { return s ? (*env)->GetStringUTFChars(env, s, NULL) : NULL; }
static void release_chars(JNIEnv *env, jstring s, const char *c)
{
    if (s && c) (*env)->ReleaseStringUTFChars(env, s, c);
}

/* ---- lifecycle ------------------------------------------------------------ */

JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_create(JNIEnv *env, jclass cls, jlong capacity, jdouble fpr,
                                                         jlong bits, jint k, jlong seed, jstring kernel, jint flags,
                                                         jint layout)
{
    (void)cls;
    bloomsimd_options o;
    memset(&o, 0, sizeof o);
    o.capacity = (uint64_t)capacity;
    o.fpr = fpr;
    o.bits = (uint64_t)bits;
    o.k = (uint32_t)k;
    o.seed = (uint64_t)seed;
    o.flags = (uint32_t)flags;
    o.layout = (uint32_t)layout;
    o.kernel = chars(env, kernel);
    if (kernel && !o.kernel) return 0;
    bloomsimd_filter *f = NULL;
    bloomsimd_status s = bloomsimd_create_with(&f, &o);
    release_chars(env, kernel, o.kernel);
    if (check(env, s)) return 0;
    return handle(f);
}

JNIEXPORT void JNICALL Java_org_bloomsimd_Native_destroy(JNIEnv *env, jclass cls, jlong h)
{
    (void)env, (void)cls;
    if (!h) return;
    bloomsimd_destroy(F(h));
    atomic_fetch_sub(&live_filters, 1);
}

JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_liveFilters(JNIEnv *env, jclass cls)
{
    (void)env, (void)cls;
    return atomic_load(&live_filters);
}

JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_copy(JNIEnv *env, jclass cls, jlong h)
{
    (void)cls;
    bloomsimd_filter *f = NULL;
    if (check(env, bloomsimd_clone(&f, F(h)))) return 0;
    return handle(f);
}

JNIEXPORT void JNICALL Java_org_bloomsimd_Native_clear(JNIEnv *env, jclass cls, jlong h)
{
    (void)env, (void)cls;
    bloomsimd_clear(F(h));
}

/* ---- single keys ---------------------------------------------------------- */

JNIEXPORT jboolean JNICALL Java_org_bloomsimd_Native_addNewU64(JNIEnv *env, jclass cls, jlong h, jlong key)
{
    (void)cls;
    bool was_new = false;
    if (check(env, bloomsimd_add_new_u64(F(h), (uint64_t)key, &was_new))) return JNI_FALSE;
    return was_new;
}

JNIEXPORT jboolean JNICALL Java_org_bloomsimd_Native_containsU64(JNIEnv *env, jclass cls, jlong h, jlong key)
{
    (void)env, (void)cls;
    return bloomsimd_contains_u64(F(h), (uint64_t)key);
}

JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_hashU64(JNIEnv *env, jclass cls, jlong h, jlong key)
{
    (void)env, (void)cls;
    uint64_t k = (uint64_t)key, out = 0;
    bloomsimd_hash_batch_u64(F(h), &k, 1, &out);
    return (jlong)out;
}

/* op: 0 contains, 1 add-new. Byte keys of a heap array: one critical section. */
JNIEXPORT jboolean JNICALL Java_org_bloomsimd_Native_bytes(JNIEnv *env, jclass cls, jint op, jlong h, jbyteArray a,
                                                           jint off, jint len)
{
    (void)cls;
    uint8_t *p = (*env)->GetPrimitiveArrayCritical(env, a, NULL);
    if (!p) return JNI_FALSE;
    bool result = false;
    bloomsimd_status s = BLOOMSIMD_OK;
    if (op == 0)
        result = bloomsimd_contains(F(h), p + off, (size_t)len);
    else
        s = bloomsimd_add_new(F(h), p + off, (size_t)len, &result);
    (*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
    if (check(env, s)) return JNI_FALSE;
    return result;
}

JNIEXPORT jboolean JNICALL Java_org_bloomsimd_Native_direct(JNIEnv *env, jclass cls, jint op, jlong h, jobject buf,
                                                            jint pos, jint len)
{
    (void)cls;
    uint8_t *p = (*env)->GetDirectBufferAddress(env, buf);
    if (!p && len > 0) {
        check(env, BLOOMSIMD_ERR_INVALID_ARGUMENT);
        return JNI_FALSE;
    }
    bool result = false;
    if (op == 0) return bloomsimd_contains(F(h), p ? p + pos : p, (size_t)len);
    if (check(env, bloomsimd_add_new(F(h), p ? p + pos : p, (size_t)len, &result))) return JNI_FALSE;
    return result;
}

/* ---- batches ---------------------------------------------------------------
 * op: 0 add (returns 0), 1 contains (returns the hits), 2 add-new (returns the
 * new keys). out (boolean[], i.e. uint8_t 0/1, what the library writes) may be
 * null for 0 and 2, and for 1 when only the count is wanted.                  */

static jlong u64_batch(jint op, jlong h, const uint64_t *keys, jint n, uint8_t *out)
{
    size_t count = 0;
    bloomsimd_status s = BLOOMSIMD_OK;
    switch (op) {
    case 0: s = bloomsimd_add_batch_u64(F(h), keys, (size_t)n); break;
    case 1: count = bloomsimd_contains_batch_u64(F(h), keys, (size_t)n, out); break;
    default: s = bloomsimd_add_new_batch_u64(F(h), keys, (size_t)n, out, &count); break;
    }
    return s == BLOOMSIMD_OK ? (jlong)count : -(jlong)s;
}

JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_u64Array(JNIEnv *env, jclass cls, jint op, jlong h,
                                                           jlongArray keys, jint off, jint n, jbooleanArray out,
                                                           jint out_off)
{
    (void)cls;
    uint64_t *k = (*env)->GetPrimitiveArrayCritical(env, keys, NULL);
    if (!k) return 0;
    uint8_t *o = out ? (*env)->GetPrimitiveArrayCritical(env, out, NULL) : NULL;
    if (out && !o) {
        (*env)->ReleasePrimitiveArrayCritical(env, keys, k, JNI_ABORT);
        return 0;
    }
    jlong r = u64_batch(op, h, k + off, n, o ? o + out_off : NULL);
    if (o) (*env)->ReleasePrimitiveArrayCritical(env, out, o, 0);
    (*env)->ReleasePrimitiveArrayCritical(env, keys, k, JNI_ABORT);
    if (r < 0) check(env, (bloomsimd_status)-r);
    return r;
}

/* keys: a direct buffer (LongBuffer or ByteBuffer) in native order; pos in bytes. */
JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_u64Direct(JNIEnv *env, jclass cls, jint op, jlong h, jobject keys,
                                                            jlong pos, jint n, jbooleanArray out, jint out_off)
{
    (void)cls;
    uint8_t *base = (*env)->GetDirectBufferAddress(env, keys);
    if (!base && n > 0) {
        check(env, BLOOMSIMD_ERR_INVALID_ARGUMENT);
        return 0;
    }
    uint64_t tmp = 0; /* a zero-capacity buffer may have no address */
    const uint64_t *k = base ? (const uint64_t *)(const void *)(base + pos) : &tmp;
    uint8_t *o = out ? (*env)->GetPrimitiveArrayCritical(env, out, NULL) : NULL;
    if (out && !o) return 0;
    jlong r = u64_batch(op, h, k, n, o ? o + out_off : NULL);
    if (o) (*env)->ReleasePrimitiveArrayCritical(env, out, o, 0);
    if (r < 0) check(env, (bloomsimd_status)-r);
    return r;
}

static jlong keys_batch(jint op, jlong h, const bloomsimd_keys *keys, uint8_t *out)
{
    size_t count = 0;
    bloomsimd_status s;
    switch (op) {
    case 0: s = bloomsimd_add_keys(F(h), keys); break;
    case 1: s = bloomsimd_contains_keys(F(h), keys, out, &count); break;
    default: s = bloomsimd_add_new_keys(F(h), keys, out, &count); break;
    }
    return s == BLOOMSIMD_OK ? (jlong)count : -(jlong)s;
}

/* Arrow-style byte keys: key i = data[offsets[i] .. offsets[i+1]), n+1 offsets,
 * relative to data + data_off, data_len bytes readable there; the library
 * validates the offsets (non-decreasing, within data_len) before anything. */
JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_keysArray(JNIEnv *env, jclass cls, jint op, jlong h,
                                                            jbyteArray data, jint data_off, jint data_len,
                                                            jintArray offsets, jint off_off, jint n,
                                                            jbooleanArray out, jint out_off)
{
    (void)cls;
    uint8_t *d = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
    if (!d) return 0;
    uint32_t *offs = (*env)->GetPrimitiveArrayCritical(env, offsets, NULL);
    uint8_t *o = offs && out ? (*env)->GetPrimitiveArrayCritical(env, out, NULL) : NULL;
    jlong r = 0;
    if (offs && (!out || o)) {
        bloomsimd_keys keys = bloomsimd_keys_offsets32(d + data_off, (size_t)data_len, offs + off_off, (size_t)n);
        r = keys_batch(op, h, &keys, o ? o + out_off : NULL);
    }
    if (o) (*env)->ReleasePrimitiveArrayCritical(env, out, o, 0);
    if (offs) (*env)->ReleasePrimitiveArrayCritical(env, offsets, offs, JNI_ABORT);
    (*env)->ReleasePrimitiveArrayCritical(env, data, d, JNI_ABORT);
    if (r < 0) check(env, (bloomsimd_status)-r);
    return r;
}

/* The same over direct buffers (Arrow's own memory); positions in bytes. */
JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_keysDirect(JNIEnv *env, jclass cls, jint op, jlong h, jobject data,
                                                             jlong data_pos, jlong data_len, jobject offsets,
                                                             jlong off_pos, jint n, jbooleanArray out, jint out_off)
{
    (void)cls;
    uint8_t *d = (*env)->GetDirectBufferAddress(env, data);
    uint8_t *ob = (*env)->GetDirectBufferAddress(env, offsets);
    if (!ob || (!d && data_len > 0)) {
        check(env, BLOOMSIMD_ERR_INVALID_ARGUMENT);
        return 0;
    }
    static const uint8_t empty[1];
    bloomsimd_keys keys = bloomsimd_keys_offsets32(d ? d + data_pos : empty, (size_t)data_len,
                                                   (const uint32_t *)(const void *)(ob + off_pos), (size_t)n);
    uint8_t *o = out ? (*env)->GetPrimitiveArrayCritical(env, out, NULL) : NULL;
    if (out && !o) return 0;
    jlong r = keys_batch(op, h, &keys, o ? o + out_off : NULL);
    if (o) (*env)->ReleasePrimitiveArrayCritical(env, out, o, 0);
    if (r < 0) check(env, (bloomsimd_status)-r);
    return r;
}

/* ---- set operations and introspection -------------------------------------- */

JNIEXPORT void JNICALL Java_org_bloomsimd_Native_union(JNIEnv *env, jclass cls, jlong dst, jlong src)
{
    (void)cls;
    check(env, bloomsimd_union(F(dst), F(src)));
}

/* longs: capacity, bits, blocks, k, seed, memory_bytes, flags, layers, items, layout;
 * doubles (Native.INFO_DOUBLES): target fpr, estimated count, fpr now, fill ratio, load
 * (bloomsimd_fill_info's: the share of capacity taken). */
JNIEXPORT jstring JNICALL Java_org_bloomsimd_Native_info(JNIEnv *env, jclass cls, jlong h, jlongArray longs,
                                                         jdoubleArray doubles)
{
    (void)cls;
    bloomsimd_info i;
    memset(&i, 0, sizeof i);
    bloomsimd_get_info(F(h), &i);
    jlong l[10] = {(jlong)i.capacity, (jlong)i.bits,     (jlong)i.blocks, i.k,           (jlong)i.seed,
                   (jlong)i.memory_bytes, i.flags,       i.layers,        (jlong)i.items, i.layout};
    (*env)->SetLongArrayRegion(env, longs, 0, 10, l);
    if (doubles) {
        bloomsimd_fill_info fill;
        memset(&fill, 0, sizeof fill);
        bloomsimd_get_fill_info(F(h), &fill);
        jdouble d[5] = {i.fpr, fill.estimated_items, fill.fpr_now, fill.fill_ratio, fill.load};
        (*env)->SetDoubleArrayRegion(env, doubles, 0, 5, d);
    }
    return (*env)->NewStringUTF(env, i.kernel ? i.kernel : "");
}

/* The filter's bit array for the pure-Java probe, or null when there is none
 * (layered and Parquet filters) or it is too large for a ByteBuffer (2 GiB and
 * more), with the constants of its probe from the library (bloomsimd_get_probe):
 * geometry: nblocks, k, seed, layout, concurrent, read_only, hash (BLOOMSIMD_U64_XXH3
 * or _MUM), xxh3_bitflip, mum_a, mum_b; select: the 64 masks; salts: the 16 salts. */
JNIEXPORT jobject JNICALL Java_org_bloomsimd_Native_view(JNIEnv *env, jclass cls, jlong h, jlongArray geometry,
                                                         jshortArray select, jintArray salts)
{
    (void)cls;
    bloomsimd_view v;
    bloomsimd_probe_constants c;
    if (bloomsimd_get_probe(F(h), &v, &c) != BLOOMSIMD_OK || !v.blocks) return NULL;
    uint64_t block_bytes = v.layout == BLOOMSIMD_LAYOUT_SPLIT256 ? BLOOMSIMD_SPLIT256_BLOCK_BYTES
                                                                  : BLOOMSIMD_BLOCK_BYTES;
    uint64_t bytes = v.nblocks * block_bytes;
    if (bytes > INT32_MAX) return NULL;
    jlong g[10] = {(jlong)v.nblocks, v.k,    (jlong)v.seed,         v.layout,          v.concurrent,
                   v.read_only,      c.hash, (jlong)c.xxh3_bitflip, (jlong)c.mum_a,    (jlong)c.mum_b};
    (*env)->SetLongArrayRegion(env, geometry, 0, 10, g);
    if (v.select) (*env)->SetShortArrayRegion(env, select, 0, 64, (const jshort *)v.select);
    (*env)->SetIntArrayRegion(env, salts, 0, 16, (const jint *)c.salts);
    return (*env)->NewDirectByteBuffer(env, v.blocks, (jlong)bytes);
}

JNIEXPORT jstring JNICALL Java_org_bloomsimd_Native_version(JNIEnv *env, jclass cls)
{
    (void)cls;
    return (*env)->NewStringUTF(env, bloomsimd_version_string());
}

JNIEXPORT jstring JNICALL Java_org_bloomsimd_Native_statusString(JNIEnv *env, jclass cls, jint status)
{
    (void)cls;
    return (*env)->NewStringUTF(env, bloomsimd_status_string((bloomsimd_status)status));
}

JNIEXPORT jboolean JNICALL Java_org_bloomsimd_Native_kernelSupported(JNIEnv *env, jclass cls, jstring name)
{
    (void)cls;
    const char *c = chars(env, name);
    if (!c) return JNI_FALSE;
    jboolean r = bloomsimd_kernel_supported(c) && !bloomsimd_kernel_emulated(c);
    release_chars(env, name, c);
    return r;
}

/* The kernels compiled into this library, best first; null with an OutOfMemoryError pending. */
JNIEXPORT jobjectArray JNICALL Java_org_bloomsimd_Native_kernels(JNIEnv *env, jclass cls)
{
    (void)cls;
    size_t n = bloomsimd_kernel_count();
    jclass string = (*env)->FindClass(env, "java/lang/String");
    jobjectArray out = string ? (*env)->NewObjectArray(env, (jsize)n, string, NULL) : NULL;
    for (size_t i = 0; out && i < n; i++) {
        jstring name = (*env)->NewStringUTF(env, bloomsimd_kernel_name(i));
        if (!name) return NULL;
        (*env)->SetObjectArrayElement(env, out, (jsize)i, name);
        (*env)->DeleteLocalRef(env, name);
    }
    return out;
}

JNIEXPORT jstring JNICALL Java_org_bloomsimd_Native_defaultKernel(JNIEnv *env, jclass cls)
{
    (void)cls;
    const char *k = bloomsimd_default_kernel();
    return (*env)->NewStringUTF(env, k ? k : "");
}

/* ---- persistence ------------------------------------------------------------ */

typedef struct stream_ctx {
    JNIEnv *env;
    jobject stream;
    jbyteArray chunk;
    size_t chunk_len;
} stream_ctx;

static bloomsimd_status write_cb(void *ctx, const void *buf, size_t len)
{
    stream_ctx *c = ctx;
    const uint8_t *p = buf;
    while (len > 0) {
        size_t n = len < c->chunk_len ? len : c->chunk_len;
        (*c->env)->SetByteArrayRegion(c->env, c->chunk, 0, (jsize)n, (const jbyte *)p);
        (*c->env)->CallVoidMethod(c->env, c->stream, output_write, c->chunk, 0, (jint)n);
        if ((*c->env)->ExceptionCheck(c->env)) return BLOOMSIMD_ERR_IO;
        p += n;
        len -= n;
    }
    return BLOOMSIMD_OK;
}

static bloomsimd_status read_cb(void *ctx, void *buf, size_t len, size_t *got)
{
    stream_ctx *c = ctx;
    size_t want = len < c->chunk_len ? len : c->chunk_len;
    jint r;
    do {
        r = (*c->env)->CallIntMethod(c->env, c->stream, input_read, c->chunk, 0, (jint)want);
        if ((*c->env)->ExceptionCheck(c->env)) return BLOOMSIMD_ERR_IO;
    } while (r == 0); /* InputStream.read returns 0 only for a 0-byte request; be safe */
    if (r < 0) {
        *got = 0;
        return BLOOMSIMD_OK;
    }
    if ((size_t)r > want) r = (jint)want; /* a broken stream; the library checks the rest */
    (*c->env)->GetByteArrayRegion(c->env, c->chunk, 0, r, buf);
    *got = (size_t)r;
    return BLOOMSIMD_OK;
}

JNIEXPORT void JNICALL Java_org_bloomsimd_Native_writeTo(JNIEnv *env, jclass cls, jlong h, jobject stream,
                                                         jbyteArray chunk)
{
    (void)cls;
    stream_ctx c = {env, stream, chunk, (size_t)(*env)->GetArrayLength(env, chunk)};
    check(env, bloomsimd_serialize_stream(F(h), write_cb, &c));
}

JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_readFrom(JNIEnv *env, jclass cls, jobject stream,
                                                           jbyteArray chunk, jstring kernel, jint flags)
{
    (void)cls;
    stream_ctx c = {env, stream, chunk, (size_t)(*env)->GetArrayLength(env, chunk)};
    bloomsimd_load_options o = {chars(env, kernel), (uint32_t)flags, 0};
    if (kernel && !o.kernel) return 0;
    bloomsimd_filter *f = NULL;
    bloomsimd_status s = bloomsimd_deserialize_stream(&f, read_cb, &c, &o);
    release_chars(env, kernel, o.kernel);
    if (check(env, s)) return 0;
    return handle(f);
}

/* Paths arrive as NUL-terminated bytes (the JVM's file name encoding). */
JNIEXPORT void JNICALL Java_org_bloomsimd_Native_save(JNIEnv *env, jclass cls, jlong h, jbyteArray path)
{
    (void)cls;
    jbyte *p = (*env)->GetByteArrayElements(env, path, NULL);
    if (!p) return;
    bloomsimd_status s = bloomsimd_save(F(h), (const char *)p);
    (*env)->ReleaseByteArrayElements(env, path, p, JNI_ABORT);
    check(env, s);
}

JNIEXPORT jlong JNICALL Java_org_bloomsimd_Native_load(JNIEnv *env, jclass cls, jbyteArray path, jboolean map,
                                                       jint map_flags, jstring kernel, jint flags)
{
    (void)cls;
    jbyte *p = (*env)->GetByteArrayElements(env, path, NULL);
    if (!p) return 0;
    bloomsimd_load_options o = {chars(env, kernel), (uint32_t)flags, map ? (unsigned)map_flags : 0};
    bloomsimd_filter *f = NULL;
    bloomsimd_status s = BLOOMSIMD_ERR_NO_MEMORY;
    if (!kernel || o.kernel)
        s = map ? bloomsimd_map_with(&f, (const char *)p, &o) : bloomsimd_load_with(&f, (const char *)p, &o);
    release_chars(env, kernel, o.kernel);
    (*env)->ReleaseByteArrayElements(env, path, p, JNI_ABORT);
    if (check(env, s)) return 0;
    return handle(f);
}

JNIEXPORT void JNICALL Java_org_bloomsimd_Native_sync(JNIEnv *env, jclass cls, jlong h)
{
    (void)cls;
    check(env, bloomsimd_sync(F(h)));
}

/*
 * arrow.c — Arrow arrays as batches, through the Arrow PyCapsule interface
 * (__arrow_c_array__, __arrow_c_stream__), so pyarrow, polars, nanoarrow and
 * others hand their columns over without this module depending on any of
 * them.
 *
 * The structs below are the Arrow C data interface's ABI
 * (https://arrow.apache.org/docs/format/CDataInterface.html): stable, and
 * defined by every consumer itself.
 *
 * Types taken, zero-copy where the layout allows:
 *   int8..int64, uint8..uint64 ("c C s S i I l L")  -> u64 keys (widened)
 *   utf8 / binary ("u" "z"), 32-bit offsets        -> BLOOMSIMD_KEYS_OFFSETS32
 *   large_utf8 / large_binary ("U" "Z")            -> BLOOMSIMD_KEYS_OFFSETS64
 *   fixed_size_binary ("w:N")                      -> BLOOMSIMD_KEYS_FIXED
 *   utf8_view / binary_view ("vu" "vz")            -> a pointer array
 *   null ("n")                                     -> every row null
 * A null row is no key: contains/select/add_new answer False for it and add
 * skips it. Dictionary-encoded and nested arrays are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "pybloomsimd.h"

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

/* ---- capsules that own what a stream handed us ------------------------------- */

static void release_owned_array(PyObject *capsule)
{
    struct ArrowArray *a = PyCapsule_GetPointer(capsule, "bloomsimd.arrow_array");
    if (!a) return PyErr_Clear();
    if (a->release) a->release(a);
    PyMem_RawFree(a);
}

static void release_owned_schema(PyObject *capsule)
{
    struct ArrowSchema *s = PyCapsule_GetPointer(capsule, "bloomsimd.arrow_schema");
    if (!s) return PyErr_Clear();
    if (s->release) s->release(s);
    PyMem_RawFree(s);
}

static int hold_owned(bsp_batch *b, void *p, const char *name, PyCapsule_Destructor release)
{
    PyObject *capsule = PyCapsule_New(p, name, release);
    if (!capsule) return -1;
    int rc = bsp_batch_hold(b, capsule);
    Py_DECREF(capsule); /* the batch's list keeps it; on failure this releases it */
    return rc;
}

/* ---- one array -------------------------------------------------------------------- */

static int bad_array(const char *what)
{
    PyErr_Format(PyExc_ValueError, "malformed Arrow array: %s", what);
    return -1;
}

static bool row_valid(const uint8_t *validity, int64_t bit)
{
    return !validity || ((validity[bit >> 3] >> (bit & 7)) & 1);
}

static int int_width(const char *f, bool *is_signed)
{
    if (f[0] == '\0' || f[1] != '\0') return 0;
    *is_signed = f[0] == 'c' || f[0] == 's' || f[0] == 'i' || f[0] == 'l';
    switch (f[0]) {
    case 'c': case 'C': return 1;
    case 's': case 'S': return 2;
    case 'i': case 'I': return 4;
    case 'l': case 'L': return 8;
    default: return 0;
    }
}

static uint64_t int_at(const char *values, int width, bool is_signed, int64_t i)
{
    const char *p = values + i * width;
    switch (width) {
    case 1: return is_signed ? (uint64_t)(int64_t)*(const int8_t *)p : *(const uint8_t *)p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* Rows of a byte array as pointers and lengths (views, or rows with nulls). */
typedef struct {
    const void **ptrs;
    size_t *lens;
} byte_rows;

static int alloc_rows(bsp_batch *b, size_t n, byte_rows *r)
{
    r->ptrs = bsp_batch_alloc(b, n * sizeof *r->ptrs);
    r->lens = bsp_batch_alloc(b, n * sizeof *r->lens);
    return r->ptrs && r->lens ? 0 : -1;
}

/* utf8_view / binary_view: 16-byte views; length <= 12 inline after the
 * length, else (prefix, buffer index, offset) into buffers[2 ..]; the last
 * buffer holds the data buffers' sizes (int64). */
static int view_rows(const struct ArrowArray *a, bsp_batch *b, byte_rows *r)
{
    int64_t n = a->length;
    if (a->n_buffers < 3) return bad_array("a view array needs at least 3 buffers");
    int64_t ndata = a->n_buffers - 3;
    const int64_t *sizes = a->buffers[a->n_buffers - 1];
    const uint8_t *views = a->buffers[1];
    if (alloc_rows(b, (size_t)n, r) < 0) return -1;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *v = views + 16 * (a->offset + i);
        int32_t len, index, offset;
        memcpy(&len, v, 4);
        if (len < 0) return bad_array("negative view length");
        r->lens[i] = (size_t)len;
        if (len <= 12) {
            r->ptrs[i] = v + 4;
            continue;
        }
        memcpy(&index, v + 8, 4);
        memcpy(&offset, v + 12, 4);
        if (index < 0 || index >= ndata || offset < 0 || (int64_t)offset + len > sizes[index])
            return bad_array("a view points outside its data buffer");
        r->ptrs[i] = (const uint8_t *)a->buffers[2 + index] + offset;
    }
    return 0;
}

/* Rows of an offsets array, each offset checked (the nulls path computes
 * pointers itself instead of leaving the check to the library). */
static int offset_rows(const struct ArrowArray *a, bool large, bsp_batch *b, byte_rows *r)
{
    int64_t n = a->length;
    const char *data = a->buffers[2];
    if (alloc_rows(b, (size_t)n, r) < 0) return -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t lo, hi;
        if (large) {
            lo = ((const int64_t *)a->buffers[1])[a->offset + i];
            hi = ((const int64_t *)a->buffers[1])[a->offset + i + 1];
        } else {
            lo = ((const int32_t *)a->buffers[1])[a->offset + i];
            hi = ((const int32_t *)a->buffers[1])[a->offset + i + 1];
        }
        if (lo < 0 || hi < lo) return bad_array("offsets are negative or decrease");
        r->ptrs[i] = data + lo;
        r->lens[i] = (size_t)(hi - lo);
    }
    return 0;
}

/* A part of only the valid rows: keys compacted, row_of their rows. */
static int compact_part(bsp_batch *b, const uint8_t *validity, int64_t offset, size_t rows, const uint64_t *ints,
                        const byte_rows *bytes)
{
    size_t *row_of = bsp_batch_alloc(b, rows * sizeof *row_of);
    uint64_t *keys = ints ? bsp_batch_alloc(b, rows * sizeof *keys) : NULL;
    byte_rows out = {0};
    if (!row_of || (ints && !keys) || (!ints && alloc_rows(b, rows, &out) < 0)) return -1;
    size_t n = 0;
    for (size_t i = 0; i < rows; i++) {
        if (!row_valid(validity, offset + (int64_t)i)) continue;
        if (ints) keys[n] = ints[i];
        else {
            out.ptrs[n] = bytes->ptrs[i];
            out.lens[n] = bytes->lens[i];
        }
        row_of[n++] = i;
    }
    uint8_t *scratch = bsp_batch_alloc(b, n);
    bsp_part *p = bsp_batch_add_part(b);
    if (!scratch || !p) return -1;
    p->is_u64 = ints != NULL;
    p->u64 = keys;
    if (!ints) p->keys = bloomsimd_keys_pointers((const void *const *)out.ptrs, out.lens, n);
    p->n = n;
    p->rows = rows;
    p->row_of = row_of;
    p->scratch = scratch;
    b->rows += rows;
    return 0;
}

static int import_array(const struct ArrowSchema *s, const struct ArrowArray *a, bsp_batch *b)
{
    const char *f = s->format ? s->format : "";
    if (s->dictionary || a->dictionary) {
        PyErr_SetString(PyExc_TypeError, "dictionary-encoded Arrow arrays are not keys: decode them first "
                                         "(pyarrow: arr.dictionary_decode())");
        return -1;
    }
    if (a->length < 0 || a->offset < 0) return bad_array("negative length or offset");
    size_t rows = (size_t)a->length;
    const uint8_t *validity = a->n_buffers > 0 ? a->buffers[0] : NULL;
    bool nulls = validity && a->null_count != 0;
    if (!strcmp(f, "n")) { /* the null type: rows, no keys */
        bsp_part *p = bsp_batch_add_part(b);
        if (!p) return -1;
        p->is_u64 = true;
        p->rows = rows;
        b->rows += rows;
        return 0;
    }
    bool is_signed;
    int width = int_width(f, &is_signed);
    if (width) {
        if (a->n_buffers < 2 || (!a->buffers[1] && rows)) return bad_array("no values buffer");
        const char *values = (const char *)a->buffers[1];
        const uint64_t *keys;
        if (width == 8 && rows) {
            keys = (const uint64_t *)(values) + a->offset;
        } else {
            uint64_t *wide = bsp_batch_alloc(b, rows * sizeof *wide);
            if (!wide) return -1;
            for (size_t i = 0; i < rows; i++) wide[i] = int_at(values, width, is_signed, a->offset + (int64_t)i);
            keys = wide;
        }
        if (nulls) return compact_part(b, validity, a->offset, rows, keys, NULL);
        bsp_part *p = bsp_batch_add_part(b);
        if (!p) return -1;
        p->is_u64 = true;
        p->u64 = keys;
        p->n = p->rows = rows;
        b->rows += rows;
        return 0;
    }
    bool small = !strcmp(f, "u") || !strcmp(f, "z"), large = !strcmp(f, "U") || !strcmp(f, "Z");
    bool fixed = f[0] == 'w' && f[1] == ':', views = !strcmp(f, "vu") || !strcmp(f, "vz");
    if (!small && !large && !fixed && !views) {
        PyErr_Format(PyExc_TypeError, "Arrow arrays of format '%s' are not keys (integers, utf8/binary, their "
                                      "large, fixed-size and view forms are)",
                     f);
        return -1;
    }
    bloomsimd_keys keys;
    byte_rows r = {0};
    if (rows == 0) {
        keys = bloomsimd_keys_pointers(NULL, NULL, 0);
    } else if (views) {
        if (view_rows(a, b, &r) < 0) return -1;
        keys = bloomsimd_keys_pointers((const void *const *)r.ptrs, r.lens, rows);
    } else if (fixed) {
        char *end;
        long w = strtol(f + 2, &end, 10);
        if (*end || w < 0 || a->n_buffers < 2) return bad_array("fixed_size_binary format");
        const char *data = (const char *)a->buffers[1] + a->offset * w;
        keys = bloomsimd_keys_fixed(data, rows * (size_t)w, (size_t)w, rows);
        if (nulls) {
            if (alloc_rows(b, rows, &r) < 0) return -1;
            for (size_t i = 0; i < rows; i++) {
                r.ptrs[i] = data + i * (size_t)w;
                r.lens[i] = (size_t)w;
            }
        }
    } else {
        if (a->n_buffers < 3) return bad_array("a binary array needs 3 buffers");
        if (nulls) {
            if (offset_rows(a, large, b, &r) < 0) return -1;
        } else if (large) {
            const int64_t *off = (const int64_t *)a->buffers[1] + a->offset;
            if (off[0] < 0 || off[rows] < off[0]) return bad_array("offsets are negative or decrease");
            keys = bloomsimd_keys_offsets64(a->buffers[2], (size_t)off[rows], (const uint64_t *)off, rows);
        } else {
            const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
            if (off[0] < 0 || off[rows] < off[0]) return bad_array("offsets are negative or decrease");
            /* data_len = the last offset: the library checks every offset
             * against it, and that they never decrease */
            keys = bloomsimd_keys_offsets32(a->buffers[2], (size_t)off[rows], (const uint32_t *)off, rows);
        }
    }
    if (nulls && rows) return compact_part(b, validity, a->offset, rows, NULL, &r);
    bsp_part *p = bsp_batch_add_part(b);
    if (!p) return -1;
    p->keys = keys;
    p->n = p->rows = rows;
    b->rows += rows;
    return 0;
}

/* ---- the PyCapsule protocol ------------------------------------------------------- */

static int from_c_array(PyObject *o, bsp_batch *b)
{
    PyObject *pair = PyObject_CallMethod(o, "__arrow_c_array__", NULL);
    if (!pair) return -1;
    int rc = bsp_batch_hold(b, pair); /* the capsules release the array and schema */
    Py_DECREF(pair);
    if (rc < 0) return -1;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "__arrow_c_array__ must return (schema capsule, array capsule)");
        return -1;
    }
    struct ArrowSchema *s = PyCapsule_GetPointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema");
    struct ArrowArray *a = s ? PyCapsule_GetPointer(PyTuple_GET_ITEM(pair, 1), "arrow_array") : NULL;
    if (!a) return -1;
    if (!s->release || !a->release) return bad_array("already released");
    return import_array(s, a, b);
}

static int stream_error(struct ArrowArrayStream *st, int code)
{
    const char *why = st->get_last_error ? st->get_last_error(st) : NULL;
    PyErr_Format(PyExc_ValueError, "Arrow stream failed (errno %d): %s", code, why ? why : "no detail");
    return -1;
}

static int from_c_stream(PyObject *o, bsp_batch *b)
{
    PyObject *capsule = PyObject_CallMethod(o, "__arrow_c_stream__", NULL);
    if (!capsule) return -1;
    int rc = bsp_batch_hold(b, capsule);
    Py_DECREF(capsule);
    if (rc < 0) return -1;
    struct ArrowArrayStream *st = PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (!st) return -1;
    if (!st->release) return bad_array("stream already released");
    struct ArrowSchema *s = PyMem_RawCalloc(1, sizeof *s);
    if (!s) return PyErr_NoMemory(), -1;
    if ((rc = st->get_schema(st, s)) != 0) {
        PyMem_RawFree(s);
        return stream_error(st, rc);
    }
    if (hold_owned(b, s, "bloomsimd.arrow_schema", release_owned_schema) < 0) return -1;
    for (;;) {
        struct ArrowArray *a = PyMem_RawCalloc(1, sizeof *a);
        if (!a) return PyErr_NoMemory(), -1;
        if ((rc = st->get_next(st, a)) != 0) {
            PyMem_RawFree(a);
            return stream_error(st, rc);
        }
        if (!a->release) { /* end of stream */
            PyMem_RawFree(a);
            return 0;
        }
        if (hold_owned(b, a, "bloomsimd.arrow_array", release_owned_array) < 0) return -1;
        if (import_array(s, a, b) < 0) return -1;
    }
}

int bsp_arrow_batch(PyObject *o, bsp_batch *b)
{
    if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) return 0;
    /* look on the type: a miss costs no AttributeError */
    bool array = false, stream = false;
    PyObject *mro = Py_TYPE(o)->tp_mro;
    for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *dict = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_dict;
        if (!dict) continue;
        array = array || PyDict_GetItemString(dict, "__arrow_c_array__");
        stream = stream || PyDict_GetItemString(dict, "__arrow_c_stream__");
    }
    if (array) return from_c_array(o, b) < 0 ? -1 : 1;
    if (stream) return from_c_stream(o, b) < 0 ? -1 : 1;
    return 0;
}

/*
 * batch.c — a batch of keys, as the library takes it, without copying what
 * need not be copied.
 *
 *   NumPy uint64/int64 arrays, any C-contiguous buffer of 8-byte ints
 *       -> the u64 calls, zero-copy (a strided array is gathered once)
 *   other integer arrays (int8..uint32)      -> widened to u64 (value kept:
 *       int32 5 is the key 5, int8 -1 the key -1, as int keys are)
 *   NumPy 'S<n>' arrays, 2-D uint8 arrays, any buffer with width=n
 *       -> fixed-width byte keys (BLOOMSIMD_KEYS_FIXED), zero-copy
 *   (data, offsets): a 2-tuple whose second item is a buffer of 4- or 8-byte
 *       ints -> Arrow binary / large-binary layout (OFFSETS32/64), zero-copy
 *   objects with __arrow_c_array__ / __arrow_c_stream__ -> arrow.c
 *   lists, tuples and other iterables of int   -> a u64 array
 *   ... of bytes / str / bytes-like          -> a pointer array into the
 *       objects (bytes, str's UTF-8) or into copies (mutable buffers)
 *
 * The batch holds a reference (or a buffer export) on everything it points
 * into, so the keys stay put while the library runs without the GIL: a list
 * is copied to a tuple first (another thread may change the list), and a
 * bytearray inside it is copied (it could be resized).
 */
#include <string.h>

#include "pybloomsimd.h"

/* ---- the batch's storage ----------------------------------------------------- */

bsp_part *bsp_batch_add_part(bsp_batch *b)
{
    if (b->nparts == b->cap_parts) {
        size_t cap = b->cap_parts ? 2 * b->cap_parts : 4;
        bsp_part *p = PyMem_Realloc(b->parts, cap * sizeof *p);
        if (!p) return PyErr_NoMemory(), NULL;
        b->parts = p;
        b->cap_parts = cap;
    }
    bsp_part *p = &b->parts[b->nparts++];
    memset(p, 0, sizeof *p);
    p->base = b->rows;
    return p;
}

void *bsp_batch_alloc(bsp_batch *b, size_t bytes)
{
    if (b->nallocs == b->cap_allocs) {
        size_t cap = b->cap_allocs ? 2 * b->cap_allocs : 8;
        void **a = PyMem_Realloc(b->allocs, cap * sizeof *a);
        if (!a) return PyErr_NoMemory(), NULL;
        b->allocs = a;
        b->cap_allocs = cap;
    }
    /* PyMem_RawMalloc: the library reads it without the GIL; never 0 bytes */
    void *p = PyMem_RawMalloc(bytes ? bytes : 1);
    if (!p) return PyErr_NoMemory(), NULL;
    b->allocs[b->nallocs++] = p;
    return p;
}

int bsp_batch_hold(bsp_batch *b, PyObject *o)
{
    if (!b->holds && !(b->holds = PyList_New(0))) return -1;
    return PyList_Append(b->holds, o);
}

static Py_buffer *batch_view(bsp_batch *b)
{
    return &b->views[b->nviews]; /* counted by the caller once the export succeeded */
}

void bsp_batch_release(bsp_batch *b)
{
    for (size_t i = 0; i < b->nviews; i++) PyBuffer_Release(&b->views[i]);
    for (size_t i = 0; i < b->nallocs; i++) PyMem_RawFree(b->allocs[i]);
    PyMem_Free(b->allocs);
    PyMem_Free(b->parts);
    /* releases Arrow arrays through their capsules, whose destructors may
     * run Python code: not with our exception pending */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    Py_XDECREF(b->holds);
    PyErr_Restore(type, value, tb);
    memset(b, 0, sizeof *b);
}

static bsp_part *u64_part(bsp_batch *b, const uint64_t *keys, size_t n)
{
    bsp_part *p = bsp_batch_add_part(b);
    if (!p) return NULL;
    p->is_u64 = true;
    p->u64 = keys;
    p->n = p->rows = n;
    b->rows += n;
    return p;
}

static bsp_part *keys_part(bsp_batch *b, bloomsimd_keys keys)
{
    bsp_part *p = bsp_batch_add_part(b);
    if (!p) return NULL;
    p->keys = keys;
    p->n = p->rows = keys.n;
    b->rows += keys.n;
    return p;
}

/* ---- buffer formats ---------------------------------------------------------- */

typedef enum { FMT_SIGNED, FMT_UNSIGNED, FMT_BYTES_FIXED, FMT_ITERATE, FMT_OTHER } format_kind;

/* struct-module format of one item: an optional byte-order character, then a
 * count and 's' (fixed bytes), one letter, or 'w' / 'O' (NumPy str and object
 * arrays, whose items are iterated: pandas' object columns of str). */
static format_kind classify(const char *format, bool *big_endian)
{
    *big_endian = false;
    if (!format) return FMT_UNSIGNED; /* plain bytes, itemsize 1 */
    if (*format == '>' || *format == '!') *big_endian = true;
    if (*format == '@' || *format == '=' || *format == '<' || *format == '>' || *format == '!') format++;
    while (*format >= '0' && *format <= '9') format++;
    if (format[0] && format[1]) return FMT_OTHER;
    switch (format[0]) {
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': return FMT_SIGNED;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': return FMT_UNSIGNED;
    case 's': return FMT_BYTES_FIXED;
    case 'w': case 'O': return FMT_ITERATE;
    default: return FMT_OTHER;
    }
}

/* Widens (or gathers) n integers of one itemsize, at `stride` bytes apart, to u64. */
static void widen(const char *src, Py_ssize_t stride, size_t n, Py_ssize_t itemsize, bool is_signed, uint64_t *dst)
{
    for (size_t i = 0; i < n; i++, src += stride) {
        switch (itemsize) {
        case 1: dst[i] = is_signed ? (uint64_t)(int64_t)*(const int8_t *)src : *(const uint8_t *)src; break;
        case 2: {
            uint16_t v;
            memcpy(&v, src, 2);
            dst[i] = is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
            break;
        }
        case 4: {
            uint32_t v;
            memcpy(&v, src, 4);
            dst[i] = is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
            break;
        }
        default: memcpy(&dst[i], src, 8); break;
        }
    }
}

static int refuse_format(PyObject *o, const Py_buffer *v, const char *why)
{
    PyErr_Format(PyExc_TypeError, "%.100s of format '%s' cannot be keys: %s", Py_TYPE(o)->tp_name,
                 v->format ? v->format : "B", why);
    return -1;
}

/* 1: taken; 0: not a key buffer, iterate it instead (NumPy str/object arrays); -1: error */
static int from_buffer(PyObject *o, bsp_batch *b)
{
    Py_buffer *v = batch_view(b);
    if (PyObject_GetBuffer(o, v, PyBUF_RECORDS_RO) < 0) return -1;
    b->nviews++;
    bool big;
    format_kind kind = classify(v->format, &big);
    if (kind == FMT_ITERATE) {
        PyBuffer_Release(v);
        b->nviews--;
        return 0;
    }
    if (kind == FMT_OTHER) {
        const char *f = v->format ? v->format : "";
        const char *why = strchr(f, '?') ? "bool is not a key type"
                          : strpbrk(f, "efdg") ? "floats are not keys (use arr.view(numpy.uint64) to add their "
                                                 "bit patterns, or convert them to ints)"
                                               : "not an integer or fixed-width bytes format";
        return refuse_format(o, v, why);
    }
    if (big && v->itemsize > 1 && kind != FMT_BYTES_FIXED)
        return refuse_format(o, v, "big-endian integers (convert with arr.astype('<u8'))");
    if (PyMemoryView_Check(o) && v->itemsize == 1 && v->ndim == 1)
        return refuse_format(o, v, "a memoryview of bytes is one key (use width= for fixed-width keys)");
    bool contiguous = PyBuffer_IsContiguous(v, 'C');

    /* fixed-width byte keys: 'S16' items, or the rows of a 2-D byte array */
    bool byte_rows = v->ndim == 2 && v->itemsize == 1 && kind != FMT_BYTES_FIXED;
    if (kind == FMT_BYTES_FIXED || byte_rows) {
        if (v->ndim != 1 && !byte_rows) return refuse_format(o, v, "fixed-width keys must be 1-dimensional");
        size_t width = byte_rows ? (size_t)v->shape[1] : (size_t)v->itemsize;
        size_t n = (size_t)v->shape[0];
        const void *data = v->buf;
        if (!contiguous) {
            char *copy = bsp_batch_alloc(b, n * width);
            if (!copy) return -1;
            if (PyBuffer_ToContiguous(copy, v, v->len, 'C') < 0) return -1;
            data = copy;
        }
        return keys_part(b, bloomsimd_keys_fixed(data, n * width, width, n)) ? 1 : -1;
    }

    if (v->ndim != 1)
        return refuse_format(o, v, "integer keys must be a 1-dimensional array (flatten it with arr.ravel())");
    size_t n = (size_t)v->shape[0];
    if (v->itemsize == 8 && contiguous) return u64_part(b, (const uint64_t *)v->buf, n) ? 1 : -1;
    if (v->itemsize != 1 && v->itemsize != 2 && v->itemsize != 4 && v->itemsize != 8)
        return refuse_format(o, v, "integers of an unsupported size");
    uint64_t *keys = bsp_batch_alloc(b, n * sizeof *keys);
    if (!keys) return -1;
    widen(v->buf, v->strides ? v->strides[0] : v->itemsize, n, v->itemsize, kind == FMT_SIGNED, keys);
    return u64_part(b, keys, n) ? 1 : -1;
}

/* ---- (data, offsets) and width= -------------------------------------------------- */

/* 1: `offsets` is a 1-D buffer of 4- or 8-byte ints (exported into the
 * batch); 0: it is not; -1: error. */
static int offsets_view(PyObject *offsets, bsp_batch *b)
{
    if (!PyObject_CheckBuffer(offsets) || PyBytes_Check(offsets) || PyByteArray_Check(offsets)) return 0;
    Py_buffer *v = batch_view(b);
    if (PyObject_GetBuffer(offsets, v, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    bool big;
    format_kind kind = classify(v->format, &big);
    if (v->ndim != 1 || (kind != FMT_SIGNED && kind != FMT_UNSIGNED) || (v->itemsize != 4 && v->itemsize != 8)) {
        PyBuffer_Release(v);
        return 0;
    }
    b->nviews++;
    if (big) return refuse_format(offsets, v, "big-endian offsets"), -1;
    if (!PyBuffer_IsContiguous(v, 'C')) {
        PyErr_SetString(PyExc_ValueError, "offsets must be a contiguous array");
        return -1;
    }
    return 1;
}

static int from_data_offsets(PyObject *data, bsp_batch *b)
{
    const Py_buffer *off = &b->views[b->nviews - 1];
    Py_buffer *d = batch_view(b);
    if (PyObject_GetBuffer(data, d, PyBUF_SIMPLE) < 0) return -1;
    b->nviews++;
    size_t entries = (size_t)off->shape[0];
    size_t n = entries ? entries - 1 : 0;
    bloomsimd_keys keys = off->itemsize == 4
                              ? bloomsimd_keys_offsets32(d->buf, (size_t)d->len, (const uint32_t *)off->buf, n)
                              : bloomsimd_keys_offsets64(d->buf, (size_t)d->len, (const uint64_t *)off->buf, n);
    return keys_part(b, keys) ? 0 : -1;
}

static int from_fixed_width(PyObject *o, PyObject *width_obj, bsp_batch *b)
{
    Py_ssize_t width = PyNumber_AsSsize_t(width_obj, PyExc_OverflowError);
    if (width == -1 && PyErr_Occurred()) return -1;
    if (width < 1) {
        PyErr_Format(PyExc_ValueError, "width must be at least 1, not %zd", width);
        return -1;
    }
    Py_buffer *v = batch_view(b);
    if (PyObject_GetBuffer(o, v, PyBUF_SIMPLE) < 0) return -1;
    b->nviews++;
    if (v->len % width) {
        PyErr_Format(PyExc_ValueError, "%zd bytes are not a whole number of %zd-byte keys", v->len, width);
        return -1;
    }
    size_t n = (size_t)(v->len / width);
    return keys_part(b, bloomsimd_keys_fixed(v->buf, (size_t)v->len, (size_t)width, n)) ? 0 : -1;
}

/* ---- lists and iterables ------------------------------------------------------------ */

/* Re-raises the current exception with "keys[i]: " in front of its message. */
static void locate_error(Py_ssize_t i)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *text = value ? PyObject_Str(value) : NULL;
    if (text && (type == PyExc_TypeError || type == PyExc_OverflowError || type == PyExc_UnicodeEncodeError ||
                 type == PyExc_ValueError)) {
        PyErr_Format(type == PyExc_UnicodeEncodeError ? PyExc_ValueError : type, "keys[%zd]: %U", i, text);
        Py_DECREF(text);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return;
    }
    Py_XDECREF(text);
    PyErr_Restore(type, value, tb);
}

static int ints_from_tuple(PyObject *t, bsp_batch *b)
{
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    uint64_t *keys = bsp_batch_alloc(b, (size_t)n * sizeof *keys);
    if (!keys) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(t, i);
        if (PyLong_Check(item)) {
            if (bsp_long_to_u64(item, &keys[i]) < 0) return locate_error(i), -1;
            continue;
        }
        bsp_key key;
        if (bsp_key_from(item, &key) < 0) return locate_error(i), -1;
        bool is_u64 = key.is_u64;
        keys[i] = key.u64;
        bsp_key_release(&key);
        if (!is_u64) {
            PyErr_Format(PyExc_TypeError, "keys[%zd]: '%.100s' in a batch of int keys (one batch holds ints, or "
                                          "bytes-like/str keys, not both)",
                         i, Py_TYPE(item)->tp_name);
            return -1;
        }
    }
    return u64_part(b, keys, (size_t)n) ? 0 : -1;
}

static int bytes_from_tuple(PyObject *t, bsp_batch *b)
{
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    const void **ptrs = bsp_batch_alloc(b, (size_t)n * sizeof *ptrs);
    size_t *lens = bsp_batch_alloc(b, (size_t)n * sizeof *lens);
    if (!ptrs || !lens) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(t, i);
        if (PyBytes_CheckExact(item)) {
            ptrs[i] = PyBytes_AS_STRING(item);
            lens[i] = (size_t)PyBytes_GET_SIZE(item);
            continue;
        }
        if (PyUnicode_CheckExact(item)) {
            Py_ssize_t len;
            if (!(ptrs[i] = PyUnicode_AsUTF8AndSize(item, &len))) return locate_error(i), -1;
            lens[i] = (size_t)len;
            continue;
        }
        bsp_key key;
        if (bsp_key_from(item, &key) < 0) return locate_error(i), -1;
        if (key.is_u64) {
            bsp_key_release(&key);
            PyErr_Format(PyExc_TypeError, "keys[%zd]: '%.100s' in a batch of bytes/str keys (one batch holds ints, "
                                          "or bytes-like/str keys, not both)",
                         i, Py_TYPE(item)->tp_name);
            return -1;
        }
        /* bytes/str subclasses are immutable and held by the tuple; other
         * buffers (bytearray, memoryview) may change: copy them */
        if (PyBytes_Check(item) || PyUnicode_Check(item)) {
            ptrs[i] = key.data;
        } else {
            void *copy = bsp_batch_alloc(b, key.len);
            if (!copy) return bsp_key_release(&key), -1;
            if (key.len) memcpy(copy, key.data, key.len);
            ptrs[i] = copy;
        }
        lens[i] = key.len;
        bsp_key_release(&key);
    }
    return keys_part(b, bloomsimd_keys_pointers((const void *const *)ptrs, lens, (size_t)n)) ? 0 : -1;
}

static int from_iterable(PyObject *o, bsp_batch *b)
{
    PyObject *t = PySequence_Tuple(o); /* a list is copied: its items stay ours without the GIL */
    if (!t) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) && !PyObject_CheckBuffer(o) && !PyIter_Check(o)) {
            PyErr_Format(PyExc_TypeError,
                         "keys must be a NumPy/buffer array of ints, an iterable of int, bytes or str keys, "
                         "(data, offsets) buffers or an Arrow array, not '%.100s'",
                         Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    int rc = bsp_batch_hold(b, t);
    Py_DECREF(t);
    if (rc < 0) return -1;
    if (PyTuple_GET_SIZE(t) == 0) return u64_part(b, NULL, 0) ? 0 : -1;
    PyObject *first = PyTuple_GET_ITEM(t, 0);
    bool ints = PyLong_Check(first) || (PyIndex_Check(first) && !PyObject_CheckBuffer(first));
    if (!ints && PyIndex_Check(first)) { /* NumPy integer scalars offer a buffer too */
        bsp_key key;
        if (bsp_key_from(first, &key) == 0) {
            ints = key.is_u64;
            bsp_key_release(&key);
        } else {
            PyErr_Clear();
        }
    }
    return ints ? ints_from_tuple(t, b) : bytes_from_tuple(t, b);
}

/* ---- entry ------------------------------------------------------------------------- */

int bsp_batch_from(PyObject *keys, PyObject *width, bsp_batch *b)
{
    memset(b, 0, sizeof *b);
    int rc;
    if (width && width != Py_None) {
        rc = from_fixed_width(keys, width, b);
    } else if (PyBytes_Check(keys) || PyByteArray_Check(keys) || PyUnicode_Check(keys)) {
        PyErr_Format(PyExc_TypeError,
                     "a '%.100s' is one key: use add()/add_new()/`in`, or pass a list of keys "
                     "(or width= for a buffer of fixed-width keys)",
                     Py_TYPE(keys)->tp_name);
        rc = -1;
    } else if ((rc = bsp_arrow_batch(keys, b)) != 0) {
        rc = rc < 0 ? -1 : 0;
    } else if (PyTuple_CheckExact(keys) && PyTuple_GET_SIZE(keys) == 2 &&
               (rc = offsets_view(PyTuple_GET_ITEM(keys, 1), b)) != 0) {
        rc = rc < 0 ? -1 : from_data_offsets(PyTuple_GET_ITEM(keys, 0), b);
    } else if (PyObject_CheckBuffer(keys) && (rc = from_buffer(keys, b)) != 0) {
        rc = rc < 0 ? -1 : 0;
    } else {
        rc = from_iterable(keys, b);
    }
    if (rc < 0) bsp_batch_release(b);
    return rc;
}

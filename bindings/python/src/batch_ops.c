/*
 * batch_ops.c — add_many, contains_many, add_new_many, select.
 *
 * Each converts the keys once (batch.c), makes its NumPy result with the GIL
 * held, then runs the library over every part without the GIL: threads
 * overlap their batches, and with concurrent=True insert into one filter
 * together. NumPy is imported at the first call that returns an array.
 */
#include <string.h>

#include "pybloomsimd.h"

/* ---- NumPy results ------------------------------------------------------------ */

static PyObject *numpy_empty, *numpy_bool, *numpy_uint32;

static int numpy_ready(void)
{
    if (numpy_empty) return 0;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return -1;
    numpy_empty = PyObject_GetAttrString(np, "empty");
    numpy_bool = PyObject_GetAttrString(np, "bool_");
    numpy_uint32 = PyObject_GetAttrString(np, "uint32");
    Py_DECREF(np);
    if (numpy_empty && numpy_bool && numpy_uint32) return 0;
    Py_CLEAR(numpy_empty);
    Py_CLEAR(numpy_bool);
    Py_CLEAR(numpy_uint32);
    return -1;
}

/* numpy.empty(n, dtype); *data = its memory (valid while the array lives:
 * nobody else holds it yet, so it cannot be resized). */
static PyObject *new_array(size_t n, PyObject **dtype, void **data)
{
    if (numpy_ready() < 0) return NULL;
    PyObject *arr = PyObject_CallFunction(numpy_empty, "nO", (Py_ssize_t)n, *dtype);
    if (!arr) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(arr, &v, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    *data = v.buf;
    PyBuffer_Release(&v);
    return arr;
}

/* ---- arguments ---------------------------------------------------------------- */

static int parse_keys(PyObject *args, PyObject *kwargs, const char *fmt, bsp_batch *batch)
{
    static char *names[] = {"keys", "width", NULL};
    PyObject *keys, *width = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, names, &keys, &width)) return -1;
    return bsp_batch_from(keys, width, batch);
}

/* Per-key answers of a part land in out[base ..]; a part with nulls writes
 * them to its scratch, then spreads them over its rows. */
static uint8_t *answer_slot(const bsp_part *p, uint8_t *out)
{
    return p->n == p->rows && !p->row_of ? out + p->base : p->scratch;
}

static void spread(const bsp_part *p, uint8_t *out)
{
    if (p->n == p->rows && !p->row_of) return;
    memset(out + p->base, 0, p->rows);
    for (size_t i = 0; i < p->n; i++) out[p->base + p->row_of[i]] = p->scratch[i];
}

/* ---- the calls ------------------------------------------------------------------ */

static PyObject *filter_add_many(PyObject *op, PyObject *args, PyObject *kwargs)
{
    bsp_filter *self = (bsp_filter *)op;
    bsp_batch b;
    if (parse_keys(args, kwargs, "O|$O:add_many", &b) < 0) return NULL;
    if (bsp_enter_write(self) < 0) return bsp_batch_release(&b), NULL;
    bloomsimd_status st = BLOOMSIMD_OK;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < b.nparts && st == BLOOMSIMD_OK; i++) {
        const bsp_part *p = &b.parts[i];
        st = p->is_u64 ? bloomsimd_add_batch_u64(self->filter, p->u64, p->n) : bloomsimd_add_keys(self->filter, &p->keys);
    }
    Py_END_ALLOW_THREADS
    bsp_leave_write(self);
    if (st != BLOOMSIMD_OK) bsp_raise(st, 0);
    bsp_batch_release(&b);
    if (st != BLOOMSIMD_OK) return NULL;
    Py_RETURN_NONE;
}

static PyObject *filter_contains_many(PyObject *op, PyObject *args, PyObject *kwargs)
{
    bsp_filter *self = (bsp_filter *)op;
    bsp_batch b;
    if (parse_keys(args, kwargs, "O|$O:contains_many", &b) < 0) return NULL;
    uint8_t *out;
    PyObject *result = new_array(b.rows, &numpy_bool, (void **)&out);
    if (!result || bsp_enter_read(self) < 0) return bsp_batch_release(&b), Py_XDECREF(result), NULL;
    bloomsimd_status st = BLOOMSIMD_OK;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < b.nparts && st == BLOOMSIMD_OK; i++) {
        const bsp_part *p = &b.parts[i];
        uint8_t *slot = answer_slot(p, out);
        if (p->is_u64) bloomsimd_contains_batch_u64(self->filter, p->u64, p->n, slot);
        else st = bloomsimd_contains_keys(self->filter, &p->keys, slot, NULL);
        spread(p, out);
    }
    Py_END_ALLOW_THREADS
    bsp_leave_read(self);
    if (st != BLOOMSIMD_OK) {
        bsp_raise(st, 0);
        Py_CLEAR(result);
    }
    bsp_batch_release(&b);
    return result;
}

static PyObject *filter_add_new_many(PyObject *op, PyObject *args, PyObject *kwargs)
{
    bsp_filter *self = (bsp_filter *)op;
    bsp_batch b;
    if (parse_keys(args, kwargs, "O|$O:add_new_many", &b) < 0) return NULL;
    uint8_t *out;
    PyObject *result = new_array(b.rows, &numpy_bool, (void **)&out);
    if (!result || bsp_enter_write(self) < 0) return bsp_batch_release(&b), Py_XDECREF(result), NULL;
    bloomsimd_status st = BLOOMSIMD_OK;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < b.nparts && st == BLOOMSIMD_OK; i++) {
        const bsp_part *p = &b.parts[i];
        uint8_t *slot = answer_slot(p, out);
        st = p->is_u64 ? bloomsimd_add_new_batch_u64(self->filter, p->u64, p->n, slot, NULL)
                       : bloomsimd_add_new_keys(self->filter, &p->keys, slot, NULL);
        spread(p, out);
    }
    Py_END_ALLOW_THREADS
    bsp_leave_write(self);
    if (st != BLOOMSIMD_OK) {
        bsp_raise(st, 0);
        Py_CLEAR(result);
    }
    bsp_batch_release(&b);
    return result;
}

static PyObject *filter_select(PyObject *op, PyObject *args, PyObject *kwargs)
{
    bsp_filter *self = (bsp_filter *)op;
    bsp_batch b;
    if (parse_keys(args, kwargs, "O|$O:select", &b) < 0) return NULL;
    if (b.rows > UINT32_MAX) {
        bsp_batch_release(&b);
        PyErr_SetString(PyExc_ValueError, "select() takes at most 2**32 - 1 keys (its indices are uint32)");
        return NULL;
    }
    uint32_t *idx;
    PyObject *result = new_array(b.rows, &numpy_uint32, (void **)&idx);
    if (!result || bsp_enter_read(self) < 0) return bsp_batch_release(&b), Py_XDECREF(result), NULL;
    bloomsimd_status st = BLOOMSIMD_OK;
    size_t total = 0;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < b.nparts && st == BLOOMSIMD_OK; i++) {
        const bsp_part *p = &b.parts[i];
        size_t count = 0;
        if (p->is_u64) count = bloomsimd_select_batch_u64(self->filter, p->u64, p->n, idx + total);
        else st = bloomsimd_select_keys(self->filter, &p->keys, idx + total, &count);
        for (size_t j = total; j < total + count; j++)
            idx[j] = (uint32_t)(p->base + (p->row_of ? p->row_of[idx[j]] : idx[j]));
        total += count;
    }
    Py_END_ALLOW_THREADS
    bsp_leave_read(self);
    if (st != BLOOMSIMD_OK) {
        bsp_raise(st, 0);
        Py_CLEAR(result);
    }
    size_t rows = b.rows;
    bsp_batch_release(&b);
    if (result && total < rows) { /* shrink in place: ndarray.resize, the array is ours alone */
        PyObject *r = PyObject_CallMethod(result, "resize", "n", (Py_ssize_t)total);
        if (!r) Py_CLEAR(result);
        Py_XDECREF(r);
    }
    return result;
}

#define BATCH_KEYS_DOC                                                                                \
    "keys: a NumPy array (or any buffer) of integers (uint64/int64 zero-copy;\n"                      \
    "other integer dtypes widened), of fixed-width bytes ('S16', or 2-D uint8:\n"                     \
    "one key per row), or any buffer with width=N; a list or iterable of ints,\n"                     \
    "or of bytes/str/bytes-like keys; (data, offsets): Arrow binary layout,\n"                        \
    "key i = data[offsets[i]:offsets[i+1]] with int32 or int64 offsets; an\n"                         \
    "Arrow array or chunked array (__arrow_c_array__ / __arrow_c_stream__),\n"                        \
    "whose null rows are no keys. Runs without the GIL."

PyMethodDef bsp_batch_methods[] = {
    {"add_many", (PyCFunction)(void (*)(void))filter_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, *, width=None) -> None\n--\n\nInserts every key.\n\n" BATCH_KEYS_DOC},
    {"contains_many", (PyCFunction)(void (*)(void))filter_contains_many, METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, width=None) -> numpy.ndarray\n--\n\n"
     "A bool array: False where the key is certainly absent.\n\n" BATCH_KEYS_DOC},
    {"add_new_many", (PyCFunction)(void (*)(void))filter_add_new_many, METH_VARARGS | METH_KEYWORDS,
     "add_new_many(keys, *, width=None) -> numpy.ndarray\n--\n\n"
     "Inserts every key, in order; a bool array: True where the key was\n"
     "(probably) new, so a key repeated in the batch is new once (dedup).\n\n" BATCH_KEYS_DOC},
    {"select", (PyCFunction)(void (*)(void))filter_select, METH_VARARGS | METH_KEYWORDS,
     "select(keys, *, width=None) -> numpy.ndarray\n--\n\n"
     "The indices (uint32, ascending) of the keys that may be present:\n"
     "rows = table[f.select(column)].\n\n" BATCH_KEYS_DOC},
    {NULL, NULL, 0, NULL},
};

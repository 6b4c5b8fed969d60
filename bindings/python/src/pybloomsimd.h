/*
 * pybloomsimd.h — what the files of the extension module share.
 *
 * The module is a client of include/bloomsimd.h only. Files, one job each:
 *   module.c     module init, kernel and version functions
 *   errors.c     one exception class per bloomsimd_status
 *   options.c    Python arguments -> bloomsimd_options / bloomsimd_load_options
 *   filter.c     the Filter type: create, close, info, repr, single keys
 *   keys.c       one key: int / bytes-like / str -> u64 or bytes
 *   batch.c      a batch of keys (NumPy, buffers, lists, (data, offsets)) -> parts
 *   arrow.c      Arrow C data interface arrays and streams -> parts
 *   batch_ops.c  add_many, contains_many, add_new_many, select
 *   persist.c    save, load, map, bytes, pickle, copy
 *   setops.c     |, &, union, intersection and their in-place forms
 */
#ifndef PYBLOOMSIMD_H
#define PYBLOOMSIMD_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <bloomsimd.h>
#include <stdbool.h>
#include <stdint.h>

/* The Filter object.
 *
 * Threads: batch calls and file I/O run without the GIL, so Python threads
 * can overlap them. The library allows one writer or many readers on a
 * filter created without BLOOMSIMD_CONCURRENT; `readers` and `writers` count
 * the calls running without the GIL (changed only with the GIL held), so a
 * call that would break that rule raises BusyError instead of racing.
 * Single-key calls keep the GIL and only check the counters. `close` and
 * `clear` need the filter to themselves, even when concurrent. */
typedef struct {
    PyObject_HEAD
    bloomsimd_filter *filter; /* NULL once closed */
    bool concurrent;          /* created or loaded with BLOOMSIMD_CONCURRENT */
    bool read_only;           /* a read-only mapping (Filter.map without writable) */
    Py_ssize_t readers;       /* calls reading it without the GIL */
    Py_ssize_t writers;       /* calls writing it without the GIL */
    PyObject *weakrefs;
} bsp_filter;

extern PyTypeObject bsp_filter_type;
#define bsp_filter_check(o) PyObject_TypeCheck((o), &bsp_filter_type)

/* ---- errors.c ---------------------------------------------------------- */
int bsp_errors_init(PyObject *module);
/* Raises the exception class of `status`, with bloomsimd_last_error()'s text
 * (read at once: call it right after the failing library call, on the same
 * thread) and, for BLOOMSIMD_ERR_IO, errno `saved_errno`. Returns NULL. */
PyObject *bsp_raise(bloomsimd_status status, int saved_errno);
/* BusyError: the call `what` would break the filter's thread rule (or, if
 * exclusive, needs the filter to itself). Returns NULL. */
PyObject *bsp_raise_busy(const char *what, bool exclusive);
PyObject *bsp_raise_closed(void);

/* ---- filter.c ---------------------------------------------------------- */
/* A new Filter object owning `filter` (destroyed on failure). */
PyObject *bsp_filter_wrap(PyTypeObject *type, bloomsimd_filter *filter);
/* Enter / leave a call that runs without the GIL: checks the filter is open
 * and the thread rule, then counts the call. 0, or -1 with an exception. */
int bsp_enter_read(bsp_filter *self);
int bsp_enter_write(bsp_filter *self);
int bsp_enter_exclusive(bsp_filter *self);
void bsp_leave_read(bsp_filter *self);
void bsp_leave_write(bsp_filter *self);
int bsp_info_init(PyObject *module);
int bsp_filter_type_init(PyObject *module);
PyObject *bsp_filter_info(bsp_filter *self, void *closure);

/* ---- options.c --------------------------------------------------------- */
/* Keeps the Python objects whose UTF-8 the options point into. */
typedef struct {
    bloomsimd_options options;
    PyObject *kernel_utf8; /* owned reference or NULL */
} bsp_create_args;

/* Parses Filter(...) / Filter.size_for(...) arguments. 0 or -1. */
int bsp_parse_create_args(PyObject *args, PyObject *kwargs, bsp_create_args *out);
/* 'xxh3' or 'mum' for a filter's flags; NULL for a Parquet filter (options.c). */
const char *bsp_u64_hash_name(uint32_t flags);
void bsp_create_args_release(bsp_create_args *a);
/* kernel=None|str and concurrent=bool into load options. 0 or -1. */
int bsp_parse_load_options(PyObject *kernel, int concurrent, bloomsimd_load_options *out);
/* The library's name of a layout id ("block512"). */
const char *bsp_layout_name(uint32_t layout);
int bsp_sizing_init(PyObject *module);
PyObject *bsp_size_for(PyObject *cls, PyObject *args, PyObject *kwargs);

/* ---- keys.c ------------------------------------------------------------ */
/* Python int (o passes PyLong_Check) -> u64: [0, 2**64) as is, [-2**63, 0)
 * as two's complement (the int64 NumPy convention). OverflowError outside.
 * 0 or -1.
 *
 * The per-key hot path of `x in f` and of lists of ints. The public calls
 * are slow for 64-bit values: PyLong_AsLongLongAndOverflow checks overflow
 * digit by digit and a value above 2**63 then needs PyLong_AsUnsignedLongLong,
 * which goes through _PyLong_AsByteArray (~300 instructions for a random
 * 64-bit key, measured with callgrind, against ~70 for a set's `in`). So on
 * CPython before 3.13: the bit length and sign, both O(1) (_PyLong_NumBits,
 * _PyLong_Sign: exported, CPython-specific), decide the range, then the
 * mask conversion (a plain loop over the 30-bit digits) gives the value.
 * 3.13 has PyLong_AsNativeBytes, which does both at once. */
void bsp_int_out_of_range(void);

static inline int bsp_long_to_u64(PyObject *o, uint64_t *out)
{
#if PY_VERSION_HEX >= 0x030D0000
    uint64_t v;
    Py_ssize_t need = PyLong_AsNativeBytes(o, &v, 8, Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
    if (need < 0) return -1;
    if (need > 8) return bsp_int_out_of_range(), -1;
    if (_PyLong_Sign(o) < 0 && (v >> 63) == 0) return bsp_int_out_of_range(), -1; /* below -2**63 */
    *out = v;
    return 0;
#else
    size_t bits = _PyLong_NumBits(o);
    if (bits > 64) return bsp_int_out_of_range(), -1;
    uint64_t v = PyLong_AsUnsignedLongLongMask(o);
    /* 64 bits: [2**63, 2**64) is fine, and of the negatives only -2**63 */
    if (bits == 64 && _PyLong_Sign(o) < 0 && v != UINT64_C(1) << 63) return bsp_int_out_of_range(), -1;
    *out = v;
    return 0;
#endif
}

typedef struct {
    bool is_u64;
    uint64_t u64;
    const void *data;
    size_t len;
    Py_buffer view;   /* held while data points into a buffer */
    bool has_view;
    PyObject *copy;   /* a bytes copy of a non-contiguous buffer */
} bsp_key;

/* One key of any accepted type. 0, or -1 with TypeError/OverflowError/... */
int bsp_key_from(PyObject *o, bsp_key *key);
void bsp_key_release(bsp_key *key);

/* ---- batch.c / arrow.c ------------------------------------------------- */
/* A batch is a list of parts, each one library call. A part covers rows
 * [base, base + rows) of the result; `n` keys are passed to the library.
 * n < rows when Arrow nulls were dropped: row_of[i] (relative to base) is
 * the row of key i, and the other rows answer False (a null array: n = 0,
 * no row_of). */
typedef struct {
    bool is_u64;
    size_t n;
    const uint64_t *u64;
    bloomsimd_keys keys;
    size_t base, rows;
    const size_t *row_of; /* NULL: key i is row i */
    uint8_t *scratch;     /* n bytes for per-key answers, when row_of is set */
} bsp_part;

typedef struct {
    bsp_part *parts;
    size_t nparts, cap_parts;
    size_t rows;          /* total rows of the result */
    /* what keeps the keys' memory alive and what to free */
    Py_buffer views[3];
    size_t nviews;
    PyObject *holds;      /* a list of objects to keep referenced */
    void **allocs;
    size_t nallocs, cap_allocs;
} bsp_batch;

/* keys (and width=, NULL for none) -> batch. 0, or -1 with an exception. */
int bsp_batch_from(PyObject *keys, PyObject *width, bsp_batch *batch);
void bsp_batch_release(bsp_batch *batch);
bsp_part *bsp_batch_add_part(bsp_batch *batch);
void *bsp_batch_alloc(bsp_batch *batch, size_t bytes);
int bsp_batch_hold(bsp_batch *batch, PyObject *o);

/* 1 if `o` offers the Arrow PyCapsule interface (and was taken into batch,
 * or -1 on error), 0 if it does not. */
int bsp_arrow_batch(PyObject *o, bsp_batch *batch);

/* ---- batch_ops.c ------------------------------------------------------- */
extern PyMethodDef bsp_batch_methods[];

/* ---- persist.c / setops.c ---------------------------------------------- */
extern PyMethodDef bsp_persist_methods[];
extern PyMethodDef bsp_setops_methods[];
extern PyNumberMethods bsp_filter_as_number;

#endif

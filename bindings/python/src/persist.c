/*
 * persist.c — files, bytes, pickle and copies, all in the library's portable
 * format (docs/FORMAT.md): a file saved here loads in C, Go, Java and the
 * bloomsimd command, and the other way round; so do the Redis module's
 * BFX.EXPORT / BFX.IMPORT bytes (README, tests/test_readme.py).
 *
 * Pickle is to_bytes/from_bytes; a restored filter runs the default kernel
 * of the process that loads it (the bytes are the same on every kernel).
 */
#include <errno.h>

#include "pybloomsimd.h"

static PyObject *fs_path(PyObject *path)
{
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(path, &bytes)) return NULL;
    return bytes;
}

static PyObject *filter_save(PyObject *op, PyObject *path_obj)
{
    bsp_filter *self = (bsp_filter *)op;
    PyObject *path = fs_path(path_obj);
    if (!path) return NULL;
    if (bsp_enter_read(self) < 0) return Py_DECREF(path), NULL;
    bloomsimd_status st;
    int err;
    Py_BEGIN_ALLOW_THREADS
    st = bloomsimd_save(self->filter, PyBytes_AS_STRING(path));
    err = errno;
    Py_END_ALLOW_THREADS
    bsp_leave_read(self);
    Py_DECREF(path);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, err);
    Py_RETURN_NONE;
}

static PyObject *filter_load(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"path", "kernel", "concurrent", NULL};
    PyObject *path_obj, *kernel = Py_None;
    int concurrent = 0;
    bloomsimd_load_options o;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$Op:load", names, &path_obj, &kernel, &concurrent) ||
        bsp_parse_load_options(kernel, concurrent, &o) < 0)
        return NULL;
    PyObject *path = fs_path(path_obj);
    if (!path) return NULL;
    bloomsimd_filter *f = NULL;
    bloomsimd_status st;
    int err;
    Py_BEGIN_ALLOW_THREADS
    st = bloomsimd_load_with(&f, PyBytes_AS_STRING(path), &o);
    err = errno;
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, err);
    return bsp_filter_wrap((PyTypeObject *)cls, f);
}

static PyObject *filter_map(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"path", "writable", "accept_unsynced", "kernel", "concurrent", NULL};
    PyObject *path_obj, *kernel = Py_None;
    int writable = 0, accept_unsynced = 0, concurrent = 0;
    bloomsimd_load_options o;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$ppOp:map", names, &path_obj, &writable, &accept_unsynced,
                                     &kernel, &concurrent) ||
        bsp_parse_load_options(kernel, concurrent, &o) < 0)
        return NULL;
    o.map_flags = (writable ? BLOOMSIMD_MAP_WRITABLE : BLOOMSIMD_MAP_READ_ONLY) |
                  (accept_unsynced ? BLOOMSIMD_MAP_ACCEPT_UNSYNCED : 0u);
    PyObject *path = fs_path(path_obj);
    if (!path) return NULL;
    bloomsimd_filter *f = NULL;
    bloomsimd_status st;
    int err;
    Py_BEGIN_ALLOW_THREADS /* validation reads the whole payload once */
    st = bloomsimd_map_with(&f, PyBytes_AS_STRING(path), &o);
    err = errno;
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, err);
    PyObject *r = bsp_filter_wrap((PyTypeObject *)cls, f);
    if (r) ((bsp_filter *)r)->read_only = !writable;
    return r;
}

static PyObject *filter_sync(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    if (bsp_enter_read(self) < 0) return NULL;
    bloomsimd_status st;
    int err;
    Py_BEGIN_ALLOW_THREADS
    st = bloomsimd_sync(self->filter);
    err = errno;
    Py_END_ALLOW_THREADS
    bsp_leave_read(self);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, err);
    Py_RETURN_NONE;
}

static PyObject *filter_to_bytes(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    if (bsp_enter_read(self) < 0) return NULL;
    PyObject *bytes = NULL;
    bloomsimd_status st = BLOOMSIMD_ERR_TOO_LARGE;
    size_t written = 0;
    /* a concurrent scalable filter may grow between sizing and writing: size again */
    for (int attempt = 0; attempt < 8 && st == BLOOMSIMD_ERR_TOO_LARGE; attempt++) {
        size_t size = bloomsimd_serialized_size(self->filter);
        Py_XDECREF(bytes);
        bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
        if (!bytes) break;
        char *buf = PyBytes_AS_STRING(bytes);
        Py_BEGIN_ALLOW_THREADS
        st = bloomsimd_serialize(self->filter, buf, size, &written);
        Py_END_ALLOW_THREADS
    }
    bsp_leave_read(self);
    if (!bytes) return NULL;
    if (st != BLOOMSIMD_OK) {
        Py_DECREF(bytes);
        return bsp_raise(st, 0);
    }
    if (written != (size_t)PyBytes_GET_SIZE(bytes) && _PyBytes_Resize(&bytes, (Py_ssize_t)written) < 0) return NULL;
    return bytes;
}

static PyObject *filter_from_bytes(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"data", "kernel", "concurrent", NULL};
    Py_buffer data;
    PyObject *kernel = Py_None;
    int concurrent = 0;
    bloomsimd_load_options o;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|$Op:from_bytes", names, &data, &kernel, &concurrent))
        return NULL;
    if (bsp_parse_load_options(kernel, concurrent, &o) < 0) {
        PyBuffer_Release(&data);
        return NULL;
    }
    bloomsimd_filter *f = NULL;
    bloomsimd_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bloomsimd_deserialize_with(&f, data.buf, (size_t)data.len, &o);
    Py_END_ALLOW_THREADS
    if (st != BLOOMSIMD_OK) bsp_raise(st, 0);
    PyBuffer_Release(&data);
    if (st != BLOOMSIMD_OK) return NULL;
    return bsp_filter_wrap((PyTypeObject *)cls, f);
}

static PyObject *filter_reduce(PyObject *op, PyObject *unused)
{
    (void)unused;
    PyObject *data = filter_to_bytes(op, NULL);
    if (!data) return NULL;
    PyObject *restore = PyObject_GetAttrString((PyObject *)Py_TYPE(op), "from_bytes");
    PyObject *r = restore ? Py_BuildValue("O(O)", restore, data) : NULL;
    Py_XDECREF(restore);
    Py_DECREF(data);
    return r;
}

static PyObject *filter_copy(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    if (bsp_enter_read(self) < 0) return NULL;
    bloomsimd_filter *copy = NULL;
    bloomsimd_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bloomsimd_clone(&copy, self->filter);
    Py_END_ALLOW_THREADS
    bsp_leave_read(self);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, 0);
    return bsp_filter_wrap(Py_TYPE(op), copy);
}

static PyObject *filter_deepcopy(PyObject *op, PyObject *memo)
{
    (void)memo; /* a filter holds no Python objects */
    return filter_copy(op, NULL);
}

PyMethodDef bsp_persist_methods[] = {
    {"save", filter_save, METH_O,
     "save(path) -> None\n--\n\nWrites the filter to path atomically (a temporary file, fsync, rename),\n"
     "in the library's portable format."},
    {"load", (PyCFunction)(void (*)(void))filter_load, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "load(path, *, kernel=None, concurrent=False) -> Filter\n--\n\n"
     "Reads a saved filter (from here, C, Go, the bloomsimd command or Redis)\n"
     "into memory, validating every field and checksum first."},
    {"map", (PyCFunction)(void (*)(void))filter_map, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "map(path, *, writable=False, accept_unsynced=False, kernel=None,\n"
     "    concurrent=False) -> Filter\n--\n\n"
     "Maps a saved filter: lookups probe the file's pages in place, shared by\n"
     "every process that maps it. Read-only (adds raise ReadOnlyError) unless\n"
     "writable=True, which writes inserts into the file (sync() persists the\n"
     "checksums; one writable mapping per file)."},
    {"sync", filter_sync, METH_NOARGS,
     "sync() -> None\n--\n\nA writable mapping: updates the file's checksums and flushes it. A no-op\n"
     "for other filters."},
    {"to_bytes", filter_to_bytes, METH_NOARGS,
     "to_bytes() -> bytes\n--\n\nThe filter in the library's portable format (what save() writes)."},
    {"from_bytes", (PyCFunction)(void (*)(void))filter_from_bytes, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_bytes(data, *, kernel=None, concurrent=False) -> Filter\n--\n\n"
     "A filter from to_bytes() output or a file's contents (any bytes-like object)."},
    {"__reduce__", filter_reduce, METH_NOARGS, "Pickle support: the filter's bytes."},
    {"__copy__", filter_copy, METH_NOARGS, "An independent copy (bloomsimd_clone)."},
    {"__deepcopy__", filter_deepcopy, METH_O, "An independent copy (bloomsimd_clone)."},
    {"copy", filter_copy, METH_NOARGS,
     "copy() -> Filter\n--\n\nAn independent copy with the same keys; a mapped filter gives a heap copy."},
    {NULL, NULL, 0, NULL},
};

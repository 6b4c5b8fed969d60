/*
 * keys.c — one Python key to what the library hashes.
 *
 *   int (and anything with __index__, e.g. numpy.uint64)  -> a u64 key
 *   bytes, bytearray, memoryview, any buffer of bytes     -> its bytes
 *   str                                                    -> its UTF-8
 *
 * An int key hashes as its 8 little-endian bytes, as the C library's _u64
 * calls do, so `5 in f` answers for a 5 inserted from a NumPy array, from C
 * or from Go. Ints in [-2**63, 0) are taken as two's complement, as an int64
 * array holds them: -1 and 2**64 - 1 are the same key.
 */
#include "pybloomsimd.h"

void bsp_int_out_of_range(void)
{
    PyErr_SetString(PyExc_OverflowError, "int key out of range: keys are 64-bit, from -2**63 to 2**64 - 1");
}

/* A buffer of single bytes: format NULL, "B", "b" or "c" (with an optional
 * byte-order character, which means nothing for one byte). */
static bool is_byte_format(const char *format, Py_ssize_t itemsize)
{
    if (itemsize != 1) return false;
    if (!format) return true;
    if (*format == '@' || *format == '=' || *format == '<' || *format == '>' || *format == '!') format++;
    return (format[0] == 'B' || format[0] == 'b' || format[0] == 'c') && format[1] == '\0';
}

static int key_from_buffer(PyObject *o, bsp_key *key)
{
    if (PyObject_GetBuffer(o, &key->view, PyBUF_RECORDS_RO) < 0) return -1;
    if (!is_byte_format(key->view.format, key->view.itemsize)) {
        PyErr_Format(PyExc_TypeError,
                     "a single key must be an int, str or bytes-like object; got %.100s of format '%s' "
                     "(pass arrays of keys to the *_many methods)",
                     Py_TYPE(o)->tp_name, key->view.format ? key->view.format : "B");
        PyBuffer_Release(&key->view);
        return -1;
    }
    if (PyBuffer_IsContiguous(&key->view, 'C')) {
        key->has_view = true;
        key->data = key->view.buf;
        key->len = (size_t)key->view.len;
        return 0;
    }
    PyBuffer_Release(&key->view);
    key->copy = PyBytes_FromObject(o); /* gathers a strided buffer */
    if (!key->copy) return -1;
    key->data = PyBytes_AS_STRING(key->copy);
    key->len = (size_t)PyBytes_GET_SIZE(key->copy);
    return 0;
}

int bsp_key_from(PyObject *o, bsp_key *key)
{
    key->is_u64 = false;
    key->has_view = false;
    key->copy = NULL;
    if (PyLong_Check(o)) {
        key->is_u64 = true;
        return bsp_long_to_u64(o, &key->u64);
    }
    if (PyBytes_Check(o)) {
        key->data = PyBytes_AS_STRING(o);
        key->len = (size_t)PyBytes_GET_SIZE(o);
        return 0;
    }
    if (PyUnicode_Check(o)) {
        Py_ssize_t len;
        key->data = PyUnicode_AsUTF8AndSize(o, &len);
        if (!key->data) return -1;
        key->len = (size_t)len;
        return 0;
    }
    if (PyIndex_Check(o)) {
        /* numpy.uint64(5) and the like; an ndarray has the slot too, but
         * refuses unless it is a 0-d integer array */
        PyObject *i = PyNumber_Index(o);
        if (i) {
            key->is_u64 = true;
            int rc = bsp_long_to_u64(i, &key->u64);
            Py_DECREF(i);
            return rc;
        }
        if (!PyObject_CheckBuffer(o) || !PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear();
    }
    if (PyObject_CheckBuffer(o)) return key_from_buffer(o, key);
    PyErr_Format(PyExc_TypeError, "a key must be an int, str or bytes-like object, not '%.100s'",
                 Py_TYPE(o)->tp_name);
    return -1;
}

void bsp_key_release(bsp_key *key)
{
    if (key->has_view) PyBuffer_Release(&key->view);
    key->has_view = false;
    Py_CLEAR(key->copy);
}

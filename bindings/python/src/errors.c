/*
 * errors.c — one exception class per bloomsimd_status, all under
 * BloomsimdError, each also a subclass of the built-in exception a Python
 * programmer would catch for it (ValueError for bad arguments and bad data,
 * MemoryError, OSError with errno for a failed system call).
 *
 * Every instance carries `status` (the library's code) and `detail` (what
 * bloomsimd_last_error() said: the value and the check that failed).
 */
#include <errno.h>
#include <string.h>

#include "pybloomsimd.h"

static PyObject *base_error;
static PyObject *busy_error;
#define STATUS_COUNT 10
static PyObject *status_error[STATUS_COUNT];

static const struct {
    bloomsimd_status status;
    const char *name;  /* attribute of the module */
    const char *extra; /* the built-in it also derives from, or NULL */
    const char *doc;
} classes[] = {
    {BLOOMSIMD_ERR_INVALID_ARGUMENT, "InvalidArgumentError", "ValueError",
     "An argument is out of range or inconsistent (BLOOMSIMD_ERR_INVALID_ARGUMENT)."},
    {BLOOMSIMD_ERR_TOO_LARGE, "TooLargeError", "ValueError",
     "The filter would exceed the layout's limits or the address space (BLOOMSIMD_ERR_TOO_LARGE)."},
    {BLOOMSIMD_ERR_NO_MEMORY, "NoMemoryError", "MemoryError", "An allocation failed (BLOOMSIMD_ERR_NO_MEMORY)."},
    {BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "KernelUnavailableError", NULL,
     "The kernel named is unknown or this CPU cannot run it (BLOOMSIMD_ERR_KERNEL_UNAVAILABLE)."},
    {BLOOMSIMD_ERR_IO, "SystemCallError", "OSError",
     "A system call failed; errno is set (BLOOMSIMD_ERR_IO)."},
    {BLOOMSIMD_ERR_CORRUPT, "CorruptError", "ValueError",
     "Serialized data fails validation (BLOOMSIMD_ERR_CORRUPT)."},
    {BLOOMSIMD_ERR_VERSION, "VersionError", "ValueError",
     "Serialized data has a format version or id this build does not read (BLOOMSIMD_ERR_VERSION)."},
    {BLOOMSIMD_ERR_INCOMPATIBLE, "IncompatibleError", "ValueError",
     "Two filters differ in geometry, seed or hash (BLOOMSIMD_ERR_INCOMPATIBLE)."},
    {BLOOMSIMD_ERR_READ_ONLY, "ReadOnlyError", NULL,
     "A write to a read-only (mapped) filter (BLOOMSIMD_ERR_READ_ONLY)."},
};

static PyObject *new_class(PyObject *module, const char *name, const char *extra, const char *doc)
{
    char qualified[64];
    snprintf(qualified, sizeof qualified, "bloomsimd.%s", name);
    PyObject *bases = NULL;
    if (extra) {
        PyObject *builtin = PyDict_GetItemString(PyEval_GetBuiltins(), extra); /* borrowed */
        if (!builtin) return NULL;
        bases = PyTuple_Pack(2, base_error, builtin);
    } else {
        bases = PyTuple_Pack(1, base_error);
    }
    if (!bases) return NULL;
    PyObject *cls = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
    Py_DECREF(bases);
    if (!cls) return NULL;
    if (PyModule_AddObjectRef(module, name, cls) < 0) {
        Py_DECREF(cls);
        return NULL;
    }
    return cls;
}

int bsp_errors_init(PyObject *module)
{
    base_error = PyErr_NewExceptionWithDoc(
        "bloomsimd.BloomsimdError",
        "Base class of every error the library reports.\n\n"
        "Attributes: status (the library's bloomsimd_status code, an int) and\n"
        "detail (the library's one-line explanation, '' when it had none).",
        NULL, NULL);
    if (!base_error || PyModule_AddObjectRef(module, "BloomsimdError", base_error) < 0) return -1;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        status_error[classes[i].status] = new_class(module, classes[i].name, classes[i].extra, classes[i].doc);
        if (!status_error[classes[i].status]) return -1;
    }
    busy_error = new_class(module, "BusyError", "RuntimeError",
                           "Another thread is using the filter in a way this call may not overlap:\n"
                           "a filter created without concurrent=True takes one writer or many\n"
                           "readers at a time, and close() and clear() need it to themselves.");
    return busy_error ? 0 : -1;
}

static int set_attrs(PyObject *exc, long status, const char *detail)
{
    PyObject *st = PyLong_FromLong(status);
    PyObject *det = PyUnicode_DecodeUTF8(detail, (Py_ssize_t)strlen(detail), "replace");
    int rc = (st && det && PyObject_SetAttrString(exc, "status", st) == 0 &&
              PyObject_SetAttrString(exc, "detail", det) == 0)
                 ? 0
                 : -1;
    Py_XDECREF(st);
    Py_XDECREF(det);
    return rc;
}

PyObject *bsp_raise(bloomsimd_status status, int saved_errno)
{
    /* copy at once: the text is rewritten by this thread's next failing call */
    char detail[256];
    snprintf(detail, sizeof detail, "%s", bloomsimd_last_error());
    PyObject *cls = ((unsigned)status < STATUS_COUNT && status_error[status]) ? status_error[status] : base_error;
    const char *text = detail[0] ? detail : bloomsimd_status_string(status);
    /* a path in the text may not be UTF-8 */
    PyObject *message = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    if (!message) return NULL;
    PyObject *exc = status == BLOOMSIMD_ERR_IO ? PyObject_CallFunction(cls, "iO", saved_errno, message)
                                               : PyObject_CallFunction(cls, "O", message);
    Py_DECREF(message);
    if (!exc) return NULL;
    if (set_attrs(exc, (long)status, detail) == 0) PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *bsp_raise_busy(const char *what, bool exclusive)
{
    if (exclusive)
        PyErr_Format(busy_error, "%s: another thread is using this filter; %s needs it to itself", what, what);
    else
        PyErr_Format(busy_error,
                     "%s: another thread is using this filter (a filter created without concurrent=True "
                     "takes one writer or many readers at a time)",
                     what);
    return NULL;
}

PyObject *bsp_raise_closed(void)
{
    PyErr_SetString(PyExc_ValueError, "operation on a closed filter");
    return NULL;
}

/*
 * module.c — bloomsimd._bloomsimd: the Filter type, Info and Sizing, the
 * exceptions, and what the library says about its kernels and version.
 */
#include "pybloomsimd.h"

static PyObject *kernels(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && bloomsimd_kernel_name(i); i++) {
        PyObject *name = PyUnicode_FromString(bloomsimd_kernel_name(i));
        if (!name || PyList_Append(list, name) < 0) Py_CLEAR(list);
        Py_XDECREF(name);
    }
    return list;
}

static PyObject *kernel_supported(PyObject *module, PyObject *name)
{
    (void)module;
    const char *s = PyUnicode_AsUTF8(name);
    if (!s) return NULL;
    return PyBool_FromLong(bloomsimd_kernel_supported(s));
}

static PyObject *default_kernel(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    const char *k = bloomsimd_default_kernel();
    if (!k) return bsp_raise(BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, 0);
    return PyUnicode_FromString(k);
}

static PyMethodDef module_methods[] = {
    {"kernels", kernels, METH_NOARGS,
     "kernels() -> list[str]\n--\n\nThe kernels compiled in, best first (some may not run on this CPU)."},
    {"kernel_supported", kernel_supported, METH_O,
     "kernel_supported(name) -> bool\n--\n\nTrue if the kernel is compiled in and this CPU runs it."},
    {"default_kernel", default_kernel, METH_NOARGS,
     "default_kernel() -> str\n--\n\n"
     "The kernel new filters get: BLOOMSIMD_KERNEL if set, else the best this CPU\n"
     "runs. KernelUnavailableError if BLOOMSIMD_KERNEL names one it cannot run."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bloomsimd._bloomsimd",
    .m_doc = "The C extension behind the bloomsimd package (import bloomsimd instead).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__bloomsimd(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (bsp_errors_init(m) < 0 || bsp_info_init(m) < 0 || bsp_sizing_init(m) < 0 || bsp_filter_type_init(m) < 0 ||
        PyModule_AddStringConstant(m, "library_version", bloomsimd_version_string()) < 0 ||
        PyModule_AddIntConstant(m, "header_version", BLOOMSIMD_VERSION_NUMBER) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/*
 * options.c — Python arguments to bloomsimd_options, and Filter.size_for.
 *
 * Python spells every default out, so the C convention "a zeroed field means
 * derive it" becomes None here; a value is checked by the library, whose
 * detail text the exception carries. Two checks are ours: fpr=0 (the C
 * struct's "use the default", which in Python would hide a mistake) and the
 * layout names.
 */
#include <math.h>
#include <string.h>

#include "pybloomsimd.h"

/* ---- layouts --------------------------------------------------------------
 * The layouts are ids in the file format (offset 16): 2 = block512 (64-byte
 * blocks, k of 16 words), 3 = split256 (32-byte blocks, one bit in each of 8
 * words). A header without BLOOMSIMD_LAYOUT_DEFAULT knows block512 only. */
#define LAYOUT_BLOCK512 2u
#define LAYOUT_SPLIT256 3u

const char *bsp_layout_name(uint32_t layout)
{
#ifdef BLOOMSIMD_LAYOUT_DEFAULT
    const char *name = bloomsimd_layout_name(layout);
    return name ? name : "unknown";
#else
    return layout == LAYOUT_BLOCK512 ? "block512" : "unknown";
#endif
}

static int parse_layout(PyObject *o, uint32_t *out)
{
    *out = 0; /* the selected kernel's default */
    if (o == Py_None) return 0;
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s) return -1;
        if (!strcmp(s, "block512")) *out = LAYOUT_BLOCK512;
        if (!strcmp(s, "split256")) *out = LAYOUT_SPLIT256;
    } else if (PyLong_CheckExact(o)) {
        long v = PyLong_AsLong(o);
        if (v == -1 && PyErr_Occurred()) PyErr_Clear();
        if (v == 512) *out = LAYOUT_BLOCK512;
        if (v == 256) *out = LAYOUT_SPLIT256;
    }
    if (!*out) {
        PyErr_Format(PyExc_ValueError, "layout must be None, 'block512' (or 512) or 'split256' (or 256), not %R", o);
        return -1;
    }
#ifndef BLOOMSIMD_LAYOUT_DEFAULT
    if (*out != LAYOUT_BLOCK512) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "layout 'split256' needs a libbloomsimd with the split256 layout; this one was built "
                        "against a library that has block512 only");
        return -1;
    }
    *out = 0; /* block512 is the only layout: the default */
#endif
    return 0;
}

/* ---- the hash of 64-bit keys ---------------------------------------------
 * 'xxh3' (XXH3 of the key's 8 little-endian bytes, the default) or 'mum'
 * (kernels/layout.h section 1): bloomsimd_options.flags. A header without
 * BLOOMSIMD_U64_MUM has XXH3 only. */
const char *bsp_u64_hash_name(uint32_t flags)
{
#ifdef BLOOMSIMD_U64_MUM
    if (flags & BLOOMSIMD_U64_MUM) return "mum";
    if (flags & BLOOMSIMD_U64_XXH3) return "xxh3";
    return NULL; /* a Parquet filter: XXH64 of the value's encoding */
#else
    (void)flags;
    return "xxh3";
#endif
}

static int parse_u64_hash(PyObject *o, uint32_t *flags)
{
    const char *s = NULL;
    if (o == Py_None) return 0;
    if (PyUnicode_Check(o) && !(s = PyUnicode_AsUTF8(o))) return -1;
#ifdef BLOOMSIMD_U64_MUM
    if (s && !strcmp(s, "xxh3")) {
        *flags |= BLOOMSIMD_U64_XXH3;
        return 0;
    }
    if (s && !strcmp(s, "mum")) {
        *flags |= BLOOMSIMD_U64_MUM;
        return 0;
    }
#else
    if (s && !strcmp(s, "xxh3")) return 0;
    if (s && !strcmp(s, "mum")) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "u64_hash 'mum' needs a libbloomsimd with BLOOMSIMD_U64_MUM; this one hashes with XXH3 only");
        return -1;
    }
#endif
    PyErr_Format(PyExc_ValueError, "u64_hash must be None, 'xxh3' or 'mum', not %R", o);
    return -1;
}

/* ---- numbers ----------------------------------------------------------- */

/* None leaves *out; an int (or an integral float such as 1e6) in [0, max]. */
static int parse_count(PyObject *o, const char *name, uint64_t max, bool allow_float, uint64_t *out)
{
    if (o == Py_None) return 0;
    PyObject *integer = NULL;
    if (PyFloat_Check(o) && allow_float) {
        double d = PyFloat_AS_DOUBLE(o);
        if (!(d >= 0 && d == floor(d) && d < 18446744073709551616.0)) {
            PyErr_Format(PyExc_ValueError, "%s must be a whole number >= 0, not %R", name, o);
            return -1;
        }
        integer = PyLong_FromDouble(d);
    } else if (PyIndex_Check(o) && !PyBool_Check(o)) {
        integer = PyNumber_Index(o);
    } else {
        PyErr_Format(PyExc_TypeError, "%s must be an int or None, not '%.100s'", name, Py_TYPE(o)->tp_name);
        return -1;
    }
    if (!integer) return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(integer);
    Py_DECREF(integer);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
        v = (unsigned long long)max + 1; /* negative or huge: reported below */
        if (max == UINT64_MAX) {
            PyErr_Format(PyExc_OverflowError, "%s must be in [0, 2**64), not %R", name, o);
            return -1;
        }
    }
    if (v > max) {
        PyErr_Format(PyExc_OverflowError, "%s must be in [0, %llu], not %R", name, (unsigned long long)max, o);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_u32(PyObject *o, const char *name, uint32_t *out)
{
    uint64_t v = *out;
    if (parse_count(o, name, UINT32_MAX, false, &v) < 0) return -1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_rate(PyObject *o, const char *name, double *out)
{
    if (o == Py_None) return 0;
    if (!PyFloat_Check(o) && !PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a float, not '%.100s'", name, Py_TYPE(o)->tp_name);
        return -1;
    }
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    *out = d;
    return 0;
}

static int parse_kernel(PyObject *o, PyObject **utf8_owner, const char **out)
{
    *out = NULL;
    if (o == Py_None) return 0;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "kernel must be a str or None, not '%.100s'", Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = PyUnicode_AsUTF8(o); /* valid while o lives */
    if (!*out) return -1;
    Py_INCREF(o);
    *utf8_owner = o;
    return 0;
}

/* ---- Filter(...) / size_for(...) ------------------------------------------ */

int bsp_parse_create_args(PyObject *args, PyObject *kwargs, bsp_create_args *out)
{
    static char *names[] = {"capacity", "fpr",    "bits", "k",          "growth",    "tightening", "generations",
                            "layout",   "kernel", "seed", "concurrent", "hugepages", "u64_hash",   NULL};
    PyObject *capacity = Py_None, *fpr = Py_None, *bits = Py_None, *k = Py_None, *growth = Py_None,
             *tightening = Py_None, *generations = Py_None, *layout = Py_None, *kernel = Py_None, *seed = Py_None,
             *u64_hash = Py_None;
    int concurrent = 0, hugepages = 1;
    uint32_t hash_flags = 0;
    memset(out, 0, sizeof *out);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO$OOOOOOOOppO:Filter", names, &capacity, &fpr, &bits, &k,
                                     &growth, &tightening, &generations, &layout, &kernel, &seed, &concurrent,
                                     &hugepages, &u64_hash))
        return -1;
    bloomsimd_options *o = &out->options;
    o->fpr = BLOOMSIMD_DEFAULT_FPR;
    uint32_t layout_id = 0;
    if (parse_count(capacity, "capacity", UINT64_MAX, true, &o->capacity) < 0 ||
        parse_rate(fpr, "fpr", &o->fpr) < 0 || parse_count(bits, "bits", UINT64_MAX, true, &o->bits) < 0 ||
        parse_u32(k, "k", &o->k) < 0 || parse_u32(growth, "growth", &o->growth) < 0 ||
        parse_rate(tightening, "tightening", &o->tightening) < 0 ||
        parse_u32(generations, "generations", &o->generations) < 0 || parse_layout(layout, &layout_id) < 0 ||
        parse_count(seed, "seed", UINT64_MAX, false, &o->seed) < 0 ||
        parse_kernel(kernel, &out->kernel_utf8, &o->kernel) < 0 || parse_u64_hash(u64_hash, &hash_flags) < 0) {
        bsp_create_args_release(out);
        return -1;
    }
    if (o->fpr == 0.0) {
        PyErr_SetString(PyExc_ValueError, "fpr 0 is not a false-positive rate: give one in [1e-10, 1)");
        bsp_create_args_release(out);
        return -1;
    }
    if (capacity != Py_None && o->capacity == 0) {
        PyErr_SetString(PyExc_ValueError, "capacity must be at least 1 (or None with bits=...)");
        bsp_create_args_release(out);
        return -1;
    }
#ifdef BLOOMSIMD_LAYOUT_DEFAULT
    o->layout = layout_id;
#endif
    o->flags = (concurrent ? BLOOMSIMD_CONCURRENT : 0u) | (hugepages ? 0u : BLOOMSIMD_NO_HUGEPAGES) | hash_flags;
    return 0;
}

void bsp_create_args_release(bsp_create_args *a)
{
    Py_CLEAR(a->kernel_utf8);
}

int bsp_parse_load_options(PyObject *kernel, int concurrent, bloomsimd_load_options *out)
{
    PyObject *owner = NULL;
    memset(out, 0, sizeof *out);
    if (parse_kernel(kernel, &owner, &out->kernel) < 0) return -1;
    Py_XDECREF(owner); /* the caller holds `kernel` for the call */
    out->flags = concurrent ? BLOOMSIMD_CONCURRENT : 0u;
    return 0;
}

/* ---- Sizing -------------------------------------------------------------- */

static PyTypeObject *sizing_type;

static PyStructSequence_Field sizing_fields[] = {
    {"blocks", "blocks of the bit array"},
    {"bits", "bits of the bit array"},
    {"k", "bits set per key"},
    {"memory_bytes", "bytes of the bit array(s)"},
    {"bits_per_key", "bits of one layer / capacity (0.0 without a capacity)"},
    {"fpr", "target false-positive rate"},
    {"predicted_fpr", "the layout's model FPR at capacity"},
    {"layers", "1, or the generations of a window"},
    {"kernel", "the kernel Filter(...) would run"},
    {"layout", "'block512' or 'split256'"},
    {NULL, NULL},
};

static PyStructSequence_Desc sizing_desc = {
    "bloomsimd.Sizing",
    "What Filter(...) would build for the same arguments, computed without allocating it.",
    sizing_fields,
    10,
};

int bsp_sizing_init(PyObject *module)
{
    sizing_type = PyStructSequence_NewType(&sizing_desc);
    if (!sizing_type) return -1;
    return PyModule_AddObjectRef(module, "Sizing", (PyObject *)sizing_type);
}

PyObject *bsp_size_for(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    (void)cls;
    bsp_create_args a;
    if (bsp_parse_create_args(args, kwargs, &a) < 0) return NULL;
    bloomsimd_sizing s;
    bloomsimd_status st = bloomsimd_size_for(&a.options, &s);
    bsp_create_args_release(&a);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, 0);
    PyObject *r = PyStructSequence_New(sizing_type);
    if (!r) return NULL;
#ifdef BLOOMSIMD_LAYOUT_DEFAULT
    uint32_t layout = s.layout;
#else
    uint32_t layout = LAYOUT_BLOCK512;
#endif
    PyObject *items[] = {
        PyLong_FromUnsignedLongLong(s.blocks),  PyLong_FromUnsignedLongLong(s.bits),
        PyLong_FromUnsignedLong(s.k),           PyLong_FromUnsignedLongLong(s.memory_bytes),
        PyFloat_FromDouble(s.bits_per_key),     PyFloat_FromDouble(s.fpr),
        PyFloat_FromDouble(s.predicted_fpr),    PyLong_FromUnsignedLong(s.layers),
        PyUnicode_FromString(s.kernel ? s.kernel : ""), PyUnicode_FromString(bsp_layout_name(layout)),
    };
    int bad = 0;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)(sizeof items / sizeof items[0]); i++) {
        if (!items[i]) bad = 1;
        PyStructSequence_SetItem(r, i, items[i]); /* steals; NULL is allowed and checked below */
    }
    if (bad) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

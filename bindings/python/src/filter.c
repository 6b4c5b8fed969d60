/*
 * filter.c — the Filter type: creation, the thread rule, closing, info,
 * repr, and the single-key calls.
 *
 * `x in f` is the hot path of per-row Python code: sq_contains, an exact-int
 * check, one conversion, one library call. Nothing else runs for an int.
 */
#include "pybloomsimd.h"

PyDoc_STRVAR(filter_doc,
"Filter(capacity=None, fpr=0.01, *, bits=None, k=None, growth=None, tightening=None,\n"
"       generations=None, layout=None, kernel=None, seed=0, concurrent=False,\n"
"       hugepages=True, u64_hash=None)\n"
"--\n\n"
"A cache-line-blocked Bloom filter: `key in f` is False when key was\n"
"certainly never added, True when it probably was (false positives at\n"
"about `fpr` once `capacity` distinct keys are in).\n\n"
"Keys are ints (64-bit: 0 .. 2**64-1, negatives as two's complement),\n"
"bytes-like objects, and str (hashed as UTF-8). The same key gives the\n"
"same bits here, in C, Go, the bloomsimd command and the Redis module.\n\n"
"One key at a time:\n"
"    f = bloomsimd.Filter(1_000_000, 0.01)\n"
"    f.add(42); f.add(b'\\x00\\x01'); f.add('https://example.com/')\n"
"    42 in f                  # True\n"
"    f.add_new('user-7')      # True the first time, then False\n\n"
"Batches (the fast path: about a nanosecond a key, without the GIL):\n"
"    ids = numpy.array([...], dtype=numpy.uint64)    # or int64, any int dtype\n"
"    f.add_many(ids)\n"
"    seen = f.contains_many(ids)       # numpy bool array\n"
"    fresh = f.add_new_many(ids)       # True where the key was new (dedup)\n"
"    rows = f.select(ids)              # uint32 indices of the maybe-present keys\n"
"Batches also take lists or iterables of bytes/str, Arrow-style\n"
"(data, offsets) buffers, fixed-width keys (width=, or a numpy 'S16'\n"
"array), and pyarrow arrays (any object with __arrow_c_array__).\n\n"
"Sizing: capacity (keys expected, required unless bits= is given), fpr\n"
"(target false-positive rate at capacity), bits (explicit size), k (bits\n"
"set per key). Filter.size_for(...) tells the size without allocating.\n"
"growth=G grows the filter by layers G times larger once it is full;\n"
"generations=N makes a sliding window of N generations (see rotate()).\n"
"layout: 'block512' or 'split256' (None: the kernel's default). kernel:\n"
"'scalar', 'sse42', 'avx2', 'avx512', 'neon' (None: the best here).\n"
"concurrent=True lets threads insert and look up at once (atomic ORs).\n"
"u64_hash: how int keys are hashed, 'xxh3' (None: the default; an int\n"
"and its 8 little-endian bytes are the same key) or 'mum' (one 128-bit\n"
"multiply: shorter, the same FPR on sequential and structured ids).\n\n"
"Files: f.save(path), Filter.load(path), Filter.map(path) (zero-copy,\n"
"read-only unless writable=True), f.to_bytes(), Filter.from_bytes(b),\n"
"pickle and copy.copy. Set operations: f | g, f & g, f |= g, f &= g,\n"
"union(), intersection(). f.info describes it; f.estimate_count()\n"
"estimates distinct keys. Use it as a context manager, or call close(),\n"
"to free its memory (or unmap its file) at once.\n\n"
"Errors are subclasses of bloomsimd.BloomsimdError, one per library\n"
"status, with the library's explanation in .detail.");

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define BSP_HOT __attribute__((no_stack_protector))
#elif defined(__clang__)
#define BSP_HOT __attribute__((no_stack_protector))
#else
#define BSP_HOT
#endif

/* ---- the thread rule (pybloomsimd.h) ------------------------------------- */

static inline bool read_allowed(const bsp_filter *self)
{
    return self->concurrent || self->writers == 0;
}

static inline bool write_allowed(const bsp_filter *self)
{
    return self->concurrent || (self->writers == 0 && self->readers == 0);
}

int bsp_enter_read(bsp_filter *self)
{
    if (!self->filter) return bsp_raise_closed(), -1;
    if (!read_allowed(self)) return bsp_raise_busy("reading", false), -1;
    self->readers++;
    return 0;
}

int bsp_enter_write(bsp_filter *self)
{
    if (!self->filter) return bsp_raise_closed(), -1;
    if (!write_allowed(self)) return bsp_raise_busy("writing", false), -1;
    self->writers++;
    return 0;
}

int bsp_enter_exclusive(bsp_filter *self)
{
    if (!self->filter) return bsp_raise_closed(), -1;
    if (self->writers || self->readers) return bsp_raise_busy("this call", true), -1;
    return 0;
}

void bsp_leave_read(bsp_filter *self)
{
    self->readers--;
}

void bsp_leave_write(bsp_filter *self)
{
    self->writers--;
}

/* ---- lifecycle --------------------------------------------------------------- */

PyObject *bsp_filter_wrap(PyTypeObject *type, bloomsimd_filter *filter)
{
    bsp_filter *self = (bsp_filter *)type->tp_alloc(type, 0);
    if (!self) {
        bloomsimd_destroy(filter);
        return NULL;
    }
    bloomsimd_info info;
    bloomsimd_get_info(filter, &info);
    self->filter = filter;
    self->concurrent = (info.flags & BLOOMSIMD_CONCURRENT) != 0;
    return (PyObject *)self;
}

static PyObject *filter_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    bsp_create_args a;
    if (bsp_parse_create_args(args, kwargs, &a) < 0) return NULL;
    bloomsimd_filter *filter = NULL;
    bloomsimd_status st;
    Py_BEGIN_ALLOW_THREADS /* a large filter's memory is zeroed here */
    st = bloomsimd_create_with(&filter, &a.options);
    Py_END_ALLOW_THREADS
    if (st != BLOOMSIMD_OK) {
        bsp_raise(st, 0);
        bsp_create_args_release(&a);
        return NULL;
    }
    bsp_create_args_release(&a);
    return bsp_filter_wrap(type, filter);
}

static void filter_dealloc(PyObject *op)
{
    bsp_filter *self = (bsp_filter *)op;
    if (self->weakrefs) PyObject_ClearWeakRefs(op);
    bloomsimd_destroy(self->filter); /* NULL once closed: a no-op */
    Py_TYPE(op)->tp_free(op);
}

static PyObject *filter_close(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    if (!self->filter) Py_RETURN_NONE;
    if (self->writers || self->readers) return bsp_raise_busy("close()", true);
    bloomsimd_destroy(self->filter);
    self->filter = NULL;
    Py_RETURN_NONE;
}

static PyObject *filter_enter(PyObject *op, PyObject *unused)
{
    (void)unused;
    if (!((bsp_filter *)op)->filter) return bsp_raise_closed();
    return Py_NewRef(op);
}

static PyObject *filter_exit(PyObject *op, PyObject *args)
{
    (void)args;
    PyObject *r = filter_close(op, NULL);
    if (!r) return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

static PyObject *filter_closed(PyObject *op, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((bsp_filter *)op)->filter == NULL);
}

/* ---- single keys ---------------------------------------------------------- */

static int key_or_fail(bsp_filter *self, PyObject *o, bsp_key *key, bool write)
{
    if (bsp_key_from(o, key) < 0) return -1;
    const char *why = NULL;
    if (!self->filter) why = "closed";
    else if (write ? !write_allowed(self) : !read_allowed(self)) why = "busy";
    if (!why) return 0;
    bsp_key_release(key);
    if (why[0] == 'c') bsp_raise_closed();
    else bsp_raise_busy(write ? "add" : "lookup", false);
    return -1;
}

/* Every other key: the general conversion (kept out of the hot path's frame). */
static Py_NO_INLINE int contains_key(bsp_filter *self, PyObject *o)
{
    bsp_key key;
    if (key_or_fail(self, o, &key, false) < 0) return -1;
    int r = key.is_u64 ? bloomsimd_contains_u64(self->filter, key.u64)
                       : bloomsimd_contains(self->filter, key.data, key.len);
    bsp_key_release(&key);
    return r;
}

static Py_NO_INLINE PyObject *add_key(bsp_filter *self, PyObject *o)
{
    bsp_key key;
    if (key_or_fail(self, o, &key, true) < 0) return NULL;
    bloomsimd_status st = key.is_u64 ? bloomsimd_add_u64(self->filter, key.u64)
                                     : bloomsimd_add(self->filter, key.data, key.len);
    bsp_key_release(&key);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, 0);
    Py_RETURN_NONE;
}

/* `x in f` and f.add(x) for an int: an exact-int check, the conversion
 * (pybloomsimd.h), one library call; everything else in a separate frame.
 * No stack protector: the canary cost more than the conversion. */
BSP_HOT static int filter_sq_contains(PyObject *op, PyObject *o)
{
    bsp_filter *self = (bsp_filter *)op;
    if (PyLong_CheckExact(o) && self->filter && read_allowed(self)) {
        uint64_t k;
        if (bsp_long_to_u64(o, &k) < 0) return -1;
        return bloomsimd_contains_u64(self->filter, k);
    }
    return contains_key(self, o);
}

BSP_HOT static PyObject *filter_add(PyObject *op, PyObject *o)
{
    bsp_filter *self = (bsp_filter *)op;
    if (PyLong_CheckExact(o) && self->filter && write_allowed(self)) {
        uint64_t k;
        if (bsp_long_to_u64(o, &k) < 0) return NULL;
        bloomsimd_status st = bloomsimd_add_u64(self->filter, k);
        if (st != BLOOMSIMD_OK) return bsp_raise(st, 0);
        Py_RETURN_NONE;
    }
    return add_key(self, o);
}

static PyObject *filter_add_new(PyObject *op, PyObject *o)
{
    bsp_filter *self = (bsp_filter *)op;
    bsp_key key;
    if (key_or_fail(self, o, &key, true) < 0) return NULL;
    bool fresh = false;
    bloomsimd_status st = key.is_u64 ? bloomsimd_add_new_u64(self->filter, key.u64, &fresh)
                                     : bloomsimd_add_new(self->filter, key.data, key.len, &fresh);
    bsp_key_release(&key);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, 0);
    return PyBool_FromLong(fresh);
}

/* ---- whole-filter calls ----------------------------------------------------- */

static PyObject *filter_estimate_count(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    if (bsp_enter_read(self) < 0) return NULL;
    double count;
    Py_BEGIN_ALLOW_THREADS /* reads every bit */
    count = bloomsimd_estimate_count(self->filter);
    Py_END_ALLOW_THREADS
    bsp_leave_read(self);
    return PyFloat_FromDouble(count);
}

static PyObject *filter_rotate(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    if (bsp_enter_write(self) < 0) return NULL;
    bloomsimd_status st;
    Py_BEGIN_ALLOW_THREADS /* zeroes the new generation */
    st = bloomsimd_rotate(self->filter);
    Py_END_ALLOW_THREADS
    bsp_leave_write(self);
    if (st != BLOOMSIMD_OK) return bsp_raise(st, 0);
    Py_RETURN_NONE;
}

static PyObject *filter_clear(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    if (bsp_enter_exclusive(self) < 0) return NULL;
    if (self->read_only) {
        /* the library's clear is a documented no-op here: say so instead */
        PyErr_SetString(PyExc_ValueError, "clear() of a read-only mapped filter");
        return NULL;
    }
    self->writers++; /* nobody else may start meanwhile */
    Py_BEGIN_ALLOW_THREADS
    bloomsimd_clear(self->filter);
    Py_END_ALLOW_THREADS
    self->writers--;
    Py_RETURN_NONE;
}

static PyObject *filter_sizeof(PyObject *op, PyObject *unused)
{
    (void)unused;
    bsp_filter *self = (bsp_filter *)op;
    size_t size = (size_t)Py_TYPE(op)->tp_basicsize;
    if (self->filter) {
        bloomsimd_info info;
        bloomsimd_get_info(self->filter, &info);
        size += (size_t)info.memory_bytes;
    }
    return PyLong_FromSize_t(size);
}

static PyObject *filter_repr(PyObject *op)
{
    bsp_filter *self = (bsp_filter *)op;
    const char *name = Py_TYPE(op)->tp_name;
    if (!self->filter) return PyUnicode_FromFormat("<%s closed>", name);
    bloomsimd_info info;
    bloomsimd_get_info(self->filter, &info);
    char fpr[32];
    PyOS_snprintf(fpr, sizeof fpr, "%g", info.fpr);
    PyObject *kind = info.generations > 1 ? PyUnicode_FromFormat(" generations=%u", (unsigned)info.generations)
                     : info.growth        ? PyUnicode_FromFormat(" growth=%u layers=%u", (unsigned)info.growth,
                                                                 (unsigned)info.layers)
                                          : PyUnicode_FromString("");
    if (!kind) return NULL;
    PyObject *r = PyUnicode_FromFormat("<%s capacity=%llu fpr=%s bits=%llu k=%u kernel=%s%U%s>", name,
                                       (unsigned long long)info.capacity, fpr, (unsigned long long)info.bits,
                                       (unsigned)info.k, info.kernel, kind, self->concurrent ? " concurrent" : "");
    Py_DECREF(kind);
    return r;
}

/* ---- Info ------------------------------------------------------------------ */

static PyTypeObject *info_type;

static PyStructSequence_Field info_fields[] = {
    {"capacity", "keys the filter was sized for (0 if sized by bits); a window: per generation"},
    {"fpr", "target false-positive rate"},
    {"bits", "bits of the bit array(s)"},
    {"blocks", "blocks of the bit array(s)"},
    {"k", "bits set per key (the first layer's)"},
    {"bits_per_key", "bits / capacity (0.0 without a capacity)"},
    {"seed", "hash seed"},
    {"memory_bytes", "bytes of the bit array(s)"},
    {"kernel", "the kernel this filter runs"},
    {"layout", "'block512' or 'split256'"},
    {"concurrent", "created with concurrent=True"},
    {"growth", "growth factor of a scalable filter (0: fixed size)"},
    {"layers", "layers of a scalable filter, generations of a window, else 1"},
    {"items", "keys counted new by add_new* (scalable and window filters: every key added)"},
    {"generations", "generations of a window (0 otherwise)"},
    {"rotations", "rotate() calls over a window's life"},
    {"fill", "fraction of bits set"},
    {"estimated_keys", "distinct keys estimated from the bits"},
    {"fpr_now", "the false-positive rate of a lookup now, from the bits"},
    {"saturated", "so few bits are clear that estimated_keys is only a bound"},
    {"load", "share of its capacity the filter has taken (0.8 = 80%): its counted keys over its capacity (a\n"
             "scalable filter: over its first layer's; a window: its fullest generation's), or its\n"
             "estimated keys where it counted none (a plain filter filled by add); 0 without a capacity"},
    {"u64_hash", "how int keys are hashed: 'xxh3' or 'mum' (None for a Parquet filter)"},
    {NULL, NULL},
};

static PyStructSequence_Desc info_desc = {
    "bloomsimd.Info",
    "What a filter is and how full it is (Filter.info). Reading it counts\n"
    "the set bits: about 1 ms per 16 MiB of filter.",
    info_fields,
    22,
};

int bsp_info_init(PyObject *module)
{
    info_type = PyStructSequence_NewType(&info_desc);
    if (!info_type) return -1;
    return PyModule_AddObjectRef(module, "Info", (PyObject *)info_type);
}

PyObject *bsp_filter_info(bsp_filter *self, void *closure)
{
    (void)closure;
    if (bsp_enter_read(self) < 0) return NULL;
    bloomsimd_info info;
    bloomsimd_fill_info fill;
    Py_BEGIN_ALLOW_THREADS
    bloomsimd_get_info(self->filter, &info);
    bloomsimd_get_fill_info(self->filter, &fill);
    Py_END_ALLOW_THREADS
    bsp_leave_read(self);
#ifdef BLOOMSIMD_LAYOUT_DEFAULT
    uint32_t layout = info.layout;
#else
    uint32_t layout = 2;
#endif
    const char *u64_hash = bsp_u64_hash_name(info.flags);
    PyObject *items[] = {
        PyLong_FromUnsignedLongLong(info.capacity),
        PyFloat_FromDouble(info.fpr),
        PyLong_FromUnsignedLongLong(info.bits),
        PyLong_FromUnsignedLongLong(info.blocks),
        PyLong_FromUnsignedLong(info.k),
        PyFloat_FromDouble(info.capacity ? (double)info.bits / (double)info.capacity /
                                               (info.generations > 1 ? (double)info.generations : 1.0)
                                         : 0.0),
        PyLong_FromUnsignedLongLong(info.seed),
        PyLong_FromUnsignedLongLong(info.memory_bytes),
        PyUnicode_FromString(info.kernel),
        PyUnicode_FromString(bsp_layout_name(layout)),
        PyBool_FromLong((info.flags & BLOOMSIMD_CONCURRENT) != 0),
        PyLong_FromUnsignedLong(info.growth),
        PyLong_FromUnsignedLong(info.layers),
        PyLong_FromUnsignedLongLong(info.items),
        PyLong_FromUnsignedLong(info.generations),
        PyLong_FromUnsignedLongLong(info.rotations),
        PyFloat_FromDouble(fill.fill_ratio),
        PyFloat_FromDouble(fill.estimated_items),
        PyFloat_FromDouble(fill.fpr_now),
        PyBool_FromLong(fill.saturated),
        PyFloat_FromDouble(fill.load),
        u64_hash ? PyUnicode_FromString(u64_hash) : Py_NewRef(Py_None),
    };
    PyObject *r = PyStructSequence_New(info_type);
    bool bad = r == NULL;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)(sizeof items / sizeof items[0]); i++) {
        if (!items[i]) bad = true;
        if (r) PyStructSequence_SetItem(r, i, items[i]); /* steals */
        else Py_XDECREF(items[i]);
    }
    if (bad) {
        Py_XDECREF(r);
        return NULL;
    }
    return r;
}

/* ---- the type ---------------------------------------------------------------- */

static PyMethodDef filter_methods[] = {
    {"add", filter_add, METH_O, "add(key) -> None\n--\n\nInserts one key (int, bytes-like or str)."},
    {"add_new", filter_add_new, METH_O,
     "add_new(key) -> bool\n--\n\nInserts one key; True if it was (probably) not in the filter before."},
    {"size_for", (PyCFunction)(void (*)(void))bsp_size_for, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "size_for(capacity, fpr=0.01, **options) -> Sizing\n--\n\n"
     "What Filter(capacity, fpr, **options) would build (blocks, bits, k,\n"
     "memory_bytes, bits_per_key, fpr, predicted_fpr, layers, kernel, layout),\n"
     "without allocating it. Raises what Filter(...) would raise."},
    {"estimate_count", filter_estimate_count, METH_NOARGS,
     "estimate_count() -> float\n--\n\nDistinct keys inserted, estimated from the bits set (reads every bit)."},
    {"rotate", filter_rotate, METH_NOARGS,
     "rotate() -> None\n--\n\nA window (generations=N): drops the oldest generation and starts an empty\n"
     "one. InvalidArgumentError for other filters."},
    {"clear", filter_clear, METH_NOARGS,
     "clear() -> None\n--\n\nRemoves every key. No other thread may use the filter meanwhile."},
    {"close", filter_close, METH_NOARGS,
     "close() -> None\n--\n\nFrees the filter's memory (or unmaps its file) now. Idempotent; any later\n"
     "call but close() raises ValueError."},
    {"__enter__", filter_enter, METH_NOARGS, "Returns the filter."},
    {"__exit__", filter_exit, METH_VARARGS, "Closes the filter."},
    {"__sizeof__", filter_sizeof, METH_NOARGS, "Size of the object, bit arrays included, in bytes."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef filter_getset[] = {
    {"info", (getter)bsp_filter_info, NULL,
     "An Info: capacity, fpr, bits, blocks, k, bits_per_key, seed, memory_bytes,\n"
     "kernel, layout, concurrent, growth, layers, items, generations, rotations,\n"
     "and from the bits: fill, estimated_keys, fpr_now, saturated.",
     NULL},
    {"closed", filter_closed, NULL, "True after close().", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods filter_as_sequence = {
    .sq_contains = filter_sq_contains,
};

/* filled by bsp_filter_type_init: this file's methods, then the batch,
 * persistence and set-operation tables */
static PyMethodDef all_methods[64];

PyTypeObject bsp_filter_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bloomsimd.Filter",
    .tp_basicsize = sizeof(bsp_filter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = filter_doc,
    .tp_new = filter_new,
    .tp_dealloc = filter_dealloc,
    .tp_repr = filter_repr,
    .tp_as_sequence = &filter_as_sequence,
    .tp_as_number = &bsp_filter_as_number,
    .tp_methods = all_methods,
    .tp_getset = filter_getset,
    .tp_weaklistoffset = offsetof(bsp_filter, weakrefs),
};

int bsp_filter_type_init(PyObject *module)
{
    const PyMethodDef *tables[] = {filter_methods, bsp_batch_methods, bsp_persist_methods, bsp_setops_methods};
    size_t n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const PyMethodDef *m = tables[t]; m->ml_name; m++) {
            if (n + 1 >= sizeof all_methods / sizeof all_methods[0]) {
                PyErr_SetString(PyExc_SystemError, "bloomsimd: method table too small");
                return -1;
            }
            all_methods[n++] = *m;
        }
    if (PyType_Ready(&bsp_filter_type) < 0) return -1;
    return PyModule_AddObjectRef(module, "Filter", (PyObject *)&bsp_filter_type);
}

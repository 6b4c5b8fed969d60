/*
 * setops.c — union and intersection, spelt as Python's set spells them:
 * f | g and f.union(g, ...) return a new filter; f |= g and f.update(g, ...)
 * change f. Filters must share geometry and seed (else IncompatibleError);
 * the union of two filters answers True for every key of either.
 */
#include "pybloomsimd.h"

typedef bloomsimd_status (*combine_fn)(bloomsimd_filter *, const bloomsimd_filter *);

/* dst op= src, each entered under the thread rule. 0 or -1. */
static int combine_into(bsp_filter *dst, bsp_filter *src, combine_fn op)
{
    if (dst == src) return bsp_enter_read(dst) < 0 ? -1 : (bsp_leave_read(dst), 0); /* f | f is f */
    if (bsp_enter_write(dst) < 0) return -1;
    if (bsp_enter_read(src) < 0) return bsp_leave_write(dst), -1;
    bloomsimd_status st;
    Py_BEGIN_ALLOW_THREADS
    st = op(dst->filter, src->filter);
    Py_END_ALLOW_THREADS
    bsp_leave_read(src);
    bsp_leave_write(dst);
    return st == BLOOMSIMD_OK ? 0 : (bsp_raise(st, 0), -1);
}

static PyObject *copy_of(bsp_filter *self)
{
    return PyObject_CallMethod((PyObject *)self, "__copy__", NULL);
}

static int check_filters(PyObject *args)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
        if (!bsp_filter_check(PyTuple_GET_ITEM(args, i))) {
            PyErr_Format(PyExc_TypeError, "expected bloomsimd.Filter, not '%.100s'",
                         Py_TYPE(PyTuple_GET_ITEM(args, i))->tp_name);
            return -1;
        }
    return 0;
}

static PyObject *combine_all(PyObject *self, PyObject *args, combine_fn op, bool in_place)
{
    if (check_filters(args) < 0) return NULL;
    PyObject *dst = in_place ? Py_NewRef(self) : copy_of((bsp_filter *)self);
    if (!dst) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
        if (combine_into((bsp_filter *)dst, (bsp_filter *)PyTuple_GET_ITEM(args, i), op) < 0) {
            Py_DECREF(dst);
            return NULL;
        }
    if (in_place) {
        Py_DECREF(dst);
        Py_RETURN_NONE;
    }
    return dst;
}

static PyObject *filter_union(PyObject *self, PyObject *args)
{
    return combine_all(self, args, bloomsimd_union, false);
}

static PyObject *filter_intersection(PyObject *self, PyObject *args)
{
    return combine_all(self, args, bloomsimd_intersect, false);
}

static PyObject *filter_update(PyObject *self, PyObject *args)
{
    return combine_all(self, args, bloomsimd_union, true);
}

static PyObject *filter_intersection_update(PyObject *self, PyObject *args)
{
    return combine_all(self, args, bloomsimd_intersect, true);
}

/* ---- operators ---------------------------------------------------------------------- */

static PyObject *binary(PyObject *a, PyObject *b, combine_fn op, bool in_place)
{
    if (!bsp_filter_check(a) || !bsp_filter_check(b)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *dst = in_place ? Py_NewRef(a) : copy_of((bsp_filter *)a);
    if (!dst) return NULL;
    if (combine_into((bsp_filter *)dst, (bsp_filter *)b, op) < 0) {
        Py_DECREF(dst);
        return NULL;
    }
    return dst;
}

static PyObject *nb_or(PyObject *a, PyObject *b)
{
    return binary(a, b, bloomsimd_union, false);
}

static PyObject *nb_and(PyObject *a, PyObject *b)
{
    return binary(a, b, bloomsimd_intersect, false);
}

static PyObject *nb_ior(PyObject *a, PyObject *b)
{
    return binary(a, b, bloomsimd_union, true);
}

static PyObject *nb_iand(PyObject *a, PyObject *b)
{
    return binary(a, b, bloomsimd_intersect, true);
}

PyNumberMethods bsp_filter_as_number = {
    .nb_or = nb_or,
    .nb_and = nb_and,
    .nb_inplace_or = nb_ior,
    .nb_inplace_and = nb_iand,
};

PyMethodDef bsp_setops_methods[] = {
    {"union", filter_union, METH_VARARGS,
     "union(*others) -> Filter\n--\n\nA new filter holding the keys of this one and of every other (f | g)."},
    {"intersection", filter_intersection, METH_VARARGS,
     "intersection(*others) -> Filter\n--\n\n"
     "A new filter with the bits common to all (f & g): a key added to every one\n"
     "answers True, and a false positive here is one in each of them."},
    {"update", filter_update, METH_VARARGS, "update(*others) -> None\n--\n\nAdds the keys of the others (f |= g)."},
    {"intersection_update", filter_intersection_update, METH_VARARGS,
     "intersection_update(*others) -> None\n--\n\nKeeps the bits common to all (f &= g)."},
    {NULL, NULL, 0, NULL},
};

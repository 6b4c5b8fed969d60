"""A minimal Arrow PyCapsule producer in ctypes, for the tests: arrays and
streams of the C data interface over NumPy buffers, with release callbacks
that count how often they run (each struct must be released exactly once,
and not before the consumer is done).

pyarrow is not a Debian 12 package, so this stands in for it; the layouts
follow https://arrow.apache.org/docs/format/CDataInterface.html.
"""
import ctypes

import numpy as np

c_void_p, c_int64, c_char_p = ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [("format", c_char_p), ("name", c_char_p), ("metadata", c_char_p), ("flags", c_int64),
                        ("n_children", c_int64), ("children", c_void_p), ("dictionary", c_void_p),
                        ("release", c_void_p), ("private_data", c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [("length", c_int64), ("null_count", c_int64), ("offset", c_int64), ("n_buffers", c_int64),
                       ("n_children", c_int64), ("buffers", ctypes.POINTER(c_void_p)), ("children", c_void_p),
                       ("dictionary", c_void_p), ("release", c_void_p), ("private_data", c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    pass


SCHEMA_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ARRAY_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
GET_SCHEMA = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))
GET_NEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))
GET_LAST_ERROR = ctypes.CFUNCTYPE(c_char_p, ctypes.POINTER(ArrowArrayStream))
STREAM_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
ArrowArrayStream._fields_ = [("get_schema", GET_SCHEMA), ("get_next", GET_NEXT),
                             ("get_last_error", GET_LAST_ERROR), ("release", STREAM_RELEASE),
                             ("private_data", c_void_p)]

# the destructor gets the dying capsule: a raw pointer, never a py_object
# (its reference count must not move)
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [c_void_p, c_char_p, CAPSULE_DESTRUCTOR]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = c_void_p
_capsule_pointer.argtypes = [c_void_p, c_char_p]

NAMES = {ArrowSchema: b"arrow_schema", ArrowArray: b"arrow_array", ArrowArrayStream: b"arrow_array_stream"}


def _destructor(struct_type):
    """A capsule destructor: releases the struct unless its consumer moved or released it."""
    def destroy(capsule):
        s = struct_type.from_address(_capsule_pointer(capsule, NAMES[struct_type]))
        if s.release:
            _call_release(s)
    return CAPSULE_DESTRUCTOR(destroy)


def _call_release(s):
    if isinstance(s, ArrowSchema):
        SCHEMA_RELEASE(s.release)(ctypes.pointer(s))
    elif isinstance(s, ArrowArray):
        ARRAY_RELEASE(s.release)(ctypes.pointer(s))
    else:
        s.release(ctypes.pointer(s))


class Column:
    """One Arrow array: format string, length, buffers (NumPy arrays or None)."""

    def __init__(self, fmt, length, buffers, offset=0, null_count=0):
        self.fmt, self.length, self.offset, self.null_count = fmt.encode(), length, offset, null_count
        self.buffers = [None if b is None else np.ascontiguousarray(b) for b in buffers]
        self.released = {"schema": 0, "array": 0}
        self._keep = []

    def _schema(self):
        s = ArrowSchema(format=self.fmt, name=b"keys", metadata=None, flags=2, n_children=0)

        def release(p):
            self.released["schema"] += 1
            p.contents.release = None

        cb = SCHEMA_RELEASE(release)
        self._keep.append(cb)
        s.release = ctypes.cast(cb, c_void_p)
        return s

    def _array(self):
        ptrs = (c_void_p * len(self.buffers))(*[None if b is None else b.ctypes.data for b in self.buffers])
        a = ArrowArray(length=self.length, null_count=self.null_count, offset=self.offset,
                       n_buffers=len(self.buffers), n_children=0,
                       buffers=ctypes.cast(ptrs, ctypes.POINTER(c_void_p)))

        def release(p):
            self.released["array"] += 1
            p.contents.release = None

        cb = ARRAY_RELEASE(release)
        self._keep += [cb, ptrs]
        a.release = ctypes.cast(cb, c_void_p)
        return a

    def __arrow_c_array__(self, requested_schema=None):
        s, a = self._schema(), self._array()
        self._keep += [s, a]
        ds, da = _destructor(ArrowSchema), _destructor(ArrowArray)
        self._keep += [ds, da]
        return (_new_capsule(ctypes.addressof(s), NAMES[ArrowSchema], ds),
                _new_capsule(ctypes.addressof(a), NAMES[ArrowArray], da))


class Chunked:
    """A stream of Columns of one type (a ChunkedArray's __arrow_c_stream__)."""

    def __init__(self, chunks):
        self.chunks = chunks
        self.released = {"stream": 0}
        self._keep = []

    def __arrow_c_stream__(self, requested_schema=None):
        pending = list(self.chunks)

        def get_schema(st, out):
            out[0] = self.chunks[0]._schema()
            return 0

        def get_next(st, out):
            if pending:
                out[0] = pending.pop(0)._array()
            else:
                out[0] = ArrowArray(release=None)
            return 0

        def get_last_error(st):
            return None

        def release(st):
            self.released["stream"] += 1
            st.contents.release = STREAM_RELEASE()

        cbs = [GET_SCHEMA(get_schema), GET_NEXT(get_next), GET_LAST_ERROR(get_last_error), STREAM_RELEASE(release)]
        stream = ArrowArrayStream(*cbs)
        d = _destructor(ArrowArrayStream)
        self._keep += cbs + [stream, d]
        return _new_capsule(ctypes.addressof(stream), NAMES[ArrowArrayStream], d)


# ---- column builders --------------------------------------------------------------

def validity(valid):
    """LSB-first validity bitmap of a bool sequence."""
    return np.packbits(np.asarray(valid, dtype=bool), bitorder="little")


def ints(values, fmt="L", valid=None, offset=0):
    values = np.asarray(values)
    nulls = 0 if valid is None else int(len(values) - np.count_nonzero(valid))
    return Column(fmt, len(values) - offset, [None if valid is None else validity(valid), values], offset, nulls)


def binary(keys, fmt="z", valid=None, offset=0):
    large = fmt in ("U", "Z")
    off = np.cumsum([0] + [len(k) for k in keys]).astype(np.int64 if large else np.int32)
    data = np.frombuffer(b"".join(keys) or b"\0", dtype=np.uint8)
    nulls = 0 if valid is None else int(len(keys) - np.count_nonzero(valid))
    return Column(fmt, len(keys) - offset, [None if valid is None else validity(valid), off, data], offset, nulls)


def fixed(keys, width, valid=None):
    data = np.frombuffer(b"".join(keys) or b"\0", dtype=np.uint8)
    nulls = 0 if valid is None else int(len(keys) - np.count_nonzero(valid))
    return Column(f"w:{width}", len(keys), [None if valid is None else validity(valid), data], 0, nulls)


def views(keys, valid=None, fmt="vz"):
    """binary_view: keys of <= 12 bytes inline, longer ones in two data buffers."""
    buffers = [bytearray(), bytearray()]
    view = np.zeros((len(keys), 16), dtype=np.uint8)
    for i, k in enumerate(keys):
        view[i, 0:4] = np.frombuffer(np.int32(len(k)).tobytes(), np.uint8)
        if len(k) <= 12:
            view[i, 4:4 + len(k)] = np.frombuffer(k, np.uint8) if k else []
        else:
            b = i % 2
            view[i, 4:8] = np.frombuffer(k[:4], np.uint8)
            view[i, 8:12] = np.frombuffer(np.int32(b).tobytes(), np.uint8)
            view[i, 12:16] = np.frombuffer(np.int32(len(buffers[b])).tobytes(), np.uint8)
            buffers[b] += k
    data = [np.frombuffer(bytes(b) or b"\0", np.uint8) for b in buffers]
    sizes = np.array([len(b) for b in buffers], dtype=np.int64)
    nulls = 0 if valid is None else int(len(keys) - np.count_nonzero(valid))
    return Column(fmt, len(keys), [None if valid is None else validity(valid), view] + data + [sizes], 0, nulls)

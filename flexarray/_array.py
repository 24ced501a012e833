"""The array object: a strided view over a shared, copy-on-write buffer.

An :class:`Array` is ``(_arr, _buf, _dtype)``:

* ``_arr``: a NumPy view of the array's elements (shape, signed strides, offset into the
  buffer's memory). NumPy's own view machinery does the view algebra: a basic-indexing view
  costs ~0.15 us, where building an ``np.ndarray(buffer=..., strides=...)`` costs ~1.5 us.
  ``_arr`` is read-only for views whose elements overlap (broadcasts, sliding windows) and
  for read-only imported memory: writing to those raises ValueError, as in NumPy.
* ``_buf``: the :class:`~flexarray._buffer.Buffer` every view of the same memory shares.
* ``_dtype``: the dtype (a NumPy dtype object).

Views share elements with their base both ways, exactly where NumPy's views would. Copies
(``asarray(x, copy=True)``, ``astype(x, x.dtype)``) are O(1) lazy copies that take a
private copy of the memory before the first write to either side: see :mod:`._buffer`.
"""
from __future__ import annotations

import operator
import sys

import numpy as np

from . import _dtypes as _dt
from ._buffer import (Buffer, lazy_copy, pin, pinned_buffer, read_only_message, rewrite,
                      track, tracked_write)
from ._device import CPU, check_device
from ._engines import gates

__all__ = ["Array", "Buffer", "copy_of", "wrap", "wrap_foreign", "view_of"]

SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
API_VERSION = "2025.12"

_new_object = object.__new__
_BY_NP = _dt._BY_NP
_LAZY_COPY_MIN = gates.LAZY_COPY_MIN_BYTES  # measured: flexarray/_engines/gates.py


def _new(arr: np.ndarray, buf: Buffer, dtype) -> "Array":
    """An Array of NumPy view ``arr`` in the family of ``buf``."""
    self = _new_object(Array)
    self._arr = arr
    self._buf = buf
    self._dtype = dtype
    if buf.views is not None:  # a tracked family (lazy copies): its memory may move
        track(self, buf)
    return self


def wrap(nd) -> "Array":
    """An Array owning ``nd``, a NumPy array nobody else holds (zero-copy): every fresh
    result (``_new`` for a new, untracked Buffer, inlined: this runs once per call)."""
    if type(nd) is not np.ndarray:
        nd = np.asarray(nd)
    x = _new_object(Array)
    x._arr = nd
    x._buf = Buffer()
    try:
        x._dtype = _BY_NP[nd.dtype]
    except KeyError:
        x._dtype = _dt.from_np(nd.dtype)  # (its TypeError names the dtypes flexarray has)
    return x


def wrap_foreign(nd: np.ndarray) -> "Array":
    """An Array sharing memory it does not own (an import, as NumPy's ``asarray`` shares):
    writes go to that memory (raise if it is read-only); copies of it are real copies."""
    return _new(nd, pinned_buffer(), _dt.from_np(nd.dtype))


def copy_of(x: "Array", nd: np.ndarray | None = None) -> "Array":
    """A copy of ``x`` (of ``nd``, a NumPy view of x's memory, if given) laid out as
    NumPy's ``np.array(x, copy=True)`` (order "K": C- and F-contiguous layouts kept, others
    compacted): O(1), a lazy copy of the memory (:func:`._buffer.lazy_copy`) for contiguous
    ``x``; a real copy now for other layouts (a lazy copy would keep their strides, and
    reshapes of the copy would then copy where NumPy's give views), for read-only views
    (broadcasts, windows: the copy must be a writable array), for small arrays
    (``gates.LAZY_COPY_MIN_BYTES``: copying costs less than the bookkeeping), and where
    ``lazy_copy`` declines (pinned memory, a write in progress, views it cannot know)."""
    a = x._arr if nd is None else nd
    if a.flags.writeable and a.nbytes >= _LAZY_COPY_MIN and (  # (read-only: overlapping)
            a.flags.c_contiguous or a.flags.f_contiguous):
        c = lazy_copy(x, nd)
        if c is not None:
            return c
    # order "K", as np.asarray(x, copy=True) and x.astype(x.dtype): a broadcast's copy then
    # has an F-like layout (the zero-stride axis innermost), and its flat reshape is a
    # copy, exactly where NumPy's is
    return wrap(np.array(a, copy=True))


def view_of(x: "Array", nd: np.ndarray, *, overlapping: bool = False) -> "Array":
    """An Array viewing ``nd``, a NumPy view of ``x``'s memory, in ``x``'s family: writes
    through either are seen by both.

    Pass ``overlapping=True`` for views whose elements alias each other (broadcasts,
    sliding windows): they are made read-only, so a write raises ValueError.
    """
    if overlapping:
        nd = nd.view()
        nd.flags.writeable = False
    return _new(nd, x._buf, x._dtype)


def _index_item(k):
    """One index of a key as NumPy takes it; returns (item, is_advanced)."""
    t = type(k)
    if t is int or t is slice or k is None or k is Ellipsis:
        return k, False
    if t is Array:
        d = k._dtype
        if _dt.KIND[d] == "b":
            return k._arr, True
        if _dt.KIND[d] in "iu":
            if k._arr.ndim == 0:
                return int(k._arr), False
            return k._arr, True
        raise IndexError(f"arrays used as indices must be of integer or boolean dtype, "
                         f"got {d}")
    if t is bool or isinstance(k, np.bool_):
        return k, True
    if isinstance(k, Array):  # a deferred result (flexarray._deferred): computed, a plain Array
        k._arr
        return _index_item(k)
    if isinstance(k, np.ndarray):
        if k.dtype.kind in "biu":
            return k, True
        raise IndexError(f"arrays used as indices must be of integer or boolean dtype, "
                         f"got {k.dtype}")
    if isinstance(k, (list, tuple)):  # (a tuple inside a key is a sequence, as NumPy's)
        return _index_item(np.asarray(k) if k else np.zeros(0, np.intp))
    try:
        return operator.index(k), False
    except TypeError:
        raise IndexError(f"only integers, slices (':'), ellipsis ('...'), None and integer "
                         f"or boolean arrays are valid indices, got {type(k).__name__}") from None


def _is_basic(key: tuple) -> bool:
    """Whether a tuple key holds only ints and slices (NumPy's basic indexing as is)."""
    for k in key:
        t = type(k)
        if t is not int and t is not slice:
            return False
    return True


def _normalize_key(key):
    """(NumPy key, True if the result is a view of the array)."""
    if type(key) is not tuple:
        key = (key,)
    items, advanced = [], False
    for k in key:
        item, adv = _index_item(k)
        items.append(item)
        advanced |= adv
    return tuple(items), not advanced


#: the dtype kinds each Python scalar type may be stored into
_SCALAR_KIND = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


#: (value dtype, array dtype) pairs whose values __setitem__ has found storable
_STORABLE = set()


def _setitem_value(value, dtype):
    """``value`` as a NumPy operand for ``x[...] = value`` into an array of ``dtype``: a
    flexarray array or a NumPy array of a dtype of the same kind, or a Python scalar (a
    NumPy scalar as the Python scalar it holds, as the operators take it)."""
    if isinstance(value, Array) or type(value) is np.ndarray:
        src = value._dtype if isinstance(value, Array) else _numpy_dtype(value)
        if not np.can_cast(src, dtype, "same_kind") or (
                _dt.KIND[src] == "c" and _dt.KIND[dtype] != "c"):
            raise TypeError(f"__setitem__: cannot store {src} values in an array of "
                            f"{dtype} (it would change their kind); cast with astype()")
        _STORABLE.add((src, dtype))
        return value._arr if isinstance(value, Array) else value
    if isinstance(value, np.generic) and not isinstance(value, (np.str_, np.bytes_)):
        value = value.item()
    kind = _SCALAR_KIND.get(type(value))
    if kind is None and isinstance(value, (int, float, complex)):  # subclasses, NumPy scalars
        kind = next(k for t, k in _SCALAR_KIND.items() if isinstance(value, t))
    if kind is not None:
        if _dt.KIND[dtype] not in kind:
            raise TypeError(f"__setitem__: cannot store a Python {type(value).__name__} in an "
                            f"array of {dtype}")
        if kind == "iufc" and _dt.KIND[dtype] in "iu":
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise OverflowError(f"__setitem__: {value} is out of range for {dtype} "
                                    f"[{info.min}, {info.max}]")
        return value
    raise TypeError(f"__setitem__: 'value' must be a flexarray array, a NumPy array or a "
                    f"Python or NumPy scalar, got {type(value).__name__}")


def _numpy_dtype(nd):
    """The flexarray dtype of NumPy array ``nd`` (TypeError naming it otherwise)."""
    try:
        return _dt.from_np(nd.dtype)
    except TypeError:
        raise TypeError(f"__setitem__: 'value' is a NumPy array of dtype {nd.dtype}, which "
                        f"flexarray does not have") from None


class Array:
    """An n-dimensional array: a strided view of memory its views share (see module docs).

    Create arrays with the namespace functions (``flexarray.asarray``, ``zeros``, ...).
    """

    __slots__ = ("_arr", "_buf", "_dtype", "__weakref__")
    # operators and NumPy's protocols and methods are installed by flexarray._protocols

    def __init__(self, *args, **kwargs):
        raise TypeError("flexarray.Array cannot be constructed directly; use "
                        "flexarray.asarray(), zeros(), arange(), ...")

    # --- attributes ------------------------------------------------------------------------

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return CPU

    @property
    def ndim(self) -> int:
        return self._arr.ndim

    @property
    def shape(self) -> tuple:
        return self._arr.shape

    @property
    def size(self) -> int:
        return self._arr.size

    @property
    def T(self) -> "Array":
        if self._arr.ndim != 2:
            raise ValueError(f"x.T is defined for 2-D arrays only, got {self._arr.ndim}-D; "
                             f"use permute_dims() or x.mT")
        return _new(self._arr.T, self._buf, self._dtype)

    @property
    def mT(self) -> "Array":
        if self._arr.ndim < 2:
            raise ValueError(f"x.mT needs at least 2 dimensions, got {self._arr.ndim}")
        return _new(self._arr.swapaxes(-1, -2), self._buf, self._dtype)

    # --- writes ----------------------------------------------------------------------------

    def _unique_refs_probe(self):
        return sys.getrefcount(self._buf)

    def _write(self, fn, *args):
        """``fn(target, *args)``, a write through this array: ``target`` its NumPy view,
        the family's memory made its own first (where a lazy copy shares it, the family
        moves to fresh memory: :mod:`._buffer`), the write registered until ``fn``
        returns (a lazy copy taken meanwhile is made at once)."""
        buf = self._buf  # (held until the write ends: an untracked family's registration)
        if buf.views is None:
            a = self._arr
            if not a.flags.writeable:
                raise ValueError(read_only_message(self))
            return fn(a, *args)
        return tracked_write(self, fn, *args)

    def _rewritten(self, write) -> bool:
        """Give every element a new value computed from the old ones, ``write(out)``
        filling ``out`` while reading ``self._arr``: into fresh memory in one pass where a
        write would first move the family (:func:`._buffer.rewrite`). False: nothing was
        written; write with :meth:`_write` as usual."""
        return rewrite(self, write)

    # --- indexing --------------------------------------------------------------------------

    def __getitem__(self, key):
        a = self._arr
        t = type(key)
        if t is slice:  # a view, always (~0.03 us less than the checks below)
            return _new(a[key], self._buf, self._dtype)
        if t is int or (t is tuple and _is_basic(key)):
            r = a[key]  # basic indexing, NumPy's own (~0.4 us less than the general path)
        elif t is Array and (key._dtype is _dt.bool or _dt.KIND[key._dtype] in "iu" and
                             key._arr.ndim):
            return wrap(a[key._arr])  # a mask or an index array: a copy, as NumPy's
        else:
            k, is_view = _normalize_key(key)
            r = a[k]
            if not is_view:
                return wrap(r)
        if type(r) is np.ndarray:
            return _new(r, self._buf, self._dtype)
        # an integer for every axis: a 0-d copy, as NumPy gives a scalar (x[0] += 1 on it
        # never changes x); x[0, ...] is a 0-d view. (Built here: a fresh Buffer is an
        # owner, which _new would test for.)
        out = _new_object(Array)
        out._arr = np.asarray(r)
        out._buf = Buffer()
        out._dtype = self._dtype
        return out

    def __setitem__(self, key, value):
        t = type(key)
        k = key if t is int or t is slice or (t is tuple and _is_basic(key)) else \
            _normalize_key(key)[0]
        if type(value) is Array and (value._dtype is self._dtype or
                                     (value._dtype, self._dtype) in _STORABLE):
            v = value._arr  # (the common case: ~0.3 us less than the checks below)
        else:
            v = _setitem_value(value, self._dtype)
        buf = self._buf  # (held until the write ends: see _write)
        if buf.views is None:
            a = self._arr
            if not a.flags.writeable:
                raise ValueError(read_only_message(self))
            a[k] = v
        else:
            tracked_write(self, operator.setitem, k, v)

    def __iter__(self):
        if self._arr.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._arr.shape[0]))

    def __len__(self) -> int:
        if self._arr.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self._arr.shape[0]

    # --- conversion to Python scalars ------------------------------------------------------

    def _scalar(self, what):
        a = self._arr
        if a.ndim != 0:
            if a.size != 1:  # one element of any shape converts, as in NumPy and torch
                raise TypeError(f"{what}() needs a 0-d array or a single element, got "
                                f"shape {self.shape}")
            return a.reshape(-1)[0]
        return a[()]

    def __bool__(self):
        a = self._arr
        if a.ndim == 0 and self._dtype in _NATIVE_SCALARS:
            return bool(a)  # the common case: NumPy's own conversion (~0.1 us less)
        return bool(self._scalar("bool"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __float__(self):
        a = self._arr
        if a.ndim == 0 and self._dtype in _NATIVE_REAL:
            return float(a)  # the common case: NumPy's own conversion (~0.1 us less)
        if _dt.KIND[self._dtype] == "c":
            raise TypeError("float() of a complex array; take real() or abs() first")
        return float(self._scalar("float"))

    def __int__(self):
        if _dt.KIND[self._dtype] == "c":
            raise TypeError("int() of a complex array; take real() or abs() first")
        v = self._scalar("int")
        return int(v) if _dt.KIND[self._dtype] != "f" else int(float(v))

    def __round__(self, ndigits=None):
        """``round(x[, ndigits])`` of a 0-d array (or single element), as of the NumPy
        scalar NumPy's reductions return: an int without ``ndigits``, else a NumPy
        scalar of x's dtype. For arrays, ``round(x, decimals=...)`` of the namespace."""
        if self._arr.size != 1:
            raise TypeError(f"round() needs a 0-d array or a single element, got shape "
                            f"{self.shape}; use flexarray.round(x, decimals=...)")
        return round(self._scalar("round"), ndigits)

    def __index__(self):
        if _dt.KIND[self._dtype] not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, got {self._dtype}")
        if self._arr.ndim != 0:  # NumPy: only 0-d (scalar) arrays are indices
            raise TypeError(f"__index__() needs a 0-d array, got shape {self.shape}")
        return int(self._scalar("__index__"))

    # --- protocols -------------------------------------------------------------------------

    def __array_namespace__(self, *, api_version=None):
        if api_version is not None and api_version not in SUPPORTED_API_VERSIONS:
            raise ValueError(f"api_version={api_version!r} is not supported; flexarray "
                             f"implements {', '.join(SUPPORTED_API_VERSIONS)}")
        return sys.modules[__package__]  # the namespace (no import: flexarray sits above)

    def to_device(self, device, /, *, stream=None):
        check_device(device, "to_device")
        if stream is not None:
            raise ValueError(f"to_device: the CPU device has no streams, got stream={stream!r}")
        return self

    def _export(self) -> np.ndarray:
        """A NumPy view sharing this array's elements, for code outside flexarray (as
        torch's ``.numpy()``): the memory is made this family's alone first, then pinned,
        so a later copy of it is a real copy; writable unless the array is read-only."""
        if not self._buf.pinned:
            pin(self)
        return self._arr.view()

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self._arr, dtype=dtype, copy=True)
        if dtype is not None and np.dtype(dtype) != self._arr.dtype:
            if copy is False:
                raise ValueError(f"__array__: casting {self._dtype} to {dtype} needs a copy, "
                                 f"but copy=False")
            return self._arr.astype(dtype)
        return self._export()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if stream is not None and stream != -1:
            raise ValueError(f"__dlpack__: the CPU device has no streams, got stream={stream!r}")
        if dl_device is not None and tuple(dl_device) != (1, 0):
            raise BufferError(f"__dlpack__: cannot export to device {dl_device}; flexarray "
                              f"arrays live on the CPU, (1, 0)")
        src = np.array(self._arr, copy=True) if copy else self._export()
        if self._dtype is _dt.bfloat16:  # (NumPy's exporter refuses ml_dtypes' dtypes)
            return _dt.bfloat16_dlpack(src, max_version=max_version, copy=copy)
        return src.__dlpack__(max_version=max_version, copy=copy)

    def __dlpack_device__(self):
        return (1, 0)  # (kDLCPU, device id 0)

    def __reduce__(self):
        return (wrap, (np.array(self._arr),))

    def __copy__(self):
        """``copy.copy``: a copy as NumPy's (order "K"), O(1) until written (:func:`copy_of`;
        through pickling's protocol a transposed 8 MB array took 2.1 ms, NumPy 0.17 ms)."""
        return copy_of(self)

    def __deepcopy__(self, memo):
        """``copy.deepcopy``: as :meth:`__copy__` (the elements are numbers)."""
        return copy_of(self)

    def __repr__(self):
        body = np.array2string(self._arr, separator=", ", prefix="Array(",
                               threshold=1000)
        return f"Array({body}, dtype={self._dtype.name})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """A 0-d array formats as its Python scalar (``f"{x:.3f}"``); others take no spec."""
        if self._arr.ndim == 0:
            return format(self._arr[()].item(), spec)
        if spec:
            raise TypeError(f"unsupported format spec {spec!r} for a {self._arr.ndim}-D "
                            f"array; only 0-d arrays take one (format x[i] instead)")
        return str(self)


#: dtypes whose 0-d NumPy arrays convert to Python scalars exactly as flexarray does
_NATIVE_REAL = frozenset(d for d in _dt.ALL if _dt.KIND[d] in "biuf" and d not in _dt.HALF)
_NATIVE_SCALARS = _NATIVE_REAL | frozenset(d for d in _dt.ALL if _dt.KIND[d] == "c")


def _refs_of_unique_buffer() -> int:
    """``sys.getrefcount`` of a buffer held by exactly one array, measured in place."""
    a = _new_object(Array)
    a._buf = Buffer()
    return a._unique_refs_probe()


_UNIQUE_REFS = _refs_of_unique_buffer()


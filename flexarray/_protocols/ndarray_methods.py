"""NumPy's ndarray methods and properties on :class:`Array`.

Code written for NumPy calls ndarray methods on whatever ``np.*`` returned, and with NEP 18
``np.where(x, 1, 0)`` returns a flexarray array: SciPy's ndimage does
``np.where(input, 1, 0).astype(np.int8)``. Duck arrays (CuPy, Dask) therefore carry
NumPy's methods; so does flexarray. Each calls the NumPy function of the same name, which
NEP 18 routes to flexarray's implementation where the arguments fit it and to NumPy's on
the shared memory otherwise: NumPy's meaning either way, flexarray arrays out.
"""
from __future__ import annotations

import numpy as np

from .. import _dtypes as _dt
from .._array import Array, _new, copy_of, wrap

__all__ = ["install"]

NDARRAY_METHODS = (
    "all", "any", "argmax", "argmin", "argsort", "clip", "conj", "conjugate",
    "cumprod", "cumsum", "diagonal", "dot", "max", "mean", "min", "nonzero", "prod", "ravel",
    "repeat", "round", "searchsorted", "squeeze", "std", "sum", "swapaxes", "take", "trace",
    "var",
)


def _ndarray_method(func):
    def method(self, *args, **kwargs):
        return func(self, *args, **kwargs)
    method.__name__ = func.__name__
    method.__doc__ = f"NumPy's ``ndarray.{func.__name__}``: ``np.{func.__name__}(x, ...)``."
    return method


def _shape_args(args):
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` alike, as NumPy's methods take them."""
    return args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _reshape_method(self, *shape, order="C", copy=None):
    """NumPy's ``ndarray.reshape``: ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    return np.reshape(self, _shape_args(shape), order=order, copy=copy)


def _transpose_method(self, *axes):
    """NumPy's ``ndarray.transpose``: reversed axes, or the given order (a view)."""
    axes = _shape_args(axes)
    return np.transpose(self, axes if axes else None)


def _astype_method(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """NumPy's ``ndarray.astype`` with NumPy's casting rules (complex to real drops the
    imaginary part with NumPy's ComplexWarning; the standard's ``astype(x, dtype)``, the
    namespace function, refuses). An unchanged dtype gives an O(1) lazy copy (``self`` with
    ``copy=False``); a dtype flexarray lacks raises TypeError."""
    dt = _dt.normalize(dtype, "Array.astype", allow_none=False)
    if dt is self._dtype and order in ("K", "A"):
        return copy_of(self) if copy else self
    return wrap(self._arr.astype(dt, order=order, casting=casting, copy=True))


def _view_method(self, dtype=None, type=None):
    """NumPy's ``ndarray.view``: a view of the same elements (in x's family: writes through
    either are seen by both), reinterpreted as ``dtype`` if one is given. For a dtype
    flexarray does not have (zarr's ``'V8'``), a NumPy view of the memory, exported as
    ``__array__`` exports."""
    if type is not None:
        raise TypeError("view: flexarray arrays cannot be viewed as another array type; "
                        "use np.asarray(x) for a NumPy array sharing x's memory")
    if dtype is None:
        return _new(self._arr.view(), self._buf, self._dtype)
    try:
        dt = _dt.normalize(dtype, "Array.view")
    except TypeError:
        return self._export().view(dtype)
    return _new(self._arr.view(dt), self._buf, dt)


def _sort_method(self, axis=-1, kind=None, order=None):
    """NumPy's ``ndarray.sort``: sorts ``x`` in place (through its views' shared memory);
    float16 by NumPy's stable sort (its default one is wrong on some CPUs:
    ``_sorting._kind``)."""
    if self._arr.dtype == np.float16 and kind in (None, "quicksort", "heapsort"):
        kind = "stable"
    self._write(np.ndarray.sort, axis, kind, order)


def _fill_method(self, value):
    """NumPy's ``ndarray.fill``: every element set to ``value``, in place."""
    self[...] = value


def _copy_method(self, order="C"):
    """NumPy's ``ndarray.copy``: C-contiguous by default as NumPy's; O(1) (a lazy copy)
    when the layout already is what ``order`` asks."""
    a = self._arr
    if (order == "C" and not a.flags.c_contiguous) or (order == "F" and not a.flags.f_contiguous):
        return wrap(a.copy(order=order))
    return copy_of(self)


def _flatten_method(self, order="C"):
    """NumPy's ``ndarray.flatten``: a 1-D copy."""
    return wrap(self._arr.flatten(order=order))


NDARRAY_SPECIAL = {
    "reshape": _reshape_method, "transpose": _transpose_method, "astype": _astype_method,
    "view": _view_method, "sort": _sort_method, "fill": _fill_method, "copy": _copy_method,
    "flatten": _flatten_method,
    "compress": lambda self, condition, axis=None, out=None: np.compress(condition, self,
                                                                          axis, out),
    "item": lambda self, *args: self._arr.item(*args),
    "tolist": lambda self: self._arr.tolist(),
}

NDARRAY_PROPERTIES = {
    "nbytes": lambda self: self._arr.nbytes,
    "itemsize": lambda self: self._arr.itemsize,
    "strides": lambda self: self._arr.strides,
    "real": lambda self: np.real(self),
    "imag": lambda self: np.imag(self),
}


def install() -> None:
    """Bind NumPy's ndarray methods and properties to :class:`Array`."""
    for name in NDARRAY_METHODS:
        setattr(Array, name, _ndarray_method(getattr(np, name)))
    for name, method in NDARRAY_SPECIAL.items():
        setattr(Array, name, method)
    for name, getter in NDARRAY_PROPERTIES.items():
        setattr(Array, name, property(getter))

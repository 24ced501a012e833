"""The standard's chapter "data type functions" (astype, can_cast, finfo, iinfo, isdtype,
result_type). The dtypes themselves, their promotion lattice and categories are
``_dtypes.py``."""
import builtins

import numpy as np

from . import _dtypes as _dt
from ._array import Array, copy_of, wrap
from ._device import check_device
from ._fp import fp_quiet
from ._helpers import numpy_as_array

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

isdtype = _dt.isdtype


def result_type(*arrays_and_dtypes):
    # the common calls first (~0.5-1.5 us less than the general path)
    if len(arrays_and_dtypes) == 2:
        a, b = arrays_and_dtypes
        if type(a) is Array:
            if type(b) is Array:  # two arrays
                return _dt.promote(a._dtype, b._dtype, "result_type")
            if type(b) is float and _dt.is_floating(a._dtype):  # a float array and a float
                return a._dtype
    elif len(arrays_and_dtypes) == 1:
        a = arrays_and_dtypes[0]
        if type(a) is Array:
            return a._dtype
        if isinstance(a, np.dtype) and (d := _dt._BY_NP.get(a)) is not None:
            return d  # one of flexarray's dtypes (NumPy's dtype objects)
    if any(_date_or_time(a) for a in arrays_and_dtypes):  # NumPy's: see asarray
        return np.result_type(*(a._arr if type(a) is Array else a for a in arrays_and_dtypes))
    return _dt.result_type(*arrays_and_dtypes)


def _date_or_time(a) -> bool:
    """Whether ``a`` is a NumPy datetime64/timedelta64 array, scalar or dtype."""
    d = a if isinstance(a, np.dtype) else getattr(a, "dtype", None)
    return isinstance(d, np.dtype) and d.kind in "mM" and not isinstance(a, Array)


result_type.__doc__ = (_dt.result_type.__doc__ or "") + """
    NumPy datetime64/timedelta64 arrays, scalars and dtypes among the arguments: NumPy's
    ``result_type`` (flexarray has no date or time dtypes; see ``asarray``)."""


def _dtype_of(x, func, name):
    if isinstance(x, Array):
        return x._dtype
    return _dt.normalize(x, func, name, allow_none=False, what="a dtype or a flexarray array")


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` cast to ``dtype``. Complex to real raises (take real() or imag() first).

    ``dtype`` may be any spelling ``np.dtype()`` takes for a supported dtype. With an
    unchanged dtype, ``copy=True`` gives an O(1) lazy copy and ``copy=False`` x itself.
    A NumPy datetime64/timedelta64 array or scalar gets NumPy's ``astype`` to a date or
    time dtype (flexarray has none; see ``asarray``).
    """
    if type(x) is not Array:  # (the checks below cost ~0.4 us: not on the common path)
        x = numpy_as_array(x)
        if _date_or_time(x) and _date_or_time(np.dtype(dtype)) and device is None:
            return np.asarray(x).astype(dtype, copy=copy)  # (xarray's where along time axes)
        if not isinstance(x, Array):
            raise TypeError(f"astype: 'x' must be a flexarray array, got {type(x).__name__}")
    dtype = _dt.normalize(dtype, "astype", allow_none=False)
    check_device(device, "astype")
    if not isinstance(copy, builtins.bool):
        raise TypeError(f"astype: 'copy' must be a bool, got {copy!r}")
    if dtype is x._dtype:
        return copy_of(x) if copy else x
    _dt.check_complex_cast(x._dtype, dtype, "astype")
    with fp_quiet():
        return wrap(x._arr.astype(dtype))


def can_cast(from_, to, /):
    """Whether ``from_`` (a dtype or array) casts to ``to`` by the promotion rules."""
    f = _dtype_of(from_, "can_cast", "from_")
    to = _dt.normalize(to, "can_cast", "to", allow_none=False)
    return _dt.can_cast(f, to)


#: the finfo/iinfo objects, made once per dtype (as NumPy caches its own)
_FINFO, _IINFO = {}, {}


def finfo(type, /):
    """Limits of a floating-point dtype (or an array of one)."""
    d = _dtype_of(type, "finfo", "type")
    _dt.check_dtype("finfo", "type", d, "floating-point", "use iinfo() for integers")
    info = _FINFO.get(d)
    if info is None:
        info = _FINFO[d] = _dt.finfo_object(d)
    return info


def iinfo(type, /):
    """Limits of an integer dtype (or an array of one)."""
    d = _dtype_of(type, "iinfo", "type")
    _dt.check_dtype("iinfo", "type", d, "integral", "use finfo() for floats")
    info = _IINFO.get(d)
    if info is None:
        info = _IINFO[d] = _dt.iinfo_object(d)
    return info

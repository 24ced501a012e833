"""Data type functions (the standard's 6)."""
import builtins

import numpy as np

from . import _dtypes as _dt
from ._array import Array, copy_of, wrap
from ._device import check_device

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

isdtype = _dt.isdtype
result_type = _dt.result_type


def _dtype_of(x, func, name):
    if isinstance(x, _dt.DType):
        return x
    if isinstance(x, Array):
        return x._dtype
    raise TypeError(f"{func}: '{name}' must be a flexarray dtype or array, got {x!r}")


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` cast to ``dtype``. Complex to real raises (take real() or imag() first).

    With ``copy=True`` and an unchanged dtype the result shares x's buffer (O(1)); writes
    to either copy first, so it behaves as a copy.
    """
    if not isinstance(x, Array):
        raise TypeError(f"astype: 'x' must be a flexarray array, got {type(x).__name__}")
    if not isinstance(dtype, _dt.DType):
        raise TypeError(f"astype: 'dtype' must be a flexarray dtype, got {dtype!r}")
    check_device(device, "astype")
    if not isinstance(copy, builtins.bool):
        raise TypeError(f"astype: 'copy' must be a bool, got {copy!r}")
    if dtype is x._dtype:
        return copy_of(x) if copy else x
    if x._dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(f"astype: casting complex {x._dtype} to {dtype} would drop the "
                        f"imaginary part; cast real(x) or imag(x) instead")
    with np.errstate(all="ignore"):
        return wrap(x._arr.astype(dtype.np))


def can_cast(from_, to, /):
    """Whether ``from_`` (a dtype or array) casts to ``to`` by the promotion rules."""
    f = _dtype_of(from_, "can_cast", "from_")
    if not isinstance(to, _dt.DType):
        raise TypeError(f"can_cast: 'to' must be a flexarray dtype, got {to!r}")
    return _dt.can_cast(f, to)


def finfo(type, /):
    """Limits of a floating-point dtype (or an array of one)."""
    d = _dtype_of(type, "finfo", "type")
    if d.kind not in "fc":
        raise TypeError(f"finfo: needs a floating-point dtype, got {d}; use iinfo() for ints")
    return _dt.finfo_object(d)


def iinfo(type, /):
    """Limits of an integer dtype (or an array of one)."""
    d = _dtype_of(type, "iinfo", "type")
    if d.kind not in "iu":
        raise TypeError(f"iinfo: needs an integer dtype, got {d}; use finfo() for floats")
    return _dt.iinfo_object(d)

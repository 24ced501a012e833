"""Argument checks shared by the frontend modules."""
import operator
import sys

import numpy as np

from ._array import Array


class AxisError(ValueError, IndexError):
    """An axis out of range for the array's rank (a ValueError and an IndexError, as NumPy)."""


def check_array(x, func: str, name: str = "x") -> Array:
    """``x`` itself if it is a flexarray Array; TypeError naming the argument otherwise."""
    if not isinstance(x, Array):
        raise TypeError(f"{func}: '{name}' must be a flexarray array, got {type(x).__name__}; "
                        f"convert it with flexarray.asarray()")
    return x


def normalize_axis(axis, ndim: int, func: str = "", name: str = "axis") -> int:
    """``axis`` as a non-negative int below ``ndim``; AxisError (an IndexError) otherwise."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{func}: '{name}' must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{func}: {name}={axis} is out of range for an array of {ndim} "
                        f"dimension(s); allowed: {-ndim} <= {name} < {ndim}")
    return a % ndim if ndim else a


def normalize_axes(axis, ndim: int, func: str = "", name: str = "axis") -> tuple:
    """``None`` (all axes), an int or a tuple of ints as a sorted tuple of distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        axes = tuple(normalize_axis(a, ndim, func, name) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{func}: '{name}' has repeated axes: {axis}")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, func, name),)


def as_int(v, func: str, name: str) -> int:
    """``v`` as a Python int (bools refused); TypeError naming the argument otherwise."""
    if type(v) is int:
        return v
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{func}: '{name}' must be an int, got a bool ({v!r})")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{func}: '{name}' must be an int, got {type(v).__name__}") from None


def int_tuple(v, func: str, name: str) -> tuple:
    """An int or a tuple/list of ints as a tuple of Python ints."""
    if isinstance(v, (tuple, list)):
        if type(v) is tuple and all(type(e) is int for e in v):
            return v
        return tuple([as_int(e, func, name) for e in v])
    return (as_int(v, func, name),)


def as_count(v, func: str, name: str, minimum: int = 0) -> int:
    """A count or size argument (``n``, ``num``, ``repeats``, ...): an int >= ``minimum``
    that an array dimension can hold (at most ``sys.maxsize``); ValueError otherwise."""
    n = as_int(v, func, name)
    if n < minimum:
        raise ValueError(f"{func}: '{name}' must be >= {minimum}, got {n}")
    if n > sys.maxsize:
        raise ValueError(f"{func}: '{name}'={n} is too large; an array dimension is at most "
                         f"{sys.maxsize}")
    return n


def check_bool(v, func: str, name: str) -> bool:
    """``v`` (a Python or NumPy bool) as a bool; TypeError naming the argument otherwise."""
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{func}: '{name}' must be a bool, got {type(v).__name__} ({v!r})")
    return bool(v)


def check_copy(copy, func: str) -> None:
    """The standard's ``copy`` argument: True, False or None; ValueError otherwise."""
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise ValueError(f"{func}: 'copy' must be True, False or None, got {copy!r}")


def check_choice(value, choices, func: str, name: str):
    """``value`` if it is one of the strings ``choices``; ValueError naming them otherwise
    (tested by type first: ``ndarray in (...)`` would raise NumPy's ambiguous-truth error)."""
    if type(value) is not str or value not in choices:
        allowed = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
        raise ValueError(f"{func}: '{name}' must be {allowed}, got {value!r}")
    return value


def check_alloc(shape, itemsize: int, func: str, what: str = "the result") -> None:
    """MemoryError naming the call when an array of ``shape`` cannot exist: more bytes than
    the address space holds (NumPy would raise a ValueError without the context)."""
    n = itemsize
    for s in shape:
        n *= max(s, 1)  # (NumPy refuses a huge dimension even beside a zero one)
    if n > sys.maxsize:
        raise MemoryError(f"{func}: {what} of shape {tuple(shape)} is beyond what NumPy "
                          f"can allocate (more than {sys.maxsize} bytes)")

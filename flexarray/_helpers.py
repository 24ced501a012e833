"""Argument checks shared by the frontend modules."""
import operator

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

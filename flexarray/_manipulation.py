"""Manipulation functions (the standard's 15).

View functions are O(1) and allocate no element memory: they return arrays that share the
input's elements, as NumPy's views do (a write through one is seen by all):
``broadcast_to``, ``broadcast_arrays``,
``expand_dims``, ``flip``, ``moveaxis``, ``permute_dims``, ``squeeze``, ``unstack`` and
``reshape`` whenever the strides allow it. ``concat``, ``stack``, ``repeat``, ``roll`` and
``tile`` compute a fresh array with NumPy; a ``reshape`` that must copy runs on the copy
engine (``flexarray._engines.copy``).
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtypes as _dt
from ._array import Array, copy_of, view_of, wrap
from ._deferred import relayout
from ._engines import copy as _copy
from ._engines import gates
from ._helpers import (as_count, broadcast_shape_of, check_alloc, check_array, check_copy,
                       int_tuple, moved, normalize_axes, normalize_axis, numpy_as_array)

__all__ = ["broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims",
           "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze",
           "stack", "tile", "unstack"]


# --- argument helpers (shared with the other chapter modules of this package) --------------



def shape_tuple(shape, func: str, name: str = "shape") -> tuple:
    """``shape`` (a tuple of non-negative ints; an int is accepted as a 1-tuple)."""
    if not isinstance(shape, (tuple, list)):
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, builtins.bool):
            shape = (shape,)
        else:
            raise TypeError(f"{func}: '{name}' must be a tuple of ints, got "
                            f"{type(shape).__name__}")
    out = int_tuple(shape, func, name)
    if any(n < 0 for n in out):
        raise ValueError(f"{func}: '{name}' entries must be >= 0, got {out}")
    return out


def ordered_axes(axis, ndim: int, func: str, name: str = "axis") -> tuple:
    """An int or a tuple of ints as a tuple of distinct axes in ``[0, ndim)``, order kept."""
    axes = tuple(normalize_axis(a, ndim, func, name) for a in int_tuple(axis, func, name))
    if len(set(axes)) != len(axes):
        raise ValueError(f"{func}: '{name}' has repeated axes: {axis}")
    return axes






def owned(nd: np.ndarray, *sources: np.ndarray) -> np.ndarray:
    """``nd`` if it shares no memory with ``sources`` (so ``wrap`` may own it), else a copy."""
    for s in sources:
        if np.may_share_memory(nd, s):
            return nd.copy()
    return nd


def arrays_arg(arrays, func: str) -> list:
    """The ``arrays`` argument of concat/stack: a non-empty tuple or list of arrays."""
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{func}: 'arrays' must be a tuple or list of flexarray arrays, got "
                        f"{type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{func}: 'arrays' must hold at least one array, got none")
    arrays = [numpy_as_array(a) for a in arrays]
    for i, a in enumerate(arrays):
        if not isinstance(a, Array):
            raise TypeError(f"{func}: arrays[{i}] must be a flexarray array, got "
                            f"{type(a).__name__}")
    return list(arrays)


def _cast_all(arrays, func):
    """NumPy operands of ``arrays`` in their promoted dtype, and that dtype."""
    dt = arrays[0]._dtype
    if any(a._dtype is not dt for a in arrays):
        dt = _dt.result_type(*arrays, func=func)
    return [a._arr if a._dtype is dt else a._arr.astype(dt) for a in arrays], dt


# --- broadcasting ---------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The shape that arrays of ``shapes`` broadcast to (``()`` when given none).

    ValueError when the shapes are not broadcast compatible.
    """
    shapes = [shape_tuple(s, "broadcast_shapes", f"shapes[{i}]") for i, s in enumerate(shapes)]
    return broadcast_shape_of(shapes, "broadcast_shapes")


def broadcast_to(x, /, shape):
    """``x`` broadcast to ``shape``: an O(1) read-only view (stride 0 on repeated axes).

    The result repeats elements of ``x``: writing to it raises ValueError (as NumPy's
    ``broadcast_to``); a write to ``x`` is seen through it.
    """
    check_array(x, "broadcast_to")
    shape = shape_tuple(shape, "broadcast_to")
    if len(shape) < x.ndim or any(n not in (1, t) for n, t in
                                  zip(x.shape[::-1], shape[::-1])):
        raise ValueError(f"broadcast_to: cannot broadcast an array of shape {x.shape} to "
                         f"{shape}; each axis of x must be 1 or equal the target size "
                         f"(aligned from the right)")
    check_alloc(shape, x._arr.itemsize, "broadcast_to", f"the view of 'shape'={shape}")
    return _broadcast_view(x, shape)


def _broadcast_view(x, shape):
    """The view of ``x`` broadcast to ``shape`` (checked by the caller)."""
    a = x._arr
    if shape == a.shape:
        return view_of(x, a[...])
    return view_of(x, np.broadcast_to(a, shape), overlapping=True)


def broadcast_arrays(*arrays):
    """A tuple of O(1) views of ``arrays``, all broadcast to their common shape."""
    for i, a in enumerate(arrays):
        check_array(a, "broadcast_arrays", f"arrays[{i}]")
    shape = broadcast_shape_of([a.shape for a in arrays], "broadcast_arrays",
                               "array shapes")
    check_alloc(shape, 1, "broadcast_arrays", f"the views of the broadcast shape {shape}")
    return tuple(_broadcast_view(a, shape) for a in arrays)


# --- joining --------------------------------------------------------------------------------

def concat(arrays, /, *, axis=0):
    """Join ``arrays`` along an existing ``axis`` (``None``: flatten each first).

    Mixed dtypes are promoted. Computes a fresh array.
    """
    arrays = arrays_arg(arrays, "concat")
    ops, dt = _cast_all(arrays, "concat")
    if axis is None:
        return wrap(np.concatenate([o.reshape(-1) for o in ops]))
    if type(axis) is int and ops[0].ndim:  # NumPy checks the shapes; ours say why on error
        try:
            return wrap(np.concatenate(ops, axis=axis))
        except ValueError:
            pass
    ndim = arrays[0].ndim
    for i, a in enumerate(arrays):
        if a.ndim != ndim:
            raise ValueError(f"concat: all arrays must have the same number of dimensions; "
                             f"arrays[0] has shape {arrays[0].shape}, arrays[{i}] has "
                             f"{a.shape}")
    if ndim == 0:
        raise ValueError("concat: cannot join 0-d arrays along an axis; use axis=None or "
                         "stack()")
    ax = normalize_axis(axis, ndim, "concat")
    ref = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape[:ax] + a.shape[ax + 1:] != ref[:ax] + ref[ax + 1:]:
            raise ValueError(f"concat: arrays must match in every axis but axis {axis}; "
                             f"arrays[0] has shape {ref}, arrays[{i}] has {a.shape}")
    return wrap(np.concatenate(ops, axis=ax))


def stack(arrays, /, *, axis=0):
    """Join same-shaped ``arrays`` along a new ``axis`` of the result (dtypes promoted)."""
    arrays = arrays_arg(arrays, "stack")
    ref = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != ref:
            raise ValueError(f"stack: all arrays must have the same shape; arrays[0] has "
                             f"{ref}, arrays[{i}] has {a.shape}")
    ax = normalize_axis(axis, len(ref) + 1, "stack")
    ops, dt = _cast_all(arrays, "stack")
    return wrap(np.stack(ops, axis=ax))


def unstack(x, /, *, axis=0):
    """A tuple of O(1) views: the slices of ``x`` along ``axis``."""
    check_array(x, "unstack")
    ax = normalize_axis(axis, x.ndim, "unstack")
    m = moved(x._arr, ax, 0)
    return tuple(view_of(x, m[i, ...]) for i in range(m.shape[0]))


# --- views ----------------------------------------------------------------------------------

def expand_dims(x, /, axis):
    """An O(1) view of ``x`` with a size-1 axis inserted at each position of ``axis``.

    Positions refer to the result, which has ``x.ndim + len(axis)`` dimensions. A NumPy
    array is taken as ``asarray`` takes it (cubed's groupby passes the NumPy arrays
    numpy_groupies returns).
    """
    x = numpy_as_array(x)
    check_array(x, "expand_dims")
    n_new = len(int_tuple(axis, "expand_dims", "axis"))
    axes = ordered_axes(axis, x.ndim + n_new, "expand_dims")
    key = tuple(None if i in axes else slice(None) for i in range(x.ndim + n_new))
    return view_of(x, x._arr[key])


def squeeze(x, /, axis=None):
    """An O(1) view of ``x`` without the size-1 axes named by ``axis``. ``axis`` omitted
    (beyond the standard, which requires it; NumPy's and torch's meaning, cubed's groupby
    calls it so): every size-1 axis."""
    if type(x) is Array and type(axis) is int and -x._arr.ndim <= axis < x._arr.ndim and \
            x._arr.shape[axis] == 1:  # the common call (~1.5 us less)
        return view_of(x, x._arr.squeeze(axis))
    check_array(x, "squeeze")
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    axes = ordered_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} of an array of shape {x.shape} has size "
                             f"{x.shape[a]}; only axes of size 1 can be removed")
    return view_of(x, x._arr.squeeze(axis=axes) if axes else x._arr[...])


def flip(x, /, *, axis=None):
    """An O(1) view of ``x`` reversed along ``axis`` (all axes if None): negated strides."""
    check_array(x, "flip")
    axes = normalize_axes(axis, x.ndim, "flip")
    key = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim))
    return view_of(x, x._arr[key + (Ellipsis,)])


def permute_dims(x, /, axes):
    """An O(1) view of ``x`` with its axes reordered: result axis i is x's ``axes[i]``."""
    if type(x) is Array and type(axes) in (tuple, list) and len(axes) == x._arr.ndim and all(
            type(a) is int for a in axes):  # the common call (~1 us less than the checks)
        try:
            return view_of(x, x._arr.transpose(axes))
        except ValueError:  # (NumPy's words for an axis out of range or repeated: ours below)
            pass
    check_array(x, "permute_dims")
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"permute_dims: 'axes' must be a tuple of ints, got "
                        f"{type(axes).__name__}")
    perm = tuple(normalize_axis(a, x.ndim, "permute_dims", "axes")
                 for a in int_tuple(axes, "permute_dims", "axes"))
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: 'axes' must be a permutation of the {x.ndim} axes "
                         f"of x, got {tuple(axes)}")
    return view_of(x, x._arr.transpose(perm))


def moveaxis(x, source, destination, /):
    """An O(1) view of ``x`` with axes ``source`` moved to positions ``destination``."""
    check_array(x, "moveaxis")
    nd = x._arr.ndim
    if type(source) is int and type(destination) is int and -nd <= source < nd and \
            -nd <= destination < nd:  # the common call (~2 us less than the checks below)
        return view_of(x, moved(x._arr, source, destination))
    src = ordered_axes(source, x.ndim, "moveaxis", "source")
    dst = ordered_axes(destination, x.ndim, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: 'source' and 'destination' must name as many axes, got "
                         f"{source!r} and {destination!r}")
    return view_of(x, moved(x._arr, src, dst))


def reshape(x, /, shape, *, copy=None):
    """``x`` with a new ``shape`` (one entry may be -1, inferred).

    ``copy=None``: a view (sharing x's elements) when the strides allow it, exactly where
    NumPy gives one, else a fresh copy (from ``gates.RELAYOUT_MIN`` elements made when it
    is read: one element is read without it). ``copy=False``: a view or ValueError.
    ``copy=True``: a copy, O(1) (a lazy copy of the view) when the strides allow a view.
    """
    if type(shape) is int:
        shape = (shape,)
    if type(x) is Array and copy is None and type(shape) is tuple:
        # the common call, a view by a tuple of ints (1.1 us instead of 3.4 us); NumPy
        # refuses two -1s, as the checks below do (but takes -2 for -1: they refuse it)
        a = x._arr
        try:
            view = a.reshape(shape, copy=False)
        except (ValueError, TypeError):
            pass
        else:
            if all(type(n) is int and n >= -1 for n in shape):
                return view_of(x, view)
    check_array(x, "reshape")
    check_copy(copy, "reshape")
    if not isinstance(shape, (tuple, list)):
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, builtins.bool):
            shape = (shape,)
        else:
            raise TypeError(f"reshape: 'shape' must be a tuple of ints, got "
                            f"{type(shape).__name__}")
    shape = int_tuple(shape, "reshape", "shape")
    if shape.count(-1) > 1 or any(n < -1 for n in shape):
        raise ValueError(f"reshape: 'shape' entries must be >= 0 with at most one -1, got "
                         f"{shape}")
    known = 1
    for n in shape:
        if n != -1:
            known *= n
    if -1 in shape:
        if known == 0 or x.size % known:
            raise ValueError(f"reshape: cannot infer the -1 in {shape} for an array of size "
                             f"{x.size} (shape {x.shape})")
        shape = tuple(x.size // known if n == -1 else n for n in shape)
    elif known != x.size:
        raise ValueError(f"reshape: cannot reshape an array of shape {x.shape} (size "
                         f"{x.size}) into {shape} (size {known})")
    a = x._arr
    check_alloc(shape, a.itemsize, "reshape", f"'shape'={shape}")  # (zero-size x)
    try:
        view = a.reshape(shape, copy=False)
    except ValueError:
        if copy is False:
            raise ValueError(f"reshape: an array of shape {x.shape} with strides "
                             f"{a.strides} (bytes) cannot be viewed as {shape}; copy=False "
                             f"forbids the copy this needs (use copy=None)") from None
        if a.size >= gates.RELAYOUT_MIN and (r := relayout(x, shape)) is not None:
            return r  # (copied when read: a single element is read without the copy)
        return wrap(_copy.contiguous(a).reshape(shape))
    if copy:  # NumPy's reshape(copy=True) is C-ordered
        return copy_of(x, view) if view.flags.c_contiguous else wrap(
            np.array(view, order="C"))
    return view_of(x, view)


# --- computed -------------------------------------------------------------------------------

def repeat(x, repeats, /, *, axis=None):
    """Repeat each element of ``x`` ``repeats`` times along ``axis`` (None: flattened x).

    ``repeats`` is a non-negative int or a 1-D integer array of length 1 or ``x.shape[axis]``.
    """
    check_array(x, "repeat")
    if axis is None:
        a, ax = x._arr.reshape(-1), 0
    else:
        ax = normalize_axis(axis, x.ndim, "repeat")
        a = x._arr
    n = a.shape[ax]
    if isinstance(repeats, Array):
        _dt.check_dtype("repeat", "repeats", repeats, "integral")
        if repeats.ndim > 1 or (repeats.ndim == 1 and repeats.shape[0] not in (1, n)):
            raise ValueError(f"repeat: 'repeats' must be an int or a 1-D array of length 1 or "
                             f"{n} (the size of the repeated axis), got shape {repeats.shape}")
        r = repeats._arr
        if r.size and r.min() < 0:
            raise ValueError(f"repeat: 'repeats' must be >= 0, got a minimum of {r.min()}")
        if r.dtype.kind == "u" and r.size and r.max() > np.iinfo(np.intp).max:
            raise ValueError(f"repeat: 'repeats' values must fit in int64, got {r.max()}")
        r = r.astype(np.intp, copy=False)
        if r.ndim == 1 and r.shape[0] == 1:
            r = r[0]
    else:
        r = as_count(repeats, "repeat", "repeats")
    total = r * n if type(r) is int else int(np.sum(r, dtype=np.float64) if r.ndim else r * n)
    out_shape = a.shape[:ax] + (total,) + a.shape[ax + 1:]
    check_alloc(out_shape, a.itemsize, "repeat",
                f"the result of 'repeats' ({total} elements along the axis), shape {out_shape}")
    return wrap(owned(np.repeat(a, r, axis=ax), a))


def roll(x, /, shift, *, axis=None):
    """``x`` with elements shifted by ``shift`` along ``axis`` (cyclically).

    ``axis=None`` rolls the flattened array and restores the shape. A tuple ``shift`` needs
    a tuple ``axis`` of the same length; an int ``shift`` applies to every axis named.
    """
    check_array(x, "roll")
    shifts = int_tuple(shift, "roll", "shift")
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise ValueError(f"roll: a tuple 'shift' ({shift!r}) needs a tuple 'axis' of the "
                             f"same length, got axis=None")
        a = x._arr
        shift0 = shifts[0] % a.size if a.size else 0  # (a cycle: any int, reduced first)
        return wrap(owned(np.roll(a.reshape(-1), shift0).reshape(a.shape), a))
    axes = tuple(normalize_axis(a, x.ndim, "roll") for a in int_tuple(axis, "roll", "axis"))
    if isinstance(shift, (tuple, list)):
        if not isinstance(axis, (tuple, list)) or len(shifts) != len(axes):
            raise ValueError(f"roll: 'shift' {shift!r} and 'axis' {axis!r} must be tuples of "
                             f"the same length")
    else:
        shifts = shifts * len(axes)
    shifts = tuple(s % x.shape[a] if x.shape[a] else 0 for s, a in zip(shifts, axes))
    if not axes:  # axis=(): nothing rolls (NumPy fails to unpack the empty tuple)
        return wrap(np.array(x._arr, copy=True))
    return wrap(owned(np.roll(x._arr, shifts, axis=axes), x._arr))


def tile(x, repetitions, /):
    """``x`` repeated ``repetitions[i]`` times along each axis i (shapes aligned right)."""
    check_array(x, "tile")
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"tile: 'repetitions' must be a tuple of ints, got "
                        f"{type(repetitions).__name__}")
    reps = shape_tuple(repetitions, "tile", "repetitions")
    shape = (1,) * (len(reps) - x.ndim) + x.shape
    reps_full = (1,) * (len(shape) - len(reps)) + reps
    out_shape = tuple(s * t for s, t in zip(shape, reps_full))
    check_alloc(out_shape, x._arr.itemsize, "tile",
                f"the result of 'repetitions'={reps}, shape {out_shape}")
    return wrap(owned(np.tile(x._arr, reps), x._arr))

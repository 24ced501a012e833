"""Extensions beyond the Array API standard, named and called as NumPy's functions.

The standard has no NaN-ignoring reductions and no ``einsum``; Dask, xarray and user code
call NumPy's. flexarray provides them under NumPy's names with NumPy's signatures (the
arguments listed below; NumPy's ``out=``, ``where=``, ``initial=`` are not taken), and
``np.nansum(x)``, ``np.einsum(...)`` on flexarray arrays run these through
``__array_function__`` (see :data:`flexarray._protocols.numpy_protocols.FUNCTIONS`; calls with arguments
these do not take run NumPy's implementation on the arrays' memory).

- NaN reductions: ``nansum``, ``nanprod``, ``nanmax``, ``nanmin``, ``nanargmax``,
  ``nanargmin``, ``nanmean``, ``nanvar``, ``nanstd``, ``nancumsum``, ``nancumprod``.
  NaN elements are
  replaced by the reduction's neutral value (0, 1, -inf, +inf) with ``where`` and the
  standard reduction runs on the result (``nanmax``/``nanmin``: NumPy's ``fmax``/``fmin``
  reduce, which skip NaN, measured 9x faster); integer and bool arrays hold no NaN and go
  to the standard reduction directly. All-NaN slices behave as in NumPy: ``nanmax``/``nanmin``
  give NaN and ``nanmean``/``nanvar``/``nanstd`` NaN with a RuntimeWarning;
  ``nanargmax``/``nanargmin`` raise ValueError. Result dtypes are the standard
  reductions' (``nansum`` of int32 is int64, as NumPy's on Linux); ``nanmean``/``nanvar``
  of integers are float64. Complex arrays have no order: ``nanmax``/``nanargmax`` refuse
  them as ``max``/``argmax`` do (``np.nanmax`` on them runs NumPy's lexicographic order).
- ``einsum(subscripts, *operands)``: the contraction order comes from ``np.einsum_path``
  (``optimize=True``, flexarray's default; NumPy's default is False) and NumPy's einsum
  runs the pairwise contractions (BLAS ``tensordot`` where it applies) on the operands'
  memory. Operands are promoted by the standard's rules; float16/bfloat16 compute in
  float32 and round once; the result never shares memory with an operand.
- NumPy names that array-API consumers call on the namespace (xarray's ``xp.pad``,
  ``xp.transpose``, ``xp.cumsum``, ``xp.median``, ``xp.quantile``, ``xp.cross``,
  ``xp.gradient``): ``cumsum``/``cumprod``
  (the standard's cumulative functions; ``axis=None`` flattens, as NumPy), ``transpose``
  (``permute_dims``), and ``pad``, ``median``, ``quantile``, ``cross``, ``gradient``
  (NumPy's on the memory);
  ``flexarray.lib.stride_tricks.sliding_window_view`` (NumPy's path; xarray's ``rolling``)
  is :func:`sliding_window_view` here, a read-only view.
"""
from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from . import _dtypes as _dt
from . import _statistical as _st
from ._array import Array, view_of, wrap
from ._data_type_functions import astype
from ._engines import reductions as reduction_engine
from ._elementwise import conj, divide, isnan, logical_not, multiply, real, sqrt, subtract
from ._fp import fp_quiet
from ._helpers import (cast_result, check_array, check_bool, names_its_errors, normalize_axes,
                       normalize_axis, numpy_as_array)
from ._manipulation import permute_dims, reshape
from ._searching import argmax, argmin, where
from ._utility import all as _all, any as _any

__all__ = ["nansum", "nanprod", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean",
           "nanvar", "nanstd", "nancumsum", "nancumprod", "einsum",
           "cumsum", "cumprod", "transpose", "pad", "median", "quantile", "cross", "gradient"]

_REAL = {_dt.complex64: _dt.float32, _dt.complex128: _dt.float64}

#: nan-function -> (the value NaN elements are replaced by, the reduction that follows);
#: floating nanmax/nanmin take NumPy's NaN-skipping fmax/fmin instead (_FMAX below)
_FILL_REDUCE = {
    "nansum": (0, _st.sum), "nanprod": (1, _st.prod),
    "nanmax": (-math.inf, _st.max), "nanmin": (math.inf, _st.min),
    "nanargmax": (-math.inf, argmax), "nanargmin": (math.inf, argmin),
}
_ORDERED = ("nanmax", "nanmin", "nanargmax", "nanargmin")


def _fmax_reduce(ufunc, func):
    """nanmax/nanmin as NumPy computes them: ``np.fmax``/``np.fmin`` reduce past NaN and
    give NaN only for all-NaN slices (1000x1000 float64: 0.3 ms, where filling NaN with
    -inf and reducing takes 2.6 ms). float16/bfloat16 reduce in float32 (exact)."""
    def reduce(x, axis, keepdims):
        axes = normalize_axes(axis, x.ndim, func)
        a = x._arr
        n_out = math.prod(_st._out_shape(a.shape, axes, keepdims))
        if axes and math.prod(a.shape[i] for i in axes) == 0 and n_out:
            raise ValueError(f"{func}: cannot reduce over a zero-size axis (a has shape "
                             f"{a.shape}, axis={axis}); the {func[3:]} of no elements is "
                             f"undefined (zero-size array to reduction operation {func})")
        if x._dtype in _dt.HALF:
            a = a.astype(np.float32)
        r = ufunc.reduce(a, axis=None if len(axes) == a.ndim else axes, keepdims=keepdims)
        return wrap(cast_result(r, x._dtype))
    return reduce


#: nanmax/nanmin of floating arrays: NumPy's NaN-skipping ufuncs
_FMAX = {"nanmax": _fmax_reduce(np.fmax, "nanmax"), "nanmin": _fmax_reduce(np.fmin, "nanmin")}


#: float dtypes whose nan-reductions skip or count NaN in the reduction kernel
#: (the engine's ``nan_reduce``: one pass, no filled copy; counts in float64, exact to 2**53)
_NAN_KERNEL_DTYPES = frozenset({_dt.float32, _dt.float64})
_NAN_SKIP = {"nansum": "sum", "nanprod": "prod"}
#: below the kernel's gate, NumPy's functions run on the array's memory (fewer calls than
#: the composed path: 2,000 x 20 float64 nansum 0.08 -> 0.05 ms, nanstd 0.24 -> 0.17)
_NAN_NUMPY = {"nansum": np.nansum, "nanprod": np.nanprod, "nanmean": np.nanmean,
              "nanvar": np.nanvar, "nanstd": np.nanstd}


def _checked(func, a, axis, keepdims):
    """Validate the common arguments up front, so messages name ``func``."""
    check_array(a, func, "a")
    check_bool(keepdims, func, "keepdims")
    if func in ("nanargmax", "nanargmin"):
        if axis is not None:
            normalize_axis(axis, a.ndim, func)
    else:
        normalize_axes(axis, a.ndim, func)
    if func in _ORDERED:
        _dt.check_dtype(func, "a", a, "real numeric or bool",
                        "complex numbers have no order (take real() or abs() first)")


def _fill_reduce(func, a, axis, keepdims, **kw):
    """The table's reduction of ``a`` with its NaN elements replaced by the neutral value."""
    _checked(func, a, axis, keepdims)
    fill, reduce = _FILL_REDUCE[func]
    if not _dt.is_floating(a._dtype):  # integer and bool arrays hold no NaN
        return reduce(a, axis=axis, keepdims=keepdims, **kw)
    if func in _NAN_SKIP and a._dtype in _NAN_KERNEL_DTYPES:
        dt = a._dtype if kw.get("dtype") is None else _dt.normalize(kw["dtype"], func)
        if dt in _NAN_KERNEL_DTYPES:
            axes = normalize_axes(axis, a.ndim)
            r = reduction_engine.nan_reduce(_NAN_SKIP[func], a._arr, axes, dt, "skip", keepdims)
            if r is None:  # small: NumPy's own
                with fp_quiet():
                    r = _NAN_NUMPY[func](a._arr, axes, dtype=dt, keepdims=keepdims)
            return wrap(np.asarray(r))
    if func in _FMAX:
        r = _FMAX[func](a, axis, keepdims)
        if _any(isnan(r)):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        return r
    mask = isnan(a)
    r = reduce(where(mask, fill, a), axis=axis, keepdims=keepdims, **kw)
    if func in ("nanargmax", "nanargmin") and _any(_all(mask, axis=axis)):
        raise ValueError(f"{func}: All-NaN slice encountered (a has shape {a.shape}, "
                         f"axis={axis}); no index to return")
    return r


@names_its_errors
def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum over ``axis`` treating NaN as zero (NumPy's ``nansum``); dtypes as ``sum``."""
    return _fill_reduce("nansum", a, axis, keepdims, dtype=dtype)


@names_its_errors
def nanprod(a, axis=None, dtype=None, keepdims=False):
    """Product over ``axis`` treating NaN as one (NumPy's ``nanprod``); dtypes as ``prod``."""
    return _fill_reduce("nanprod", a, axis, keepdims, dtype=dtype)


@names_its_errors
def nanmax(a, axis=None, keepdims=False):
    """Largest non-NaN element over ``axis``; NaN (RuntimeWarning) for all-NaN slices;
    ValueError for a reduction over no elements (NumPy's ``nanmax``)."""
    return _fill_reduce("nanmax", a, axis, keepdims)


@names_its_errors
def nanmin(a, axis=None, keepdims=False):
    """Smallest non-NaN element over ``axis`` (NumPy's ``nanmin``)."""
    return _fill_reduce("nanmin", a, axis, keepdims)


@names_its_errors
def nanargmax(a, axis=None, *, keepdims=False):
    """Index of the largest non-NaN element (flattened when ``axis`` is None); ValueError
    for an all-NaN slice (NumPy's ``nanargmax``)."""
    return _fill_reduce("nanargmax", a, axis, keepdims)


@names_its_errors
def nanargmin(a, axis=None, *, keepdims=False):
    """Index of the smallest non-NaN element; ValueError for an all-NaN slice."""
    return _fill_reduce("nanargmin", a, axis, keepdims)


# --- moments --------------------------------------------------------------------------------

def _float_input(func, a, dtype):
    """``a`` in the floating dtype the moment is computed in, its NaN mask, and the dtype of
    the result (``dtype``, else ``a``'s floating dtype, else the default float)."""
    if dtype is None:
        dt = a._dtype if _dt.is_floating(a._dtype) else _dt.default_float
    else:
        dt = _dt.normalize(dtype, func)
        _dt.check_dtype(func, "dtype", dt, "floating-point")
        if _dt.is_complex(a._dtype):
            _dt.check_dtype(func, "dtype", dt, "complex floating",
                            f"complex {a._dtype} values are computed in a complex dtype")
    work = _dt.float32 if dt in _dt.HALF else dt  # halves: float32, rounded once at the end
    x = astype(a, work, copy=False)
    return x, isnan(x), dt


def _counts(mask, x, axis, keepdims):
    """The number of non-NaN elements over ``axis``, as ``x``'s real dtype."""
    return _st.sum(logical_not(mask), axis=axis, keepdims=keepdims,
                   dtype=_REAL.get(x._dtype, x._dtype))


@names_its_errors
def nanmean(a, axis=None, dtype=None, keepdims=False):
    """Mean of the non-NaN elements over ``axis``; NaN with a RuntimeWarning for all-NaN or
    empty slices (NumPy's ``nanmean``). Integer input gives float64; ``dtype`` (floating)
    is the dtype of the computation and of the result."""
    _checked("nanmean", a, axis, keepdims)
    if dtype is None and a._dtype in _NAN_KERNEL_DTYPES:
        arr, axes = a._arr, normalize_axes(axis, a.ndim)
        total = reduction_engine.nan_reduce("sum", arr, axes, arr.dtype, "skip", keepdims)
        if total is None:  # small: NumPy's own (its warning for empty slices included)
            return wrap(np.asarray(np.nanmean(arr, axes, keepdims=keepdims)))
        n = reduction_engine.nan_reduce("sum", arr, axes, _dt.float64, "count", keepdims)
        if not n.all():
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        with fp_quiet():
            return wrap((total / n).astype(a._dtype, copy=False))
    x, mask, dt = _float_input("nanmean", a, dtype)
    total = _st.sum(where(mask, 0, x), axis=axis, keepdims=keepdims)
    n = _counts(mask, x, axis, keepdims)
    if _any(n == 0):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    return astype(divide(total, n), dt, copy=False)


def _nanvar(func, a, axis, dtype, ddof, keepdims, correction):
    _checked(func, a, axis, keepdims)
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"{func}: give 'ddof' or 'correction', not both "
                             f"(got ddof={ddof!r}, correction={correction!r})")
        ddof = correction
    _st._check_correction(func, ddof)
    if dtype is None and a._dtype in _NAN_KERNEL_DTYPES:
        return _nanvar_kernel(func, a._arr, normalize_axes(axis, a.ndim), ddof, keepdims)
    x, mask, dt = _float_input(func, a, dtype)
    n = _counts(mask, x, axis, True)
    filled = where(mask, 0, x)
    dev = where(mask, 0, subtract(filled, divide(_st.sum(filled, axis=axis, keepdims=True), n)))
    sq = real(multiply(dev, conj(dev))) if _dt.is_complex(x._dtype) else multiply(dev, dev)
    dof = subtract(n, ddof)
    if not keepdims:
        dof = reshape(dof, _st._out_shape(x.shape, normalize_axes(axis, x.ndim), False))
    bad = dof <= 0
    if _any(bad):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=3)
    r = where(bad, math.nan, divide(_st.sum(sq, axis=axis, keepdims=keepdims), dof))
    if func == "nanstd":
        r = sqrt(r)
    return astype(r, _REAL.get(dt, dt), copy=False)


def _nanvar_kernel(func, a, axes, ddof, keepdims):
    """nanvar/nanstd of a float32/float64 NumPy array by the reduction kernel (two passes
    over the data and one over the squared deviations, no filled copies), in its dtype;
    NumPy's own below the kernel's gate, and where a slice's sum is not finite: an
    infinity in the slice makes NaN deviations (inf - inf) that the kernel, which skips
    every NaN of them, would drop."""
    total = reduction_engine.nan_reduce("sum", a, axes, a.dtype, "skip", True)
    if total is None or not np.isfinite(total).all():  # (its dof <= 0 warning included)
        return wrap(np.asarray(_NAN_NUMPY[func](a, axes, ddof=ddof, keepdims=keepdims)))
    n = reduction_engine.nan_reduce("sum", a, axes, _dt.float64, "count", True)
    with fp_quiet():
        d = np.subtract(a, (total / n).astype(a.dtype, copy=False))  # NaN stays NaN
        np.multiply(d, d, out=d)
        ss = reduction_engine.nan_reduce("sum", d, axes, d.dtype, "skip", keepdims)
        dof = n - ddof
        if not keepdims:
            dof = dof.reshape(ss.shape)
        bad = dof <= 0
        if bad.any():
            warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=4)
        r = np.where(bad, math.nan, ss / dof)
        if func == "nanstd":
            r = np.sqrt(r)
    return wrap(r.astype(a.dtype, copy=False))


@names_its_errors
def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=None):
    """Variance of the non-NaN elements over ``axis`` with divisor ``N - ddof``
    (``correction`` is the standard's name for ``ddof``; give one). NaN with a
    RuntimeWarning where that divisor is <= 0 (NumPy's ``nanvar``). Complex input gives
    the variance of its magnitude, in the real dtype."""
    return _nanvar("nanvar", a, axis, dtype, ddof, keepdims, correction)


@names_its_errors
def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=None):
    """Standard deviation of the non-NaN elements: ``sqrt(nanvar(...))``."""
    return _nanvar("nanstd", a, axis, dtype, ddof, keepdims, correction)


def _cumulative(func, a, axis, dtype, nan_fill=None):
    """NumPy's cumsum/cumprod (``axis=None``: over the flattened array) through the
    standard's cumulative functions; ``nan_fill`` replaces NaN first (nancumsum/nancumprod)."""
    check_array(a, func, "a")
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    else:
        normalize_axis(axis, builtins.max(a.ndim, 1), func)
    if nan_fill is not None and _dt.is_floating(a._dtype):
        a = where(isnan(a), nan_fill, a)
    cumulative = _st.cumulative_sum if func.endswith("sum") else _st.cumulative_prod
    return cumulative(a, axis=axis, dtype=dtype)


@names_its_errors
def nancumsum(a, axis=None, dtype=None):
    """Running sums along ``axis`` treating NaN as zero; ``axis=None`` runs over the
    flattened array (NumPy's ``nancumsum``). dtypes as ``cumulative_sum``."""
    return _cumulative("nancumsum", a, axis, dtype, 0)


@names_its_errors
def nancumprod(a, axis=None, dtype=None):
    """Running products along ``axis`` treating NaN as one (NumPy's ``nancumprod``)."""
    return _cumulative("nancumprod", a, axis, dtype, 1)


# --- NumPy names array-API consumers call on the namespace (xarray: xp.pad, xp.cumsum, ...)


@names_its_errors
def cumsum(a, axis=None, dtype=None):
    """NumPy's ``cumsum``: ``cumulative_sum`` over ``axis``, the flattened array when
    ``axis`` is None (xarray calls ``xp.cumsum``)."""
    return _cumulative("cumsum", a, axis, dtype)


@names_its_errors
def cumprod(a, axis=None, dtype=None):
    """NumPy's ``cumprod``: ``cumulative_prod``; the flattened array when ``axis`` is None."""
    return _cumulative("cumprod", a, axis, dtype)


@names_its_errors
def transpose(a, axes=None):
    """NumPy's ``transpose``: ``permute_dims`` (a view); ``axes=None`` reverses them."""
    check_array(a, "transpose", "a")
    return permute_dims(a, tuple(range(a.ndim))[::-1] if axes is None else tuple(axes))


def _on_memory(func, npfunc, a, *args, **kwargs):
    """NumPy's ``npfunc`` run on ``a``'s memory, as a fresh flexarray array;
    float16/bfloat16 compute in float32 and round back."""
    check_array(a, func, "a")
    arr = a._arr.astype(np.float32) if a._dtype in _dt.HALF else a._arr
    args = [o._arr if isinstance(o, Array) else o for o in args]
    kwargs = {k: (v._arr if isinstance(v, Array) else v) for k, v in kwargs.items()}
    try:
        r = npfunc(arr, *args, **kwargs)
    except (TypeError, ValueError, IndexError, OverflowError) as e:  # NumPy's words, named
        raise type(e)(f"{func}: {e}") from None
    if isinstance(r, (list, tuple)):  # gradient along several axes
        return tuple(_fresh(e, a) for e in r)
    return _fresh(r, a)


def _fresh(r, a):
    r = np.asarray(r)
    if a._dtype in _dt.HALF and r.dtype == np.float32:
        r = cast_result(r, a._dtype)
    return wrap(r.copy() if np.may_share_memory(r, a._arr) else r)


@names_its_errors
def pad(array, pad_width, mode="constant", **kwargs):
    """NumPy's ``pad`` (xarray's ``shift`` and ``rolling`` call ``xp.pad``): every mode and
    keyword of ``np.pad``; a fresh array."""
    return _on_memory("pad", np.pad, array, pad_width, mode=mode, **kwargs)


@names_its_errors
def median(a, axis=None, keepdims=False):
    """NumPy's ``median`` (NaN propagates; ``nanmedian`` is NumPy's, on the memory)."""
    return _on_memory("median", np.median, a, axis=axis, keepdims=keepdims)


@names_its_errors
def quantile(a, q, axis=None, method="linear", keepdims=False):
    """NumPy's ``quantile`` (``q`` in [0, 1]; every ``method`` of NumPy's)."""
    return _on_memory("quantile", np.quantile, a, q, axis=axis, method=method,
                      keepdims=keepdims)


@names_its_errors
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's ``cross`` (xarray's ``xr.cross`` calls ``xp.cross``); the standard's is
    ``flexarray.linalg.cross``."""
    check_array(b, "cross", "b")
    return _on_memory("cross", np.cross, a, b, axisa=axisa, axisb=axisb, axisc=axisc,
                      axis=axis)


@names_its_errors
def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's ``gradient`` (xarray's ``differentiate`` calls ``xp.gradient``): one array,
    or a tuple of them for several axes."""
    return _on_memory("gradient", np.gradient, f, *varargs, axis=axis, edge_order=edge_order)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """NumPy's ``lib.stride_tricks.sliding_window_view`` (xarray's ``rolling`` calls it as
    ``xp.lib.stride_tricks.sliding_window_view``; ``flexarray.lib`` provides that path): a
    read-only view of ``x``'s memory whose windows overlap, as ``nn.unfold``'s."""
    check_array(x, "sliding_window_view", "x")
    if writeable:
        raise ValueError("sliding_window_view: writeable=True is not supported: windows "
                         "overlap, and flexarray's overlapping views are read-only; "
                         "allowed: writeable=False")
    nd = np.lib.stride_tricks.sliding_window_view(x._arr, window_shape, axis=axis)
    return view_of(x, nd, overlapping=True)


# --- einsum ---------------------------------------------------------------------------------

_PATH_NAMES = ("greedy", "optimal")


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _is_sublist(v) -> bool:
    """Whether ``v`` is a sublist of the interleaved form (not an operand): a list, tuple
    or range, or a 1-D integer NumPy array (NumPy takes any sequence of ints there)."""
    return isinstance(v, (list, tuple, range)) or (
        type(v) is np.ndarray and v.ndim == 1 and v.dtype.kind in "iu")


def _interleaved(args):
    """NumPy's interleaved ``einsum(x, sub_x, y, sub_y, ..., [sub_out])`` as the
    subscripts string and the operands."""
    operands, terms = list(args[0::2]), []
    sublists = list(args[1::2])
    out = None
    if len(args) % 2:  # a trailing output sublist
        out = operands.pop()
        if not _is_sublist(out):
            raise TypeError(f"einsum: the interleaved form pairs every operand with a "
                            f"sublist of ints; the last operand ({type(out).__name__}) has "
                            f"none")
        sublists.append(out)

    def letters(sublist, what):
        if not _is_sublist(sublist):
            raise TypeError(f"einsum: {what} must be a list of ints (and ...), got "
                            f"{type(sublist).__name__}")
        term = []
        for s in sublist:
            if s is Ellipsis:
                term.append("...")
            elif isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) \
                    and 0 <= s < len(_LETTERS):
                term.append(_LETTERS[s])
            else:
                raise ValueError(f"einsum: {what} holds {s!r}; allowed: ints in [0, "
                                 f"{len(_LETTERS)}) and ...")
        return "".join(term)

    for i, sub in enumerate(sublists[:len(operands)]):
        terms.append(letters(sub, f"the sublist of operand {i}"))
    subscripts = ",".join(terms)
    if out is not None:
        subscripts += "->" + letters(out, "the output sublist")
    return subscripts, tuple(operands)


def _optimize(optimize):
    """``optimize`` as NumPy's ``einsum`` takes it: True, False (or None, or a NumPy
    bool), "greedy", "optimal", a (name, largest intermediate size) pair, or an explicit
    path from ``np.einsum_path`` (a list or tuple that starts with "einsum_path")."""
    if optimize is None or isinstance(optimize, (bool, np.bool_)):
        return bool(optimize)
    allowed = ("True, False, 'greedy', 'optimal', a pair such as ('greedy', 10**6) (a "
               "path name and the largest intermediate size), or a path from "
               "np.einsum_path (['einsum_path', (0, 1), ...])")
    if isinstance(optimize, str):
        if optimize not in _PATH_NAMES:
            raise ValueError(f"einsum: 'optimize' must be {allowed}; got {optimize!r}")
        return optimize
    if isinstance(optimize, (list, tuple)):
        if optimize and isinstance(optimize[0], str) and optimize[0] == "einsum_path":
            if not all(isinstance(step, (list, tuple)) and
                       all(isinstance(i, (int, np.integer)) for i in step)
                       for step in optimize[1:]):
                raise ValueError(f"einsum: the path 'optimize' must be ['einsum_path', "
                                 f"(i, j), ...] with tuples of operand positions; got "
                                 f"{optimize!r}")
            return ["einsum_path", *map(tuple, optimize[1:])]
        if len(optimize) == 2 and isinstance(optimize[0], str):
            name, limit = optimize
            if name not in _PATH_NAMES:
                raise ValueError(f"einsum: 'optimize' must be {allowed}; got {optimize!r}")
            if isinstance(limit, (bool, np.bool_)) or not isinstance(
                    limit, (int, float, np.integer, np.floating)) or not limit >= 0:
                raise ValueError(f"einsum: the largest intermediate size in 'optimize' "
                                 f"must be a number >= 0, got {limit!r}")
            return (name, limit)
        raise ValueError(f"einsum: 'optimize' must be {allowed}; got {optimize!r}")
    raise TypeError(f"einsum: 'optimize' must be {allowed}; got {type(optimize).__name__} "
                    f"{optimize!r}")


@names_its_errors
def einsum(subscripts, /, *operands, dtype=None, casting="safe", optimize=True):
    """Einstein summation, NumPy's ``einsum(subscripts, *operands)``: the subscripts-string
    form (with ``...`` and implicit output), or NumPy's interleaved (operand-sublist) form
    ``einsum(x, [0, 1], y, [1, 2], [0, 2])`` (sublists of ints in [0, 52) and ``...``).
    Operands are flexarray arrays, or NumPy arrays (taken as ``asarray`` takes them).

    ``optimize`` chooses the contraction order as in NumPy (True, False, "greedy",
    "optimal", ``("greedy", max_size)``, or a path from ``np.einsum_path``); flexarray's
    default is True (NumPy's is False: the same result, computed pairwise). NumPy's einsum
    runs the pairwise contractions (BLAS where it applies) on the operands' memory. The
    result dtype is the standard's promotion of the operands, or ``dtype`` (reached under
    ``casting``, NumPy's rule names: "no", "equiv", "safe", "same_kind", "unsafe").
    """
    if not isinstance(subscripts, str):
        if not isinstance(subscripts, (Array, np.ndarray)):
            raise TypeError(f"einsum: 'subscripts' must be a str such as 'ij,jk->ik' or an "
                            f"array (the interleaved form), got {type(subscripts).__name__}")
        subscripts, operands = _interleaved((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum: needs at least one operand")
    operands = tuple(map(numpy_as_array, operands))
    for i, o in enumerate(operands):
        check_array(o, "einsum", f"operands[{i}]")
    optimize = _optimize(optimize)
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"einsum: 'casting' must be 'no', 'equiv', 'safe', 'same_kind' or "
                         f"'unsafe', got {casting!r}")
    dt = _dt.result_type(*(o._dtype for o in operands))
    if dtype is not None:
        want = _dt.normalize(dtype, "einsum")
        for i, o in enumerate(operands):
            if not np.can_cast(o._dtype, want, casting):
                raise TypeError(f"einsum: cannot cast operands[{i}] from {o._dtype} to "
                                f"dtype={want} under casting={casting!r}")
        dt = want
    work = _dt.float32 if dt in _dt.HALF else dt
    arrays = [o._arr.astype(work, copy=False) for o in operands]
    with np.errstate(all="ignore"):
        r = np.asarray(np.einsum(subscripts, *arrays, optimize=optimize))
    if any(r.size and np.may_share_memory(r, a) for a in arrays):
        r = r.copy()  # einsum('ii->i', a) is a view of a in NumPy
    return wrap(cast_result(r, dt))

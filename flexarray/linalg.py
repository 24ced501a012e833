"""The linalg extension (Array API 2025.12): 25 functions, batched over leading dimensions.

LAPACK through NumPy does the factorizations. The frontend checks shapes and dtypes and
raises the standard's errors; decompositions and norms need floating-point input (cast
integers with ``astype``), products (``cross``, ``outer``, ``trace``, ``matmul``,
``tensordot``, ``vecdot``) take any numeric dtype. float16/bfloat16 compute in float32 and
round once. Results with named fields are named tuples (``EighResult``, ``EigResult``,
``QRResult``, ``SlogdetResult``, ``SVDResult``). A singular or non positive-definite input
raises ``LinAlgError`` (NumPy's, a ValueError subclass). The matrix-product engine
(``flexarray._engines.matmul``) runs the products and the SVD of tall matrices and gives
LAPACK's calls their threads.
"""
from __future__ import annotations

import builtins
import math
from typing import NamedTuple

import ml_dtypes
import numpy as np

from . import _dtypes as _dt
from ._array import Array, copy_of, view_of, wrap
from ._engines import matmul as engine
from ._fp import fp_quiet
from ._helpers import cast_result, check_array, check_bool, check_int, normalize_axes
from ._linear_algebra import (as_compute, compute_np, matmul, matrix_transpose, numeric_pair,
                              tensordot, vecdot)
from ._statistical import accumulation_dtype, sum_np

__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace",
           "vecdot", "vector_norm"]

LinAlgError = np.linalg.LinAlgError


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


_REAL_OF = {_dt.complex64: _dt.float32, _dt.complex128: _dt.float64}
_COMPLEX_OF = {_dt.float16: _dt.complex64, _dt.bfloat16: _dt.complex64,
               _dt.float32: _dt.complex64, _dt.float64: _dt.complex128,
               _dt.complex64: _dt.complex64, _dt.complex128: _dt.complex128}


def _real(dt):
    return _REAL_OF.get(dt, dt)


# --- checks and conversions -----------------------------------------------------------------

def _check_floating(func, dt, name="x", names=None):
    """TypeError unless ``dt`` is floating (``names``: the arguments whose promoted dtype
    ``dt`` is, for the message)."""
    _dt.check_dtype(func, name if names is None else "' and '".join(names), dt,
                    "floating-point", f"cast first, e.g. astype({(names or (name,))[0]}, "
                    f"flexarray.float64)", of_array=True)


def _matrices(func, x, *, square=False, name="x"):
    """Validated stack of matrices ``x`` (floating, >= 2-D, square if asked)."""
    check_array(x, func, name)
    _check_floating(func, x._dtype, name)
    s = x.shape
    if len(s) < 2:
        raise ValueError(f"{func}: '{name}' must have at least 2 dimensions (a stack of "
                         f"matrices), got shape {s}")
    if square and s[-1] != s[-2]:
        raise ValueError(f"{func}: '{name}' must be a stack of square matrices, got shape "
                         f"{s} ({s[-2]}x{s[-1]})")
    return x._dtype


def _out(r, dt):
    """A NumPy result as a new Array of flexarray dtype ``dt`` (rounded once for halves)."""
    return wrap(cast_result(r, dt))


def _no_inf(a):
    """``a`` with infinities as NaN, for LAPACK's SVD with singular vectors (gesdd): an
    infinite element makes it loop forever (NumPy's own ``svd`` and ``pinv`` hang), a NaN
    gives NaN results or LinAlgError, as an undefined decomposition should."""
    inf = np.isinf(a)
    if not inf.any():
        return a
    return np.where(inf, np.nan, a).astype(a.dtype, copy=False)


def _lapack(func, f, a, *args, **kwargs):
    """Call NumPy's LAPACK wrapper ``f`` on the matrices ``a`` (and ``args``); its
    LinAlgError names our function."""
    try:
        with fp_quiet(), engine.lapack_threads(a):
            return f(a, *args, **kwargs)
    except LinAlgError as e:
        raise LinAlgError(f"{func}: {e}") from None


# --- factorizations -------------------------------------------------------------------------

def cholesky(x, /, *, upper=False):
    """Cholesky factor of each Hermitian positive-definite matrix: lower ``L`` with
    ``x = L L^H``, or upper ``U`` with ``x = U^H U`` when ``upper=True``."""
    dt = _matrices("cholesky", x, square=True)
    check_bool(upper, "cholesky", "upper")
    return _out(_lapack("cholesky", np.linalg.cholesky, as_compute(x._arr, dt), upper=upper),
                dt)


def det(x, /):
    """Determinant of each square matrix (0-d for a single matrix)."""
    dt = _matrices("det", x, square=True)
    return _out(_lapack("det", np.linalg.det, as_compute(x._arr, dt)), dt)


def slogdet(x, /):
    """``(sign, logabsdet)`` of each determinant: sign has x's dtype (0 for singular
    matrices, where logabsdet is -inf), logabsdet is real."""
    dt = _matrices("slogdet", x, square=True)
    sign, logabs = _lapack("slogdet", np.linalg.slogdet, as_compute(x._arr, dt))
    return SlogdetResult(_out(sign, dt), _out(logabs, _real(dt)))


def inv(x, /):
    """Inverse of each square matrix (LinAlgError when one is singular)."""
    dt = _matrices("inv", x, square=True)
    return _out(_lapack("inv", np.linalg.inv, as_compute(x._arr, dt)), dt)


def eigh(x, /):
    """``(eigenvalues, eigenvectors)`` of each Hermitian/symmetric matrix (lower triangle
    read): real eigenvalues in ascending order, orthonormal eigenvector columns."""
    dt = _matrices("eigh", x, square=True)
    w, v = _lapack("eigh", np.linalg.eigh, as_compute(x._arr, dt))
    return EighResult(_out(w, _real(dt)), _out(v, dt))


def eigvalsh(x, /):
    """Real eigenvalues (ascending) of each Hermitian/symmetric matrix."""
    dt = _matrices("eigvalsh", x, square=True)
    return _out(_lapack("eigvalsh", np.linalg.eigvalsh, as_compute(x._arr, dt)), _real(dt))


def eig(x, /):
    """``(eigenvalues, eigenvectors)`` of each general square matrix. Both are complex
    (complex64 for float32 input, complex128 for float64), even when all are real."""
    dt = _matrices("eig", x, square=True)
    w, v = _lapack("eig", np.linalg.eig, as_compute(x._arr, dt))
    ct = _COMPLEX_OF[dt]
    return EigResult(_out(w, ct), _out(v, ct))


def eigvals(x, /):
    """Complex eigenvalues of each general square matrix."""
    dt = _matrices("eigvals", x, square=True)
    return _out(_lapack("eigvals", np.linalg.eigvals, as_compute(x._arr, dt)), _COMPLEX_OF[dt])


def qr(x, /, *, mode="reduced"):
    """``(Q, R)`` of each matrix: ``mode="reduced"`` gives Q (..., M, K) and R (..., K, N)
    with K = min(M, N); ``mode="complete"`` gives Q (..., M, M) and R (..., M, N)."""
    dt = _matrices("qr", x)
    if type(mode) is not str or mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode={mode!r} is not supported; allowed: 'reduced', "
                         f"'complete'")
    q, r = _lapack("qr", np.linalg.qr, as_compute(x._arr, dt), mode=mode)
    return QRResult(_out(q, dt), _out(r, dt))


def svd(x, /, *, full_matrices=True):
    """``(U, S, Vh)`` of each matrix with ``x = U diag(S) Vh``; S real, descending."""
    dt = _matrices("svd", x)
    check_bool(full_matrices, "svd", "full_matrices")
    a = as_compute(x._arr, dt)
    r = None if full_matrices else engine.tall_svd(a)  # (None for input with inf or NaN)
    u, s, vh = r or _lapack("svd", np.linalg.svd, _no_inf(a), full_matrices=full_matrices)
    return SVDResult(_out(u, dt), _out(s, _real(dt)), _out(vh, dt))


def _svdvals_np(a, func="svdvals"):
    s = engine.tall_svd(a, compute_uv=False)
    return s if s is not None else _lapack(func, np.linalg.svd, a, compute_uv=False)


def svdvals(x, /):
    """Singular values of each matrix, real and in descending order."""
    dt = _matrices("svdvals", x)
    return _out(_svdvals_np(as_compute(x._arr, dt)), _real(dt))


# --- solvers and inverses -------------------------------------------------------------------

def solve(x1, x2, /):
    """Solution ``X`` of ``x1 @ X = x2`` for each square ``x1``. A 1-D ``x2`` of shape (M,)
    is one right-hand side (result shape ``x1.shape[:-2] + (M,)``); otherwise ``x2`` is
    (..., M, K) with batch dimensions broadcast against x1's."""
    check_array(x1, "solve", "x1")
    check_array(x2, "solve", "x2")
    dt = _dt.promote(x1._dtype, x2._dtype, "solve")
    _check_floating("solve", dt, names=("x1", "x2"))
    _matrices("solve", x1, square=True, name="x1")
    s1, s2 = x1.shape, x2.shape
    m = s1[-1]
    if not s2:
        raise ValueError("solve: 'x2' must have at least 1 dimension, got a 0-d array")
    rows = s2[0] if len(s2) == 1 else s2[-2]
    if rows != m:
        raise ValueError(f"solve: x1 {s1} is {m}x{m} but x2 {s2} has {rows} rows; they must "
                         f"match")
    if len(s2) > 1:
        try:
            np.broadcast_shapes(s1[:-2], s2[:-2])
        except ValueError:
            raise ValueError(f"solve: the batch dimensions of x1 {s1} and x2 {s2} do not "
                             f"broadcast") from None
    ct = compute_np(dt)
    a, b = x1._arr.astype(ct, copy=False), x2._arr.astype(ct, copy=False)
    return _out(_lapack("solve", np.linalg.solve, a, b), dt)


def _rtol(func, rtol, dt, batch):
    """``rtol`` as a NumPy value broadcastable against the batch shape (None: default)."""
    if rtol is None:
        return None
    if isinstance(rtol, Array):
        _dt.check_dtype(func, "rtol", rtol, "real floating", "or pass a Python float")
        try:
            fits = np.broadcast_shapes(rtol.shape, batch) == tuple(batch)
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"{func}: 'rtol' of shape {rtol.shape} does not broadcast "
                             f"to the batch shape {batch}") from None
        return rtol._arr
    if isinstance(rtol, builtins.bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{func}: 'rtol' must be None, a Python float or a real "
                        f"floating-point array, got {type(rtol).__name__}")
    try:
        return float(rtol)  # (a Python int beyond int64 would make NumPy objects)
    except OverflowError:
        raise ValueError(f"{func}: 'rtol'={rtol} is beyond the float64 range") from None


def _default_rtol(a, dt):
    """``max(M, N) * eps`` of x's (real) dtype: float16 input uses float16's eps even
    though LAPACK runs in float32."""
    return builtins.max(a.shape[-2:]) * float(ml_dtypes.finfo(_real(dt)).eps)


def pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse of each matrix (shape (..., N, M)); singular values at
    or below ``rtol * largest`` count as zero (default ``max(M, N) * eps``)."""
    dt = _matrices("pinv", x)
    r = _rtol("pinv", rtol, dt, x.shape[:-2])
    a = as_compute(x._arr, dt)
    if r is None:
        r = _default_rtol(a, dt)
    return _out(_lapack("pinv", np.linalg.pinv, _no_inf(a), rtol=r), dt)


def matrix_rank(x, /, *, rtol=None):
    """Number of singular values of each matrix above ``rtol * largest`` (default
    ``max(M, N) * eps``), as the default integer dtype."""
    dt = _matrices("matrix_rank", x)
    r = _rtol("matrix_rank", rtol, dt, x.shape[:-2])
    a = as_compute(x._arr, dt)
    if r is None:
        r = _default_rtol(a, dt)
    s = _svdvals_np(a, "matrix_rank")
    tol = np.max(s, axis=-1, initial=0.0) * np.asarray(r)
    rank = np.count_nonzero(s > tol[..., None], axis=-1)
    return _out(rank, _dt.default_int)


def matrix_power(x, n, /):
    """``x`` raised to the integer power ``n`` for each square matrix (n = 0: identity;
    n < 0: powers of the inverse, floating dtypes only). Integer matrices are allowed for
    n >= 0 (they wrap on overflow, as matmul does)."""
    check_array(x, "matrix_power")
    n = check_int(n, "matrix_power", "n")
    dt = x._dtype
    _dt.check_dtype("matrix_power", "x", x, "numeric")
    if n < 0:
        _check_floating("matrix_power", dt)
    s = x.shape
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"matrix_power: 'x' must be a stack of square matrices, got shape "
                         f"{s}")
    if n == 0:
        return wrap(np.broadcast_to(np.eye(s[-1], dtype=dt), s).copy())
    if n == 1:
        return copy_of(x)  # the same values: an O(1) lazy copy
    cdt = _dt.float32 if dt in _dt.HALF else dt  # halves: float32 throughout, round once
    a = as_compute(x._arr, dt)
    if n < 0:
        a = _lapack("matrix_power", np.linalg.inv, a)
        n = -n
    result = None
    while True:  # binary powering: ~2 log2(n) products
        if n & 1:
            result = a if result is None else engine.product(result, a, cdt)
        n >>= 1
        if not n:
            break
        a = engine.product(a, a, cdt)
    return _out(result, dt)


# --- products -------------------------------------------------------------------------------

def cross(x1, x2, /, *, axis=-1):
    """Cross products of 3-element vectors along ``axis`` (negative, counted from the end),
    broadcast over the other axes."""
    dt = numeric_pair("cross", x1, x2)
    axis = check_int(axis, "cross", "axis")
    n = builtins.min(x1.ndim, x2.ndim)
    if axis >= 0 and x1.ndim == x2.ndim:
        axis -= n
    if not -n <= axis <= -1:
        raise ValueError(f"cross: axis={axis} is out of range for shapes {x1.shape} and "
                         f"{x2.shape}; allowed: {-n} <= axis <= -1")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"cross: x1 {x1.shape} and x2 {x2.shape} must both have size 3 along "
                         f"axis {axis}")
    try:
        np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise ValueError(f"cross: shapes {x1.shape} and {x2.shape} do not broadcast") from None
    ct = compute_np(dt)
    a, b = x1._arr.astype(ct, copy=False), x2._arr.astype(ct, copy=False)
    with np.errstate(all="ignore"):
        r = np.cross(a, b, axisa=axis, axisb=axis, axisc=axis)
    return _out(r, dt)


def outer(x1, x2, /):
    """Outer product of two 1-D arrays: shape (N, M), ``out[i, j] = x1[i] * x2[j]``."""
    dt = numeric_pair("outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"outer: 'x1' and 'x2' must be 1-D, got shapes {x1.shape} and "
                         f"{x2.shape}")
    ct = compute_np(dt)
    with np.errstate(all="ignore"):
        r = np.multiply.outer(x1._arr.astype(ct, copy=False), x2._arr.astype(ct, copy=False))
    return _out(r, dt)


def _clip_offset(x, offset):
    """A diagonal ``offset`` beyond the matrices (any size: empty diagonals) clipped to
    their edge, where NumPy would overflow a C long."""
    return max(-x.shape[-2], min(x.shape[-1], offset))


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix (last axis of the result): a zero-copy
    view of ``x``, read-only as NumPy's ``diagonal`` (write to a copy of it instead)."""
    check_array(x, "diagonal")
    offset = check_int(offset, "diagonal", "offset")
    if x.ndim < 2:
        raise ValueError(f"diagonal: 'x' must have at least 2 dimensions, got shape {x.shape}")
    offset = _clip_offset(x, offset)
    return view_of(x, np.diagonal(x._arr, offset, -2, -1))


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of each matrix; dtype rules as ``sum`` (smaller
    integers accumulate in int64/uint64)."""
    check_array(x, "trace")
    offset = check_int(offset, "trace", "offset")
    _dt.check_dtype("trace", "x", x, "numeric")
    if x.ndim < 2:
        raise ValueError(f"trace: 'x' must have at least 2 dimensions, got shape {x.shape}")
    offset = _clip_offset(x, offset)
    out_dt = accumulation_dtype("trace", x._dtype, dtype)
    d = np.diagonal(x._arr, offset, -2, -1)
    return wrap(sum_np(d, (d.ndim - 1,), out_dt))


# --- norms ----------------------------------------------------------------------------------

_INF = math.inf


def _check_ord(func, ord, allowed=None):
    if isinstance(ord, builtins.bool) or not isinstance(ord, (int, float) + (
            (str,) if allowed else ())):
        raise TypeError(f"{func}: 'ord' must be a number{' or a string' if allowed else ''}, "
                        f"got {type(ord).__name__}")
    if allowed is not None and ord not in allowed:
        raise ValueError(f"{func}: ord={ord!r} is not supported; allowed: "
                         f"{', '.join(map(repr, allowed))}")
    if isinstance(ord, float) and math.isnan(ord):
        raise ValueError(f"{func}: ord must not be NaN")


def _pnorm(a, axes, p, keepdims):
    """p-norm of the absolute values ``a`` (real, nonnegative) over ``axes``; for p = 2 ``a``
    may be any real array (squares need no absolute value: one pass less)."""
    if p == _INF:
        return np.max(a, axis=axes, keepdims=keepdims, initial=0.0)
    if p == -_INF:
        return np.min(a, axis=axes, keepdims=keepdims, initial=_INF)
    if p == 0:
        return np.count_nonzero(a, axis=axes, keepdims=keepdims).astype(a.dtype)
    if p == 1:
        return np.sum(a, axis=axes, keepdims=keepdims)
    if p == 2:
        r = np.sqrt(sum_np(np.square(a), axes, a.dtype, keepdims))
    else:
        r = np.sum(a ** p, axis=axes, keepdims=keepdims) ** (1.0 / p)
    if p > 1:
        # Squares (powers) of large or tiny elements overflow or underflow. Where the result
        # is outside the range where that cannot happen, redo it scaled by max|x|.
        info = np.finfo(a.dtype)
        lo, hi = float(info.smallest_normal) ** (1.0 / p), float(info.max) ** (1.0 / p)
        bad = ~((r >= lo) & (r < hi))
        if bad.any():
            a = np.abs(a)
            m = np.max(a, axis=axes, keepdims=True, initial=0.0)
            ok = (m > 0) & np.isfinite(m)
            safe = np.where(ok, m, 1.0)
            scaled = (np.sum((a / safe) ** p, axis=axes, keepdims=True) ** (1.0 / p)) * safe
            if not keepdims:
                scaled, ok = (np.squeeze(v, axis=axes) for v in (scaled, ok))
            r = np.where(ok & bad, scaled, r)
    return r


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector ``ord``-norm over ``axis`` (None: all elements; an int; a tuple). ord may be
    any real: inf (max |x|), -inf (min |x|), 0 (count of nonzeros), p (``sum(|x|^p)^(1/p)``).
    The result is real; large and tiny values do not overflow or underflow the squares."""
    check_array(x, "vector_norm")
    _check_floating("vector_norm", x._dtype)
    check_bool(keepdims, "vector_norm", "keepdims")
    _check_ord("vector_norm", ord)
    axes = normalize_axes(axis, x.ndim, "vector_norm")
    rdt = _real(x._dtype)
    with fp_quiet():
        if _dt.KIND[x._dtype] == "f":
            a = as_compute(x._arr, rdt)
            a = a if ord == 2 else np.abs(a)
        else:
            a = np.abs(x._arr)
        r = _pnorm(a, axes, ord, keepdims)
    return _out(r, rdt)


_MATRIX_ORDS = ("fro", "nuc", 1, 2, -1, -2, _INF, -_INF)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Matrix norm of each matrix: 'fro', 'nuc', 1/-1 (max/min column sum of |x|), 2/-2
    (largest/smallest singular value), inf/-inf (max/min row sum of |x|). Real result."""
    dt = _matrices("matrix_norm", x)
    check_bool(keepdims, "matrix_norm", "keepdims")
    _check_ord("matrix_norm", ord, _MATRIX_ORDS)
    rdt = _real(dt)
    a = as_compute(x._arr, dt)
    nd = a.ndim
    with np.errstate(all="ignore"):
        if ord == "fro":
            r = _pnorm(np.abs(a), (nd - 2, nd - 1), 2, False)
        elif ord in ("nuc", 2, -2):
            s = _svdvals_np(a)
            r = (np.sum(s, axis=-1) if ord == "nuc" else
                 np.max(s, axis=-1, initial=0.0) if ord == 2 else
                 np.min(s, axis=-1, initial=_INF))
        else:
            sums = np.sum(np.abs(a), axis=-2 if ord in (1, -1) else -1)
            r = (np.max(sums, axis=-1, initial=0.0) if ord > 0 else
                 np.min(sums, axis=-1, initial=_INF))
    r = np.asarray(r)
    if keepdims:
        r = r[..., None, None]
    return _out(r, rdt)

"""Value pools and axis arguments shared by the statistical and utility tests."""
import zlib
import ml_dtypes
import numpy as np
from hypothesis import strategies as st
import flexarray as xp
from helpers.strategies import std_kind, to_np



def moderate_pool(dtype):
    """Values whose sums and small sums of products stay far from overflow: ints in
    [-100, 100], floats of mixed magnitude (up to ~300; ~30 for float16, whose largest
    finite value is 65504). Seeded per dtype by a stable hash, so that every process
    draws the same pool and examples replay. (With ``hash(dtype.name)``, randomized per
    process, some processes drew float16 values near 250 and a float16 ``vecdot`` of
    two of them rightly overflowed to inf against a finite float64 reference.)"""
    rng = np.random.default_rng(zlib.crc32(dtype.name.encode()))
    if std_kind(dtype) == "b":
        return np.array([False, True])
    if std_kind(dtype) in "iu":
        lo = 0 if std_kind(dtype) == "u" else -100
        return np.arange(lo, 101).astype(dtype)
    top = 2 if dtype == xp.float16 else 3  # powers of ten up to 10**(top - 1)
    v = rng.standard_normal(24) * 10.0 ** rng.integers(-2, top, 24)
    if std_kind(dtype) == "c":
        v = v + 1j * rng.standard_normal(24)
    return v.astype(dtype)



def special_pool(dtype):
    """Moderate values plus NaN, infinities and signed zeros."""
    v = moderate_pool(dtype)
    if std_kind(dtype) == "f":
        v = np.concatenate([v, np.array([np.nan, np.inf, -np.inf, 0.0, -0.0]).astype(dtype)])
    return v



@st.composite
def axis_args(draw, ndim):
    """``axis`` as None, an int (maybe negative) or a tuple of distinct axes."""
    kind = draw(st.sampled_from(["none", "int", "tuple"] if ndim else ["none", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim)) if ndim else []
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)



def norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))



def wide(v):
    """``v`` widened for a reference computation."""
    if std_kind(v.dtype) == "c":
        return v.astype(np.complex128)
    if std_kind(v.dtype) == "f" or v.dtype == ml_dtypes.bfloat16:
        return v.astype(np.float64)
    return v



def eps(dtype):
    real = {xp.complex64: xp.float32, xp.complex128: xp.float64}.get(dtype, dtype)
    return float(ml_dtypes.finfo(real).eps)



def assert_close(got, ref, tol, dtype):
    """``got`` (flexarray) has ``dtype``, ``ref``'s shape, the same NaN/inf pattern and
    finite values within ``tol`` (scalar or array) of ``ref``."""
    assert isinstance(got, xp.Array)
    assert got.dtype == dtype, (got.dtype, dtype)
    g = wide(to_np(got))
    ref = np.asarray(ref)
    assert g.shape == ref.shape, (g.shape, ref.shape)
    assert np.array_equal(np.isnan(g), np.isnan(ref)), (g, ref)
    fin = np.isfinite(ref)
    assert np.array_equal(g[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)]), (g, ref)
    with np.errstate(all="ignore"):
        err = np.abs(g - ref)
    real = {xp.complex64: xp.float32, xp.complex128: xp.float64}.get(dtype, dtype)
    tiny = float(ml_dtypes.finfo(real).smallest_subnormal)  # results round to the dtype
    tol = np.broadcast_to(tol, ref.shape) + tiny
    assert np.all(err[fin] <= tol[fin]), f"\n got {g}\n ref {ref}\n err {err}\n tol {tol}"



def assert_exact(got, ref, dtype):
    assert isinstance(got, xp.Array)
    assert got.dtype == dtype, (got.dtype, dtype)
    g = to_np(got)
    assert g.shape == np.shape(ref), (g.shape, np.shape(ref))
    if std_kind(dtype) == "f":
        g, ref = g.astype(np.float64), np.asarray(ref).astype(np.float64)
    assert np.array_equal(g, ref, equal_nan=std_kind(dtype) in "fc"), (g, ref)


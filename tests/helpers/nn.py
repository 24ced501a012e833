"""Shared pieces of the nn tests: dtypes and tolerances, input layouts, comparisons."""
import ml_dtypes
import numpy as np
import flexarray as xp



FLOATS = {"float32": (xp.float32, np.float32), "float64": (xp.float64, np.float64),
          "float16": (xp.float16, np.float16), "bfloat16": (xp.bfloat16, ml_dtypes.bfloat16)}



# relative tolerance of a result against a float64 reference computed from the same
# (already rounded) inputs: accumulation order for float32/64, one final rounding for
# the half types (computed in float32)
RTOL = {"float32": 2e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1.6e-2}



def layout(v, kind):
    """A flexarray array holding NumPy values v in a given memory layout."""
    if kind == "contiguous" or v.ndim == 0:
        return xp.asarray(v.copy())
    if kind == "reversed":  # negative strides on every axis
        flipped = np.ascontiguousarray(v[(slice(None, None, -1),) * v.ndim])
        return xp.asarray(flipped)[(slice(None, None, -1),) * v.ndim]
    if kind == "strided":  # every other element of a larger buffer along the last axis
        big = np.zeros(v.shape[:-1] + (2 * v.shape[-1],), v.dtype)
        big[..., ::2] = v
        return xp.asarray(big)[..., ::2]
    if kind == "transposed":  # reversed axis order in memory (Fortran-like)
        t = xp.asarray(np.ascontiguousarray(np.transpose(v)))
        return xp.permute_dims(t, tuple(range(v.ndim))[::-1])
    raise ValueError(kind)



LAYOUTS = ["contiguous", "reversed", "strided", "transposed"]



def values(rng, shape, dtype=np.float64):
    """Standard normal values rounded to dtype (returned as that dtype)."""
    return rng.standard_normal(shape).astype(dtype)



def np_of(a):
    """The elements of a flexarray array as a float64 NumPy array."""
    return np.asarray(np.array(a._arr), dtype=np.float64)



def assert_close(got, ref, dtype_name, scale=None):
    """got (flexarray Array) against a float64 reference, relative to the reference's size
    (its largest finite magnitude); infinities and NaN must match exactly."""
    g = np_of(got)
    assert g.shape == ref.shape, (g.shape, ref.shape)
    if scale is None:
        fin = np.abs(ref[np.isfinite(ref)])
        scale = max(1.0, float(fin.max())) if fin.size else 1.0
    same = (g == ref) | (np.isnan(g) & np.isnan(ref))
    with np.errstate(invalid="ignore"):
        err = np.abs(g - ref)
    bad = ~same & ~(err <= RTOL[dtype_name] * scale)
    assert not bad.any(), (f"{int(bad.sum())} mismatches, max error "
                           f"{np.nanmax(np.where(bad, err, 0))} at scale {scale} ({dtype_name})")


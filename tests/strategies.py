"""Hypothesis strategies shared by the tests: NumPy data in flexarray arrays of any layout."""
import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import flexarray as xp

DTYPES = {
    "bool": (xp.bool, np.bool_), "int8": (xp.int8, np.int8), "int16": (xp.int16, np.int16),
    "int32": (xp.int32, np.int32), "int64": (xp.int64, np.int64),
    "uint8": (xp.uint8, np.uint8), "uint16": (xp.uint16, np.uint16),
    "uint32": (xp.uint32, np.uint32), "uint64": (xp.uint64, np.uint64),
    "float16": (xp.float16, np.float16), "bfloat16": (xp.bfloat16, ml_dtypes.bfloat16),
    "float32": (xp.float32, np.float32), "float64": (xp.float64, np.float64),
    "complex64": (xp.complex64, np.complex64), "complex128": (xp.complex128, np.complex128),
}
KINDS = {
    "bool": ["bool"],
    "int": ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"],
    "float": ["float32", "float64", "float16", "bfloat16"],
    "complex": ["complex64", "complex128"],
}

shapes = st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple)


def np_values(np_dtype, shape, rng, special=True):
    """Random values of a dtype; floats include zeros, infinities and NaN when ``special``."""
    dt = np.dtype(np_dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return rng.integers(lo, hi + 1, size=shape).astype(dt)
    def real():
        v = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 3, size=shape))
        if special and v.size:
            mask = rng.random(shape) < 0.15
            v[mask] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0],
                                 size=int(mask.sum()))
        return v
    if dt.kind == "c":
        with np.errstate(invalid="ignore"):  # inf * 1j makes a NaN real part: intended
            return np.asarray(real() + 1j * real()).astype(dt)
    return np.asarray(real().astype(dt))


@st.composite
def layouts(draw, values):
    """A flexarray array holding ``values`` in a random layout: contiguous, reversed,
    strided, transposed or broadcast (for the reference, the values are what counts)."""
    kind = draw(st.sampled_from(["contiguous", "reversed", "strided", "transposed"]))
    v = values
    if kind == "reversed" and v.ndim:
        base = xp.asarray(np.ascontiguousarray(v[(slice(None, None, -1),) * v.ndim]))
        return base[(slice(None, None, -1),) * v.ndim]
    if kind == "strided" and v.ndim:
        big = np.zeros(v.shape[:-1] + (2 * v.shape[-1],), v.dtype)
        big[..., ::2] = v
        return xp.asarray(big)[..., ::2]
    if kind == "transposed" and v.ndim >= 2:
        return xp.permute_dims(xp.asarray(np.ascontiguousarray(v.T)), tuple(range(v.ndim))[::-1])
    return xp.asarray(v.copy())


def to_np(x):
    """A flexarray array's elements as a NumPy array (a private read, no export)."""
    return np.array(x._arr)

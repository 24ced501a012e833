"""Hypothesis strategies shared by the tests: NumPy data in flexarray arrays of any layout."""
import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

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


def std_kind(d):
    """The standard's category of a flexarray dtype ('b', 'i', 'u', 'f', 'c'): NumPy's
    ``kind``, except that ml_dtypes' bfloat16 (kind 'V') is a real float."""
    return "f" if d == xp.bfloat16 else d.kind


def np_values(np_dtype, shape, rng, special=True):
    """Random values of a dtype; floats include zeros, infinities and NaN when ``special``."""
    dt = np.dtype(np_dtype)
    if std_kind(dt) == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if std_kind(dt) in "iu":
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
    if std_kind(dt) == "c":
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


# --- arrays paired with NumPy arrays of the same elements and strides ----------------------
# Every flexarray input is paired with a NumPy array of the same elements *and the same
# strides* (contiguous, stepped, offset, reversed, transposed, broadcast; zero-size and 0-d
# shapes included), either aliasing NumPy memory (``asarray`` of a NumPy view) or owning
# its buffer.

ALL_DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32,
              xp.uint64, xp.float16, xp.bfloat16, xp.float32, xp.float64, xp.complex64,
              xp.complex128]
REAL_DTYPES = [d for d in ALL_DTYPES if d not in (xp.complex64, xp.complex128)]
NUMERIC_REAL = [d for d in REAL_DTYPES if d is not xp.bool]
INT_DTYPES = [d for d in ALL_DTYPES if std_kind(d) in "iu"]


def value_pool(dtype):
    """A few values of ``dtype`` that exercise ties, signed zeros, NaN, inf and extremes."""
    k = std_kind(dtype)
    if k == "b":
        vals = [False, True]
    elif k in "iu":
        info = np.iinfo(dtype)
        return np.array(sorted({info.min, info.min + 1, 0, 1, 2, 3, info.max - 1, info.max}
                               | ({-1, -2, -3} if k == "i" else set())), dtype)
    else:
        big = float(ml_dtypes.finfo(dtype).max) if k == "f" else 3e38
        vals = [-math.inf, -big, -2.5, -1.0, -0.0, 0.0, 1.0, 2.5, big, math.inf, math.nan]
        if k == "c":
            vals = [complex(r, i) for r in (-1.0, -0.0, 0.0, 2.5, math.nan)
                    for i in (-1.0, 0.0, math.inf, math.nan)]
    return np.asarray(vals).astype(dtype)


LAYOUTS = ["contiguous", "stepped", "offset", "reversed", "transposed", "broadcast"]


@st.composite
def arrays(draw, dtypes=ALL_DTYPES, min_dims=0, max_dims=4, min_side=0, max_side=5,
           shape=None, pool=value_pool):
    """``(x, ref)``: a flexarray array and a NumPy array with equal elements and strides."""
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                      max_side=max_side))
    nd = len(shape)
    layout = draw(st.sampled_from(LAYOUTS))
    key = (slice(None),) * nd
    base_shape, perm = shape, None
    if layout == "stepped":
        base_shape = tuple(2 * n for n in shape)
        key = tuple(slice(None, None, 2) for _ in shape)
    elif layout == "offset":
        base_shape = tuple(n + 1 for n in shape)
        key = tuple(slice(1, None) for _ in shape)
    elif layout == "reversed":
        key = tuple(slice(None, None, draw(st.sampled_from([1, -1]))) for _ in shape)
    elif layout == "transposed":
        perm = draw(st.permutations(range(nd)))
        base_shape = tuple(shape[perm.index(i)] for i in range(nd))
    elif layout == "broadcast":
        ones = draw(st.lists(st.booleans(), min_size=nd, max_size=nd))
        base_shape = tuple(1 if o else n for o, n in zip(ones, shape))
    values = pool(dtype)
    pick = draw(hnp.arrays(np.intp, base_shape, elements=st.integers(0, len(values) - 1)))
    base = values[pick]
    ref = base[key]
    if perm is not None:
        ref = ref.transpose(perm)
    if layout == "broadcast":
        ref = np.broadcast_to(ref, shape)
    owned = layout in ("contiguous", "stepped", "offset", "reversed") and draw(st.booleans())
    x = xp.asarray(base, copy=True)[key] if owned else xp.asarray(ref)
    assert x.shape == ref.shape and x._arr.strides == ref.strides
    return x, ref


def to_np(x):
    """A flexarray array's elements as a NumPy array (through the public protocol)."""
    assert isinstance(x, xp.Array), f"expected a flexarray array, got {type(x).__name__}"
    return np.asarray(x)


def assert_bits(x, ref):
    """``x`` holds exactly ``ref``'s dtype, shape and bits (NaN payloads, signed zeros)."""
    got = to_np(x)
    ref = np.asarray(ref)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(ref).tobytes(), (
        f"\n got {got}\n ref {ref}")


def assert_shares(r, x):
    """``r`` is an O(1) view of ``x``: same buffer token, overlapping memory."""
    assert r._buf is x._buf
    if r.size and x.size:
        assert np.shares_memory(r._arr, x._arr)


def fx(ref):
    """A fresh, owned flexarray array with ``ref``'s elements."""
    return xp.asarray(np.array(ref), copy=True)

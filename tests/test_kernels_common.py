"""NumPy-level layout strategies for the kernel tests, and tests of ``_kernels._intrinsics``:
the half-precision converters (bit-exact against NumPy and ml_dtypes), ``flat_view`` and
``plan`` (every element addressed where NumPy says it is)."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._kernels import kernel
from flexarray._kernels import _intrinsics as K

BF16 = np.dtype(ml_dtypes.bfloat16)
LAYOUTS = ("contiguous", "reversed", "strided", "transposed", "broadcast", "offset", "sliced")


def random_values(dtype, shape, rng, special=True, small_ints=False):
    """Random values of ``dtype``; floats include +-0, +-inf and NaN when ``special``."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (max(info.min, -3), min(info.max, 3)) if small_ints else (info.min, info.max)
        return rng.integers(lo, hi, size=shape, endpoint=True, dtype=dt)

    def real():
        v = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 3, size=shape))
        if special and v.size:
            mask = rng.random(shape) < 0.1
            v[mask] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0],
                                 size=int(mask.sum()))
        return np.asarray(v)
    if dt.kind == "c":
        with np.errstate(invalid="ignore"):
            return np.asarray(real() + 1j * real()).astype(dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(real()).astype(dt)


def in_layout(values, layout):
    """A view holding ``values`` (or, for "broadcast", a broadcast of its first entries)."""
    v = values
    if layout == "reversed" and v.ndim:
        return np.ascontiguousarray(v[(slice(None, None, -1),) * v.ndim])[
            (slice(None, None, -1),) * v.ndim]
    if layout == "strided" and v.ndim:
        big = np.zeros(v.shape[:-1] + (2 * v.shape[-1] + 1,), v.dtype)
        big[..., 1::2] = v
        return big[..., 1::2]
    if layout == "transposed" and v.ndim >= 2:
        return np.ascontiguousarray(v.T).T
    if layout == "broadcast" and v.ndim and v.shape[0] > 1:
        return np.broadcast_to(v[:1], v.shape)
    if layout == "sliced" and v.ndim:  # steps of +-3 in every dim of a bigger array
        big = np.zeros(tuple(3 * n for n in v.shape), v.dtype)
        view = big[tuple(slice(None, None, 3 if d % 2 else -3) for d in range(v.ndim))]
        view[...] = v
        return view
    if layout == "offset":
        flat = np.zeros(v.size + 3, v.dtype)
        flat[3:] = v.reshape(-1)
        return flat[3:].reshape(v.shape)
    return v.copy()


shapes = st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 6), min_size=0, max_size=3).map(tuple)


@st.composite
def arrays(draw, dtype, shape=shapes, layouts=LAYOUTS, **kw):
    """A NumPy array of ``dtype`` in a random layout (``shape``: a tuple or a strategy)."""
    shp = shape if isinstance(shape, tuple) else draw(shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return in_layout(random_values(dtype, shp, rng, **kw), draw(st.sampled_from(layouts)))


def same_bits(x, y, signed_zeros=True):
    """Equal values bit for bit; any NaN matches any NaN (payloads may differ); with
    ``signed_zeros=False`` -0.0 matches +0.0 (maximum/minimum leave that choice open)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if x.dtype.kind == "c":
        return same_bits(x.real, y.real, signed_zeros) and same_bits(x.imag, y.imag,
                                                                      signed_zeros)
    if not signed_zeros:
        return bool(np.array_equal(x.astype(np.float64), y.astype(np.float64), equal_nan=True))
    if x.dtype.kind == "f" or x.dtype == BF16:
        u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize]
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        nan = np.isnan(xf)
        return bool(np.array_equal(nan, np.isnan(yf))
                    and np.array_equal(x.view(u)[~nan], y.view(u)[~nan]))
    return bool(np.array_equal(x, y))


# ------------------------------------------------------------------ converters
@kernel
def _load_all(u, f16, bf16):
    for i in range(u.size):
        f16[i] = K.f16_load(u[i])
        bf16[i] = K.bf16_load(u[i])


@kernel
def _store_all(x, f16, bf16):
    for i in range(x.size):
        f16[i] = K.f16_store(x[i])
        bf16[i] = K.bf16_store(x[i])


def test_half_loads_are_exact_for_every_bit_pattern():
    u = np.arange(1 << 16, dtype=np.uint16)
    f16, bf16 = np.empty(u.size, np.float32), np.empty(u.size, np.float32)
    _load_all(u, f16, bf16)
    assert np.array_equal(f16.view(np.uint32), u.view(np.float16).astype(np.float32)
                          .view(np.uint32))
    assert np.array_equal(bf16.view(np.uint32), u.view(BF16).astype(np.float32)
                          .view(np.uint32))


def test_half_stores_round_like_numpy_and_ml_dtypes():
    rng = np.random.default_rng(1)
    edges = [np.arange(c - 3000, c + 3000, dtype=np.int64) for c in
             (0x7F800000, 0xFF800000, 0x33000000, 0x38800000, 0x477FE000, 0x7F7F8000,
              0x00000000, 0x80000000, 0x3F808000)]
    bits = np.concatenate([rng.integers(0, 1 << 32, 400_000)] + edges) & 0xFFFFFFFF
    x = bits.astype(np.uint32).view(np.float32)
    f16, bf16 = np.empty(x.size, np.uint16), np.empty(x.size, np.uint16)
    _store_all(x, f16, bf16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(f16, x.astype(np.float16).view(np.uint16))
        assert np.array_equal(bf16, x.astype(BF16).view(np.uint16))


# ------------------------------------------------------------------ layout prep
@settings(max_examples=60, deadline=None)
@given(arrays(np.float64), st.booleans())
def test_flat_view_addresses_every_element(a, readonly):
    readonly = readonly or not a.flags.writeable
    flat, off, strides = K.flat_view(a, readonly=readonly)
    idx = np.indices(a.shape).reshape(a.ndim, -1) if a.ndim else np.zeros((0, 1), np.int64)
    pos = off + np.asarray(strides, np.int64) @ idx
    assert same_bits(flat[pos], a.reshape(-1))
    assert flat.ndim == 1 and flat.flags.c_contiguous
    if readonly:
        assert not flat.flags.writeable


def test_flat_view_of_foreign_memory_and_odd_strides():
    buf = bytearray(np.arange(40, dtype=np.float64).tobytes())
    a = np.frombuffer(buf, np.float64).reshape(5, 8)[::-2, 1::3]
    flat, off, strides = K.flat_view(a)
    assert flat[off + strides[0] * 2 + strides[1]] == a[2, 1]
    odd = np.ndarray((3,), np.float32, buffer=np.zeros(16, np.uint8), offset=1, strides=(5,))
    assert K.flat_view(odd) is None
    with pytest.raises(ValueError, match="read-only"):
        K.flat_view(np.broadcast_to(np.zeros(3), (2, 3)))


def _visited(shape, strides, offsets):
    """Sorted tuples of the positions all operands address, over every index of shape."""
    idx = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), np.int64)
    cols = [o + np.asarray(st_, np.int64) @ idx for st_, o in zip(strides, offsets)]
    return sorted(zip(*(c.tolist() for c in cols)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=6).map(tuple), st.data())
def test_plan_visits_the_same_elements(shape, data):
    """The planned rank-4 layout addresses exactly the original tuples of positions."""
    signs = [data.draw(st.sampled_from([1, -1])) for _ in shape]
    primary = tuple(int(np.prod(shape[i + 1:])) * signs[i] for i in range(len(shape)))
    other = tuple(data.draw(st.sampled_from([0, 1, -1, 3, -7, 40])) for _ in shape)
    offsets = (1000, 500)
    p = K.plan(shape, (primary, other), offsets)
    if p is None:
        assert len(shape) > K.RANK
        return
    shp, sts, offs = p
    assert len(shp) == K.RANK and all(len(s) == K.RANK for s in sts)
    assert all(s >= 0 for n, s in zip(shp, sts[0]) if n > 1)
    assert _visited(shp, sts, offs) == _visited(shape, (primary, other), offsets)


def test_run_split_covers_every_item_once():
    seen = []
    K.run_split(lambda lo, hi: seen.extend(range(lo, hi)), (), 1000, 3)
    assert sorted(seen) == list(range(1000))
    with pytest.raises(ZeroDivisionError):
        K.run_split(lambda lo, hi: 1 / 0, (), 10, 2)

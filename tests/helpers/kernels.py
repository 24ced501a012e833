"""NumPy-level arrays in every layout for the kernel tests: random values (with specials),
layouts (reversed, strided, transposed, broadcast, ...), bit-exact comparison."""
import warnings
import ml_dtypes
import numpy as np
from hypothesis import strategies as st

BF16 = np.dtype(ml_dtypes.bfloat16)
shapes = st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple)



nonempty_shapes = st.lists(st.integers(1, 6), min_size=0, max_size=3).map(tuple)


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


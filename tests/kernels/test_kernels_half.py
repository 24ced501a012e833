"""float16/bfloat16 kernels against NumPy/ml_dtypes computing in float32 and rounding once."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._kernels.elementwise import half
from helpers.kernels import arrays, in_layout, random_values, same_bits, shapes

HALVES = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
NP_OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "divide": np.divide, "maximum": np.maximum, "minimum": np.minimum}
# maximum/minimum of -0.0 and +0.0 may return either (the standard leaves it open; NumPy's
# own SIMD and scalar loops differ)
ZERO_SIGN_FREE = {"maximum", "minimum"}


def reference(op, a, b, dt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NP_OPS[op](a.astype(np.float32), b.astype(np.float32)).astype(dt)


@st.composite
def operands(draw):
    """Two broadcast-compatible operands of one half dtype, in random layouts."""
    dt = draw(st.sampled_from(HALVES))
    shape = draw(shapes)
    # b's shape: a suffix of shape with some dims set to 1 (broadcasting), or shape itself
    k = draw(st.integers(0, len(shape)))
    bshape = tuple(1 if draw(st.booleans()) else n for n in shape[len(shape) - k:])
    a = draw(arrays(dt, shape))
    b = draw(arrays(dt, bshape))
    if draw(st.booleans()):
        a, b = b, a
    return dt, a, b


@settings(max_examples=80, deadline=None)
@given(operands(), st.sampled_from(tuple(NP_OPS)), st.sampled_from(["C", "F", "reversed"]))
def test_binary_matches_float32_then_round(ops, op, out_layout):
    dt, a, b = ops
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = in_layout(np.zeros(shape, dt), {"C": "contiguous", "F": "transposed",
                                           "reversed": "reversed"}[out_layout])
    r = half.binary(op, a, b, out)
    assert r is out
    assert same_bits(out, reference(op, a, b, dt), op not in ZERO_SIGN_FREE)


@pytest.mark.parametrize("dt", HALVES, ids=str)
@pytest.mark.parametrize("op", ["add", "maximum"])
def test_binary_large_threaded_and_strided(dt, op):
    """Above the thread threshold, with a reversed and a transposed operand."""
    rng = np.random.default_rng(3)
    n = 1100
    a = random_values(dt, (n, n), rng)[::-1]
    b = np.ascontiguousarray(random_values(dt, (n, n), rng).T).T
    out = np.empty((n, n), dt)
    half.binary(op, a, b, out)
    assert same_bits(out, reference(op, a, b, dt), op not in ZERO_SIGN_FREE)
    half.binary(op, a, b[0], out)  # a broadcast row
    assert same_bits(out, reference(op, a, b[0], dt), op not in ZERO_SIGN_FREE)


@pytest.mark.parametrize("dt", HALVES, ids=str)
def test_binary_special_values_every_pair(dt):
    """Every pair of a set of special and boundary values (overflow, underflow, NaN, ties)."""
    info = ml_dtypes.finfo(dt)
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, float(info.max),
                     float(info.smallest_subnormal), float(info.smallest_normal), 3.0, 0.1,
                     -float(info.max), 65504.0, 1e-8, 7.0e4], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vals = vals.astype(dt)
    a, b = np.meshgrid(vals, vals)
    for op in NP_OPS:
        out = np.empty(a.shape, dt)
        half.binary(op, a, b, out)
        assert same_bits(out, reference(op, a, b, dt), op not in ZERO_SIGN_FREE), op


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HALVES), st.data())
def test_conversions_round_trip_bits(dt, data):
    a = data.draw(arrays(dt))
    f = half.to_float32(a)
    assert f.dtype == np.float32 and f.flags.c_contiguous
    assert same_bits(f, a.astype(np.float32))
    x = data.draw(arrays(np.float32, a.shape))
    h = half.from_float32(x, dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert same_bits(h, x.astype(dt))
    out = in_layout(np.zeros(a.shape, np.float32), "reversed")
    half.convert_into(out, a)
    assert same_bits(out, a.astype(np.float32))


def test_conversion_keeps_nan_payloads_like_numpy():
    u = np.arange(0x7C00, 0x8000, dtype=np.uint16)  # infinities and every NaN payload
    for bits in (u, u | 0x8000):
        f = half.to_float32(bits.view(np.float16))
        assert np.array_equal(f.view(np.uint32),
                              bits.view(np.float16).astype(np.float32).view(np.uint32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = (np.arange(1 << 12, dtype=np.uint32) * 4099 + 0x7F800001).view(np.float32)
        assert np.array_equal(half.from_float32(x, np.float16).view(np.uint16),
                              x.astype(np.float16).view(np.uint16))
        assert np.array_equal(half.from_float32(x, ml_dtypes.bfloat16).view(np.uint16),
                              x.astype(ml_dtypes.bfloat16).view(np.uint16))


def test_mixed_dtypes_are_refused():
    with pytest.raises(TypeError):
        half.binary("add", np.ones(3, np.float16), np.ones(3, np.float32),
                    np.empty(3, np.float16))


def test_flat_entry_point_and_many_dims():
    """binary_flat directly, and a 6-d broadcast that does not coalesce to rank 4."""
    rng = np.random.default_rng(0)
    a = random_values(np.float16, (2, 3, 2, 3, 2, 3), rng)[:, ::-1, :, ::2, :, ::-1]
    b = random_values(np.float16, (2, 1, 2, 1, 2, 1), rng)
    out = np.empty(a.shape, np.float16)
    half.binary("multiply", a, b, out)
    assert same_bits(out, reference("multiply", a, b, np.float16))
    x = np.arange(6, dtype=np.float16)
    o = np.zeros(3, np.float16)
    half.binary_flat("add", (3,), x.view(np.uint16), 0, (2,), x.view(np.uint16), 5, (-1,),
                     o.view(np.uint16), 0, (1,))
    assert np.array_equal(o, x[0::2] + x[5:2:-1])

"""Integer matmul against NumPy (exact, wrapping); the half products against float32 BLAS."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._engines import gates
from flexarray._engines import matmul as matmul_engine
from flexarray._kernels.linalg import matmul as matmul_kernels
from helpers.kernels import arrays, random_values, same_bits

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
LAYOUTS = ("contiguous", "reversed", "transposed", "strided", "broadcast", "sliced")


def int_matmul(a, b, dtype=None, nthreads=1):
    """The kernel's ``a @ b`` in ``dtype`` (default: NumPy's result type), into zeros of
    the product's shape, as its engine calls it."""
    dt = np.dtype(dtype) if dtype is not None else np.result_type(a.dtype, b.dtype)
    a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + a.shape[-2:-1] + \
        (b.shape[-1:] if b.ndim > 1 else ())
    return matmul_kernels.int_matmul(a, b, np.zeros(shape, dt), nthreads)


@st.composite
def matmul_shapes(draw):
    """Shapes of ``a`` and ``b`` for ``a @ b``: 1-D operands and broadcast batch dims."""
    m, k, n = (draw(st.integers(0 if i == 1 else 1, 9)) for i in range(3))
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    ab = [1 if draw(st.booleans()) else d for d in batch]
    bb = [1 if draw(st.booleans()) else d for d in batch][draw(st.integers(0, len(batch))):]
    a = (k,) if draw(st.integers(0, 4)) == 0 else tuple(ab) + (m, k)
    b = (k,) if draw(st.integers(0, 4)) == 0 else tuple(bb) + (k, n)
    return a, b


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(INTS), matmul_shapes(), st.data())
def test_int_matmul_matches_numpy_and_wraps(dtype, shapes, data):
    a = data.draw(arrays(dtype, shapes[0], layouts=LAYOUTS))
    b = data.draw(arrays(dtype, shapes[1], layouts=LAYOUTS))
    got = int_matmul(a, b)
    ref = np.matmul(a, b)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    assert np.array_equal(got, ref)


def test_int_matmul_large_panels_and_threads():
    """Crosses the k and n panel sizes and the row blocks, on threads; mixed dtypes."""
    rng = np.random.default_rng(11)
    a = random_values(np.int32, (70, 300), rng)[::-1]
    b = random_values(np.int32, (300, 600), rng)
    assert np.array_equal(int_matmul(a, b, nthreads=2), a @ b)
    c = random_values(np.int16, (300, 50), rng)
    assert np.array_equal(int_matmul(a, c, nthreads=2), a @ c)  # promoted like NumPy
    assert np.array_equal(int_matmul(a, c, np.int64, 2), a.astype(np.int64) @ c)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=str)
def test_half_matmul_rounds_float32_blas_once(dtype, monkeypatch):
    """The engine's half product (from gates.HALF_MATMUL_KERNEL_MIN: the half kernels'
    conversions around float32 BLAS)."""
    monkeypatch.setattr(gates, "HALF_MATMUL_KERNEL_MIN", 0)
    rng = np.random.default_rng(12)
    a = random_values(dtype, (2, 30, 40), rng, special=False)
    b = random_values(dtype, (40, 20), rng, special=False).T.copy().T
    got = matmul_engine.product(a, b, np.dtype(dtype))
    ref = np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(dtype)
    assert got.dtype == np.dtype(dtype) and same_bits(got, ref)

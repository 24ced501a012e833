"""argmax/argmin against NumPy: first index on ties, the first NaN wins, any layout."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._kernels import argminmax as A
from test_kernels_common import arrays, random_values

BF16 = np.dtype(ml_dtypes.bfloat16)
# each dtype compiles its own kernels (~1.3 s each, cold): a float, an int, the halves, bool
DTYPES = [np.float32, np.int8, np.float16, BF16, np.bool_]
nonempty = st.lists(st.integers(1, 7), min_size=0, max_size=3).map(tuple)


def reference(name, a, axis):
    # NumPy's own bfloat16 comparisons misplace NaN: compare as float32 (exact)
    x = a.astype(np.float32) if a.dtype == BF16 else a
    return getattr(np, name)(x, axis=axis)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(DTYPES), st.sampled_from(["argmax", "argmin"]), st.data())
def test_argminmax_matches_numpy(dtype, name, data):
    # small integer ranges make ties common
    a = data.draw(arrays(dtype, nonempty, small_ints=True))
    axis = data.draw(st.sampled_from([None] + list(range(a.ndim))))
    got = getattr(A, name)(a, axis)
    ref = reference(name, a, axis)
    assert isinstance(got, np.ndarray) and got.dtype == np.int64
    assert got.shape == np.shape(ref)
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_outer_mode_blocks_ties_and_nans(name):
    """Axis 0 of C arrays (column scans in blocks of rows): records found in later blocks,
    ties across blocks, increasing columns (a new record in every block), NaN anywhere."""
    rng = np.random.default_rng(9)
    a = rng.integers(0, 5, (300, 700)).astype(np.float32)
    a[:, 1] = np.arange(300)          # increasing: argmax is the last row
    a[:, 2] = -np.arange(300)         # decreasing: argmin is the last row
    a[250, 3] = np.nan
    a[40, 3] = np.nan                 # the first NaN wins
    a[299, 4] = np.nan
    a[:, 5] = 7.0                     # all equal: index 0
    for v in (a, a[::-1], a[:, ::-2]):
        assert np.array_equal(getattr(A, name)(v, 0), getattr(np, name)(v, axis=0))
    big = random_values(np.float16, (700, 600), rng)  # threads; float16 values
    assert np.array_equal(getattr(A, name)(big, 0), getattr(np, name)(big, axis=0))
    assert np.array_equal(getattr(A, name)(big.T, 1), getattr(np, name)(big.T, axis=1))


def test_inner_mode_long_strided_rows():
    rng = np.random.default_rng(10)
    a = rng.integers(-3, 3, (5, 3001)).astype(np.float64)[:, ::-2]  # lanes and a tail
    a[2, 700] = np.nan
    for name in ("argmax", "argmin"):
        assert np.array_equal(getattr(A, name)(a, 1), getattr(np, name)(a, axis=1))
        assert getattr(A, name)(a, None) == getattr(np, name)(a)


def test_complex_is_refused():
    with pytest.raises(TypeError):
        A.argmax(np.ones(3, np.complex64), 0)


def test_empty_axis_raises_and_empty_output():
    with pytest.raises(ValueError):
        A.argmax(np.zeros((3, 0)), 1)
    assert A.argmin(np.zeros((0, 4)), 1).shape == (0,)
    assert A.argmax(np.float32(3) * np.ones(()), None) == 0

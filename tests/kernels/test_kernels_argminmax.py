"""argmax/argmin against NumPy: first index on ties, the first NaN wins, any layout."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._kernels.reductions import argminmax as argminmax_kernels
from helpers.kernels import arrays, random_values

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
    got = getattr(argminmax_kernels, name)(a, axis)
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
        assert np.array_equal(getattr(argminmax_kernels, name)(v, 0), getattr(np, name)(v, axis=0))
    big = random_values(np.float16, (700, 600), rng)  # threads; float16 values
    assert np.array_equal(getattr(argminmax_kernels, name)(big, 0), getattr(np, name)(big, axis=0))
    assert np.array_equal(getattr(argminmax_kernels, name)(big.T, 1), getattr(np, name)(big.T, axis=1))


def test_inner_mode_long_strided_rows():
    rng = np.random.default_rng(10)
    a = rng.integers(-3, 3, (5, 3001)).astype(np.float64)[:, ::-2]  # lanes and a tail
    a[2, 700] = np.nan
    for name in ("argmax", "argmin"):
        assert np.array_equal(getattr(argminmax_kernels, name)(a, 1), getattr(np, name)(a, axis=1))
        assert getattr(argminmax_kernels, name)(a, None) == getattr(np, name)(a)


def test_complex_is_refused():
    with pytest.raises(TypeError):
        argminmax_kernels.argmax(np.ones(3, np.complex64), 0)


def test_empty_axis_raises_and_empty_output():
    with pytest.raises(ValueError):
        argminmax_kernels.argmax(np.zeros((3, 0)), 1)
    assert argminmax_kernels.argmin(np.zeros((0, 4)), 1).shape == (0,)
    assert argminmax_kernels.argmax(np.float32(3) * np.ones(()), None) == 0


# --- runs mode: the axis is contiguous (element stride +-1) -----------------------------------
RUN_LENGTHS = [1, 63, 64, 65, 2047, 2048, 2049, 5000]  # around _FIND and _CHUNK


def run_views(base):
    """Views of 2-D ``base`` whose axis 1 is a contiguous run: plain, reversed, rows with
    a negative or strided outer step, overlapping windows (rows one element apart), a
    read-only copy."""
    ro = base.copy()
    ro.flags.writeable = False
    flat = base.reshape(-1)
    n = base.shape[1]
    windows = np.lib.stride_tricks.as_strided(flat, (base.size - n + 1, n),
                                              (flat.itemsize, flat.itemsize), writeable=False)
    return {"plain": base, "reversed": base[:, ::-1], "rows reversed": base[::-1],
            "rows strided": base[::2], "both reversed": base[::-2, ::-1], "windows": windows,
            "read-only": ro}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.float16,
                                   BF16, np.bool_])
def test_runs_mode_matches_numpy(dtype):
    rng = np.random.default_rng(11)
    for n in RUN_LENGTHS:
        base = random_values(dtype, (5, n), rng, small_ints=True)
        if np.dtype(dtype).kind == "f" and n > 1:  # NaN placements: first, last, two NaNs
            base[1, 0] = np.nan
            base[2, n - 1] = np.nan
            base[3, n // 2] = np.nan
            base[3, n // 3] = np.nan
        for name, v in run_views(base).items():
            for op in ("argmax", "argmin"):
                got = getattr(argminmax_kernels, op)(v, 1)
                assert np.array_equal(got, reference(op, v, 1)), (dtype, n, name, op)
                got = getattr(argminmax_kernels, op)(v, None)
                assert got == reference(op, v, None), (dtype, n, name, op)


@pytest.mark.parametrize("nthreads", [2, 3])
def test_runs_mode_threads_and_segments(nthreads, monkeypatch):
    """Long runs cut into segments on threads: the first extreme wins across segments
    (ties and NaNs placed in later segments, a run of the extreme across a boundary)."""
    monkeypatch.setattr(argminmax_kernels, "RUNS_PARALLEL_MIN", 0)
    monkeypatch.setattr(argminmax_kernels, "threads_for", lambda work, gate:
                        nthreads if gate is not None and work >= gate else 1)
    rng = np.random.default_rng(12)
    a = rng.integers(-50, 50, (2, 70001)).astype(np.float32)
    a[0, 9000:9100] = 60        # a run across a segment boundary
    a[0, 50000] = 60            # a later tie
    a[1, 65000] = np.nan        # NaN only in the last segment
    a[1, 40000] = -60
    for v in (a, a[:, ::-1], a[:1], a[1:]):
        for op in ("argmax", "argmin"):
            assert np.array_equal(getattr(argminmax_kernels, op)(v, 1), getattr(np, op)(v, axis=1))
            assert getattr(argminmax_kernels, op)(v, None) == getattr(np, op)(v)
    h = a.astype(np.float16)  # segments' candidates compared as float32
    for op in ("argmax", "argmin"):
        assert np.array_equal(getattr(argminmax_kernels, op)(h, 1), getattr(np, op)(h, axis=1))
    many = rng.standard_normal((64, 3000)).astype(np.float32)  # rows on threads
    assert np.array_equal(argminmax_kernels.argmin(many, 1), np.argmin(many, axis=1))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.float32, np.int8, BF16]), st.sampled_from(["argmax", "argmin"]),
       st.integers(1, 300), st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_runs_mode_random_rows(dtype, name, n, seed, rev, nan):
    rng = np.random.default_rng(seed)
    a = random_values(dtype, (3, n), rng, small_ints=True, special=nan)
    v = a[::-1, ::-1] if rev else a
    assert np.array_equal(getattr(argminmax_kernels, name)(v, 1), reference(name, v, 1))


def test_runs_mode_empty_and_zero_rows():
    with pytest.raises(ValueError):
        argminmax_kernels.argmax(np.zeros((3, 0), np.float32), 1)
    assert argminmax_kernels.argmax(np.zeros((0, 5), np.float32), 1).shape == (0,)
    assert argminmax_kernels.argmin(np.zeros((2, 0, 5), np.float32), 2).shape == (2, 0)

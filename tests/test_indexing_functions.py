"""take and take_along_axis against NumPy and plain loops, over random layouts."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import flexarray as xp
from helpers.strategies import INT_DTYPES, arrays, assert_bits, fx


@st.composite
def index_arrays(draw, n, shape):
    """(flexarray indices, NumPy indices) in ``[-n, n)`` of a random integer dtype/layout."""
    def pool(d):
        info = np.iinfo(d)
        if n == 0:
            return np.zeros(1, d)
        return np.arange(max(-n, info.min), n, dtype=np.int64).astype(d)
    return draw(arrays(dtypes=INT_DTYPES, shape=shape, pool=pool))


@settings(max_examples=80)
@given(data=st.data())
def test_take(data):
    x, ref = data.draw(arrays(min_dims=1, max_dims=3))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = ref.shape[axis]
    k = data.draw(st.integers(0, 6)) if n else 0
    idx, iref = data.draw(index_arrays(n, (k,)))
    expected = np.stack([np.take(ref, int(i) % n, axis=axis) for i in iref], axis=axis % x.ndim
                        ) if k and n else np.take(ref, np.zeros(0, np.intp), axis=axis)
    if x.ndim == 1 and data.draw(st.booleans()):
        r = xp.take(x, idx)
    else:
        r = xp.take(x, idx, axis=axis)
    assert_bits(r, expected)
    if n:
        for bad in (n, -n - 1):
            bi = fx(np.array([0, bad]))
            with pytest.raises(IndexError, match=rf"take: index {bad} in 'indices' is out of "
                                                 rf"bounds for an axis of size {n}; allowed: "
                                                 rf"{-n} <= index < {n}"):
                xp.take(x, bi, axis=axis)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_take_gather_kernel_matches_numpy(data):
    """The Numba gather (flexarray._kernels.copy.gather) on every dtype and axis, forced on for
    small arrays; non-contiguous inputs take NumPy's path and must agree too."""
    from flexarray._engines import gates
    x, ref = data.draw(arrays(min_dims=1, max_dims=4))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = ref.shape[axis]
    k = data.draw(st.integers(0, 9)) if n else 0
    idx, iref = data.draw(index_arrays(n, (k,)))
    saved, gates.GATHER_KERNEL_MIN_BYTES = gates.GATHER_KERNEL_MIN_BYTES, 0
    try:
        r = xp.take(x, idx, axis=axis)
    finally:
        gates.GATHER_KERNEL_MIN_BYTES = saved
    assert_bits(r, np.take(ref, iref.astype(np.intp), axis=axis))


@pytest.mark.parametrize("dtype", ["float32", "complex128", "bool", "float16"])
def test_take_large_gathers_on_threads(dtype):
    from flexarray._engines import gates
    from flexarray._kernels.copy import gather
    from flexarray._threads import threads_for
    rng = np.random.default_rng(5)
    ref = (rng.standard_normal((64, 3000, 3)) * 4).astype(dtype)
    iref = rng.integers(-3000, 3000, 2000)
    assert 64 * 2000 * 3 >= gates.GATHER_THREADS_MIN / 8  # several thread pieces per row block
    r = xp.take(xp.asarray(ref), xp.asarray(iref), axis=1)  # rows of 3: NumPy's take
    assert_bits(r, np.take(ref, iref, axis=1))
    out = np.empty((64, 2000, 3), ref.dtype)  # the kernel's rows path, called directly
    nthreads = threads_for(gather.work(out), gates.GATHER_THREADS_MIN)
    assert_bits(xp.asarray(gather.take(ref, iref % 3000, 1, out, nthreads)),
                np.take(ref, iref, axis=1))
    r = xp.take(xp.asarray(ref[:, :, 0].copy()), xp.asarray(iref), axis=1)  # the kernel
    assert_bits(r, np.take(ref[:, :, 0], iref, axis=1))
    flat = ref.reshape(-1)
    iflat = rng.integers(0, flat.size, gates.GATHER_THREADS_MIN + 7)
    assert_bits(xp.take(xp.asarray(flat), xp.asarray(iflat)), flat[iflat])


@st.composite
def along_axis_case(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    ishape = [n if draw(st.booleans()) else 1 for n in shape]
    xshape = list(shape)
    for i in range(len(shape)):  # the other axes broadcast: either side may be 1
        if ishape[i] != 1 and draw(st.booleans()):
            xshape[i] = 1
    ishape[axis] = draw(st.integers(0, 4))
    return tuple(xshape), tuple(ishape), axis


@settings(max_examples=80)
@given(case=along_axis_case(), data=st.data())
def test_take_along_axis(case, data):
    check_take_along_axis(case, data)


@settings(max_examples=80, deadline=None)  # (a first call may compile the row kernel)
@given(case=st.tuples(st.integers(2, 5), st.integers(1, 6)).map(lambda s: (s, s, -1)),
       data=st.data(), standin=st.booleans())
def test_take_along_axis_by_the_row_kernel(case, data, standin):
    """Every 2-D gather along the last axis by the row kernel (its gate at 0), or by its
    stand-in while it compiles, whatever the layouts and dtypes."""
    from flexarray._engines import gates
    from flexarray._kernels.copy import gather
    old, gates.GATHER_ALONG_KERNEL_MIN_BYTES = gates.GATHER_ALONG_KERNEL_MIN_BYTES, 0
    ready = gather.ready
    if standin:
        gather.ready = lambda *a: False
    try:
        check_take_along_axis(case, data)
    finally:
        gates.GATHER_ALONG_KERNEL_MIN_BYTES = old
        gather.ready = ready


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float32, np.float64,
                                   np.complex128])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_take_along_axis_of_large_rows_on_threads(dtype, layout):
    from flexarray._engines import gates
    rng = np.random.default_rng(3)
    rows, n = 64, gates.GATHER_THREADS_MIN // 64 + 5
    base = (rng.standard_normal((rows, 2 * n)) * 100).astype(dtype)
    a = {"C": base[:, :n].copy(), "F": np.asfortranarray(base[:, :n]),
         "strided": base[:, ::2]}[layout]
    i = rng.integers(-n, n, (rows, n))
    assert_bits(xp.take_along_axis(xp.asarray(a), xp.asarray(i), axis=-1),
                np.take_along_axis(a, i % n, axis=-1))


def check_take_along_axis(case, data):
    xshape, ishape, axis = case
    x, ref = data.draw(arrays(shape=xshape))
    n = xshape[axis]
    if n == 0:
        ishape = tuple(0 if i == axis % len(xshape) else s for i, s in enumerate(ishape))
    idx, iref = data.draw(index_arrays(n, ishape))
    ax = axis % len(xshape)
    out_shape = tuple(b if i == ax or a == 1 else a  # broadcast, except along the axis
                      for i, (a, b) in enumerate(zip(xshape, ishape)))
    expected = np.empty(out_shape, ref.dtype)
    for pos in np.ndindex(*out_shape):  # a plain loop over the output
        ipos = tuple(0 if ishape[i] == 1 else p for i, p in enumerate(pos))
        j = int(iref[ipos]) % n
        xpos = tuple(j if i == ax else (0 if xshape[i] == 1 else p) for i, p in enumerate(pos))
        expected[pos] = ref[xpos]
    kw = {} if axis == -1 and data.draw(st.booleans()) else {"axis": axis}
    assert_bits(xp.take_along_axis(x, idx, **kw), expected)
    if n and idx.size:
        bad = np.array(iref, np.int64)
        bad[(0,) * bad.ndim] = -n - 1
        with pytest.raises(IndexError, match=rf"take_along_axis: index {-n - 1} in 'indices' is "
                                             rf"out of bounds for an axis of size {n}"):
            xp.take_along_axis(x, fx(bad), axis=axis)


def test_take_indices_of_unsigned_and_narrow_dtypes():
    x = fx(np.arange(300.0))
    assert_bits(xp.take(x, fx(np.array([255, 0, 299], np.uint16))), np.array([255.0, 0, 299]))
    assert_bits(xp.take(x, fx(np.array([-1, -128], np.int8))), np.array([299.0, 172]))
    with pytest.raises(IndexError, match=r"index 18446744073709551615 in 'indices'"):
        xp.take(x, fx(np.array([2**64 - 1], np.uint64)))


def test_results_are_fresh_values():
    base = np.arange(6.0).reshape(2, 3)
    x = fx(base)
    r = xp.take(x, fx(np.array([0, 1])), axis=1)
    r[...] = -1.0
    assert_bits(x, base)


x23 = fx(np.zeros((2, 3)))
i2 = fx(np.array([0, 1]))

BAD = [
    (lambda: xp.take(x23, i2), ValueError, r"take: 'axis' is required for an array of 2 "
     r"dimensions \(shape \(2, 3\)\); it may be omitted only for 1-D arrays"),
    (lambda: xp.take(x23, fx(np.array([0.0])), axis=0), TypeError, r"take: 'indices' must have "
     r"an integral dtype, got float64; allowed: int8, "),
    (lambda: xp.take(x23, fx(np.array([True])), axis=0), TypeError, r"take: 'indices' must have "
     r"an integral dtype, got bool"),
    (lambda: xp.take(x23, fx(np.zeros((1, 1), np.int64))), ValueError, r"take: 'indices' must "
     r"be 1-D, got shape \(1, 1\)"),
    (lambda: xp.take(x23, [0, 1], axis=0), TypeError, r"take: 'indices' must be a flexarray "
     r"array, got list"),
    (lambda: xp.take(np.zeros(3), i2), TypeError, r"take: 'x' must be a flexarray array"),
    (lambda: xp.take(fx(np.float64(1.0)), i2), ValueError, r"take: 'x' must have at least one "
     r"dimension"),
    (lambda: xp.take(x23, i2, axis=2), IndexError, r"take: axis=2 is out of range"),
    (lambda: xp.take(x23, fx(np.array([2])), axis=0), IndexError, r"take: index 2 in 'indices' "
     r"is out of bounds for an axis of size 2"),
    (lambda: xp.take(fx(np.zeros(0)), fx(np.array([0]))), IndexError, r"index 0 .* axis of "
     r"size 0"),
    (lambda: xp.take_along_axis(x23, i2), ValueError, r"take_along_axis: 'indices' must have as "
     r"many dimensions as 'x' \(2\), got shape \(2,\)"),
    (lambda: xp.take_along_axis(x23, fx(np.zeros((3, 1), np.int64))), ValueError,
     r"take_along_axis: 'x' and 'indices' \(without the axis\) of shapes \(2,\), \(3,\) cannot "
     r"be broadcast together"),
    (lambda: xp.take_along_axis(x23, fx(np.zeros((2, 1), np.int64)), axis=2), IndexError,
     r"take_along_axis: axis=2 is out of range"),
    (lambda: xp.take_along_axis(x23, fx(np.full((2, 1), 3)), axis=1), IndexError,
     r"take_along_axis: index 3 in 'indices' is out of bounds for an axis of size 3"),
    (lambda: xp.take_along_axis(x23, fx(np.zeros((2, 1)))), TypeError,
     r"take_along_axis: 'indices' must have an integral dtype"),
    (lambda: xp.take_along_axis(fx(np.float64(1.0)), fx(np.int64(0))), ValueError,
     r"take_along_axis: 'x' must have at least one dimension"),
]


@pytest.mark.parametrize("call,exc,message", BAD, ids=[re.sub(r"\W+", "_", m[:40]) for *_, m
                                                        in BAD])
def test_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_take_with_a_python_int_drops_the_axis_as_numpy():
    """A Python (or NumPy) int index, beyond the standard: NumPy's meaning (cubed calls
    ``take(a, 0, axis=...)``)."""
    a = np.arange(24.0).reshape(2, 3, 4)
    x = xp.asarray(a)
    for axis in (0, 1, 2, -1):
        for i in (0, 1, -1, np.int64(-2)):
            r = xp.take(x, i, axis=axis)
            np.testing.assert_array_equal(np.asarray(r), np.take(a, i, axis=axis))
    assert float(xp.take(xp.asarray(a[0, 0]), 2)) == 2.0
    with pytest.raises(IndexError, match="out of bounds"):
        xp.take(x, 3, axis=1)
    with pytest.raises(TypeError, match="'indices' must be a flexarray array, got bool"):
        xp.take(x, True, axis=1)


def test_take_rows_go_to_numpy_and_elements_to_the_kernel(monkeypatch):
    """Both sides of the gather gate's row rule: take(x, idx, axis=0) of a 2-D x copies rows
    with NumPy; along the last axis the kernel gathers elements. Same results."""
    from flexarray._engines import gates
    from flexarray._kernels.copy import gather
    calls = []
    real = gather.take
    monkeypatch.setattr(gather, "take", lambda *a: calls.append(a[2]) or real(*a))
    monkeypatch.setattr(gates, "GATHER_KERNEL_MIN_BYTES", 0)
    rng = np.random.default_rng(3)
    ref = rng.standard_normal((50, 7))
    for axis, idx in ((0, rng.permutation(50)), (1, rng.integers(-7, 7, 30))):
        r = xp.take(xp.asarray(ref), xp.asarray(idx), axis=axis)
        assert_bits(r, np.take(ref, idx, axis=axis))
    assert calls == [1]

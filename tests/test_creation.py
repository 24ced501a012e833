"""Creation functions against NumPy, and their argument checks."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexarray as xp
from helpers.strategies import DTYPES, shapes, to_np


def same(x, expected, dtype=None):
    r = to_np(x)
    assert r.shape == expected.shape
    assert r.dtype == (expected.dtype if dtype is None else dtype)
    np.testing.assert_array_equal(r, expected)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, name=st.sampled_from(sorted(DTYPES)))
def test_filled_arrays(shape, name):
    d, n = DTYPES[name]
    same(xp.zeros(shape, dtype=d), np.zeros(shape, n))
    same(xp.ones(shape, dtype=d), np.ones(shape, n))
    assert xp.empty(shape, dtype=d).shape == shape
    fill = True if name == "bool" else 3
    same(xp.full(shape, fill, dtype=d), np.full(shape, fill, n))
    x = xp.ones(shape, dtype=d)
    same(xp.zeros_like(x), np.zeros(shape, n))
    same(xp.ones_like(x, dtype=xp.float32), np.ones(shape, np.float32))
    same(xp.full_like(x, fill), np.full(shape, fill, n))
    assert xp.empty_like(x).dtype is d


def test_default_dtypes():
    assert xp.zeros(2).dtype is xp.float64
    assert xp.full(2, 1).dtype is xp.int64
    assert xp.full(2, 1.0).dtype is xp.float64
    assert xp.full(2, 1j).dtype is xp.complex128
    assert xp.full(2, False).dtype is xp.bool
    assert xp.asarray([1, 2.5]).dtype is xp.float64
    assert xp.asarray([[True], [False]]).dtype is xp.bool
    assert xp.arange(3).dtype is xp.int64 and xp.arange(3.0).dtype is xp.float64


@given(st.lists(st.integers(-2**64, 2**64) | st.floats() | st.booleans(), min_size=1,
                max_size=6))
def test_asarray_of_flat_lists(values):
    """Flat lists of Python scalars (the fast path for all-float and all-int lists, and the
    general one): the standard's default dtypes, exact values, OverflowError past int64."""
    kinds = {type(v) for v in values}
    if kinds == {bool}:
        want = np.bool_
    elif float in kinds:
        want = np.float64
    else:
        want = np.int64
        if any(not -2**63 <= v < 2**63 for v in values):
            with pytest.raises(OverflowError, match="out of range for int64"):
                xp.asarray(values)
            return
    r = np.asarray(xp.asarray(values))
    assert r.dtype == want
    np.testing.assert_array_equal(r, np.array(values, dtype=want))


@settings(max_examples=150, deadline=None)
@given(start=st.integers(-20, 20), stop=st.integers(-20, 20) | st.none(),
       step=st.integers(-5, 5).filter(bool))
def test_arange_integers(start, stop, step):
    args = (start,) if stop is None else (start, stop, step)
    same(xp.arange(*args) if stop is None else xp.arange(start, stop, step),
         np.arange(*args, dtype=np.int64))


@settings(max_examples=100, deadline=None)
@given(start=st.floats(-10, 10), stop=st.floats(-10, 10), step=st.floats(0.1, 3))
def test_arange_floats(start, stop, step):
    r = to_np(xp.arange(start, stop, step))
    assert r.shape[0] == max(math.ceil((stop - start) / step), 0)
    np.testing.assert_allclose(r, start + np.arange(r.shape[0]) * step)


@settings(max_examples=100, deadline=None)
@given(start=st.floats(-1e3, 1e3), stop=st.floats(-1e3, 1e3), num=st.integers(0, 30),
       endpoint=st.booleans())
def test_linspace(start, stop, num, endpoint):
    r = to_np(xp.linspace(start, stop, num, endpoint=endpoint))
    np.testing.assert_allclose(r, np.linspace(start, stop, num, endpoint=endpoint),
                               rtol=1e-12, atol=1e-9)
    c = to_np(xp.linspace(1j, 2 + 3j, 5, dtype=xp.complex64))
    np.testing.assert_allclose(c, np.linspace(1j, 2 + 3j, 5), rtol=1e-6)


@pytest.mark.parametrize("n,m,k", [(3, None, 0), (2, 5, 1), (4, 3, -2), (0, 2, 0), (3, 3, 7)])
def test_eye(n, m, k):
    same(xp.eye(n, m, k=k, dtype=xp.int32), np.eye(n, m, k=k, dtype=np.int32))


@pytest.mark.parametrize("k", [-2, 0, 1, 5])
def test_tril_triu(k):
    a = np.arange(24.0).reshape(2, 3, 4)
    same(xp.tril(xp.asarray(a), k=k), np.tril(a, k))
    same(xp.triu(xp.asarray(a)[:, ::-1], k=k), np.triu(a[:, ::-1], k))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(indexing):
    a, b = np.arange(3.0), np.arange(4.0) * 2
    grids = xp.meshgrid(xp.asarray(a), xp.asarray(b), indexing=indexing)
    assert isinstance(grids, tuple)
    for g, e in zip(grids, np.meshgrid(a, b, indexing=indexing)):
        same(g, e)
    g = grids[0]
    with pytest.raises(ValueError, match="read-only"):
        g[0, 0] = 100.0  # the grids are broadcast views (O(1)): a write is refused
    c = xp.asarray(g, copy=True)  # a copy of one is a writable array
    c[0, 0] = 100.0
    assert to_np(g)[0, 0] == 0.0 and to_np(c)[0, 0] == 100.0


def test_asarray_sources():
    nd = np.arange(4, dtype=np.int16)
    x = xp.asarray(nd)
    assert x.dtype is xp.int16 and np.shares_memory(x._arr, nd)
    assert not np.shares_memory(xp.asarray(nd, copy=True)._arr, nd)
    same(xp.asarray([[1, 2], [3, 4]], dtype=xp.uint8), np.array([[1, 2], [3, 4]], np.uint8))
    same(xp.asarray([xp.asarray(1.5), 2]), np.array([1.5, 2.0]))
    same(xp.asarray(3.5), np.array(3.5))
    assert xp.asarray(x, copy=False) is x
    assert xp.asarray(x) is x  # as NumPy's asarray: the array itself
    y = xp.asarray(x, copy=True)
    y[0] = 7
    assert int(x[0]) == 0 and nd[0] == 0  # a copy never writes through
    same(xp.asarray(np.float32(2.0)), np.array(2.0, np.float32))


def test_creation_errors():
    with pytest.raises(ValueError, match="'shape' entries must be >= 0"):
        xp.zeros((2, -1))
    with pytest.raises(TypeError, match="'shape' must be an int or a tuple"):
        xp.ones("3")
    assert xp.zeros(3, dtype=np.float32).dtype is xp.float32  # NumPy spellings are dtypes
    with pytest.raises(TypeError, match="zeros: 'dtype' must be a supported dtype, got "
                                        "<class 'numpy.str_'>"):
        xp.zeros(3, dtype=np.str_)
    with pytest.raises(ValueError, match="'device' must be None"):
        xp.zeros(3, device="gpu")
    with pytest.raises(ValueError, match="'step' must not be 0"):
        xp.arange(0, 5, 0)
    with pytest.raises(TypeError, match="cannot fill a bool array"):
        xp.full(2, 1.5, dtype=xp.bool)  # (an int is taken: nonzero is True, as NumPy's)
    with pytest.raises(OverflowError, match="out of range for int8"):
        xp.full(2, 300, dtype=xp.int8)
    with pytest.raises(OverflowError, match="out of range for uint8"):
        xp.asarray([1, -1], dtype=xp.uint8)
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="rectangular|nested sequence"):
        xp.asarray([[1, 2], [3]])
    with pytest.raises(TypeError, match="Unsupported input of type dict"):
        xp.asarray({"a": 1})
    with pytest.raises(ValueError, match="'num' must be a non-negative int"):
        xp.linspace(0, 1, -1)
    with pytest.raises(ValueError, match="must have at least 2 dimensions"):
        xp.tril(xp.ones(3))


def test_bounds_as_numpy_scalars_and_0d_arrays():
    """Where NumPy, torch and array-api-strict all take them, so does flexarray."""
    same(xp.arange(np.int64(5)), np.arange(5))
    same(xp.arange(xp.asarray(1), xp.asarray(7), np.int32(2)), np.arange(1, 7, 2))
    same(xp.arange(np.float32(0.5), 2.0, 0.5), np.arange(0.5, 2.0, 0.5))
    same(xp.linspace(xp.asarray(0.0), xp.asarray(1.0), 5), np.linspace(0.0, 1.0, 5))
    same(xp.linspace(np.float64(-1), np.array(1.0), np.int64(3)), np.linspace(-1, 1, 3))
    with pytest.raises(TypeError, match="'start' must be a real number"):
        xp.linspace(xp.asarray([0.0, 1.0]), 1.0, 3)
    with pytest.raises(TypeError, match="'stop' must be a real number"):
        xp.arange(0, "5")


@pytest.mark.parametrize("dtype", [xp.int8, xp.int64, xp.uint16])
@pytest.mark.parametrize("args", [(0, 10, 4), (-7, 13, 6), (3, -3, 7), (0, 5, 5, False)])
def test_linspace_integer_dtypes_as_numpy(dtype, args):
    start, stop, num, *endpoint = args
    if dtype == xp.uint16 and min(start, stop) < 0:
        return
    endpoint = endpoint[0] if endpoint else True
    ref = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.dtype(dtype.name))
    same(xp.linspace(start, stop, num, endpoint=endpoint, dtype=dtype), ref)


@pytest.mark.parametrize("args", [(5,), (1, 7, 2), (2.5, -1.0, -0.5)])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_arange_of_a_complex_dtype_as_numpy(args, dtype):
    same(xp.arange(*args, dtype=getattr(xp, dtype)), np.arange(*args, dtype=dtype))


@pytest.mark.parametrize("kwargs", [{}, {"endpoint": False}, {"base": 2}, {"base": 2.5},
                                    {"dtype": "float32"}, {"num": 0}, {"num": 1}])
def test_logspace_as_numpy(kwargs):
    kwargs = {"num": 7, **kwargs}
    r = xp.logspace(-3, 2, **kwargs)
    expected = np.logspace(-3, 2, **kwargs)
    assert to_np(r).dtype == expected.dtype
    np.testing.assert_allclose(to_np(r), expected, rtol=1e-6 if "dtype" in kwargs else 1e-15)


@pytest.mark.parametrize("k", [-3, -1, 0, 2, 5])
def test_diag_as_numpy(k):
    v = np.arange(1.0, 4.0)
    same(xp.diag(xp.asarray(v), k), np.diag(v, k))
    m = np.arange(20.0).reshape(4, 5)
    x = xp.asarray(m, copy=True)
    d = xp.diag(x, k)
    same(d, np.diag(m, k))
    if d.shape[0]:
        with pytest.raises(ValueError, match="read-only"):  # NumPy's diagonal is read-only
            d[0] = 1.0
    with pytest.raises(ValueError, match="1-D or 2-D"):
        xp.diag(xp.zeros((2, 2, 2)))
@pytest.mark.parametrize("func,args", [("empty_like", ()), ("zeros_like", ()),
                                       ("ones_like", ()), ("full_like", (2.5,))])
def test_like_functions_take_numpys_shape(func, args):
    """``shape``: NumPy's keyword of the *_like functions (cubed's backend passes it)."""
    x = xp.asarray(np.ones((2, 3), np.float32))
    for shape in ((4,), (1, 5, 2), 3):
        r = getattr(xp, func)(x, *args, shape=shape)
        e = getattr(np, func)(np.ones((2, 3), np.float32), *args, shape=shape)
        assert r.shape == e.shape and r.dtype == e.dtype
        if func != "empty_like":
            np.testing.assert_array_equal(np.asarray(r), e)
    with pytest.raises(TypeError, match=f"{func}: 'shape'"):
        getattr(xp, func)(x, *args, shape="3")


def test_asarray_of_python_scalars_default_dtypes_and_range():
    """Python scalars take the default dtypes (bool, int64, float64) as NumPy's asarray
    does; an int beyond int64 raises OverflowError naming asarray."""
    for v, want in ((True, np.bool_), (False, np.bool_), (0, np.int64), (-(1 << 63), np.int64),
                    ((1 << 63) - 1, np.int64), (1.5, np.float64)):
        got = xp.asarray(v)
        assert got.shape == () and got.dtype == np.dtype(want)
        assert np.asarray(got).item() == np.asarray(v, dtype=want).item()
    for v in (1 << 63, -(1 << 63) - 1):
        with pytest.raises(OverflowError, match="asarray"):
            xp.asarray(v)


@pytest.mark.parametrize("obj", [
    [np.float32(1.5), 2], [np.float16(0.5), 2], [np.array([1.5, 2.5], np.float32), [1, 2]],
    [np.array(1.5, np.float32), 1], [np.complex64(1 + 2j), 1.5], [np.int8(3), 4],
    [True, np.bool_(False)], [[np.float32(0.25)], [7]],
])
def test_nested_sequences_with_numpy_values_as_numpy_infers(obj):
    """NumPy scalars and arrays inside a nested sequence keep their values: the dtype is
    NumPy's inference (array-api-strict's too), never the Python ints' int64 beside a
    float32 that was then truncated."""
    expected = np.asarray(obj)
    got = np.asarray(xp.asarray(obj))
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_buffers_give_their_values_by_format_and_shape():
    import array
    a = array.array("d", [1.0, 2.0])
    for obj in (a, memoryview(a)):
        np.testing.assert_array_equal(np.asarray(xp.asarray(obj)), [1.0, 2.0])
        assert xp.asarray(obj).dtype == xp.float64
    assert xp.asarray(memoryview(array.array("i", [1, -2]))).dtype == xp.int32
    m = xp.asarray(memoryview(np.arange(6.0).reshape(2, 3)))
    np.testing.assert_array_equal(np.asarray(m), np.arange(6.0).reshape(2, 3))
    # dtype= converts the values (never reinterprets the bytes)
    np.testing.assert_array_equal(np.asarray(xp.asarray(bytes([1, 2, 3, 4]),
                                                        dtype=xp.float32)), [1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(xp.asarray(memoryview(a), dtype=xp.int64)),
                                  [1, 2])
    x = xp.asarray(a)  # shared, as NumPy's asarray shares a writable buffer
    x[0] = 5.0
    assert a[0] == 5.0
    with pytest.raises(ValueError, match="needs a copy, but copy=False"):
        xp.asarray(bytes([1, 2]), dtype=xp.float32, copy=False)


def test_arange_of_an_integer_dtype_needs_integral_start_and_step():
    with pytest.raises(ValueError, match="arange: an integer dtype \\(int64\\) needs an "
                                         "integral 'step', got 0.5"):
        xp.arange(0, 5, 0.5, dtype=xp.int64)
    with pytest.raises(ValueError, match="integral 'start', got 2.5"):
        xp.arange(2.5, 10, 2, dtype=xp.int32)
    np.testing.assert_array_equal(np.asarray(xp.arange(0, 5.5, 1, dtype=xp.int64)),
                                  np.arange(0, 5.5, 1, dtype=np.int64))
    np.testing.assert_array_equal(np.asarray(xp.arange(0.0, 4.0, 2.0, dtype=xp.int16)),
                                  [0, 2])


def test_shape_may_be_a_0d_integer_array():
    """As NumPy and array-api-strict: ``zeros(asarray(3))`` is ``zeros(3)``."""
    assert xp.zeros(xp.asarray(3)).shape == np.zeros(np.asarray(3)).shape == (3,)
    assert xp.ones((xp.asarray(2), 3)).shape == (2, 3)
    for bad in (xp.asarray(2.5), xp.asarray([2, 3]), xp.asarray(True)):
        with pytest.raises(TypeError, match="zeros: 'shape'"):
            xp.zeros(bad)

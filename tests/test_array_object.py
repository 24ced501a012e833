"""The array object: indexing, operators, protocols and conversions against NumPy."""
import math
import operator
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import flexarray as xp
from helpers.strategies import layouts, shapes, to_np


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=shapes)
def test_getitem_basic_matches_numpy(data, shape):
    v = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    x = data.draw(layouts(v))
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    r = x[key]
    expected = v[key]
    assert r.shape == np.shape(expected)
    np.testing.assert_array_equal(to_np(r), expected)
    if isinstance(expected, np.ndarray):  # a view where NumPy gives one, else a copy
        assert np.shares_memory(r._arr, x._arr) or r.size == 0 or x.size == 0
    else:
        assert not np.shares_memory(r._arr, x._arr)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple))
def test_getitem_integer_and_boolean_arrays_match_numpy(data, shape):
    v = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    x = data.draw(layouts(v))
    if data.draw(st.booleans()):
        mask = data.draw(hnp.arrays(np.bool_, shape))
        key, np_key = xp.asarray(mask), mask
    else:
        idx = data.draw(hnp.arrays(np.int64, st.integers(0, 4),
                                   elements=st.integers(-shape[0], shape[0] - 1)))
        key, np_key = (xp.asarray(idx), Ellipsis), (idx, Ellipsis)
    np.testing.assert_array_equal(to_np(x[key]), v[np_key])


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=shapes)
def test_setitem_matches_numpy_views_see_it_copies_do_not(data, shape):
    v = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = xp.asarray(v, copy=True)
    view, copy = x[...], xp.asarray(x, copy=True)
    key = data.draw(hnp.basic_indices(shape, allow_ellipsis=True))
    value = data.draw(st.floats(-5, 5) | st.integers(-5, 5))
    x[key] = value
    expected = v.copy()
    expected[key] = value
    np.testing.assert_array_equal(to_np(x), expected)
    np.testing.assert_array_equal(to_np(view), expected)
    np.testing.assert_array_equal(to_np(copy), v)


def test_setitem_with_arrays_and_masks():
    v = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(v.copy())
    x[xp.asarray(v > 5)] = -1.0
    x[0] = xp.asarray([9.0, 8.0, 7.0, 6.0])
    x[1:, ::-2] = xp.asarray([[0.5], [1.5]])
    e = v.copy()
    e[v > 5] = -1.0
    e[0] = [9.0, 8.0, 7.0, 6.0]
    e[1:, ::-2] = [[0.5], [1.5]]
    np.testing.assert_array_equal(to_np(x), e)


def test_indexing_errors():
    x = xp.zeros((3, 4))
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="integer or boolean dtype"):
        x[xp.asarray([0.5])]
    with pytest.raises(IndexError, match="valid indices"):
        x["a"]
    with pytest.raises(ValueError):
        x[::0]
    with pytest.raises(TypeError, match="cannot store a Python complex"):
        x[0] = 1j
    with pytest.raises(TypeError, match="cannot store complex128"):
        x[0] = xp.asarray([1j, 2j, 3j, 4j])


@pytest.mark.parametrize("key", [(1, 2), 1, slice(0, 2), (slice(None), 2)])
def test_setitem_of_arrays_stores_only_same_kind_values_every_time(key):
    """The dtype pairs __setitem__ has accepted are remembered (its fast path); a rejected
    pair stays rejected however often it comes, and accepted ones store NumPy's values."""
    x = xp.zeros((3, 4), dtype=xp.float32)
    e = np.zeros((3, 4), np.float32)
    for value, ok in [(xp.asarray(2.5, dtype=xp.float64), True),
                      (xp.asarray(3, dtype=xp.int8), True),
                      (xp.asarray(1j), False), (xp.asarray(True), True),
                      (xp.asarray(7.25, dtype=xp.float32), True)] * 2:
        if ok:
            x[key] = value
            e[key] = np.asarray(value)
        else:
            with pytest.raises(TypeError, match="cannot store complex128"):
                x[key] = value
        np.testing.assert_array_equal(to_np(x), e)
    i = xp.zeros(3, dtype=xp.int16)
    with pytest.raises(TypeError, match="cannot store float64"):
        i[0] = xp.asarray(2.5)  # (float64 into float32 was accepted above: not into int)


BINARY_OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
              "lshift", "rshift"]


@pytest.mark.parametrize("op,dtype", [(op, "int32") for op in BINARY_OPS] +
                         [(op, "float64") for op in BINARY_OPS[:7]])
def test_operators_forward_reflected_inplace(op, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(1, 6, size=(3, 4)).astype(dtype)
    b = rng.integers(1, 4, size=(4,)).astype(dtype)
    x, y = xp.asarray(a), xp.asarray(b)
    f = getattr(operator, op if op not in ("and", "or") else op + "_")
    np.testing.assert_array_equal(to_np(f(x, y)), f(a, b))
    np.testing.assert_array_equal(to_np(f(x, 2)), f(a, a.dtype.type(2)))
    np.testing.assert_array_equal(to_np(f(3, x)), f(a.dtype.type(3), a))
    if op == "truediv" and dtype == "int32":
        with pytest.raises(TypeError, match="in place would change the kind of x.s dtype"):
            x /= y
        return
    z = xp.asarray(a.copy())
    before = z
    z = getattr(operator, "i" + op)(z, y)
    assert z is before
    np.testing.assert_array_equal(to_np(z), f(a, b))


def test_comparisons_unary_and_matmul_operators():
    a = np.arange(6.0).reshape(2, 3) - 2
    x = xp.asarray(a)
    for f in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        np.testing.assert_array_equal(to_np(f(x, 1.0)), f(a, 1.0))
    np.testing.assert_array_equal(to_np(-x), -a)
    np.testing.assert_array_equal(to_np(+x), a)
    np.testing.assert_array_equal(to_np(abs(x)), abs(a))
    np.testing.assert_array_equal(to_np(~xp.asarray([1, 2], dtype=xp.uint8)),
                                  ~np.array([1, 2], np.uint8))
    np.testing.assert_allclose(to_np(x @ x.T), a @ a.T)
    with pytest.raises(ValueError, match="must keep x's shape"):
        y = xp.asarray(a)
        y @= xp.ones((3, 5))


def test_inplace_shape_must_not_grow():
    x = xp.zeros(3)
    with pytest.raises(ValueError, match="differs from x's shape"):
        x += xp.ones((2, 3))


def test_scalar_conversions():
    assert bool(xp.asarray(True)) is True
    assert int(xp.asarray(-7)) == -7 and float(xp.asarray(2.5)) == 2.5
    assert complex(xp.asarray(1 + 2j)) == 1 + 2j
    assert operator.index(xp.asarray(3, dtype=xp.uint8)) == 3
    assert [10, 20, 30][xp.asarray(1)] == 20
    with pytest.raises(TypeError, match="0-d array"):
        bool(xp.ones(2))
    with pytest.raises(TypeError, match="only integer arrays"):
        operator.index(xp.asarray(1.0))
    with pytest.raises(TypeError, match="complex"):
        float(xp.asarray(1j))
    assert math.isnan(float(xp.asarray(math.nan)))
    with pytest.raises(OverflowError):
        int(xp.asarray(math.inf))


def test_attributes_and_namespace():
    x = xp.zeros((2, 3), dtype=xp.int16)
    assert (x.shape, x.ndim, x.size, x.dtype, x.device) == ((2, 3), 2, 6, xp.int16,
                                                            xp.__array_namespace_info__().default_device())
    assert x.T.shape == (3, 2) and x.mT.shape == (3, 2)
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2024.12") is xp
    with pytest.raises(ValueError, match="2025.12"):
        x.__array_namespace__(api_version="2099.01")
    with pytest.raises(ValueError, match="2-D arrays only"):
        xp.zeros(3).T
    assert x.to_device("cpu") is x
    with pytest.raises(ValueError, match="one device"):
        x.to_device("cuda:0")
    assert len(x) == 2 and [r.shape for r in x] == [(3,), (3,)]


def test_repr_like_numpy():
    assert repr(xp.asarray([1, 2, 3])) == "Array([1, 2, 3], dtype=int64)"
    assert repr(xp.asarray([[1.5], [2.0]], dtype=xp.float32)) == (
        "Array([[1.5],\n       [2. ]], dtype=float32)")


def test_dlpack_round_trips_zero_copy_and_shares():
    x = xp.arange(6, dtype=xp.float32)
    n = np.from_dlpack(x)
    assert np.shares_memory(n, x._arr) and n.flags.writeable
    x[0] = 42.0  # an export shares x's elements, as torch's .numpy() does
    assert n[0] == 42.0
    n[1] = -1.0
    assert float(x[1]) == -1.0
    assert x.__dlpack_device__() == (1, 0)
    back = xp.from_dlpack(np.arange(3.0))
    np.testing.assert_array_equal(to_np(back), [0.0, 1.0, 2.0])
    src = np.arange(3.0)
    y = xp.from_dlpack(src)  # an import shares too
    y[0] = 5.0
    assert src[0] == 5.0
    c = xp.from_dlpack(src, copy=True)
    assert not np.shares_memory(c._arr, src)
    b = np.from_dlpack(xp.broadcast_to(xp.arange(2.0), (3, 2)))  # read-only stays so
    assert not b.flags.writeable
    with pytest.raises(TypeError, match="DLPack"):
        xp.from_dlpack([1, 2])


@pytest.mark.torch
def test_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    t = torch.arange(5, dtype=torch.float64)
    x = xp.from_dlpack(t)
    np.testing.assert_array_equal(to_np(x), np.arange(5.0))
    back = torch.from_dlpack(xp.arange(4, dtype=xp.int32))
    assert back.tolist() == [0, 1, 2, 3]


def test_array_protocol():
    x = xp.asarray([1.0, 2.0])
    a = np.asarray(x)
    assert a.flags.writeable and np.shares_memory(a, x._arr)
    a[0] = 5.0
    assert float(x[0]) == 5.0
    c = np.array(x, copy=True)
    assert c.flags.writeable and not np.shares_memory(c, x._arr)
    assert np.asarray(x, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="copy=False"):
        x.__array__(dtype=np.float32, copy=False)


def test_pickle_round_trip():
    x = xp.asarray([[1, 2], [3, 4]], dtype=xp.uint16)[:, ::-1]
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype is xp.uint16
    np.testing.assert_array_equal(to_np(y), to_np(x))


def test_direct_construction_is_refused():
    with pytest.raises(TypeError, match="cannot be constructed directly"):
        xp.Array([1, 2])


def test_format_of_0d_arrays():
    assert f"{xp.asarray(3.14159):.3f}" == f"{3.14159:.3f}"
    assert f"{xp.asarray(7, dtype=xp.int16):05d}" == "00007"
    with pytest.raises(TypeError, match="format spec"):
        f"{xp.asarray([1.0, 2.0]):.2f}"


@pytest.mark.parametrize("a", [np.array([1, 2]), np.array([[1.5, -2.0], [1 / 3, 1e10]]),
                               np.linspace(0, 1, 30), np.arange(2000),
                               np.array([True, False]), np.array([1 + 2j, -0.5j])],
                         ids=["int", "2-D float", "wrapped", "summarized", "bool", "complex"])
def test_format_without_spec_is_numpys_text(a):
    """``f"{x}"`` of an array is NumPy's text of its elements (precision, alignment, line
    wrapping, the summary of large arrays) in ``Array(..., dtype=<name>)``: NumPy's repr
    with the dtype named (NumPy's omits it for these dtypes) and without the shape NumPy
    adds to a summarized array."""
    numpy_text = repr(a)[1:-1].removesuffix(f", shape={a.shape}")
    assert f"{xp.asarray(a)}" == "A" + numpy_text + f", dtype={a.dtype.name})"


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_single_element_arrays_convert_to_python_scalars(shape):
    """As NumPy and torch: bool/int/float/complex of one element of any shape."""
    a = np.full(shape, 2.5)
    x = xp.asarray(a)
    assert (bool(x), int(x), float(x), complex(x)) == (True, 2, 2.5, 2.5 + 0j)
    with pytest.raises(TypeError, match="needs a 0-d array"):
        operator.index(xp.asarray(np.ones(shape, np.int64)))  # NumPy: 0-d only
    with pytest.raises(TypeError, match="single element"):
        bool(xp.asarray([1.0, 2.0]))


@pytest.mark.parametrize("left,right", [("int32", "int64"), ("int8", "int16"),
                                        ("float32", "float64"), ("uint8", "uint16"),
                                        ("complex64", "complex128")])
@pytest.mark.parametrize("op", ["iadd", "isub", "imul"])
def test_inplace_with_a_wider_operand_of_the_same_kind_casts_back(left, right, op):
    """NumPy and torch: ``int32 += int64`` keeps int32 (wrapping as NumPy wraps)."""
    a = np.array([1, 100, 120], dtype=left)
    b = np.array([3, 200, 2**12 if right != "int16" else 300], dtype=right)
    x = xp.asarray(a.copy())
    view = x[1:]
    with np.errstate(all="ignore"):
        getattr(operator, op)(a, b)
    getattr(operator, op)(x, xp.asarray(b))
    assert x.dtype == xp.asarray(a).dtype
    np.testing.assert_array_equal(to_np(x), a)
    np.testing.assert_array_equal(to_np(view), a[1:])  # written in place, views see it


def test_inplace_change_of_kind_raises():
    x = xp.asarray([1, 2])
    with pytest.raises(TypeError, match="would change the kind"):
        x += xp.asarray([0.5, 1.5])
    with pytest.raises(TypeError, match="would change the kind"):
        x /= 2

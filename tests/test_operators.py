"""NumPy's ufunc protocol and NumPy scalars on flexarray arrays (flexarray._protocols)."""
import operator

import numpy as np
import pytest

import flexarray as xp
from helpers.strategies import to_np

V = np.array([[1.5, -2.0, 0.0], [4.0, 0.25, -7.5]])


def fx(a):
    return xp.asarray(np.array(a), copy=True)


@pytest.mark.parametrize("ufunc", [np.abs, np.exp, np.negative, np.sqrt, np.sign, np.floor,
                                   np.isnan, np.expm1, np.cbrt, np.spacing])
def test_unary_ufuncs_return_flexarray_arrays_with_numpys_values(ufunc):
    with np.errstate(all="ignore"):
        expected = ufunc(V)
        r = ufunc(fx(V))
    assert isinstance(r, xp.Array)
    np.testing.assert_allclose(to_np(r), expected, rtol=1e-15, equal_nan=True)


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide,
                                   np.maximum, np.arctan2, np.power, np.fmod, np.greater])
def test_binary_ufuncs_with_numpy_operands(ufunc):
    other = np.array([2.0, -1.0, 0.5])
    with np.errstate(all="ignore"):
        expected = ufunc(V, other)
        for args in ((fx(V), other), (V, xp.asarray(other)), (fx(V), xp.asarray(other))):
            r = ufunc(*args)
            assert isinstance(r, xp.Array)
            np.testing.assert_allclose(to_np(r), expected, rtol=1e-15, equal_nan=True)


def test_numpy_scalars_combine_as_python_scalars():
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    for r in (np.float64(2) * x, x * np.float64(2), x * np.int64(2), np.int32(2) * x,
              x + np.float32(0), x / np.float16(0.5) / 2):
        assert isinstance(r, xp.Array) and r.dtype == xp.float32
    np.testing.assert_array_equal(to_np(x * np.int64(3)), [3.0, 6.0])
    i = xp.asarray([1, 2], dtype=xp.int8)
    assert (i + np.int64(1)).dtype == xp.int8
    assert (i * np.float64(1.5)).dtype == xp.float64  # as a Python float would
    b = xp.asarray([True, False])
    np.testing.assert_array_equal(to_np(b & np.bool_(True)), [True, False])


def test_ndarray_operands_in_operators():
    x = fx(V)
    for r, e in ((x + np.ones(3), V + 1), (np.ones(3) + x, V + 1), (x * V, V * V),
                 (V - x, V - V), (x > np.zeros(3), V > 0)):
        assert isinstance(r, xp.Array)
        np.testing.assert_array_equal(to_np(r), e)


@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float32"),
                                    ("int32", "int32"), ("float32", "float64"),
                                    ("int8", "int16"), ("bool", "bool")])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (3, 4)),
                                    ((3, 1), (1, 4)), ((2, 3, 4), (1, 4)), ((), (3,)),
                                    ((5,), (4,))])
def test_ndarray_operands_of_every_dtype_and_shape(dtypes, shapes):
    """``x <op> ndarray``, ``ndarray <op> x`` and ``np.<ufunc>(x, ndarray)``: NumPy's values
    and dtype, as flexarray arrays, on the fast path (one dtype, one operand broadcasting
    to the other) and off it; shapes that do not broadcast raise."""
    rng = np.random.default_rng(5)
    a = (rng.random(shapes[0]) * 9 + 1).astype(dtypes[0])
    b = (rng.random(shapes[1]) * 9 + 1).astype(dtypes[1])
    x = xp.asarray(a)
    ops = [operator.add, operator.mul, operator.lt, operator.eq, np.add, np.multiply]
    ops += [operator.and_] if dtypes[0] == "bool" else [operator.sub, operator.truediv]
    for op in ops:
        try:
            e = op(a, b)
        except ValueError:
            for call in (lambda: op(x, b), lambda: op(b, x)):
                with pytest.raises(ValueError):
                    call()
            continue
        for r, ref in ((op(x, b), e), (op(b, x), op(b, a))):
            assert isinstance(r, xp.Array)
            assert r.dtype == ref.dtype, (op, r.dtype, ref.dtype)
            np.testing.assert_array_equal(to_np(r), ref)


def test_out_where_reduce_accumulate_and_at_run_numpys_kernels():
    x = fx(V)
    o = xp.zeros((2, 3))
    view = o[:, ::-1]
    r = np.multiply(x, 2.0, out=view)  # written through the view into o
    assert r is view
    np.testing.assert_array_equal(to_np(o), (V * 2)[:, ::-1])
    np.testing.assert_array_equal(to_np(np.add.reduce(x, axis=1)), V.sum(axis=1))
    np.testing.assert_array_equal(to_np(np.maximum.accumulate(x, axis=1)),
                                  np.maximum.accumulate(V, axis=1))
    w = xp.zeros(4)
    np.add.at(w, np.array([0, 0, 3]), 1.0)
    np.testing.assert_array_equal(to_np(w), [2.0, 0.0, 0.0, 1.0])
    m = np.zeros((2, 3))
    np.add(x, 1.0, out=m)  # a NumPy out= array is written too
    np.testing.assert_array_equal(m, V + 1)
    c = np.add(x, 1.0, where=xp.asarray(V > 0), out=xp.zeros((2, 3)))
    np.testing.assert_array_equal(to_np(c), np.where(V > 0, V + 1, 0.0))


def test_what_the_standard_refuses_numpy_still_computes():
    i = xp.asarray([1, 2, 3])
    r = np.exp(i)  # the standard's exp refuses integers; NumPy's ufunc gives float64
    assert isinstance(r, xp.Array)
    np.testing.assert_array_equal(to_np(r), np.exp(np.array([1, 2, 3])))


# --- NumPy's function protocol (NEP 18) -----------------------------------------------------

def test_numpy_functions_the_standard_has_run_flexarray_and_return_flexarray():
    x = fx(V)
    for call, ref in ((lambda a: np.sum(a, axis=0), V.sum(axis=0)),
                      (lambda a: np.concatenate([a, a], axis=0), np.concatenate([V, V])),
                      (lambda a: np.where(a > 0, a, 0.0), np.where(V > 0, V, 0.0)),
                      (lambda a: np.mean(a), V.mean()),
                      (lambda a: np.sort(a, axis=1), np.sort(V, axis=1)),
                      (lambda a: np.clip(a, -1, 1), np.clip(V, -1, 1))):
        r = call(x)
        assert isinstance(r, xp.Array)
        np.testing.assert_allclose(to_np(r), ref, rtol=1e-15)


def test_other_numpy_functions_run_numpy_on_the_memory():
    x = fx(V)
    for call in (lambda a: np.nanmean(a, axis=1), lambda a: np.std(a, ddof=1),
                 lambda a: np.sum(a, 0), lambda a: np.einsum("ij->j", a),
                 lambda a: np.isclose(a, a), lambda a: np.cumsum(a, axis=1)):
        r = call(x)
        assert isinstance(r, xp.Array)
        np.testing.assert_allclose(to_np(r), call(V), rtol=1e-15)
    assert np.allclose(x, x) is True
    idx = np.where(x > 0)  # one argument: nonzero
    assert all(isinstance(i, xp.Array) for i in idx)
    np.testing.assert_array_equal([to_np(i) for i in idx], np.where(V > 0))


def test_numpy_views_of_flexarray_arrays_share_as_views():
    x = fx(V)
    r = np.ravel(x)  # NumPy gives a view: so does flexarray (the same family)
    r[0] = 100.0
    assert float(x[0, 0]) == 100.0
    z = xp.asarray([1 + 2j, 3 - 1j])
    re = np.real(z)
    assert re.dtype == xp.float64
    re[1] = -5.0
    np.testing.assert_array_equal(to_np(z), [1 + 2j, -5 - 1j])
    c = xp.asarray(x, copy=True)  # a lazy copy; writing through the NumPy view moves it
    np.ravel(x)[1] = 7.0
    assert float(c[0, 1]) == V[0, 1] and float(x[0, 1]) == 7.0


def test_numpy_functions_that_write_write_through():
    d = xp.zeros(3)
    view = d[::-1]
    np.copyto(view, xp.asarray([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(to_np(d), [3.0, 2.0, 1.0])
    m = xp.zeros((3, 3))
    np.fill_diagonal(m, 5.0)
    np.testing.assert_array_equal(to_np(m), np.diag([5.0] * 3))
    o = xp.zeros(3)
    r = np.sum(fx(V), axis=0, out=o)
    assert r is o
    np.testing.assert_allclose(to_np(o), V.sum(axis=0))


N_LAZY = 100_000  # 800 KB of float64: copies of it are lazy (gates.LAZY_COPY_MIN_BYTES)

#: NumPy calls that write into their first argument ``t`` (by keyword or position), with
#: what NumPy on a NumPy array writes at [0] (in a (N_LAZY,) float64 array of zeros)
WRITERS = [
    ("add.at", lambda t: np.add.at(t, [0], 1.0), 1.0),
    ("subtract.at", lambda t: np.subtract.at(t, [0, 0], 1.0), -2.0),
    ("copyto(dst=)", lambda t: np.copyto(dst=t, src=3.0), 3.0),
    ("put(a=)", lambda t: np.put(a=t, ind=[0], v=4.0), 4.0),
    ("place(arr=)", lambda t: np.place(arr=t, mask=np.arange(N_LAZY) == 0, vals=[5.0]), 5.0),
    ("putmask(a)", lambda t: np.putmask(t, np.arange(N_LAZY) == 0, 6.0), 6.0),
    ("put_along_axis(arr=)", lambda t: np.put_along_axis(arr=t, indices=np.array([0]),
                                                         values=7.0, axis=0), 7.0),
    ("nan_to_num(copy=False)", lambda t: (np.copyto(t, np.nan),
                                          np.nan_to_num(t, copy=False)), 0.0),
    ("cumsum out by position", lambda t: np.cumsum(np.ones(N_LAZY), 0, None, t), 1.0),
    ("clip out by position", lambda t: np.clip(xp.full(N_LAZY, 9.0), 0, 2, t), 2.0),
    ("round out by position", lambda t: np.round(xp.full(N_LAZY, 1.25), 1, t), 1.2),
    ("take out by position", lambda t: np.take(xp.full(N_LAZY, 8.0),
                                               np.arange(N_LAZY), 0, t), 8.0),
]


@pytest.mark.parametrize("name,write,value", WRITERS, ids=[w[0] for w in WRITERS])
@pytest.mark.parametrize("written", ["copy", "original"])
def test_numpy_writes_into_a_lazy_copy_or_its_original_stay_there(name, write, value,
                                                                   written):
    """A NumPy function or ufunc method writing a flexarray array in place writes that
    array alone: never the original of a lazy copy, nor a copy of the written original
    (NumPy on NumPy arrays, copied with np.array, is the reference)."""
    x = xp.zeros(N_LAZY)
    c = xp.asarray(x, copy=True)
    target, other = (c, x) if written == "copy" else (x, c)
    with np.errstate(all="ignore"):
        r = write(target)
    assert float(target[0]) == value
    assert float(other[0]) == 0.0 and not np.any(np.asarray(other))
    if "out by position" in name:
        assert r is target  # NumPy returns ``out`` itself


@pytest.mark.parametrize("write", [
    lambda x, c: np.add.at(x, np.arange(N_LAZY), c[::-1]),
    lambda x, c: np.put(x, np.arange(N_LAZY), c[::-1]),
    lambda x, c: np.copyto(x, c[::-1]),
    lambda x, c: np.cumsum(c[::-1], 0, None, x),
])
def test_numpy_writes_read_a_lazy_copy_of_their_target_as_it_was(write):
    """A NumPy write into x that reads x's lazy copy reads the copy's values (taken before
    the write moved the memory), as NumPy on NumPy arrays with a real copy."""
    v = np.arange(N_LAZY, dtype=np.float64)
    x = xp.asarray(v.copy())
    c = xp.asarray(x, copy=True)
    ref_x, ref_c = v.copy(), v.copy()
    write(ref_x, ref_c)
    write(x, c)
    np.testing.assert_array_equal(np.asarray(x), ref_x)
    np.testing.assert_array_equal(np.asarray(c), v)


def test_numpy_out_array_stays_numpys_memory():
    """A NumPy array given as ``out`` is returned itself, and a copy made of a result
    sharing its memory is a snapshot (the memory is NumPy's: it may change any time)."""
    o = np.zeros(N_LAZY)
    assert np.clip(xp.full(N_LAZY, 5.0), 0, 1, o) is o and o[0] == 1.0
    for r in (np.broadcast_arrays(xp.ones(1), o)[1],  # flexarray's, of o's memory
              np.atleast_1d(xp.ones(1), o)[1]):       # NumPy's, on o's memory
        assert isinstance(r, xp.Array)
        c = xp.asarray(r, copy=True)
        o[0] = 99.0
        assert float(c[0]) == 1.0 and float(r[0]) == 99.0
        o[0] = 1.0


@pytest.mark.parametrize("call", [
    lambda m, a, lo, hi: m.clip(a(np.array([0, 3], np.int32)), 0.5, 2.5),
    lambda m, a, lo, hi: m.clip(a(np.array([1, 5], np.uint8)), a(lo), a(hi)),
    lambda m, a, lo, hi: m.clip(a(np.array([0.2, 3.5])), 0.5, 2.5),
    lambda m, a, lo, hi: m.clip(a(np.array([0, 3], np.int32)), 1, 2),
    lambda m, a, lo, hi: m.diff(a(np.array([5, 3], np.uint8)), prepend=0),
    lambda m, a, lo, hi: m.diff(a(np.array([5.0, 3.0], np.float32)), append=1.0),
    lambda m, a, lo, hi: m.diff(a(np.array([5, 3], np.uint8)),
                                prepend=a(np.array([1], np.uint8))),
])
def test_numpy_named_calls_promote_as_numpy(call):
    """``np.clip``/``np.diff`` on flexarray arrays have NumPy's dtypes and values, also
    where NumPy promotes x with bounds or prepend/append of another kind or width (where
    the standard's clip and diff keep x's dtype)."""
    lo, hi = np.array([-4, -4], np.int8), np.array([-3, -3], np.int8)
    expected = call(np, lambda v: v, lo, hi)
    got = call(np, xp.asarray, lo, hi)
    assert isinstance(got, xp.Array)
    assert to_np(got).dtype == expected.dtype
    np.testing.assert_array_equal(to_np(got), expected)


@pytest.mark.parametrize("value", [np.int64(7), np.float32(1.5), np.bool_(True),
                                   np.array([1.0, 2.0]), np.array(2.0),
                                   np.array([1, 2], np.int8)])
def test_setitem_takes_numpy_scalars_and_arrays(value):
    """``x[...] = v`` with a NumPy scalar or array stores what NumPy stores (same-kind
    values; NumPy scalars as the Python scalars they hold)."""
    y, ref = xp.zeros(2), np.zeros(2)
    y[:] = value
    ref[:] = value
    np.testing.assert_array_equal(to_np(y), ref)
    i = xp.zeros(2, dtype=xp.int8)
    with pytest.raises(TypeError, match="cannot store"):
        i[:] = np.array([1.5, 2.0])
    with pytest.raises(TypeError, match="dtype <U1, which flexarray does not have"):
        y[:] = np.array(["a", "b"])


def test_round_of_a_0d_array_is_round_of_numpys_scalar():
    s = np.sum(fx([1.2, 2.3, 3.4]))
    n = np.sum(np.array([1.2, 2.3, 3.4]))
    assert round(s) == round(n) and type(round(s)) is int
    assert round(s, 1) == round(n, 1)
    with pytest.raises(TypeError, match="round\(\) needs a 0-d array"):
        round(fx([1.5, 2.5]))


@pytest.mark.parametrize("other", [[1.0, 2.0], (1.0, 2.0)])
def test_equality_with_a_list_is_an_error_not_false(other):
    x = fx([1.0, 2.0])
    for compare in (operator.eq, operator.ne):
        with pytest.raises(TypeError, match="not compared elementwise"):
            compare(x, other)
        with pytest.raises(TypeError, match="not compared elementwise"):
            compare(other, x)
    assert (x == None) is False and (x != None) is True  # noqa: E711 (Python's meaning)


# --- NumPy's ndarray methods (extensions; Dask's chunk code calls them) ---------------------

M = np.arange(24.0).reshape(2, 3, 4) - 7.5


@pytest.mark.parametrize("call", [
    lambda a: a.sum(), lambda a: a.sum(axis=1), lambda a: a.sum(1, keepdims=True),
    lambda a: a.mean(axis=(0, 2)), lambda a: a.std(ddof=1), lambda a: a.var(axis=0),
    lambda a: a.max(axis=-1), lambda a: a.min(), lambda a: a.prod(axis=0),
    lambda a: a.argmax(axis=1), lambda a: a.argmin(), lambda a: a.all(axis=0),
    lambda a: a.any(), lambda a: a.cumsum(axis=2), lambda a: a.cumprod(),
    lambda a: a.ravel(), lambda a: a.reshape(4, 6), lambda a: a.reshape((6, -1)),
    lambda a: a.reshape(-1, order="F"), lambda a: a.transpose(), lambda a: a.transpose(2, 0, 1),
    lambda a: a.transpose((1, 0, 2)), lambda a: a.swapaxes(0, 2), lambda a: a[:1].squeeze(),
    lambda a: a.clip(-3, 4), lambda a: (a / 3).round(2), lambda a: a.conj(),
    lambda a: a.take([0, 2], axis=1), lambda a: a.repeat(2, axis=0), lambda a: a.diagonal(),
    lambda a: a.trace(), lambda a: a[0].dot(a[1].T), lambda a: a.argsort(axis=-1),
    lambda a: a[0, 0].searchsorted([0.0, -6.0]), lambda a: a.flatten(), lambda a: a.copy(),
    lambda a: a.astype(np.int8), lambda a: a.astype("float32"), lambda a: a.view(np.int64),
    lambda a: a.real, lambda a: a.imag, lambda a: (a > 0).nonzero(),
    lambda a: a.compress([True, False, True], axis=1),
])
def test_ndarray_methods_give_numpys_answers_as_flexarray_arrays(call):
    with np.errstate(all="ignore"):
        expected = call(M.copy())
        r = call(fx(M))
    for e, g in zip(expected, r) if isinstance(expected, tuple) else ((expected, r),):
        assert isinstance(g, xp.Array)
        assert to_np(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(to_np(g), e)


def test_ndarray_scalar_methods_and_attributes():
    x = fx(M)
    assert x[1, 2, 3].item() == M[1, 2, 3].item() and x.item(5) == M.item(5)
    assert x.tolist() == M.tolist()
    assert (x.nbytes, x.itemsize, x.strides) == (M.nbytes, M.itemsize, M.strides)


def test_ndarray_methods_that_write_or_view_share_like_numpys():
    a, x = M.copy(), fx(M)
    for arr in (a, x):
        row = arr[1]
        row.sort(axis=0)          # in place, through a view
        arr[0, 0].fill(3.0)       # in place, through a view
        v = arr.view(np.int64)    # a reinterpreting view: writes reach the base
        v[1, 1, 1] = 0
        arr.reshape(6, 4)[5] = -1.0  # a reshape view
    np.testing.assert_array_equal(to_np(x), a)
    c = x.copy()
    c[...] = 0.0  # a copy never shares
    np.testing.assert_array_equal(to_np(x), a)


def test_numpy_code_chaining_methods_on_np_results():
    """SciPy's ndimage does ``np.where(input, 1, 0).astype(np.int8)`` on xp arrays."""
    x = fx(M)
    r = np.atleast_1d(np.where(x > 0, 1, 0).astype(np.int8))
    assert isinstance(r, xp.Array)
    np.testing.assert_array_equal(to_np(r), np.where(M > 0, 1, 0).astype(np.int8))


@pytest.mark.parametrize("call", [
    lambda a: a.sum(), lambda a: a.sum(axis=1, keepdims=True), lambda a: a.sum(0, dtype="f4"),
    lambda a: a.mean(axis=(0, 2)), lambda a: a.std(ddof=1), lambda a: a.var(axis=-1),
    lambda a: a.max(axis=2), lambda a: a.min(), lambda a: a.prod(axis=0),
    lambda a: a.argmax(), lambda a: a.argmin(axis=1), lambda a: a.cumsum(axis=2),
    lambda a: a.cumsum(), lambda a: a.any(axis=0), lambda a: a.all(),
    lambda a: a.reshape(6, 4), lambda a: a.reshape((4, -1)), lambda a: a.reshape(-1),
    lambda a: a.transpose(), lambda a: a.transpose(2, 0, 1), lambda a: a.transpose((1, 0, 2)),
    lambda a: a.swapaxes(0, 2), lambda a: a.squeeze(), lambda a: a[:, :1].squeeze(axis=1),
    lambda a: a.ravel(), lambda a: a.flatten(), lambda a: a.astype("float32"),
    lambda a: a.astype(np.int16), lambda a: a.copy(), lambda a: a.round(1),
    lambda a: a.clip(-2, 3), lambda a: a.take([0, 2], axis=1), lambda a: a.repeat(2, axis=0),
    lambda a: a.diagonal(axis1=1, axis2=2), lambda a: a.trace(), lambda a: a.conj(),
    lambda a: a[0].dot(a[1].T), lambda a: a.argsort(axis=1), lambda a: a.view(np.int64),
    lambda a: a.nonzero()[1],
])
def test_ndarray_methods_give_numpys_values(call):
    expected = np.asarray(call(M.copy()))
    r = call(fx(M))
    assert isinstance(r, xp.Array)
    assert r.shape == expected.shape and r.dtype == expected.dtype
    np.testing.assert_allclose(to_np(r), expected, rtol=1e-6)


def test_ndarray_attributes_and_in_place_methods():
    x = fx(M)
    assert x.nbytes == M.nbytes and x.itemsize == M.itemsize
    assert x.item(5) == M.item(5) and x.tolist() == M.tolist()
    v = x.reshape(6, 4)  # a view where NumPy's is one: writes are seen by x
    v[0, 0] = 100.0
    assert float(x[0, 0, 0]) == 100.0
    c = x.copy()  # a copy: later writes to x are not seen
    x.fill(1.0)
    assert to_np(x).tolist() == np.ones_like(M).tolist()
    assert float(c[0, 0, 0]) == 100.0
    assert x.astype(x.dtype, copy=False) is x
    with pytest.raises(TypeError, match="Array.astype: 'dtype'"):
        x.astype("U3")
    assert fx(V).__array_priority__ == np.empty(0).__array_priority__


def test_real_and_imag_attributes_are_views_as_numpys():
    a = np.array([[1 + 2j, 3 - 4j], [0.5j, -1.0]])
    x = fx(a)
    np.testing.assert_array_equal(to_np(x.real), a.real)
    np.testing.assert_array_equal(to_np(x.imag), a.imag)
    x.real[0, 0] = 10.0  # a view, as NumPy's: the write is seen by x
    assert complex(x[0, 0]) == 10 + 2j
    assert to_np(fx(V).real).tolist() == V.tolist()


class _Upcast:
    """A duck array above flexarray in NEP 13's hierarchy (as Dask's and xarray's)."""
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return "upcast ufunc"

    def __array_function__(self, func, types, args, kwargs):
        return "upcast function"


def test_flexarray_defers_to_duck_arrays_above_it():
    x, u = fx(V), _Upcast()
    assert np.add(x, u) == "upcast ufunc"
    assert np.multiply(u, x) == "upcast ufunc"
    assert np.concatenate([x, u]) == "upcast function"
    assert np.einsum("ij,ij->i", x, u) == "upcast function"


def test_like_creation_with_a_dtype_flexarray_lacks_raises():
    """np.empty_like(x, dtype=<structured>) raises TypeError, as CuPy's does (Dask falls
    back to keeping the fields apart); NumPy's meaning otherwise."""
    x = fx(V)
    with pytest.raises(TypeError, match="np.empty_like of a flexarray array: 'dtype'"):
        np.empty_like(x, dtype=[("vals", "f8"), ("arg", "i8")])
    r = np.full_like(x, 3, shape=(4,))  # a keyword flexarray lacks: NumPy's, as flexarray
    assert isinstance(r, xp.Array) and to_np(r).tolist() == [3.0] * 4


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "**=", "@="])
def test_inplace_with_a_numpy_operand_writes_through_views(op):
    """``x op= ndarray`` writes into x's memory, as NumPy's does: views of x see it and x
    stays the same object (a NotImplemented made Python rebind x to a new array)."""
    rng = np.random.default_rng(1)
    m = rng.uniform(1, 2, (3, 3))
    y = rng.uniform(1, 2, (3, 3))
    x = xp.asarray(m.copy())
    view, same = x[...], x
    ref = m.copy()
    exec(f"x {op} y", {}, env := {"x": x, "y": y})
    exec(f"ref {op} y", {}, renv := {"ref": ref, "y": y})
    assert env["x"] is same
    np.testing.assert_allclose(np.asarray(view), renv["ref"], rtol=1e-15)


def test_operators_with_numpy_operands_give_numpys_answers():
    """Array <op> ndarray and ndarray <op> Array: flexarray arrays with NumPy's values and
    dtypes, promotions flexarray lacks (int8 with uint64) included."""
    cases = [(np.array([1.5, -2.0, 3.0]), np.array([2, 3, 4])),
             (np.array([1, 2, 3], np.int8), np.array([1, 2, 3], np.uint64)),
             (np.array([True, False, True]), np.array([0.5, 1.5, 2.5])),
             (np.array([[1.0, 2.0]]), np.array([[3.0], [4.0]]))]
    for a, b in cases:
        for f in (lambda p, q: p + q, lambda p, q: p * q, lambda p, q: p < q,
                  lambda p, q: p - q):
            want = f(a, b)
            for got in (f(xp.asarray(a), b), f(a, xp.asarray(b))):
                assert type(got) is xp.Array
                assert np.asarray(got).dtype == want.dtype, (a.dtype, b.dtype)
                np.testing.assert_array_equal(np.asarray(got), want)


def test_inplace_with_a_foreign_dtype_numpy_operand_raises():
    x = xp.asarray([1.0, 2.0])
    view = x[...]
    with pytest.raises(TypeError, match="object"):
        x += np.array([1, 2], dtype=object)
    np.testing.assert_array_equal(np.asarray(view), [1.0, 2.0])


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "**=", "//=", "%="])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_float_inplace_operators_match_numpy(op, dtype):
    """In-place operators on small float arrays (the fast path straight into x's memory):
    NumPy's values and dtype for Python scalars, same-dtype arrays of x's shape or one that
    broadcasts to it, and overlapping views of x itself; views of x see the writes, and a
    copy of x does not."""
    rng = np.random.default_rng(4)
    base = rng.uniform(0.5, 2.0, (6, 5)).astype(dtype)
    row = rng.uniform(0.5, 2.0, (5,)).astype(dtype)
    for other, np_other in ((1.5, 1.5), (3, 3), (xp.asarray(row), row),
                            (xp.asarray(base[::-1].copy()), base[::-1].copy())):
        x = xp.asarray(base.copy())
        view, copy = x[1:], xp.asarray(x, copy=True)
        ref = base.copy()
        exec(f"x {op} other", {}, {"x": x, "other": other})
        exec(f"ref {op} o", {}, {"ref": ref, "o": np_other})
        assert x.dtype == xp.asarray(base).dtype
        np.testing.assert_allclose(np.asarray(x), ref, rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(view), np.asarray(x)[1:])
        np.testing.assert_array_equal(np.asarray(copy), base)
    x, ref = xp.asarray(base.copy()), base.copy()
    exec(f"x[1:] {op} x[:-1]", {}, {"x": x})  # overlap: NumPy reads the old values
    exec(f"ref[1:] {op} ref[:-1]", {}, {"ref": ref})
    np.testing.assert_allclose(np.asarray(x), ref, rtol=1e-6)


def test_a_tuple_inside_an_index_is_a_sequence_of_indices():
    """As NumPy (Dask's nanquantile indexes so): ``x[rows, (0, 1, 3)]``, read and written."""
    a = np.arange(12.0).reshape(3, 4)
    x = fx(a)
    np.testing.assert_array_equal(to_np(x[np.arange(3), (0, 1, 3)]), a[np.arange(3), (0, 1, 3)])
    x[np.arange(3), (0, 1, 3)] = -1.0
    a[np.arange(3), (0, 1, 3)] = -1.0
    np.testing.assert_array_equal(to_np(x), a)

"""all, any and diff against NumPy (and plain loops) over dtypes, axes and layouts."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexarray as xp
from helpers.strategies import ALL_DTYPES, arrays, assert_bits, fx, to_np
from helpers.statistical import axis_args, moderate_pool, norm_axes, special_pool


@pytest.mark.parametrize("name", ["all", "any"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_all_any_against_numpy(name, data):
    x, v = data.draw(arrays(dtypes=ALL_DTYPES, max_dims=3, pool=special_pool))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    r = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    truth = v != 0  # NaN and infinities are true; complex: either component nonzero
    ref = getattr(np, name)(truth, axis=norm_axes(axis, x.ndim), keepdims=keepdims)
    assert_bits(r, np.asarray(ref))


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("shape,layout", [((50_000, 3), "C"), ((3000, 64), "C"),
                                          ((3000, 64), "reversed"), ((64, 3000), "T"),
                                          ((40, 50, 30), "C")])
def test_all_any_of_large_bool_arrays_along_each_axis(name, shape, layout):
    """Along an outer axis a bool array reduces as bytes (min is all, max is any), through
    the reductions' row folds and threads: NumPy's answer, with all-true and all-false
    lines, on views."""
    rng = np.random.default_rng(21)
    v = rng.random(shape) < (0.999 if name == "all" else 0.001)
    v[..., 0] = name == "all"  # a line that is all true (all) or all false (any)
    v = {"C": v, "reversed": v[::-1], "T": v.T}[layout]
    x = fx(v) if layout == "C" else {"reversed": xp.flip(fx(v[::-1]), axis=0),
                                     "T": fx(v.T).mT}[layout]
    for axis in range(v.ndim):
        for keepdims in (False, True):
            r = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
            assert_bits(r, getattr(np, name)(v, axis=axis, keepdims=keepdims))


def test_all_any_empty_and_zero_d():
    assert bool(xp.all(xp.zeros((0,)))) is True
    assert bool(xp.any(xp.zeros((0,)))) is False
    r = xp.any(xp.asarray(complex(0, 1e-300)))
    assert isinstance(r, xp.Array) and r.shape == () and bool(r)
    assert bool(xp.all(xp.asarray([float("nan"), -0.5]))) is True
    assert not bool(xp.all(xp.asarray([1.0, -0.0])))


def diff_loop(a, axis):
    """First differences along ``axis`` by an explicit loop over positions."""
    a = np.moveaxis(a, axis, -1)
    out = np.empty(a.shape[:-1] + (max(a.shape[-1] - 1, 0),), a.dtype)
    for i in range(out.shape[-1]):
        if a.dtype == bool:
            out[..., i] = a[..., i + 1] != a[..., i]
        else:
            out[..., i] = a[..., i + 1] - a[..., i]
    return np.moveaxis(out, -1, axis)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_diff_against_loop(data):
    dtypes = [d for d in ALL_DTYPES if d not in (xp.float16, xp.bfloat16)]
    x, v = data.draw(arrays(dtypes=dtypes, min_dims=1, max_dims=3, pool=moderate_pool))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = data.draw(st.integers(0, 3))
    prepend = append = None
    parts = [v]
    ax = axis % x.ndim
    for side in ("prepend", "append"):
        if data.draw(st.booleans()):
            shape = list(v.shape)
            shape[ax] = data.draw(st.integers(0, 2))
            e, ev = data.draw(arrays(dtypes=[x.dtype], shape=tuple(shape), pool=moderate_pool))
            if side == "prepend":
                prepend, parts = e, [ev] + parts
            else:
                append, parts = e, parts + [ev]
    r = xp.diff(x, n=n, axis=axis, prepend=prepend, append=append)
    ref = np.concatenate(parts, axis=ax)
    with np.errstate(all="ignore"):
        for _ in range(n):
            ref = diff_loop(ref, ax)
    assert_bits(r, ref)


@pytest.mark.parametrize("half", [xp.float16, xp.bfloat16])
def test_diff_half_computes_in_float32(half):
    v = np.array([1.0, 1.5, 4.0, 2.0, 100.0], dtype=half)
    ref = np.diff(v.astype(np.float32), n=2).astype(half)  # rounded once
    assert_bits(xp.diff(fx(v), n=2), ref)


def test_diff_positional_n_and_scalars():
    x = fx(np.array([[1, 4, 9, 16], [2, 3, 5, 7]], dtype=np.int32))
    assert to_np(xp.diff(x, 2)).tolist() == [[2, 2], [1, 0]]  # n positionally, as NumPy
    assert to_np(xp.diff(x, 1, 0)).tolist() == [[1, -1, -4, -9]]
    assert to_np(xp.diff(x, prepend=0, append=20)).tolist() == [[1, 3, 5, 7, 4],
                                                                 [2, 1, 2, 2, 13]]
    f = xp.diff(x, append=0.5)  # a float scalar promotes as in arithmetic
    assert f.dtype == xp.float64 and to_np(f)[0, -1] == -15.5
    assert xp.diff(x, 0).shape == x.shape
    assert xp.diff(x, 9).shape == (2, 0)
    p = xp.diff(fx(np.array([1, 2], np.int8)), prepend=fx(np.array([0], np.int16)))
    assert p.dtype == xp.int16 and to_np(p).tolist() == [1, 1]


def test_diff_bad_input():
    x = xp.ones((2, 3))
    with pytest.raises(ValueError, match="diff: 'n' must be >= 0, got -1"):
        xp.diff(x, -1)
    with pytest.raises(TypeError, match="diff: 'n' must be an int, got float"):
        xp.diff(x, 1.0)
    with pytest.raises(TypeError, match="diff: 'n' must be an int, got bool"):
        xp.diff(x, n=True)
    with pytest.raises(ValueError, match="diff: 'x' must have at least one dimension"):
        xp.diff(xp.asarray(1.0))
    with pytest.raises(IndexError, match="diff: axis=2 is out of range"):
        xp.diff(x, axis=2)
    with pytest.raises(ValueError, match=r"diff: 'prepend' must have x's shape \(2, 3\) except "
                                         r"along axis 1, got shape \(3, 1\)"):
        xp.diff(x, prepend=xp.ones((3, 1)))
    with pytest.raises(ValueError, match="diff: 'append' must have x's shape"):
        xp.diff(x, append=xp.ones((2,)))
    with pytest.raises(TypeError, match="diff: 'append' must be None, a flexarray array or a "
                                        "Python scalar, got list"):
        xp.diff(x, append=[1.0, 2.0])
    with pytest.raises(TypeError, match="diff: 'x' must be a flexarray array"):
        xp.diff(np.ones(3))


@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_bad_input(name):
    f = getattr(xp, name)
    with pytest.raises(TypeError, match=f"{name}: 'x' must be a flexarray array, got tuple"):
        f((True,))
    with pytest.raises(IndexError, match=f"{name}: axis=-3 is out of range"):
        f(xp.ones((2, 2)), axis=-3)
    with pytest.raises(TypeError, match=f"{name}: 'keepdims' must be a bool"):
        f(xp.ones((2, 2)), keepdims="yes")


@pytest.mark.parametrize("value, dtype", [(np.nan, "float64"), (0.0, "float64"), (-0.0, "float32"),
                                          (0j, "complex128"), (1j, "complex64"), (0, "uint8"),
                                          (True, "bool"), (0.0, "bfloat16"), (np.nan, "float16")])
def test_all_any_of_0d_arrays_match_numpy(value, dtype):
    """0-d input (the one-element shortcut): NumPy's truth of the element, NaN true, as a
    0-d bool array."""
    v = np.array(value, dtype=np.float32 if dtype == "bfloat16" else dtype)
    x = xp.asarray(v, dtype=getattr(xp, dtype))
    for f, ref in ((xp.any, np.any), (xp.all, np.all)):
        r = f(x)
        assert r.dtype == xp.bool and r.shape == ()
        assert bool(r) == bool(ref(v))

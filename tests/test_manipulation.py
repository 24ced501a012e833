"""Manipulation functions against NumPy, over random dtypes, shapes and memory layouts.

The layout strategies (tests/helpers/strategies.py: ``arrays``) pair every flexarray input with a
NumPy array of the same elements *and the same strides*.
"""
import contextlib
import re

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import flexarray as xp

from helpers.strategies import (ALL_DTYPES, INT_DTYPES, LAYOUTS, NUMERIC_REAL, REAL_DTYPES,  # noqa: E402,F401
                        arrays, assert_bits, assert_shares, fx, to_np, value_pool)


# --- broadcasting ---------------------------------------------------------------------------

@st.composite
def broadcastable_to(draw, shape):
    """A shape that broadcasts to ``shape`` (a suffix of it, some sizes replaced by 1)."""
    k = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - k:]
    return tuple(1 if draw(st.booleans()) else n for n in tail)


@settings(max_examples=60)
@given(data=st.data())
def test_broadcast_to(data):
    target = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    x, ref = data.draw(arrays(shape=data.draw(broadcastable_to(target))))
    r = xp.broadcast_to(x, target)
    assert_bits(r, np.broadcast_to(ref, target))
    assert_shares(r, x)
    before = np.array(ref)
    if r.size and r.shape != x.shape:  # repeated elements: a write is refused, as NumPy's
        with pytest.raises(ValueError, match="read-only"):
            r[(0,) * r.ndim] = r[(0,) * r.ndim]
        assert_bits(x, before)


@settings(max_examples=50)
@given(data=st.data())
def test_broadcast_arrays_and_shapes(data):
    target = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    pairs = [data.draw(arrays(shape=data.draw(broadcastable_to(target))))
             for _ in range(data.draw(st.integers(1, 3)))]
    out = xp.broadcast_arrays(*(x for x, _ in pairs))
    assert isinstance(out, tuple) and len(out) == len(pairs)
    expected = np.broadcast_arrays(*(r for _, r in pairs))
    for r, e, (x, _) in zip(out, expected, pairs):
        assert_bits(r, e)
        assert_shares(r, x)
    shapes = [r.shape for _, r in pairs]
    assert xp.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)


@settings(max_examples=60)
@given(shapes=st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
                       max_size=4))
def test_broadcast_shapes_matches_numpy(shapes):
    try:
        expected = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError, match="broadcast_shapes: shapes .* cannot be broadcast"):
            xp.broadcast_shapes(*shapes)
        return
    assert xp.broadcast_shapes(*shapes) == expected


# --- joining --------------------------------------------------------------------------------

PROMOTABLE = [(xp.int8, xp.int16), (xp.uint8, xp.int16), (xp.float32, xp.float64),
              (xp.float32, xp.complex64), (xp.float16, xp.bfloat16), (xp.bool, xp.bool),
              (xp.uint16, xp.uint32), (xp.complex64, xp.float64)]


@st.composite
def joinable(draw, same_shape):
    """2-3 arrays of dtypes from one promotable pair, shapes equal except (maybe) one axis."""
    dts = draw(st.sampled_from(PROMOTABLE))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    out = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(shape)
        if not same_shape:
            s[axis] = draw(st.integers(0, 3))
        out.append(draw(arrays(dtypes=list(dts), shape=tuple(s))))
    return out, axis


@settings(max_examples=60)
@given(case=joinable(same_shape=False), flat=st.booleans())
def test_concat(case, flat):
    pairs, axis = case
    dt = xp.result_type(*(x for x, _ in pairs))
    refs = [r.astype(dt) for _, r in pairs]
    if flat:
        r = xp.concat([x for x, _ in pairs], axis=None)
        expected = np.concatenate([a.reshape(-1) for a in refs])
    else:
        r = xp.concat(tuple(x for x, _ in pairs), axis=axis)
        expected = np.concatenate(refs, axis=axis)
    assert r.dtype is dt
    assert_bits(r, expected)


@settings(max_examples=50)
@given(case=joinable(same_shape=True), data=st.data())
def test_stack(case, data):
    pairs, _ = case
    nd = pairs[0][0].ndim
    axis = data.draw(st.integers(-nd - 1, nd))
    dt = xp.result_type(*(x for x, _ in pairs))
    r = xp.stack([x for x, _ in pairs], axis=axis)
    assert r.dtype is dt
    assert_bits(r, np.stack([a.astype(dt) for _, a in pairs], axis=axis))


@settings(max_examples=50)
@given(data=st.data())
def test_unstack(data):
    x, ref = data.draw(arrays(min_dims=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    out = xp.unstack(x, axis=axis)
    assert isinstance(out, tuple) and len(out) == ref.shape[axis]
    for i, r in enumerate(out):
        assert_bits(r, np.take(ref, i, axis=axis))
        assert_shares(r, x)


# --- views ----------------------------------------------------------------------------------

@settings(max_examples=60)
@given(data=st.data())
def test_expand_dims(data):
    x, ref = data.draw(arrays(max_dims=3))
    k = data.draw(st.integers(1, 3))
    m = x.ndim + k
    axes = data.draw(st.lists(st.integers(-m, m - 1), min_size=k, max_size=k,
                              unique_by=lambda a: a % m))
    arg = axes[0] if k == 1 and data.draw(st.booleans()) else tuple(axes)
    r = xp.expand_dims(x, axis=arg)
    assert_bits(r, np.expand_dims(ref, arg))
    assert_shares(r, x)


@settings(max_examples=60)
@given(data=st.data())
def test_squeeze(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=3))
    x, ref = data.draw(arrays(shape=shape))
    ones = [i for i, n in enumerate(shape) if n == 1]
    chosen = data.draw(st.lists(st.sampled_from(ones), unique=True) if ones else st.just([]))
    neg = data.draw(st.booleans())
    axes = tuple(a - x.ndim if neg else a for a in chosen)
    arg = axes[0] if len(axes) == 1 and data.draw(st.booleans()) else axes
    r = xp.squeeze(x, axis=arg)
    assert_bits(r, np.squeeze(ref, axis=axes))
    assert_shares(r, x)
    big = [i for i, n in enumerate(shape) if n != 1]
    if big:
        with pytest.raises(ValueError, match=r"squeeze: axis \d+ .* has size \d+; only axes "
                                             r"of size 1"):
            xp.squeeze(x, axis=big[0])


@settings(max_examples=60)
@given(data=st.data())
def test_flip(data):
    x, ref = data.draw(arrays())
    axis = data.draw(st.none() | (st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none())
                     | st.lists(st.integers(0, max(x.ndim - 1, 0)), unique=True,
                                max_size=x.ndim).map(tuple))
    r = xp.flip(x, axis=axis)
    assert_bits(r, np.flip(ref, axis=axis) if axis != () else ref)
    assert_shares(r, x)


@settings(max_examples=60)
@given(data=st.data())
def test_permute_dims(data):
    x, ref = data.draw(arrays())
    perm = data.draw(st.permutations(range(x.ndim)))
    axes = tuple(a - x.ndim if data.draw(st.booleans()) else a for a in perm)
    r = xp.permute_dims(x, axes)
    assert_bits(r, np.transpose(ref, perm))
    assert_shares(r, x)


@settings(max_examples=60)
@given(data=st.data())
def test_moveaxis(data):
    x, ref = data.draw(arrays(min_dims=1))
    n = x.ndim
    k = data.draw(st.integers(1, n))
    src = data.draw(st.lists(st.integers(-n, n - 1), min_size=k, max_size=k,
                             unique_by=lambda a: a % n))
    dst = data.draw(st.lists(st.integers(-n, n - 1), min_size=k, max_size=k,
                             unique_by=lambda a: a % n))
    if k == 1 and data.draw(st.booleans()):
        src, dst = src[0], dst[0]
    else:
        src, dst = tuple(src), tuple(dst)
    r = xp.moveaxis(x, src, dst)
    assert_bits(r, np.moveaxis(ref, src, dst))
    assert_shares(r, x)


@st.composite
def reshape_target(draw, size):
    """A shape with ``size`` elements (maybe with one -1), from a random factorization."""
    factors, n, p = [], size, 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    ndim = draw(st.integers(1, 4))
    dims = [1] * ndim
    for f in factors:
        dims[draw(st.integers(0, ndim - 1))] *= f
    if size == 0:
        dims[draw(st.integers(0, ndim - 1))] = 0
    if size and draw(st.booleans()):
        dims[draw(st.integers(0, ndim - 1))] = -1
    return tuple(dims)


@settings(max_examples=80, deadline=None)  # (the write may compile a half kernel)
@given(data=st.data(), copy=st.sampled_from([None, True, False]))
def test_reshape(data, copy):
    x, ref = data.draw(arrays())
    shape = data.draw(reshape_target(x.size))
    try:
        ref.reshape(shape, copy=False)
        viewable = True
    except ValueError:
        viewable = False
    if copy is False and not viewable:
        with pytest.raises(ValueError, match=r"reshape: .* cannot be viewed as .*copy=False"):
            xp.reshape(x, shape, copy=False)
        return
    r = xp.reshape(x, shape, copy=copy)
    assert_bits(r, ref.reshape(shape))
    if viewable and copy is not True:
        assert_shares(r, x)
    if copy is True and ref.size:
        # a copy is independent of x whatever happens to x's memory afterwards
        snapshot = np.array(ref)
        corner = (0,) * x.ndim
        if x._arr.flags.writeable:
            old = x[corner]
            x[corner] = xp.logical_not(old) if x.dtype == xp.bool else old + 1
        assert_bits(r, snapshot.reshape(shape))


def test_reshape_of_transposed_view_is_a_copy_only_when_needed():
    a = fx(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    t = xp.permute_dims(a, (1, 0, 2))
    r = xp.reshape(t, (3, 2, 2, 2))  # splits the last axis: still a view
    assert_shares(r, a)
    with pytest.raises(ValueError, match="copy=False"):
        xp.reshape(t, (6, 4), copy=False)
    c = xp.reshape(t, (6, 4))
    assert c._buf is not a._buf
    assert_bits(c, np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(1, 0, 2)
                .reshape(6, 4))


@pytest.mark.parametrize("dtype", [xp.float32, xp.bfloat16])
def test_reshape_copy_of_large_strided_arrays(dtype):
    from flexarray._engines import gates
    n = int(gates.COPY_KERNEL_MIN ** 0.5) + 3  # above the size where the Numba copy takes over
    base = (np.arange(2 * n * n) % 251).astype(dtype).reshape(2 * n, n)
    x = fx(base)
    for view, ref in ((x[::2].mT, base[::2].T), (xp.flip(x, axis=1)[1:], base[1:, ::-1])):
        for copy in (None, True):
            r = xp.reshape(view, (-1,), copy=copy)
            assert r._buf is not x._buf
            assert_bits(r, ref.reshape(-1))


@contextlib.contextmanager
def relayout_from(size):
    """Copying reshapes of ``size`` elements and more pending until read (gates.RELAYOUT_MIN)."""
    from flexarray._engines import gates
    old, gates.RELAYOUT_MIN = gates.RELAYOUT_MIN, size
    try:
        yield
    finally:
        gates.RELAYOUT_MIN = old


@settings(max_examples=80, deadline=None)
@given(data=st.data(), write=st.sampled_from(["source", "result", None]))
def test_a_pending_copying_reshape_reads_as_the_eager_copy(data, write):
    # every copying reshape pending; its elements read one by one from the snapshot, then
    # the whole array, against NumPy's copy; a write to x after the reshape never reaches it
    x, ref = data.draw(arrays(min_dims=2, max_dims=4, min_side=1))
    shape = data.draw(reshape_target(x.size))
    try:
        ref.reshape(shape, copy=False)
        return  # (a view: nothing to copy)
    except ValueError:
        pass
    want = ref.reshape(shape).copy()
    with relayout_from(0):
        r = xp.reshape(x, shape)
    if write == "source" and x._arr.flags.writeable:
        x[...] = xp.zeros_like(x)
    at = data.draw(st.lists(st.tuples(*[st.integers(-n, n - 1) for n in want.shape]),
                            min_size=1, max_size=4))
    for key in at:
        e = r[key if len(key) > 1 else key[0]]
        assert_bits(e, want[key])
        e[...] = xp.zeros_like(e)  # (a 0-d copy, as eagerly: r keeps its element)
    if write == "result":
        r[(0,) * r.ndim] = xp.zeros_like(r[(0,) * r.ndim])
        want[(0,) * r.ndim] = 0
    assert_bits(r, want)
    if write != "source" and x._arr.flags.writeable:
        assert_bits(x, ref)


def test_a_pending_copying_reshape_refuses_bad_keys_as_eagerly():
    x = xp.reshape(xp.arange(12.0), (3, 4)).mT
    eager = xp.asarray(np.asarray(x).reshape(-1), copy=True)
    for key in (12, -13, (0, 0), True, 1.0, (None, 0)):
        try:
            eager[key]
        except (IndexError, TypeError) as e:
            error = type(e)
        else:
            error = None
        with relayout_from(0):
            r = xp.reshape(x, (-1,))
        if error is None:
            assert_bits(r[key], np.asarray(eager[key]))
        else:
            with pytest.raises(error):
                r[key]
    with relayout_from(0):  # a NumPy integer is an index, as eagerly
        assert float(xp.reshape(x, (-1,))[np.int64(1)]) == 4.0


def test_a_pending_copying_reshape_of_a_large_array_copies_nothing_for_one_element(
        monkeypatch):
    from flexarray._engines import copy as engine
    from flexarray._engines import gates
    n = 1 << 9
    x = xp.reshape(xp.arange(float(n * n)), (n, n)).mT
    assert x.size >= gates.RELAYOUT_MIN
    copies = []
    monkeypatch.setattr(engine, "contiguous", lambda a: copies.append(a) or a.copy())
    first = xp.reshape(x, (-1,))[0]  # (array-api-compat's is_lazy_array)
    assert float(first) == 0.0 and copies == []
    r = xp.reshape(x, (-1,))
    assert float(r[1]) == n and float(r[-1]) == n * n - 1 and copies == []
    assert_bits(r, np.arange(float(n * n)).reshape(n, n).T.reshape(-1))
    assert len(copies) == 1


def test_a_pending_copying_reshape_shared_between_threads_reads_the_same_values():
    from helpers.threads import run_threads
    n = 1 << 9
    ref = np.arange(float(n * n)).reshape(n, n)
    x = fx(ref).mT
    want = ref.T.reshape(-1)
    for _ in range(20):
        with relayout_from(0):
            r = xp.reshape(x, (-1,))
        seen = {}
        run_threads(lambda k: seen.__setitem__(k, np.array(r) if k % 2 else r[k * 1000]), 4)
        for k, v in seen.items():
            assert_bits(xp.asarray(v) if k % 2 else v, want if k % 2 else want[k * 1000])


# --- computed -------------------------------------------------------------------------------

@settings(max_examples=60)
@given(data=st.data())
def test_repeat(data):
    x, ref = data.draw(arrays(max_dims=3, max_side=4))
    axis = data.draw(st.none() | (st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none()))
    n = ref.size if axis is None else ref.shape[axis]
    kind = data.draw(st.sampled_from(["int", "one", "each"]))
    if kind == "int":
        reps = data.draw(st.integers(0, 3))
        r = xp.repeat(x, reps, axis=axis)
    else:
        length = 1 if kind == "one" else n
        dt = data.draw(st.sampled_from(INT_DTYPES))
        reps = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=length,
                                             max_size=length)), dt)
        r = xp.repeat(x, xp.asarray(reps), axis=axis)
    expected = np.repeat(ref.reshape(-1) if axis is None else ref, np.asarray(reps, np.intp),
                         axis=0 if axis is None else axis)
    assert_bits(r, expected)


@settings(max_examples=60)
@given(data=st.data())
def test_roll(data):
    x, ref = data.draw(arrays())
    shift_s = st.integers(-12, 12)
    if x.ndim == 0 or data.draw(st.booleans()):
        shift = data.draw(shift_s)
        r, expected = xp.roll(x, shift), np.roll(ref, shift)
    else:
        axes = tuple(data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1,
                                        max_size=3)))
        if data.draw(st.booleans()):
            shift = data.draw(shift_s)
            axis = axes[0] if len(axes) == 1 and data.draw(st.booleans()) else axes
        else:
            shift = tuple(data.draw(shift_s) for _ in axes)
            axis = axes
        r, expected = xp.roll(x, shift, axis=axis), np.roll(ref, shift, axis=axis)
    assert_bits(r, expected)


@settings(max_examples=60)
@given(data=st.data())
def test_tile(data):
    x, ref = data.draw(arrays(max_dims=3, max_side=3))
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4)))
    assert_bits(xp.tile(x, reps), np.tile(ref, reps))


# --- the view model ------------------------------------------------------------------------

VIEWS = {  # each with its NumPy counterpart
    "broadcast_to": (lambda a: xp.broadcast_to(a[:, :1], (2, 3, 4)),
                     lambda a: np.broadcast_to(a[:, :1], (2, 3, 4))),
    "expand_dims": (lambda a: xp.expand_dims(a, axis=(0, 2)),
                    lambda a: np.expand_dims(a, axis=(0, 2))),
    "flip": (lambda a: xp.flip(a, axis=0), lambda a: np.flip(a, axis=0)),
    "moveaxis": (lambda a: xp.moveaxis(a, 0, -1), lambda a: np.moveaxis(a, 0, -1)),
    "permute_dims": (lambda a: xp.permute_dims(a, (1, 0)), lambda a: a.transpose(1, 0)),
    "reshape": (lambda a: xp.reshape(a, (2, 2, 3)), lambda a: a.reshape(2, 2, 3)),
    "squeeze": (lambda a: xp.squeeze(xp.expand_dims(a, axis=1), axis=1),
                lambda a: np.squeeze(np.expand_dims(a, axis=1), axis=1)),
    "unstack": (lambda a: xp.unstack(a, axis=1)[2], lambda a: a[:, 2]),
    "broadcast_arrays": (lambda a: xp.broadcast_arrays(a, xp.ones((2, 3, 4)))[0],
                         lambda a: np.broadcast_arrays(a, np.ones((2, 3, 4)))[0]),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_writes_both_ways_as_numpy(name):
    make, make_np = VIEWS[name]
    data = np.arange(12.0).reshape(3, 4)
    a, m = fx(data), data.copy()
    v, vm = make(a), make_np(m)
    assert_shares(v, a)
    corner = (0,) * v.ndim
    if name.startswith("broadcast"):  # elements repeat: read-only, as in NumPy
        with pytest.raises(ValueError, match="read-only"):
            v[corner] = -1.0
    else:
        v[corner] = -1.0
        vm[corner] = -1.0
    a[1, ...] = 7.0  # a write to the base shows through the view
    m[1, ...] = 7.0
    assert_bits(a, m)
    assert_bits(v, vm)


# --- bad input ------------------------------------------------------------------------------

a23 = fx(np.zeros((2, 3)))

BAD = [
    (lambda: xp.broadcast_to(a23, (3, 3)), ValueError, r"broadcast_to: cannot broadcast an array "
     r"of shape \(2, 3\) to \(3, 3\)"),
    (lambda: xp.broadcast_to(a23, (3,)), ValueError, r"broadcast_to: cannot broadcast"),
    (lambda: xp.broadcast_to(a23, "x"), TypeError, r"broadcast_to: 'shape' must be a tuple"),
    (lambda: xp.broadcast_to(a23, (2, -3)), ValueError, r"'shape' entries must be >= 0"),
    (lambda: xp.broadcast_to([1, 2], (2,)), TypeError, r"broadcast_to: 'x' must be a flexarray"),
    (lambda: xp.broadcast_arrays(a23, fx(np.zeros(4))), ValueError,
     r"broadcast_arrays: array shapes \(2, 3\), \(4,\) cannot be broadcast together: axis -1 "
     r"has sizes 3 and 4"),
    (lambda: xp.broadcast_shapes((2,), (2.5,)), TypeError, r"broadcast_shapes: 'shapes\[1\]' must "
     r"be an int, got float"),
    (lambda: xp.concat([]), ValueError, r"concat: 'arrays' must hold at least one array"),
    (lambda: xp.concat(a23), TypeError, r"concat: 'arrays' must be a tuple or list"),
    (lambda: xp.concat([a23, [[0.0] * 3] * 2]), TypeError, r"concat: arrays\[1\] must be a "
     r"flexarray array, got list"),
    (lambda: xp.concat([a23, fx(np.zeros((3, 3)))], axis=1), ValueError,
     r"concat: arrays must match in every axis but axis 1; arrays\[0\] has shape \(2, 3\), "
     r"arrays\[1\] has \(3, 3\)"),
    (lambda: xp.concat([a23, fx(np.zeros(3))]), ValueError, r"concat: all arrays must have the "
     r"same number of dimensions"),
    (lambda: xp.concat([a23], axis=2), IndexError, r"concat: axis=2 is out of range"),
    (lambda: xp.concat([fx(np.zeros(())), fx(np.zeros(()))]), ValueError,
     r"concat: cannot join 0-d arrays along an axis"),
    (lambda: xp.concat([fx(np.zeros(2, np.int64)), fx(np.zeros(2, np.uint64))]), TypeError,
     r"no type promotion between int64 and uint64"),
    (lambda: xp.stack([a23, fx(np.zeros((3, 2)))]), ValueError, r"stack: all arrays must have "
     r"the same shape; arrays\[0\] has \(2, 3\), arrays\[1\] has \(3, 2\)"),
    (lambda: xp.stack([a23], axis=3), IndexError, r"stack: axis=3 is out of range .* 3 "
     r"dimension"),
    (lambda: xp.unstack(fx(np.zeros(()))), IndexError, r"unstack: axis=0 is out of range"),
    (lambda: xp.expand_dims(a23, axis=3), IndexError, r"expand_dims: axis=3 is out of range for "
     r"an array of 3 dimension\(s\); allowed: -3 <= axis < 3"),
    (lambda: xp.expand_dims(a23, axis=(0, -4)), ValueError, r"expand_dims: 'axis' has repeated "
     r"axes: \(0, -4\)"),
    (lambda: xp.expand_dims(a23, axis=1.0), TypeError, r"expand_dims: 'axis' must be an int"),
    (lambda: xp.squeeze(a23, axis=0), ValueError, r"squeeze: axis 0 of an array of shape "
     r"\(2, 3\) has size 2; only axes of size 1 can be removed"),
    (lambda: xp.squeeze(a23, axis=2), IndexError, r"squeeze: axis=2 is out of range"),
    (lambda: xp.flip(a23, axis=(0, 0)), ValueError, r"flip: 'axis' has repeated axes"),
    (lambda: xp.flip(a23, axis=-3), IndexError, r"flip: axis=-3 is out of range"),
    (lambda: xp.permute_dims(a23, (0,)), ValueError, r"permute_dims: 'axes' must be a "
     r"permutation of the 2 axes of x, got \(0,\)"),
    (lambda: xp.permute_dims(a23, (0, -2)), ValueError, r"permute_dims: 'axes' must be a "
     r"permutation"),
    (lambda: xp.permute_dims(a23, 0), TypeError, r"permute_dims: 'axes' must be a tuple"),
    (lambda: xp.permute_dims(a23, (0, 2)), IndexError, r"permute_dims: axes=2 is out of range"),
    (lambda: xp.moveaxis(a23, (0, 1), 0), ValueError, r"moveaxis: 'source' and 'destination' "
     r"must name as many axes"),
    (lambda: xp.moveaxis(a23, 0, 2), IndexError, r"moveaxis: destination=2 is out of range"),
    (lambda: xp.moveaxis(a23, (1, 1), (0, 1)), ValueError, r"moveaxis: 'source' has repeated"),
    (lambda: xp.reshape(a23, (4, 2)), ValueError, r"reshape: cannot reshape an array of shape "
     r"\(2, 3\) \(size 6\) into \(4, 2\) \(size 8\)"),
    (lambda: xp.reshape(a23, (-1, -1)), ValueError, r"reshape: 'shape' entries must be >= 0 "
     r"with at most one -1, got \(-1, -1\)"),
    (lambda: xp.reshape(a23, (4, -1)), ValueError, r"reshape: cannot infer the -1 in \(4, -1\) "
     r"for an array of size 6"),
    (lambda: xp.reshape(a23, (0, -1)), ValueError, r"reshape: cannot infer the -1"),
    (lambda: xp.reshape(a23, (6,), copy="yes"), ValueError, r"reshape: 'copy' must be True, "
     r"False or None, got 'yes'"),
    (lambda: xp.reshape(a23, "6"), TypeError, r"reshape: 'shape' must be a tuple of ints"),
    (lambda: xp.repeat(a23, -1), ValueError, r"repeat: 'repeats' must be >= 0, got -1"),
    (lambda: xp.repeat(a23, 1.5), TypeError, r"repeat: 'repeats' must be an int, got float"),
    (lambda: xp.repeat(a23, True), TypeError, r"repeat: 'repeats' must be an int, got a bool"),
    (lambda: xp.repeat(a23, fx(np.ones(3)), axis=1), TypeError, r"repeat: 'repeats' must have "
     r"an integral dtype, got float64"),
    (lambda: xp.repeat(a23, fx(np.ones(2, np.int64)), axis=1), ValueError,
     r"repeat: 'repeats' must be an int or a 1-D array of length 1 or 3 \(the size of the "
     r"repeated axis\), got shape \(2,\)"),
    (lambda: xp.repeat(a23, fx(np.array([1, -2, 1])), axis=1), ValueError,
     r"repeat: 'repeats' must be >= 0, got a minimum of -2"),
    (lambda: xp.repeat(a23, 2, axis=2), IndexError, r"repeat: axis=2 is out of range"),
    (lambda: xp.roll(a23, (1, 2)), ValueError, r"roll: a tuple 'shift' \(\(1, 2\)\) needs a "
     r"tuple 'axis' of the same length, got axis=None"),
    (lambda: xp.roll(a23, (1, 2), axis=(0,)), ValueError, r"roll: 'shift' \(1, 2\) and 'axis' "
     r"\(0,\) must be tuples of the same length"),
    (lambda: xp.roll(a23, 1.0), TypeError, r"roll: 'shift' must be an int, got float"),
    (lambda: xp.roll(a23, 1, axis=5), IndexError, r"roll: axis=5 is out of range"),
    (lambda: xp.tile(a23, 2), TypeError, r"tile: 'repetitions' must be a tuple of ints"),
    (lambda: xp.tile(a23, (2, -1)), ValueError, r"tile: 'repetitions' entries must be >= 0, "
     r"got \(2, -1\)"),
]


@pytest.mark.parametrize("call,exc,message", BAD, ids=[re.sub(r"\W+", "_", m[:40]) for *_, m
                                                        in BAD])
def test_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_squeeze_without_axis_removes_every_size_one_axis_as_numpy():
    """``axis`` omitted (beyond the standard; NumPy's and torch's meaning): a view."""
    for shape in [(1, 3, 1, 2), (1, 1), (3, 2), (1,), ()]:
        a = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
        x = xp.asarray(a)
        r = xp.squeeze(x)
        assert r.shape == np.squeeze(a).shape
        np.testing.assert_array_equal(np.asarray(r), np.squeeze(a))
    x = xp.zeros((1, 3, 1))
    xp.squeeze(x)[1] = 5.0
    assert float(x[0, 1, 0]) == 5.0

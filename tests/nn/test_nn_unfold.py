"""flexarray.nn.unfold: sliding windows as a zero-copy view (Tensor.unfold semantics)."""
import numpy as np
import pytest

import flexarray as xp
import flexarray.nn as nn
from helpers.nn import LAYOUTS, layout


def ref_unfold(x, axis, size, step):
    """By definition: result[..., i, ..., j] = x[..., i*step + j, ...], windows last."""
    n = x.shape[axis]
    count = (n - size) // step + 1
    wins = [np.take(x, np.arange(i * step, i * step + size), axis=axis) for i in range(count)]
    out = np.stack(wins, axis=axis)  # (..., count, ..., size at axis+1, ...)
    return np.moveaxis(out, axis + 1, -1)


@pytest.mark.parametrize("seed", range(30))
def test_unfold_random(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(v) for v in rng.integers(1, 7, int(rng.integers(1, 4))))
    axis = int(rng.integers(-len(shape), len(shape)))
    n = shape[axis]
    size = int(rng.integers(0, n + 1))
    step = int(rng.integers(1, 4))
    x = rng.standard_normal(shape)
    kind = LAYOUTS[seed % len(LAYOUTS)]
    a = layout(x, kind)
    w = nn.unfold(a, axis, size, step)
    ref = ref_unfold(x, axis % len(shape), size, step)
    assert w.shape == ref.shape
    np.testing.assert_array_equal(np.array(w._arr), ref)
    assert np.shares_memory(w._arr, a._arr) or ref.size == 0  # a view: nothing copied


def test_unfold_is_a_read_only_view_that_sees_writes_to_x():
    x = xp.asarray(np.arange(10.0), copy=True)
    w = nn.unfold(x, 0, 4, 2)
    assert w._buf is x._buf and np.shares_memory(w._arr, x._arr)
    # the windows overlap: writing them is refused (as NumPy's sliding_window_view)
    with pytest.raises(ValueError, match="read-only"):
        w[0, 1] = -1.0
    np.testing.assert_array_equal(np.array(x._arr), np.arange(10.0))
    # writing x shows through windows taken before
    w2 = nn.unfold(x, 0, 3)
    x[2] = 100.0
    np.testing.assert_array_equal(np.array(w2._arr)[:3, 2], [100.0, 3.0, 4.0])
    np.testing.assert_array_equal(np.array(w._arr)[:2], [[0.0, 1.0, 100.0, 3.0],
                                                         [100.0, 3.0, 4.0, 5.0]])
    c = xp.asarray(w, copy=True)  # a copy of the windows is an ordinary array
    c[0, 0] = -5.0
    assert float(x[0]) == 0.0


def test_unfold_sum_over_windows():
    rng = np.random.default_rng(1)
    v = rng.standard_normal(1000)
    w = nn.unfold(xp.asarray(v), 0, 64, 1)
    got = np.array(xp.sum(w, axis=-1)._arr)
    ref = np.array([v[i:i + 64].sum() for i in range(1000 - 63)])
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [xp.bool, xp.int8, xp.float16, xp.bfloat16, xp.complex64])
def test_unfold_any_dtype(dtype):
    x = xp.astype(xp.asarray(np.arange(12).reshape(3, 4) % 3), dtype)
    w = nn.unfold(x, 1, 2, 2)
    assert w.dtype == dtype and w.shape == (3, 2, 2)
    ref = ref_unfold(np.array(x._arr), 1, 2, 2)
    np.testing.assert_array_equal(np.array(w._arr), ref)


@pytest.mark.parametrize("call, err, match", [
    (lambda x: nn.unfold(x, 0, 6), ValueError, "size"),
    (lambda x: nn.unfold(x, 0, -1), ValueError, "size"),
    (lambda x: nn.unfold(x, 0, 2, 0), ValueError, "step"),
    (lambda x: nn.unfold(x, 2, 2), IndexError, "axis"),
    (lambda x: nn.unfold(x, 0, 2.0), TypeError, "size"),
    (lambda x: nn.unfold(x[0, 0], 0, 1), ValueError, "0-d"),
    (lambda x: nn.unfold(np.ones(5), 0, 2), TypeError, "flexarray array"),
])
def test_unfold_bad_input(call, err, match):
    x = xp.asarray(np.ones((5, 4)))
    with pytest.raises(err, match=match):
        call(x)


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(10))
def test_unfold_against_torch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(50 + seed)
    shape = tuple(int(v) for v in rng.integers(1, 8, int(rng.integers(1, 4))))
    axis = int(rng.integers(0, len(shape)))
    size = int(rng.integers(0, shape[axis] + 1))
    step = int(rng.integers(1, 4))
    x = rng.standard_normal(shape)
    ref = torch.from_numpy(x).unfold(axis, size, step).numpy()
    w = nn.unfold(xp.asarray(x), axis, size, step)
    assert w.shape == ref.shape
    np.testing.assert_array_equal(np.array(w._arr), ref)

"""The reduction kernels' stand-ins (flexarray/_kernels/reductions/standin.py) against the
kernels, bit for bit: every op, the half, widening, float32 and NaN-rule accumulations,
inner and outer mode, runs of lengths around the lane and block sizes, several segments,
strided, reversed and transposed layouts, NaN, inf and zeros of both signs."""
import ml_dtypes
import numpy as np
import pytest

from flexarray._kernels.reductions import reduce as kernels
from flexarray._kernels.reductions import standin

BF16 = ml_dtypes.bfloat16


def _both(op, a, axes, dtype=None, nan=None, monkeypatch=None):
    """The kernels' result and the stand-ins' (``ready`` saying False) of one plan."""
    p = kernels.plan(op, a, axes, dtype, nan)
    k = kernels.run(p, 1)
    monkeypatch.setattr(kernels, "ready", lambda *args: False)
    s = kernels.run(p, 1)
    monkeypatch.undo()
    return p, np.asarray(k), np.asarray(s)


def _same(k, s, msg):
    assert k.dtype == s.dtype and k.shape == s.shape, msg
    np.testing.assert_array_equal(np.atleast_1d(k).view(np.uint8),
                                  np.atleast_1d(s).view(np.uint8), err_msg=msg)


def _values(r, shape, dt, special=True):
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind in "biu":
        if dt == np.bool_:
            return r.random(shape) < 0.5
        info = np.iinfo(dt)
        return r.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    x = r.standard_normal(n) * 10.0 ** r.integers(-2, 3, n)
    if dt.kind == "c":
        x = x + 1j * r.standard_normal(n)
    x = x.astype(dt)
    if special:
        u = r.random(n)
        x[u < 0.15] = -0.0
        x[(u > 0.15) & (u < 0.2)] = 0.0
        x[(u > 0.2) & (u < 0.201)] = np.nan
        x[(u > 0.201) & (u < 0.202)] = np.inf
        x[(u > 0.202) & (u < 0.203)] = -np.inf
    return x.reshape(shape)


def _layouts(a, r):
    """``a`` and views of it: transposed, reversed along an axis, stepped."""
    yield a
    if a.ndim > 1:
        yield a.T
        yield np.moveaxis(a, 0, -1)
    ax = int(r.integers(0, a.ndim))
    yield np.flip(a, ax)
    if a.shape[-1] > 2:
        yield a[..., ::2]
        yield a[..., 1:]


# (op, input dtype, result dtype, nan rule, special values)
CASES = [
    ("sum", np.float16, None, None, True), ("sum", BF16, None, None, True),
    ("sum", np.float16, np.float32, None, True), ("sum", np.float32, None, None, True),
    ("sum", np.float32, np.float64, None, True), ("sum", np.int8, np.int64, None, False),
    ("sum", np.int32, np.int64, None, False), ("sum", np.bool_, np.int64, None, False),
    ("sum", np.float64, None, "skip", True), ("sum", np.float32, None, "skip", True),
    ("sum", np.float32, np.int64, "count", True), ("sum", np.float16, None, "skip", True),
    ("sum", np.complex128, None, "skip", True),
    ("prod", np.float32, np.float64, None, True), ("prod", np.int16, np.int64, None, False),
    ("prod", np.float64, None, "skip", True),
    ("max", np.float32, None, None, True), ("min", np.float64, None, None, True),
    ("max", np.float16, None, None, True), ("min", np.bool_, None, None, False),
]


@pytest.mark.parametrize("op,dt,acc,nan,special", CASES,
                         ids=[f"{c[0]}-{np.dtype(c[1]).name}-{c[2] and np.dtype(c[2]).name}-{c[3]}"
                              for c in CASES])
def test_standins_equal_the_kernels(op, dt, acc, nan, special, monkeypatch):
    r = np.random.default_rng(abs(hash((op, np.dtype(dt).name, str(acc), nan))) % 2**32)
    shapes = [(4097,), (65536 + 4096 * 3 + 77,), (3, 1000), (7, 5, 130), (2, 3, 4, 65),
              (64, 64), (300, 5), (1, 9000), (5000, 3), (2, 70, 3, 33)]
    modes = set()
    for shape in shapes:
        a = _values(r, shape, dt, special)
        for v in _layouts(a, r):
            for axes in {tuple(range(v.ndim)), (0,), (v.ndim - 1,),
                         tuple(sorted(set(int(i) for i in r.integers(0, v.ndim, 2))))}:
                p, k, s = _both(op, v, axes, acc, nan, monkeypatch)
                modes.add(p.outer)
                _same(k, s, f"{op} {shape} {v.strides} {axes}")
    assert modes == {False, True}


def test_all_negative_zeros_and_several_segments(monkeypatch):
    """Zeros of one sign only (the padding must not change them), and outer reductions
    over several segments with a short last block."""
    z = np.full((3, 70000), -0.0, np.float32)
    for axes in ((1,), (0,), (0, 1)):
        for dt in (None, np.float64):
            _same(*_both("sum", z, axes, dt, None, monkeypatch)[1:], f"zeros {axes}")
    r = np.random.default_rng(5)
    for op in ("max", "min", "sum"):
        a = _values(r, (1103, 1031), np.float32)
        _same(*_both(op, a, (0,), None, None, monkeypatch)[1:], op)
    h = _values(r, (2600, 4096), np.float16)
    p, k, s = _both("sum", h, (0,), np.float32, None, monkeypatch)
    assert p.outer
    _same(k, s, "half sum over segments")


def test_sequential_standin_equals_the_kernel(monkeypatch):
    """NumPy's order of a float sum or product over outer axes (``reduce.sequential``):
    the stand-in and the kernel, from the identity (a column of -0.0 sums to +0.0)."""
    r = np.random.default_rng(6)
    for dt in (np.float32, np.float64, np.complex128):
        for shape, axes in (((300, 17), (0,)), ((20, 30, 40), (0, 1)), ((6, 50, 8), (1,)),
                            ((40, 3, 50), (0, 2)), ((9, 8, 7, 6), (0, 1))):
            a = _values(r, shape, dt)
            a[:, 0] = -0.0
            for v in (a, a[::2], np.asfortranarray(a).T.T):
                for op in ("sum", "prod") if np.dtype(dt).kind == "f" else ("sum",):
                    k = kernels.sequential(op, v, axes)
                    if k is None:
                        continue
                    monkeypatch.setattr(kernels, "ready", lambda *args: False)
                    s = kernels.sequential(op, v, axes)
                    monkeypatch.undo()
                    _same(k, s, f"{op} {dt} {shape} {axes}")


def test_complex_products_are_left_to_the_kernel(monkeypatch):
    a = np.ones((5, 70), np.complex64)
    p = kernels.plan("prod", a, (1,))
    assert not standin.supported(p)
    monkeypatch.setattr(kernels, "ready", lambda *args: False)
    np.testing.assert_array_equal(kernels.run(p, 1), np.ones(5, np.complex64))

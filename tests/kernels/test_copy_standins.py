"""The stand-ins of the copy, gather, select and integer-matmul kernels (served while a
kernel compiles in the background: flexarray/_kernels/_warm.py) against the kernels, bit for
bit: shapes, layouts (transposed, reversed, stepped, broadcast), every item size, NaN
payloads and signed zeros; the integer products also against Python's integers."""
import ml_dtypes
import numpy as np
import pytest

from flexarray._kernels._intrinsics import flat_view, plan
from flexarray._kernels.copy import gather, strided
from flexarray._kernels.elementwise import select
from flexarray._kernels.linalg import matmul

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.float16, ml_dtypes.bfloat16, np.int32,
          np.float32, np.uint32, np.int64, np.float64, np.complex64, np.complex128]


def _values(r, shape, dt):
    """Random bits of ``dt`` (every pattern: NaNs with payloads, signed zeros, infinities),
    with some NaN, -0.0 and inf values placed for the float dtypes."""
    dt = np.dtype(dt)
    x = r.integers(0, 256, int(np.prod(shape)) * dt.itemsize, dtype=np.uint8).view(dt)
    x = x.reshape(shape).copy()
    if dt.kind in "fcV" or dt == ml_dtypes.bfloat16:
        flat = x.reshape(-1)
        for k, v in enumerate((np.nan, -0.0, 0.0, np.inf, -np.inf)):
            flat[k::7] = v
    return x


def _layouts(x):
    """Views of ``x`` (3-D) in several layouts."""
    yield x
    yield x.transpose(2, 0, 1)
    yield x.transpose(1, 2, 0)[::-1]
    yield x[::2, ::-1, 1::3]
    yield x[:, :, ::-2].swapaxes(0, 2)
    yield np.broadcast_to(x[:, :1], x.shape)


def _both_copies(dst_shape, src, dst_layout):
    """The kernel's and the stand-in's copy of ``src`` into two destinations of the same
    layout (``dst_layout(empty)``), prefilled with the same junk."""
    outs = []
    for fn in ("kernel", "standin"):
        base = np.full((2 * max(dst_shape) + 1,) * 3, 7, src.dtype)
        dst = dst_layout(base)
        fs = strided._bits(src, True)
        if fs is None:
            fs = strided._bits(np.ascontiguousarray(src), True)
        fd = strided._bits(dst, False)
        if fn == "kernel":
            strided.copy_flat(dst.shape, fs[0], fs[1], fs[2], fd[0], fd[1], fd[2], 2)
        else:
            p = plan(dst.shape, (fd[2], fs[2]), (fd[1], fs[1]))
            shp, (sd4, ss4), (do, so) = p
            strided.copy_standin(fs[0], so, ss4, fd[0], do, sd4, shp)
        outs.append(base)
    return outs


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_strided_copy_standin_equals_the_kernel(dt):
    r = np.random.default_rng(0)
    for shape in ((5, 6, 70), (1, 33, 9), (3, 1, 1), (40, 3, 17)):
        x = _values(r, shape, dt)
        for src in _layouts(x):
            for dst_layout in (lambda b: b[:src.shape[0], :src.shape[1], :src.shape[2]],
                               lambda b: b[1::2, ::-1, :2 * src.shape[2]:2][:src.shape[0],
                                                                         :src.shape[1]],
                               lambda b: b.transpose(2, 1, 0)[:src.shape[0], :src.shape[1],
                                                               :src.shape[2]]):
                k, s = _both_copies(src.shape, src, dst_layout)
                np.testing.assert_array_equal(k.view(np.uint8), s.view(np.uint8))
                # and both are the source's bits
                d = dst_layout(k)
                np.testing.assert_array_equal(
                    np.ascontiguousarray(d).view(np.uint8),
                    np.ascontiguousarray(src).view(np.uint8))


def test_strided_copy_standin_more_than_four_dims():
    """Six dims that do not coalesce: ``copy_flat`` loops over the leading dims (each slab
    a launch of the kernel or of its stand-in)."""
    r = np.random.default_rng(1)
    x = _values(r, (3, 4, 2, 5, 3, 6), np.float32)
    src = x.transpose(5, 3, 1, 4, 0, 2)[:, ::-1, :, ::2]
    dst = np.empty(src.shape, np.float32)
    strided.copy_into(dst, src)
    np.testing.assert_array_equal(dst.view(np.uint32),
                                  np.ascontiguousarray(src).view(np.uint32))
    fs, fd = flat_view(src.view(np.uint32), True), flat_view(dst.view(np.uint32))
    out = np.full(dst.size, 7, np.uint32)
    for i in range(src.shape[0]):   # the stand-in slab by slab, as copy_flat launches it
        for j in range(src.shape[1]):
            sh = src.shape[2:]
            p = plan(sh, (fd[2][2:], fs[2][2:]),
                     (i * fd[2][0] + j * fd[2][1], fs[1] + i * fs[2][0] + j * fs[2][1]))
            shp, (sd4, ss4), (do, so) = p
            strided.copy_standin(fs[0], so, ss4, out, do, sd4, shp)
    np.testing.assert_array_equal(out.reshape(dst.shape), dst.view(np.uint32))


@pytest.mark.parametrize("dt", [np.int8, np.float16, np.float32, np.float64, np.complex128],
                         ids=str)
def test_gather_standin_equals_the_kernel(dt):
    r = np.random.default_rng(2)
    for shape, axis in (((1000,), 0), ((7, 300), 1), ((4, 5, 60), 2), ((3, 1, 1), 0),
                        ((2, 9, 1), 1)):
        x = _values(r, shape, dt)
        n = shape[axis]
        for m in (1, 5, 257):
            idx = r.integers(0, n, m).astype(np.intp)
            idx[::4] = n - 1
            out_shape = shape[:axis] + (m,) + shape[axis + 1:]
            k = gather.take(x, idx, axis, np.full(out_shape, 3, dt), 2)
            np.testing.assert_array_equal(k.view(np.uint8),
                                          np.take(x, idx, axis).view(np.uint8))
            # the stand-in on the kernel's own flat operands
            size, inner = x.dtype.itemsize, int(np.prod(shape[axis + 1:]))
            if size == 16:
                size, inner = 8, inner * 2
            bits = gather._BITS[size]
            s = np.full(out_shape, 3, dt)
            gather.take_standin(x.reshape(-1).view(bits), idx, s.reshape(-1).view(bits), n,
                                inner)
            np.testing.assert_array_equal(k.view(np.uint8), s.view(np.uint8))


def test_gather_standin_clamps_like_the_kernel():
    """Indices out of range (which the frontend never passes) are clamped alike:
    ``min(uint64(i), n - 1)``, a negative one to the last element."""
    x = np.arange(10, dtype=np.int32)
    idx = np.array([0, 9, 10, 1 << 40, -1, -5, 3], np.intp)
    k = gather.take(x, idx, 0, np.empty(7, np.int32))
    s = gather.take_standin(x.view(np.uint32), idx, np.empty(7, np.uint32), 10, 1)
    np.testing.assert_array_equal(k.view(np.uint32), s)
    assert k.tolist() == [0, 9, 9, 9, 9, 9, 3]
    x2 = np.arange(30, dtype=np.int64).reshape(3, 10)
    k2 = gather.take(x2, idx, 1, np.empty((3, 7), np.int64))
    s2 = gather.take_standin(x2.reshape(-1).view(np.uint64), idx,
                             np.empty(21, np.uint64), 10, 1)
    np.testing.assert_array_equal(k2.reshape(-1).view(np.uint64), s2)


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.float16, ml_dtypes.bfloat16,
                                np.float32, np.int64, np.float64], ids=str)
def test_select_standin_equals_the_kernel(dt):
    r = np.random.default_rng(3)
    bits = select._BITS[np.dtype(dt).itemsize]
    for n in (1, 2, 63, 1000, 4099):
        c = r.random(n) < 0.5
        cb = c.view(np.uint8).copy()
        cb[cb == 1] = r.integers(1, 256, int(cb.sum()), dtype=np.uint8)   # any nonzero byte
        a, b = _values(r, (n,), dt), _values(r, (n,), dt)
        for x1, x2 in ((a, b), (a[:1], b), (a, b[:1]), (a[:1], b[:1])):
            k = select.where(cb.view(np.bool_), x1, x2, np.empty(n, dt), 2)
            s = np.empty(n, dt)
            select.where_standin(cb, x1.view(bits), x2.view(bits), s.view(bits))
            np.testing.assert_array_equal(k.view(np.uint8), s.view(np.uint8))
            ref = np.where(c, x1.view(bits), x2.view(bits))
            np.testing.assert_array_equal(s.view(bits), ref)


INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _wrapped(a, b, dt):
    """``a @ b`` with Python's integers, wrapped to ``dt``: the exact reference."""
    bits = np.dtype(dt).itemsize * 8
    p = np.matmul(a.astype(object), b.astype(object))
    w = np.array([int(v) % (1 << bits) for v in np.ravel(p)], np.uint64).reshape(p.shape)
    return w.astype(dt)


@pytest.mark.parametrize("dt", INTS, ids=str)
def test_int_matmul_standin_equals_the_kernel(dt):
    """Operands over the whole range of the dtype (products that wrap), shapes around the
    kernel's blocks, transposed and stepped operands, batches that broadcast."""
    r = np.random.default_rng(4)
    info = np.iinfo(dt)
    cases = [((5, 7), (7, 3)), ((33, 300), (300, 40)), ((1, 1), (1, 1)), ((2, 3, 17, 9), (9, 4)),
             ((17, 9), (3, 9, 4)), ((2, 1, 4, 5), (3, 5, 6))]
    for sa, sb in cases:
        a = r.integers(info.min, info.max, sa, dtype=dt, endpoint=True)
        b = r.integers(info.min, info.max, sb, dtype=dt, endpoint=True)
        for x, y in ((a, b), (a[..., ::-1, :], b[..., ::-1]),
                     (np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2), b)):
            shape = np.broadcast_shapes(x.shape[:-2], y.shape[:-2]) + (x.shape[-2],
                                                                       y.shape[-1])
            k = matmul.int_matmul(x, y, np.zeros(shape, dt))
            s = matmul.int_matmul_standin(np.broadcast_to(x, shape[:-2] + x.shape[-2:]), y)
            np.testing.assert_array_equal(k, s)
            assert s.dtype == np.dtype(dt)
        if a.size * b.shape[-1] < 20000:
            np.testing.assert_array_equal(s, _wrapped(x, y, dt))
    # the largest magnitudes: every product wraps
    for v in (info.min, info.max):
        a = np.full((4, 50), v, dt)
        np.testing.assert_array_equal(matmul.int_matmul(a, a.T, np.zeros((4, 4), dt)),
                                      matmul.int_matmul_standin(a, a.T))
        np.testing.assert_array_equal(matmul.int_matmul_standin(a, a.T), _wrapped(a, a.T, dt))

"""The stand-ins of the im2col, col2im and direct convolution kernels (served while a kernel
compiles in the background: flexarray/_kernels/_warm.py) against the kernels, bit for bit:
random geometries (1-D to 3-D, strides, dilations, paddings, groups, phase-split inputs),
both dtypes, inf and zeros of both signs in the data (and NaN in im2col's: the col2im and
direct stand-ins serve NaN-free operands only, see flexarray/_kernels/nn/conv.py), and
NaNs that infinities make in the sums."""
import numpy as np

from flexarray._engines.nn.conv import geometry, out_size
from flexarray._kernels.nn import conv


def _data(r, shape, dt, nan=False):
    x = (r.standard_normal(shape) * 10.0 ** r.integers(-2, 3)).astype(dt)
    u = r.random(shape)
    x[u < 0.05] = -0.0
    if nan:
        x[(u > 0.05) & (u < 0.07)] = np.nan
    x[(u > 0.07) & (u < 0.08)] = np.inf
    x[(u > 0.08) & (u < 0.09)] = -np.inf
    return x


def _problem(r, it):
    """(dt, x shape, Cout, Cin_g, Cout_g, ks, stride, pad, dilation, osp) with a
    non-empty output."""
    while True:
        dt = (np.float32, np.float64)[it % 2]
        rank3 = it % 4 == 0
        N, groups = int(r.integers(1, 3)), int(r.integers(1, 3))
        Cin_g, Cout_g = int(r.integers(1, 4)), int(r.integers(1, 4))
        D = int(r.integers(1, 5)) if rank3 else 1
        H, W = int(r.integers(1, 9)), int(r.integers(1, 24))
        ks = (int(r.integers(1, 3)) if rank3 else 1, int(r.integers(1, 4)),
              int(r.integers(1, 4)))
        st = tuple(int(v) for v in r.integers(1, 4, 3))
        dil = tuple(int(v) for v in r.integers(1, 3, 3))
        pad = tuple(int(r.integers(0, k + 1)) for k in ks)
        osp = tuple(out_size(m, k, s, 2 * p, d) for m, k, s, p, d in
                    zip((D, H, W), ks, st, pad, dil))
        if min(osp) > 0:
            return (dt, (N, groups * Cin_g, D, H, W), groups * Cout_g, Cin_g, Cout_g, ks, st,
                    pad, dil, osp)


def test_im2col_standin_equals_the_kernel():
    r = np.random.default_rng(20)
    for it in range(80):
        dt, shape, Cout, Cin_g, Cout_g, ks, st, pad, dil, osp = _problem(r, it)
        N, C, D, H, W = shape
        g = geometry(shape, Cout, Cin_g, Cout_g, ks, st, pad, dil, osp)
        x = _data(r, shape, dt, nan=True)
        x.reshape(-1).view(np.uint32 if dt == np.float32 else np.uint64)[::11] |= 1  # payloads
        Wq = 0
        if st[2] > 1 and it % 3:                     # phase-split rows (as the engine does)
            Wq = -(-W // st[2])
            xs = np.zeros((N, C, D, H, st[2], Wq), dt)
            for p in range(st[2]):
                n_p = len(range(p, W, st[2]))
                xs[..., p, :n_p] = x[..., p::st[2]]
            x = xs
        plane = D * H * (W if Wq == 0 else Wq * st[2])
        Kdim = Cin_g * ks[0] * ks[1] * ks[2]
        rows = Kdim + int(it % 2)                        # (a bias row left alone)
        P = osp[0] * osp[1]
        q0 = int(r.integers(0, P))
        nq = int(r.integers(1, P - q0 + 1))
        n, grp = int(r.integers(0, N)), int(r.integers(0, C // Cin_g))
        xoff = (n * C + grp * Cin_g) * plane
        c1 = np.full((rows, nq * osp[2]), 7, dt)
        c2 = c1.copy()
        conv._im2col(x.reshape(-1), xoff, g, Wq, Kdim, q0, nq, c1)
        conv.im2col_standin(x.reshape(-1), xoff, g, Wq, Kdim, q0, nq, c2)
        np.testing.assert_array_equal(c1.view(np.uint8), c2.view(np.uint8))


def test_col2im_standin_equals_the_kernel():
    r = np.random.default_rng(21)
    for it in range(80):
        dt, shape, Cout, Cin_g, Cout_g, ks, st, pad, dil, osp = _problem(r, it)
        N, C, D, H, W = shape
        g = geometry(shape, Cout, Cin_g, Cout_g, ks, st, pad, dil, osp)
        kvol = ks[0] * ks[1] * ks[2]
        nchan = int(r.integers(1, C + 1))
        P = osp[0] * osp[1]
        q0 = int(r.integers(0, P))
        nq = int(r.integers(1, P - q0 + 1))
        col = _data(r, (nchan * kvol, nq * osp[2]), dt)
        ooff = int(r.integers(0, 4))
        o1 = _data(r, ooff + nchan * D * H * W + 3, dt)
        o2 = o1.copy()
        conv._col2im(col, g, nchan, q0, nq, o1, ooff)
        conv.col2im_standin(col, g, nchan, q0, nq, o2, ooff)
        np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))


def test_direct_standin_equals_the_kernel():
    r = np.random.default_rng(22)
    for it in range(80):
        dt, shape, Cout, Cin_g, Cout_g, ks, st, pad, dil, osp = _problem(r, it)
        g = geometry(shape, Cout, Cin_g, Cout_g, ks, st, pad, dil, osp)
        x = _data(r, shape, dt)
        w = _data(r, (Cout, Cin_g) + ks, dt) if it % 5 else \
            r.standard_normal((Cout, Cin_g) + ks).astype(dt)
        b = r.standard_normal(Cout).astype(dt)
        jobs = shape[0] * Cout
        j0 = int(r.integers(0, jobs))
        j1 = int(r.integers(j0, jobs + 1))
        P = osp[0] * osp[1] * osp[2]
        o1 = np.full(jobs * P, 7, dt)
        o2 = o1.copy()
        conv._direct(x.reshape(-1), w.reshape(-1), b, o1, g, j0, j1)
        conv.direct_standin(x.reshape(-1), w.reshape(-1), b, o2, g, j0, j1)
        np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))


def test_nan_operands_compile_their_kernels(monkeypatch):
    """While the kernels are not ready (``ready`` says False), col2im and the direct loops
    with a NaN among their operands run their kernels, NaN-free ones the stand-ins."""
    calls = []
    monkeypatch.setattr(conv, "ready", lambda *a: False)
    for name in ("_col2im", "_direct", "col2im_standin", "direct_standin"):
        f = getattr(conv, name)
        monkeypatch.setattr(conv, name, lambda *a, f=f, name=name: (calls.append(name), f(*a)))
    shape, ks = (1, 2, 1, 5, 6), (1, 3, 3)
    g = geometry(shape, 2, 2, 2, ks, (1, 1, 1), (0, 1, 1), (1, 1, 1), (1, 5, 6))
    x = np.ones(60, np.float32)
    w, b = np.ones(36, np.float32), np.zeros(2, np.float32)
    col = np.ones((18, 30), np.float32)
    out = np.zeros(60, np.float32)
    conv.direct(x, w, b, np.empty(60, np.float32), g, 0, 2)
    conv.col2im(col, g, 2, 0, 5, out, 0)
    x[7] = np.nan
    col[3, 4] = np.nan
    conv.direct(x, w, b, np.empty(60, np.float32), g, 0, 2)
    conv.col2im(col, g, 2, 0, 5, out, 0)
    assert calls == ["direct_standin", "col2im_standin", "_direct", "_col2im"]

"""flexarray.nn convolutions against an independent NumPy reference (einsum per kernel tap)
and, when installed, torch.nn.functional."""
import numpy as np
import pytest

import flexarray as xp
import flexarray.nn as nn
from helpers.nn import FLOATS, LAYOUTS, assert_close, layout, np_of


# ------------------------------------------------------------------------ references

def ref_conv(x, w, b, stride, pad_lo, pad_hi, dil, groups):
    """Cross-correlation by definition: zero padding, then one einsum per kernel tap."""
    n = x.ndim - 2
    xpad = np.pad(x, [(0, 0), (0, 0)] + list(zip(pad_lo, pad_hi)))
    N, Cout, Cig = x.shape[0], w.shape[0], w.shape[1]
    ks = w.shape[2:]
    osp = [(xpad.shape[2 + i] - dil[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(n)]
    out = np.zeros((N, Cout, *osp))
    Cog = Cout // groups
    for tap in np.ndindex(*ks):
        sl = tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                   for t, d, s, o in zip(tap, dil, stride, osp))
        patch = xpad[(slice(None), slice(None)) + sl]
        for g in range(groups):
            wt = w[g * Cog:(g + 1) * Cog][(slice(None), slice(None)) + tap]
            out[:, g * Cog:(g + 1) * Cog] += np.einsum(
                "nc...,oc->no...", patch[:, g * Cig:(g + 1) * Cig], wt)
    if b is not None:
        out += b.reshape((1, -1) + (1,) * n)
    return out


def ref_conv_transpose(x, w, b, stride, pad, opad, dil, groups):
    """Transposed convolution by definition: scatter every input through every tap."""
    n = x.ndim - 2
    N, Cin = x.shape[:2]
    Cog, ks = w.shape[1], w.shape[2:]
    Cig = Cin // groups
    isp = x.shape[2:]
    full = [(i - 1) * s + d * (k - 1) + 1 + op
            for i, s, d, k, op in zip(isp, stride, dil, ks, opad)]
    out = np.zeros((N, Cog * groups, *full))
    for tap in np.ndindex(*ks):
        sl = tuple(slice(t * d, t * d + s * (i - 1) + 1, s)
                   for t, d, s, i in zip(tap, dil, stride, isp))
        for g in range(groups):
            wt = w[g * Cig:(g + 1) * Cig][(slice(None), slice(None)) + tap]
            out[(slice(None), slice(g * Cog, (g + 1) * Cog)) + sl] += np.einsum(
                "nc...,co->no...", x[:, g * Cig:(g + 1) * Cig], wt)
    out = out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in zip(pad, full))]
    if b is not None:
        out += b.reshape((1, -1) + (1,) * n)
    return out


def random_conv_case(rng, n):
    """Random but valid conv parameters in n spatial dims."""
    groups = int(rng.choice([1, 1, 2, 3]))
    cin_g, cout_g = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    if rng.random() < 0.2:  # depthwise
        cin_g, cout_g = 1, int(rng.integers(1, 3))
        groups = int(rng.integers(2, 5))
    ks = tuple(int(v) for v in rng.integers(1, 4, n))
    stride = tuple(int(v) for v in rng.integers(1, 3, n))
    dil = tuple(int(v) for v in rng.integers(1, 3, n))
    pad = tuple(int(rng.integers(0, 3)) for _ in range(n))
    sp = tuple(int(max(d * (k - 1) + 1 - 2 * p, 1) + rng.integers(0, 6))
               for k, d, p in zip(ks, dil, pad))
    return dict(N=int(rng.integers(1, 3)), cin=cin_g * groups, cout=cout_g * groups,
                groups=groups, ks=ks, stride=stride, dil=dil, pad=pad, sp=sp,
                bias=bool(rng.random() < 0.6))


CONV = {1: nn.conv1d, 2: nn.conv2d, 3: nn.conv3d}
CONVT = {1: nn.conv_transpose1d, 2: nn.conv_transpose2d, 3: nn.conv_transpose3d}


# ------------------------------------------------------------------------ convolution

@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(12))
def test_conv_random_parameters(n, seed):
    rng = np.random.default_rng(1000 * n + seed)
    c = random_conv_case(rng, n)
    dname = "float64" if seed % 3 == 0 else "float32"
    npdt = FLOATS[dname][1]
    x = rng.standard_normal((c["N"], c["cin"]) + c["sp"]).astype(npdt)
    w = rng.standard_normal((c["cout"], c["cin"] // c["groups"]) + c["ks"]).astype(npdt)
    b = rng.standard_normal(c["cout"]).astype(npdt) if c["bias"] else None
    # padding as an int when uniform (the int form), else a tuple
    pad = c["pad"][0] if len(set(c["pad"])) == 1 else c["pad"]
    got = CONV[n](xp.asarray(x), xp.asarray(w), None if b is None else xp.asarray(b),
                  stride=c["stride"], padding=pad, dilation=c["dil"], groups=c["groups"])
    ref = ref_conv(x.astype(float), w.astype(float), None if b is None else b.astype(float),
                   c["stride"], c["pad"], c["pad"], c["dil"], c["groups"])
    assert got.dtype == FLOATS[dname][0]
    assert_close(got, ref, dname)


@pytest.mark.parametrize("seed", range(8))
def test_conv_strided_phase_split(seed, monkeypatch):
    """im2col reads strided inputs from a phase-split copy (on wide inputs; forced here)."""
    from flexarray._engines.nn import conv as _conv_engines
    monkeypatch.setattr(_conv_engines, "_PHASE_MIN_W", 1)
    rng = np.random.default_rng(70 + seed)
    c = random_conv_case(rng, 2)
    c["stride"] = (int(rng.integers(1, 3)), int(rng.integers(2, 4)))
    c["groups"], c["cin"], c["cout"] = 1, 3, 4  # a GEMM, not the direct kernel
    x = rng.standard_normal((c["N"], 3) + c["sp"])
    w = rng.standard_normal((4, 3) + c["ks"])
    got = nn.conv2d(xp.asarray(x), xp.asarray(w), None, c["stride"], c["pad"], c["dil"])
    assert_close(got, ref_conv(x, w, None, c["stride"], c["pad"], c["pad"], c["dil"], 1),
                 "float64")


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("ks", [2, 3, 4])
@pytest.mark.parametrize("dil", [1, 2])
def test_conv_padding_same_and_valid(n, ks, dil):
    rng = np.random.default_rng(ks * 10 + dil + n)
    x = rng.standard_normal((2, 3) + (7,) * n)
    w = rng.standard_normal((4, 3) + (ks,) * n)
    got = CONV[n](xp.asarray(x), xp.asarray(w), padding="same", dilation=dil)
    total = dil * (ks - 1)
    ref = ref_conv(x, w, None, (1,) * n, (total // 2,) * n, (total - total // 2,) * n,
                   (dil,) * n, 1)
    assert got.shape == x.shape[:1] + (4,) + x.shape[2:]
    assert_close(got, ref, "float64")
    got = CONV[n](xp.asarray(x), xp.asarray(w), padding="valid", dilation=dil)
    assert_close(got, ref_conv(x, w, None, (1,) * n, (0,) * n, (0,) * n, (dil,) * n, 1),
                 "float64")


# Each engine on shapes that reach it: (N, Cin, H, W), (Cout, Cin_g, kh, kw), groups,
# stride, padding. Winograd takes 3x3 stride-1 with >= 16 channels per group; Winograd
# along W 4 taps per row phase (7x7 stride 2, 4x4 stride 1) with >= 32 output channels
# per group; depthwise and tiny reductions go direct; 1x1 stride-1 unpadded is a plain
# GEMM; the rest im2col.
ENGINES = {
    "winograd": ((2, 32, 13, 10), (20, 32, 3, 3), 1, 1, 1),
    "winograd_groups_pad2": ((1, 36, 9, 8), (34, 18, 3, 3), 2, 1, 2),
    "winograd_large_parallel": ((4, 16, 40, 33), (16, 16, 3, 3), 1, 1, 1),
    "direct_depthwise": ((3, 8, 12, 11), (16, 1, 3, 3), 8, 2, 1),
    "direct_depthwise_parallel": ((4, 32, 40, 40), (32, 1, 3, 3), 32, 1, 1),
    "direct_tiny": ((2, 2, 9, 9), (5, 2, 2, 2), 1, 1, 0),
    "pointwise": ((2, 12, 7, 5), (9, 12, 1, 1), 1, 1, 0),
    "pointwise_groups": ((2, 12, 7, 5), (9, 4, 1, 1), 3, 1, 0),
    "winograd_w": ((2, 3, 30, 37), (32, 3, 7, 7), 1, 2, 3),
    "winograd_w_groups": ((1, 4, 20, 26), (64, 2, 7, 7), 2, 2, 2),
    "winograd_w_stride1_k4": ((1, 5, 12, 21), (32, 5, 4, 4), 1, 1, 1),
    "winograd_w_large_parallel": ((2, 3, 64, 70), (32, 3, 7, 7), 1, 2, 3),
    "im2col_strided": ((2, 5, 23, 19), (7, 5, 5, 3), 1, 2, 2),
    "im2col_large_parallel": ((3, 12, 40, 40), (24, 12, 3, 3), 1, 1, 1),
}


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("dname", ["float32", "float64"])
@pytest.mark.parametrize("bias", [False, True])
def test_conv2d_engines(engine, dname, bias, monkeypatch):
    xs, ws, groups, stride, pad = ENGINES[engine]
    taken = _count_calls(monkeypatch, "_winograd_w")
    rng = np.random.default_rng(sorted(ENGINES).index(engine))
    npdt = FLOATS[dname][1]
    x = rng.standard_normal(xs).astype(npdt)
    w = rng.standard_normal(ws).astype(npdt)
    b = rng.standard_normal(ws[0]).astype(npdt) if bias else None
    got = nn.conv2d(xp.asarray(x), xp.asarray(w), None if b is None else xp.asarray(b),
                    stride=stride, padding=pad, groups=groups)
    ref = ref_conv(x.astype(float), w.astype(float), None if b is None else b.astype(float),
                   (stride,) * 2, (pad,) * 2, (pad,) * 2, (1, 1), groups)
    assert_close(got, ref, dname)
    assert len(taken) == engine.startswith("winograd_w")  # the engine under test ran


@pytest.mark.parametrize("engine", [e for e in sorted(ENGINES) if e.startswith("winograd_w")])
@pytest.mark.parametrize("dname", ["float32", "float64"])
@pytest.mark.parametrize("fused", [False, True])
def test_winograd_w_fused_and_matmul_paths(engine, dname, fused, monkeypatch):
    """Winograd along W computes each block in one kernel calling NumPy's BLAS when it
    can find it, with np.matmul between kernels otherwise: both against the reference."""
    from flexarray._kernels.linalg import blas
    from flexarray._kernels.nn import conv as nn_conv_kernels
    from flexarray._engines.nn import conv as _conv_engines
    npdt = FLOATS[dname][1]
    if fused and not blas.gemm_pointer(npdt):
        pytest.skip("NumPy's BLAS is not an OpenBLAS with 64-bit integers")
    monkeypatch.setattr(_conv_engines, "_WINO_W_FUSED", fused)
    blocks = []
    fused_block = nn_conv_kernels.wino_w_block
    monkeypatch.setattr(nn_conv_kernels, "wino_w_block", lambda *a: blocks.append(1) or fused_block(*a))
    xs, ws, groups, stride, pad = ENGINES[engine]
    rng = np.random.default_rng(11)
    x = rng.standard_normal(xs).astype(npdt)
    w = rng.standard_normal(ws).astype(npdt)
    b = rng.standard_normal(ws[0]).astype(npdt)
    got = nn.conv2d(xp.asarray(x), xp.asarray(w), xp.asarray(b), stride=stride, padding=pad,
                    groups=groups)
    ref = ref_conv(x.astype(float), w.astype(float), b.astype(float), (stride,) * 2,
                   (pad,) * 2, (pad,) * 2, (1, 1), groups)
    assert_close(got, ref, dname)
    assert bool(blocks) == fused


def _count_calls(monkeypatch, name):
    """Record the calls of flexarray._engines.nn.conv.<name> (a list of their results)."""
    from flexarray._engines.nn import conv as _conv_engines
    calls, f = [], getattr(_conv_engines, name)

    def counted(*args):
        calls.append(f(*args))
        return calls[-1]
    monkeypatch.setattr(_conv_engines, name, counted)
    return calls


@pytest.mark.parametrize("seed", range(12))
def test_conv_winograd_w_random_geometry(seed, monkeypatch):
    """Winograd along W against the definition: random stride, dilation and padding along
    H, stride 1 (kw 4) or 2 (kw 7, 8) along W, asymmetric padding, widths that leave a
    partial last tile."""
    rng = np.random.default_rng(300 + seed)
    taken = _count_calls(monkeypatch, "_winograd_w")
    sw = int(rng.integers(1, 3))
    kw = 4 if sw == 1 else int(rng.choice([7, 8]))
    kh, sh, dh = int(rng.integers(1, 5)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    ph, pw = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    pw_hi = int(rng.integers(0, 4))
    H = dh * (kh - 1) + 1 - 2 * ph + sh * 7 + int(rng.integers(0, 9))
    W = kw - pw - pw_hi + sw * 7 + int(rng.integers(0, 13))
    cin, groups = int(rng.integers(3, 6)), int(rng.choice([1, 2]))  # (fewer: direct)
    x = rng.standard_normal((int(rng.integers(1, 3)), cin * groups, max(H, 1), max(W, 1)))
    w = rng.standard_normal((32 * groups, cin, kh, kw))
    b = rng.standard_normal(32 * groups) if seed % 2 else None
    # asymmetric padding along W through a pre-padded input
    xpad = np.pad(x, ((0, 0), (0, 0), (0, 0), (0, pw_hi)))
    got = nn.conv2d(xp.asarray(xpad), xp.asarray(w), None if b is None else xp.asarray(b),
                    stride=(sh, sw), padding=(ph, pw), dilation=(dh, 1), groups=groups)
    ref = ref_conv(x, w, b, (sh, sw), (ph, pw), (ph, pw + pw_hi), (dh, 1), groups)
    assert_close(got, ref, "float64")
    assert len(taken) == 1 and taken[0] is not None


@pytest.mark.parametrize("engine", ["winograd", "winograd_w", "im2col_strided",
                                    "direct_depthwise"])
def test_conv_nonfinite_inputs_follow_the_definition(engine):
    """inf and NaN reach exactly the outputs whose window holds them (Winograd's
    transforms would smear them over whole tiles: such blocks are computed directly)."""
    xs, ws, groups, stride, pad = ENGINES[engine]
    rng = np.random.default_rng(5)
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    x[0, 1, 4, 5] = np.inf
    x[-1, 0, 2, 3] = np.nan
    x[0, 2, -1, -1] = -np.inf
    got = np_of(nn.conv2d(xp.asarray(x), xp.asarray(w), stride=stride, padding=pad,
                          groups=groups))
    with np.errstate(invalid="ignore"):
        ref = ref_conv(x, w, None, (stride,) * 2, (pad,) * 2, (pad,) * 2, (1, 1), groups)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(ref))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("value", [np.nan, np.inf, "huge"])
def test_conv_winograd_w_not_taken_for_weights_it_cannot_take(value, monkeypatch):
    """A NaN, an inf or an overflow-sized weight keeps the call on im2col, whose result
    follows the definition."""
    xs, ws, groups, stride, pad = ENGINES["winograd_w"]
    taken = _count_calls(monkeypatch, "_winograd_w")
    rng = np.random.default_rng(2)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    w[3, 1, 2, 4] = 1e30 if value == "huge" else value
    got = np_of(nn.conv2d(xp.asarray(x), xp.asarray(w), stride=stride, padding=pad))
    with np.errstate(invalid="ignore", over="ignore"):
        ref = ref_conv(x.astype(float), w.astype(float), None, (stride,) * 2, (pad,) * 2,
                       (pad,) * 2, (1, 1), groups)
    assert taken == []
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-4, atol=np.abs(ref[fin]).max() * 1e-6)


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("S", [4, 8])
@pytest.mark.parametrize("ja, jb", [(0, 0), (1, 6), (1, 9), (1, 17), (2, 27), (3, 30)])
def test_row_split_kernel(npdt, S, ja, jb):
    """The row split (8 x 8 transposes for S = 8) against a plain loop, every element
    of the destination checked, the untouched ones included."""
    from flexarray._kernels.nn import conv as nn_conv_kernels
    pw, d, plane = 3, 5, 40
    src = np.arange(S * jb + 8, dtype=npdt) + 0.5
    got = np.full(d + S * plane + 8, -1.0, npdt)
    nn_conv_kernels._split_interior(got, d, plane, src, ja, jb, pw, S)
    ref = np.full_like(got, -1.0)
    for j in range(ja, jb):
        for s in range(S):
            ref[d + s * plane + j] = src[S * j + s - pw]
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_winograd_w_output_kernel_is_the_cook_toom_transform(npdt):
    """The output kernel's written-out F(4, 4) A^T equals the one derived from the
    interpolation points, on every tile of every row (a partial last tile included)."""
    from flexarray._kernels.nn import conv as nn_conv_kernels
    from flexarray._engines.nn.conv import _cook_toom
    AT = _cook_toom(4)[0]
    rng = np.random.default_rng(0)
    Cout, Ho, Wo, q0, nq = 3, 9, 10, 2, 5
    J = -(-Wo // 4) + 1
    M = rng.standard_normal((7, Cout, nq * J)).astype(npdt)
    bias = rng.standard_normal(Cout).astype(npdt)
    out = np.full(2 * Cout * Ho * Wo, -7.0, npdt)
    ooff = Cout * Ho * Wo  # the second image of the flat output
    nn_conv_kernels.wino_w_output(M, bias, out, ooff, Ho, Wo, q0, nq, J, np.empty(4 * nq * J, npdt))
    y = np.einsum("af,fcqt->cqta", AT, M.astype(float).reshape(7, Cout, nq, J))
    ref = np.full((2, Cout, Ho, Wo), -7.0)
    ref[1, :, q0:q0 + nq] = (y.reshape(Cout, nq, 4 * J)[:, :, :Wo] + bias[:, None, None])
    tol = 1e-5 if npdt == np.float32 else 1e-13
    np.testing.assert_allclose(out.reshape(ref.shape), ref, rtol=tol, atol=tol * 20)


@pytest.mark.parametrize("dname", ["float32", "float64"])
@pytest.mark.parametrize("row", [0, 31, 63])  # first, middle and last parallel block
@pytest.mark.parametrize("value", [np.nan, -np.inf, "huge"])
def test_conv_winograd_w_rejects_values_its_transforms_cannot_take(dname, row, value,
                                                                   monkeypatch):
    """One bad input element in any block sends the whole call to im2col: its result
    follows the definition (an overflow-sized value stays finite where it should)."""
    xs, ws, groups, stride, pad = ENGINES["winograd_w_large_parallel"]
    taken = _count_calls(monkeypatch, "_winograd_w")
    xdt, npdt = FLOATS[dname]
    rng = np.random.default_rng(row)
    x = rng.standard_normal(xs).astype(npdt)
    w = rng.standard_normal(ws).astype(npdt)
    x[-1, 1, row, 40] = np.sqrt(np.finfo(npdt).max) / 1e3 if value == "huge" else value
    got = np_of(nn.conv2d(xp.asarray(x), xp.asarray(w), stride=stride, padding=pad))
    with np.errstate(invalid="ignore", over="ignore"):
        ref = ref_conv(x.astype(float), w.astype(float), None, (stride,) * 2, (pad,) * 2,
                       (pad,) * 2, (1, 1), groups)
    assert taken == [None]  # Winograd along W was tried and declined
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-4 if dname == "float32" else 1e-10,
                               atol=np.abs(ref[fin]).max() * 1e-6)


@pytest.mark.parametrize("dname", ["float16", "bfloat16"])
@pytest.mark.parametrize("engine", ["winograd", "winograd_w", "im2col_strided",
                                    "direct_depthwise"])
def test_conv_half_precision(dname, engine):
    """float16/bfloat16: computed in float32 from the stored values, rounded once."""
    xs, ws, groups, stride, pad = ENGINES[engine]
    xdt, npdt = FLOATS[dname]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(xs).astype(npdt)
    w = (rng.standard_normal(ws) / 4).astype(npdt)
    got = nn.conv2d(xp.asarray(x), xp.asarray(w), stride=stride, padding=pad, groups=groups)
    assert got.dtype == xdt
    ref = ref_conv(x.astype(float), w.astype(float), None, (stride,) * 2, (pad,) * 2,
                   (pad,) * 2, (1, 1), groups)
    assert_close(got, ref, dname)


def test_conv_mixed_dtypes_promote():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3))
    got = nn.conv2d(xp.asarray(x), xp.asarray(w))
    assert got.dtype == xp.float64
    assert_close(got, ref_conv(x.astype(float), w, None, (1, 1), (0, 0), (0, 0), (1, 1), 1),
                 "float64")
    h = nn.conv2d(xp.astype(xp.asarray(x), xp.float16), xp.asarray(w.astype(np.float32)))
    assert h.dtype == xp.float32


@pytest.mark.parametrize("kind", LAYOUTS)
def test_conv_any_input_layout(kind):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 4, 9, 8))
    w = rng.standard_normal((6, 2, 3, 2))
    b = rng.standard_normal(6)
    got = nn.conv2d(layout(x, kind), layout(w, kind), layout(b, kind), stride=(2, 1),
                    padding=1, groups=2)
    ref = ref_conv(x, w, b, (2, 1), (1, 1), (1, 1), (1, 1), 2)
    assert_close(got, ref, "float64")


def test_conv_broadcast_input():
    rng = np.random.default_rng(12)
    row = rng.standard_normal((1, 3, 5, 6))
    x = xp.broadcast_to(xp.asarray(row), (4, 3, 5, 6))  # stride 0 along the batch
    w = rng.standard_normal((2, 3, 2, 2))
    got = nn.conv2d(x, xp.asarray(w))
    ref = ref_conv(np.broadcast_to(row, (4, 3, 5, 6)), w, None, (1, 1), (0, 0), (0, 0),
                   (1, 1), 1)
    assert_close(got, ref, "float64")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_unbatched(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3,) + (6,) * n)
    w = rng.standard_normal((2, 3) + (3,) * n)
    got = CONV[n](xp.asarray(x), xp.asarray(w), padding=1)
    ref = ref_conv(x[None], w, None, (1,) * n, (1,) * n, (1,) * n, (1,) * n, 1)[0]
    assert got.shape == ref.shape
    assert_close(got, ref, "float64")


def test_conv_empty_batch_and_channels():
    w = xp.asarray(np.ones((3, 2, 2, 2)))
    out = nn.conv2d(xp.asarray(np.ones((0, 2, 4, 4))), w)
    assert out.shape == (0, 3, 3, 3)
    out = nn.conv2d(xp.asarray(np.ones((2, 2, 4, 4))), xp.asarray(np.ones((0, 2, 2, 2))))
    assert out.shape == (2, 0, 3, 3)


# ------------------------------------------------------------------------ transposed

@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(10))
def test_conv_transpose_random_parameters(n, seed):
    rng = np.random.default_rng(5000 + 100 * n + seed)
    groups = int(rng.choice([1, 1, 2, 3]))
    cin, cout_g = groups * int(rng.integers(1, 4)), int(rng.integers(1, 4))
    ks = tuple(int(v) for v in rng.integers(1, 4, n))
    stride = tuple(int(v) for v in rng.integers(1, 4, n))
    dil = tuple(int(v) for v in rng.integers(1, 3, n))
    opad = tuple(int(rng.integers(0, max(s, d))) for s, d in zip(stride, dil))
    pad = tuple(int(rng.integers(0, (d * (k - 1)) // 2 + 1)) for k, d in zip(ks, dil))
    sp = tuple(int(v) for v in rng.integers(1, 6, n))
    dname = "float64" if seed % 2 else "float32"
    npdt = FLOATS[dname][1]
    x = rng.standard_normal((int(rng.integers(1, 3)), cin) + sp).astype(npdt)
    w = rng.standard_normal((cin, cout_g) + ks).astype(npdt)
    b = rng.standard_normal(cout_g * groups).astype(npdt) if seed % 3 else None
    got = CONVT[n](xp.asarray(x), xp.asarray(w), None if b is None else xp.asarray(b),
                   stride=stride, padding=pad, output_padding=opad, groups=groups,
                   dilation=dil)
    ref = ref_conv_transpose(x.astype(float), w.astype(float),
                             None if b is None else b.astype(float), stride, pad, opad, dil,
                             groups)
    assert_close(got, ref, dname)


def test_conv_transpose_large_parallel_and_layouts():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 16, 40, 40))
    w = rng.standard_normal((16, 24, 4, 4))
    for kind in LAYOUTS:
        got = nn.conv_transpose2d(layout(x, kind), layout(w, kind), stride=2, padding=1,
                                  groups=4)
        assert_close(got, ref_conv_transpose(x, w, None, (2, 2), (1, 1), (0, 0), (1, 1), 4),
                     "float64")
    # one image, one group: output-channel chunks run on the workers
    one = nn.conv_transpose2d(xp.asarray(x[:1]), xp.asarray(w), stride=2, padding=1)
    assert_close(one, ref_conv_transpose(x[:1], w, None, (2, 2), (1, 1), (0, 0), (1, 1), 1),
                 "float64")


def test_conv_transpose_is_adjoint_of_conv():
    """<conv(x), y> == <x, conv_transpose(y)> with the same weight and parameters."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 11, 10))
    w = rng.standard_normal((5, 3, 3, 2))
    y = np_of(nn.conv2d(xp.asarray(x), xp.asarray(w), stride=2, padding=1, dilation=(1, 2)))
    z = rng.standard_normal(y.shape)
    xt = np_of(nn.conv_transpose2d(xp.asarray(z), xp.asarray(w), stride=2, padding=1,
                                   dilation=(1, 2), output_padding=(0, 1)))
    assert xt.shape == x.shape
    np.testing.assert_allclose(np.vdot(y, z), np.vdot(x, xt), rtol=1e-10)


# ------------------------------------------------------------------------ validation

def _xw(n=2, c=3):
    return xp.asarray(np.ones((1, c) + (5,) * n)), xp.asarray(np.ones((4, c) + (3,) * n))


@pytest.mark.parametrize("kwargs, match", [
    (dict(stride=0), "stride"), (dict(stride=-1), "stride"), (dict(dilation=0), "dilation"),
    (dict(padding=-1), "padding"), (dict(padding="full"), "padding"),
    (dict(padding="same", stride=2), "stride"), (dict(stride=(1, 1, 1)), "stride"),
    (dict(groups=0), "groups"), (dict(groups=2), "groups"),
])
def test_conv_bad_parameters(kwargs, match):
    x, w = _xw()
    with pytest.raises(ValueError, match=match):
        nn.conv2d(x, w, **kwargs)


def test_conv_bad_shapes():
    x, w = _xw()
    with pytest.raises(ValueError, match="channels"):
        nn.conv2d(xp.asarray(np.ones((1, 2, 5, 5))), w)
    with pytest.raises(ValueError, match="'x' must be"):
        nn.conv2d(xp.asarray(np.ones((5, 5))), w)
    with pytest.raises(ValueError, match="'weight' must be 4-D"):
        nn.conv2d(x, xp.asarray(np.ones((4, 3, 3))))
    with pytest.raises(ValueError, match="bias"):
        nn.conv2d(x, w, xp.asarray(np.ones(3)))
    with pytest.raises(ValueError, match="larger than the padded input"):
        nn.conv2d(x, xp.asarray(np.ones((4, 3, 7, 3))))
    with pytest.raises(ValueError, match="kernel size must be positive"):
        nn.conv2d(x, xp.asarray(np.ones((4, 3, 0, 3))))
    with pytest.raises(ValueError, match="out channels"):
        nn.conv2d(xp.asarray(np.ones((1, 4, 5, 5))), xp.asarray(np.ones((3, 2, 3, 3))),
                  groups=2)


def test_conv_bad_types():
    x, w = _xw()
    with pytest.raises(TypeError, match="'x' must be a flexarray array"):
        nn.conv2d(np.ones((1, 3, 5, 5)), w)
    with pytest.raises(TypeError, match="floating"):
        nn.conv2d(xp.asarray(np.ones((1, 3, 5, 5), np.int64)), w)
    with pytest.raises(TypeError, match="stride"):
        nn.conv2d(x, w, stride=1.5)
    with pytest.raises(TypeError, match="stride"):
        nn.conv2d(x, w, stride=True)


def test_conv_transpose_bad_parameters():
    x, w = _xw()
    with pytest.raises(ValueError, match="output_padding"):
        nn.conv_transpose2d(x, xp.asarray(np.ones((3, 2, 3, 3))), stride=2, output_padding=2)
    with pytest.raises(ValueError, match="weight.shape\\[0\\]"):
        nn.conv_transpose2d(x, xp.asarray(np.ones((4, 2, 3, 3))))
    with pytest.raises(ValueError, match="too large"):
        nn.conv_transpose2d(xp.asarray(np.ones((1, 3, 1, 1))), xp.asarray(np.ones((3, 2, 1, 1))),
                            padding=1)
    with pytest.raises(ValueError, match="padding"):
        nn.conv_transpose2d(x, xp.asarray(np.ones((3, 2, 3, 3))), padding="same")


# ------------------------------------------------------------------------ torch

@pytest.mark.torch
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_conv_against_torch(n, seed):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    rng = np.random.default_rng(9000 + 10 * n + seed)
    c = random_conv_case(rng, n)
    x = rng.standard_normal((c["N"], c["cin"]) + c["sp"]).astype(np.float32)
    w = rng.standard_normal((c["cout"], c["cin"] // c["groups"]) + c["ks"]).astype(np.float32)
    b = rng.standard_normal(c["cout"]).astype(np.float32)
    ref = getattr(F, f"conv{n}d")(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                                  c["stride"], c["pad"], c["dil"], c["groups"]).numpy()
    got = CONV[n](xp.asarray(x), xp.asarray(w), xp.asarray(b), c["stride"], c["pad"], c["dil"],
                  c["groups"])
    assert_close(got, ref.astype(float), "float32")


@pytest.mark.torch
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_conv_transpose_against_torch(n, seed):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    rng = np.random.default_rng(9500 + 10 * n + seed)
    groups = int(rng.choice([1, 2]))
    cin, cout_g = 2 * groups, int(rng.integers(1, 4))
    ks = tuple(int(v) for v in rng.integers(1, 4, n))
    stride = tuple(int(v) for v in rng.integers(1, 3, n))
    dil = tuple(int(v) for v in rng.integers(1, 3, n))
    opad = tuple(int(rng.integers(0, max(s, d))) for s, d in zip(stride, dil))
    sp = tuple(int(v) for v in rng.integers(2, 6, n))
    x = rng.standard_normal((2, cin) + sp).astype(np.float32)
    w = rng.standard_normal((cin, cout_g) + ks).astype(np.float32)
    ref = getattr(F, f"conv_transpose{n}d")(torch.from_numpy(x), torch.from_numpy(w), None,
                                            stride, 0, opad, groups, dil).numpy()
    got = CONVT[n](xp.asarray(x), xp.asarray(w), None, stride, 0, opad, groups, dil)
    assert_close(got, ref.astype(float), "float32")


@pytest.mark.torch
def test_conv_benchmark_shapes_against_torch():
    """The engines the benchmark cases take (Winograd 3x3, Winograd along W for the strided
    7x7, depthwise)."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    rng = np.random.default_rng(1)
    for xs, ws, kw in [((2, 3, 64, 64), (64, 3, 7, 7), dict(stride=2, padding=3)),
                       ((2, 32, 20, 20), (32, 32, 3, 3), dict(padding=1)),
                       ((2, 8, 50), (8, 1, 3), dict(padding=1, groups=8))]:
        x = rng.standard_normal(xs).astype(np.float32)
        w = rng.standard_normal(ws).astype(np.float32)
        f = getattr(F, f"conv{len(xs) - 2}d")
        ref = f(torch.from_numpy(x), torch.from_numpy(w), **kw).numpy()
        got = getattr(nn, f"conv{len(xs) - 2}d")(xp.asarray(x), xp.asarray(w), **kw)
        assert_close(got, ref.astype(float), "float32")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["huge alternating input", "huge weights"])
def test_winograd_3x3_falls_back_where_its_transforms_would_overflow(dtype, case):
    """3x3 stride-1 convolutions with >= 16 channels take Winograd F(2x2, 3x3), whose
    transforms add and subtract inputs (and weights): finite values near the dtype's
    maximum overflowed there into NaN everywhere. Those go to im2col now; the reference is
    the definition, in float64 (float32's values are representable there)."""
    big = np.finfo(dtype).max
    x = np.full((1, 16, 6, 6), 1.0, dtype)
    w = np.full((16, 16, 3, 3), 1e-6, dtype)
    if case == "huge alternating input":
        x[:] = 0.9 * big
        x[:, :, 1::2, :] *= -1
    else:
        w[:] = 0.9 * big / 1e30
        x[:] = 1e-30 if dtype == np.float32 else 1e-300
    got = np.asarray(nn.conv2d(xp.asarray(x), xp.asarray(w), padding=1))
    with np.errstate(over="ignore"):
        expected = ref_conv(x.astype(np.float64), w.astype(np.float64), None, (1, 1),
                            (1, 1), (1, 1), (1, 1), 1).astype(dtype)
    assert np.isfinite(got).all()
    atol = 1e-6 * float(np.abs(x).max()) * 16 * 9 * float(np.abs(w).max())  # (cancels)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=atol)


def test_conv_transpose_of_an_empty_spatial_input_is_a_value_error():
    x = xp.asarray(np.ones((2, 4, 0, 8)))
    w = xp.asarray(np.ones((4, 3, 3, 3)))
    for stride in (1, 3):
        with pytest.raises(ValueError, match="conv_transpose2d: spatial dimension 0 of x is "
                                             "empty"):
            nn.conv_transpose2d(x, w, stride=stride)
    assert nn.conv_transpose2d(xp.asarray(np.ones((0, 4, 2, 8))), w).shape == (0, 3, 4, 10)

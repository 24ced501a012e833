"""flexarray.linalg against float64/complex128 NumPy references and defining identities
(A = Q R, A = U S Vh, A v = v w, ...) over dtypes (float16/bfloat16 included), stacks and
memory layouts; the standard's result dtypes; bad-input errors."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexarray as xp
from helpers.strategies import std_kind, assert_shares, fx, to_np
from helpers.statistical import assert_close, assert_exact, eps, wide

la = xp.linalg
FLOATS = [xp.float32, xp.float64, xp.complex64, xp.complex128, xp.float16, xp.bfloat16]
REAL_OF = {xp.complex64: xp.float32, xp.complex128: xp.float64}
COMPLEX_OF = {xp.float16: xp.complex64, xp.bfloat16: xp.complex64, xp.float32: xp.complex64,
              xp.float64: xp.complex128, xp.complex64: xp.complex64,
              xp.complex128: xp.complex128}


def real(dt):
    return REAL_OF.get(dt, dt)


@st.composite
def in_layout(draw, v):
    """A flexarray array with ``v``'s elements in a random memory layout."""
    kind = draw(st.sampled_from(["contiguous", "transposed", "reversed", "stepped"]))
    if kind == "transposed" and v.ndim >= 2:
        return xp.matrix_transpose(fx(np.swapaxes(v, -1, -2)))
    if kind == "reversed" and v.ndim:
        key = (slice(None, None, -1),) * v.ndim
        return fx(v[key])[key]
    if kind == "stepped" and v.ndim:
        big = np.zeros(v.shape[:-1] + (2 * v.shape[-1],), v.dtype)
        big[..., ::2] = v
        return fx(big)[..., ::2]
    return fx(v)


@st.composite
def matrices(draw, dtypes=FLOATS, square=True, kind="general", min_n=0, max_n=4):
    """``(x, v)``: a stack of matrices and its NumPy values (already in x's dtype).

    kind: 'general' (random), 'dominant' (well conditioned), 'hpd' (Hermitian positive
    definite), 'hermitian'."""
    dtype = draw(st.sampled_from(dtypes))
    batch = tuple(draw(st.lists(st.integers(1, 2), max_size=2)))
    m = draw(st.integers(min_n, max_n))
    n = m if square else draw(st.integers(min_n, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = batch + (m, n)
    v = rng.standard_normal(shape)
    if std_kind(dtype) == "c":
        v = v + 1j * rng.standard_normal(shape)
    if kind in ("hpd", "hermitian"):
        v = v @ np.conj(np.swapaxes(v, -1, -2)) if kind == "hpd" else v + np.conj(
            np.swapaxes(v, -1, -2))
    if kind in ("dominant", "hpd"):
        v = v + 2 * max(m, 1) * np.eye(m)
    v = v.astype(dtype)
    return draw(in_layout(v)), v


def tol(dt, n, scale):
    """Backward-stable LAPACK result error bound: 30 * n * eps * scale (halves: rounding)."""
    return 30 * max(n, 1) * eps(dt) * np.asarray(scale) + 1e-300


def mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


# --- determinants, inverses, solvers -------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_det_slogdet_inv(data):
    x, v = data.draw(matrices(kind="dominant"))
    w, dt, n = wide(v), x.dtype, v.shape[-1]
    ref = np.linalg.det(w)
    assert_close(la.det(x), ref, tol(dt, n, np.abs(ref)), dt)
    sign, logabs = la.slogdet(x)
    rs, rl = np.linalg.slogdet(w)
    assert_close(sign, rs, tol(dt, n, 1.0), dt)
    assert_close(logabs, rl, tol(dt, n, 1.0 + np.abs(rl)), real(dt))
    inv = np.linalg.inv(w)
    assert_close(la.inv(x), inv, tol(dt, n, np.max(np.abs(inv), initial=0)), dt)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_solve(data):
    x1, a = data.draw(matrices(dtypes=[xp.float32, xp.float64, xp.complex128], kind="dominant",
                               min_n=1))
    m = a.shape[-1]
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    form = data.draw(st.sampled_from(["vector", "matrix", "broadcast"]))
    if form == "vector":
        bshape = (m,)
    elif form == "matrix":
        bshape = a.shape[:-2] + (m, data.draw(st.integers(1, 3)))
    else:
        bshape = (2, 1) + (1,) * max(a.ndim - 2 - 1, 0) + (m, 2)
    b = rng.standard_normal(bshape).astype(x1.dtype)
    x2 = data.draw(in_layout(b))
    r = la.solve(x1, x2)
    wa, wb = wide(a), wide(b)
    ref = np.linalg.solve(wa, wb)
    expected_shape = (a.shape[:-2] + (m,)) if form == "vector" else np.broadcast_shapes(
        a.shape[:-2], b.shape[:-2]) + b.shape[-2:]
    assert r.shape == expected_shape == ref.shape
    assert_close(r, ref, tol(x1.dtype, m, np.max(np.abs(ref), initial=0)), x1.dtype)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_cholesky(data):
    x, v = data.draw(matrices(kind="hpd"))
    upper = data.draw(st.booleans())
    ref = np.linalg.cholesky(wide(v), upper=upper)
    n = v.shape[-1]
    assert_close(la.cholesky(x, upper=upper), ref,
                 tol(x.dtype, n, np.max(np.abs(ref), initial=0)), x.dtype)


# --- eigenvalues ----------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_eigh_eigvalsh(data):
    x, v = data.draw(matrices(kind="hermitian"))
    w, dt, n = wide(v), x.dtype, v.shape[-1]
    ref = np.linalg.eigvalsh(w)
    scale = np.max(np.abs(ref), initial=0)
    assert_close(la.eigvalsh(x), ref, tol(dt, n, scale), real(dt))
    vals, vecs = la.eigh(x)
    assert vecs.dtype == dt
    assert_close(vals, ref, tol(dt, n, scale), real(dt))
    q = wide(to_np(vecs))
    recon = q @ (wide(to_np(vals))[..., None] * mh(q))
    assert np.all(np.abs(recon - w) <= tol(dt, n, scale + 1) * 4)
    assert np.all(np.abs(mh(q) @ q - np.eye(n)) <= tol(dt, n, 1) * 4)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_eig_eigvals(data):
    x, v = data.draw(matrices(dtypes=[xp.float32, xp.float64, xp.complex64, xp.complex128]))
    w, dt, n = wide(v), x.dtype, v.shape[-1]
    ct = COMPLEX_OF[dt]
    vals, vecs = la.eig(x)
    assert vals.dtype == ct and vecs.dtype == ct  # complex even when all are real
    assert vals.shape == v.shape[:-1] and vecs.shape == v.shape
    lam, vec = wide(to_np(vals)), wide(to_np(vecs))
    scale = np.max(np.abs(w), initial=0) * max(n, 1)
    assert np.all(np.abs(w @ vec - vec * lam[..., None, :]) <= tol(dt, n, scale) * 10)
    ev = wide(to_np(la.eigvals(x)))
    assert la.eigvals(x).dtype == ct
    ref = np.linalg.eigvals(w)
    # each computed eigenvalue is close to some reference eigenvalue
    d = np.abs(ev[..., :, None] - ref[..., None, :])
    if n:  # eigenvalues are ill-conditioned in general: a loose, scale-relative bound
        assert np.all(d.min(axis=-1) <= np.sqrt(eps(dt)) * 100 * (1 + scale))


# --- factorizations -------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_qr(data):
    x, v = data.draw(matrices(square=False))
    mode = data.draw(st.sampled_from(["reduced", "complete"]))
    q, r = la.qr(x, mode=mode)
    m, n = v.shape[-2:]
    k = min(m, n)
    qs = (m, m) if mode == "complete" else (m, k)
    rs = (m, n) if mode == "complete" else (k, n)
    assert q.shape == v.shape[:-2] + qs and r.shape == v.shape[:-2] + rs
    assert q.dtype == r.dtype == x.dtype
    Q, R = wide(to_np(q)), wide(to_np(r))
    scale = np.max(np.abs(wide(v)), initial=0) + 1
    assert np.all(np.abs(Q @ R - wide(v)) <= tol(x.dtype, max(m, n), scale) * 4)
    assert np.all(np.abs(mh(Q) @ Q - np.eye(qs[1])) <= tol(x.dtype, m, 1) * 4)
    assert np.all(np.tril(R, -1) == 0)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_svd_svdvals(data):
    x, v = data.draw(matrices(square=False))
    full = data.draw(st.booleans())
    u, s, vh = la.svd(x, full_matrices=full)
    m, n = v.shape[-2:]
    k = min(m, n)
    assert u.shape == v.shape[:-2] + ((m, m) if full else (m, k))
    assert vh.shape == v.shape[:-2] + ((n, n) if full else (k, n))
    assert u.dtype == vh.dtype == x.dtype and s.dtype == real(x.dtype)
    ref = np.linalg.svd(wide(v), compute_uv=False)
    scale = np.max(ref, initial=0)
    assert_close(s, ref, tol(x.dtype, max(m, n), scale), real(x.dtype))
    assert_close(la.svdvals(x), ref, tol(x.dtype, max(m, n), scale), real(x.dtype))
    U, S, Vh = wide(to_np(u)), wide(to_np(s)), wide(to_np(vh))
    recon = (U[..., :, :k] * S[..., None, :]) @ Vh[..., :k, :]
    assert np.all(np.abs(recon - wide(v)) <= tol(x.dtype, max(m, n), scale + 1) * 4)
    assert np.all(np.diff(S, axis=-1) <= 0)  # descending


@pytest.mark.parametrize("shape", [(3000, 20), (20, 3000), (12_000, 3)])
@pytest.mark.parametrize("dt", [xp.float32, xp.float64, xp.complex128])
@pytest.mark.parametrize("kind", ["random", "cond-6", "cond-12", "ill-conditioned",
                                  "rank-deficient", "nan", "inf"])
def test_svd_of_tall_and_wide_matrices(shape, dt, kind):
    """Tall and wide matrices take the Gram matrix's eigendecomposition (condition number
    up to 8: random and cond-6) or Cholesky QR (cond-12) instead of LAPACK
    (linalg._tall_svd) unless they are too ill-conditioned for it: either way the reduced
    SVD and the singular values are LAPACK's to its error bound, against NumPy in
    float64/complex128, and U and Vh are orthonormal to it."""
    rng = np.random.default_rng(sum(shape))
    v = rng.standard_normal(shape)
    if std_kind(dt) == "c":
        v = v + 1j * rng.standard_normal(shape)
    k = min(shape)
    if kind == "ill-conditioned":  # singular values from 1 down to 1e-10
        u0, _, vh0 = np.linalg.svd(v, full_matrices=False)
        v = (u0 * np.logspace(0, -10, k)) @ vh0
    elif kind.startswith("cond-"):  # singular values from 1 down to 1/6 or 1/12
        u0, _, vh0 = np.linalg.svd(v, full_matrices=False)
        v = (u0 * np.geomspace(1, 1 / int(kind[5:]), k)) @ vh0
    elif kind == "rank-deficient":
        v[..., :, -1] = v[..., :, 0] if shape[0] > shape[1] else v[..., :, -1]
        v[..., -1, :] = v[..., 0, :] if shape[0] <= shape[1] else v[..., -1, :]
    elif kind in ("nan", "inf"):
        v[1, 1] = np.nan if kind == "nan" else -np.inf
    v = v.astype(dt)
    if kind == "inf":  # svd: LinAlgError (as for NaN); svdvals: NaN, as NumPy's
        with pytest.raises(np.linalg.LinAlgError, match="svd"):
            la.svd(fx(v), full_matrices=False)
        assert np.isnan(to_np(la.svdvals(fx(v)))).all()
        assert np.isnan(np.linalg.svd(v, compute_uv=False)).all()
        return
    if kind == "nan":  # LAPACK's answer: LinAlgError, naming the function
        for f in (la.svd, la.svdvals):
            with pytest.raises(np.linalg.LinAlgError, match=f.__name__):
                f(fx(v)) if f is la.svdvals else f(fx(v), full_matrices=False)
        return
    u, s, vh = la.svd(fx(v), full_matrices=False)
    assert u.shape == (shape[0], k) and vh.shape == (k, shape[1]) and s.shape == (k,)
    assert u.dtype == vh.dtype == dt and s.dtype == real(dt)
    ref = np.linalg.svd(v.astype(np.complex128 if std_kind(dt) == "c" else np.float64),
                        compute_uv=False)
    bound = tol(dt, max(shape), ref[0])
    assert_close(s, ref, bound, real(dt))
    assert_close(la.svdvals(fx(v)), ref, bound, real(dt))
    U, S, Vh = to_np(u).astype(complex), to_np(s), to_np(vh).astype(complex)
    assert np.all(np.abs((U * S) @ Vh - v) <= bound * 4)
    assert np.all(np.diff(S) <= 0)
    if kind == "random" or kind.startswith("cond-"):  # (vectors of tiny singular values
        # are not unique)
        assert np.all(np.abs(mh(U) @ U - np.eye(k)) <= tol(dt, max(shape), 1) * 4)
        assert np.all(np.abs(Vh @ mh(Vh) - np.eye(k)) <= tol(dt, max(shape), 1) * 4)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_matrix_rank_and_pinv(data):
    dt = data.draw(st.sampled_from([xp.float32, xp.float64, xp.complex128]))
    m, n = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    rank = data.draw(st.integers(0, min(m, n)))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    batch = tuple(data.draw(st.lists(st.integers(1, 2), max_size=1)))
    b = rng.standard_normal(batch + (m, rank))
    c = rng.standard_normal(batch + (rank, n))
    v = (b @ c).astype(dt)
    x = data.draw(in_layout(v))
    r = la.matrix_rank(x)
    assert r.dtype == xp.int64 and r.shape == batch
    if dt is not xp.float32:  # float32 rounding of a rank-r product can add rank
        assert np.all(to_np(r) == rank)
    p = la.pinv(x)
    ref = np.linalg.pinv(wide(v), rtol=max(m, n) * eps(dt))
    assert p.shape == batch + (n, m)
    sv = np.linalg.svd(wide(v), compute_uv=False)
    big = np.max(sv, initial=0)
    small = np.min(np.where(sv > big * 1e-3, sv, np.inf), initial=np.inf)
    bound = tol(dt, max(m, n), (big / small ** 2) if np.isfinite(small) else 0) * 100
    assert_close(p, ref, bound, dt)
    # rtol: a huge relative tolerance drops every singular value
    assert np.all(to_np(la.matrix_rank(x, rtol=2.0)) == 0)
    rt = xp.full(batch, 2.0, dtype=real(dt))
    assert np.all(to_np(la.matrix_rank(x, rtol=rt)) == 0)
    assert np.all(to_np(la.pinv(x, rtol=2.0)) == 0)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_matrix_power(data):
    dts = FLOATS + [xp.int32, xp.int64, xp.uint8]
    dt = data.draw(st.sampled_from(dts))
    x, v = data.draw(matrices(dtypes=[xp.float64], kind="dominant", max_n=3))
    v = (np.round(v) if std_kind(dt) in "iu" else v / 4).astype(dt)
    x = data.draw(in_layout(v))
    k = data.draw(st.integers(-3 if std_kind(dt) in "fc" else 0, 6))
    r = la.matrix_power(x, k)
    n = v.shape[-1]
    if std_kind(dt) in "iu":
        ref = np.broadcast_to(np.eye(n, dtype=dt), v.shape).copy()
        for _ in range(k):
            ref = np.matmul(ref, v)
        assert_exact(r, ref, dt)
        return
    w = wide(v)
    base = np.linalg.inv(w) if k < 0 else w
    ref = np.broadcast_to(np.eye(n), v.shape).astype(w.dtype)
    for _ in range(abs(k)):
        ref = ref @ base
    scale = np.max(np.abs(base), initial=0) ** abs(k) * n ** abs(k) + 1
    assert_close(r, ref, tol(dt, n, scale) * (abs(k) + 1), dt)


# --- products and views ---------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_cross_outer(data):
    dt = data.draw(st.sampled_from(FLOATS + [xp.int16, xp.int64, xp.uint8]))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    batch = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    axis = -data.draw(st.integers(1, len(batch) + 1))
    s1 = list(batch)
    s1.insert(len(s1) + axis + 1, 3)
    s2 = [1 if data.draw(st.booleans()) else s for s in s1]
    s2[axis] = 3

    def values(shape):
        v = rng.integers(0, 10, shape) if std_kind(dt) in "iu" else rng.standard_normal(shape)
        return v.astype(dt)
    a, b = values(tuple(s1)), values(tuple(s2))
    x1, x2 = data.draw(in_layout(a)), data.draw(in_layout(b))
    r = la.cross(x1, x2, axis=axis)
    if std_kind(dt) in "iu":
        assert_exact(r, np.cross(a, b, axis=axis), dt)
    else:
        wa, wb = wide(a), wide(b)
        scale = np.max(np.abs(wa), initial=0) * np.max(np.abs(wb), initial=0)
        assert_close(r, np.cross(wa, wb, axis=axis), tol(dt, 2, scale), dt)
    u, w = values((data.draw(st.integers(0, 4)),)), values((data.draw(st.integers(0, 4)),))
    o = la.outer(data.draw(in_layout(u)), data.draw(in_layout(w)))
    if std_kind(dt) in "iu":
        assert_exact(o, np.outer(u, w), dt)
    else:
        ref = np.outer(wide(u), wide(w))
        assert_close(o, ref, tol(dt, 1, np.abs(ref)), dt)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_diagonal_trace(data):
    dt = data.draw(st.sampled_from([xp.int8, xp.uint16, xp.int64, xp.float32, xp.complex64,
                                    xp.float16, xp.bool]))
    x, v = data.draw(matrices(dtypes=[xp.float64], square=False))
    v = (np.round(v * 3) if std_kind(dt) in "biu" else v).astype(dt)
    x = data.draw(in_layout(v))
    off = data.draw(st.integers(-4, 4))
    d = la.diagonal(x, offset=off)
    assert_exact(d, np.diagonal(v, off, -2, -1), dt)
    assert_shares(d, x)
    if std_kind(dt) == "b":
        return
    t = la.trace(x, offset=off)
    out = {"i": xp.int64, "u": xp.uint64}.get(std_kind(dt), dt)
    if std_kind(out) in "iu":
        assert_exact(t, np.trace(v, off, -2, -1, dtype=out), out)
    else:
        ref = np.trace(wide(v), off, -2, -1)
        assert_close(t, ref, tol(dt, 4, np.trace(np.abs(wide(v)), off, -2, -1)), dt)
    assert la.trace(x, offset=off, dtype=xp.complex128).dtype == xp.complex128


# --- norms ----------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_vector_norm(data):
    x, v = data.draw(matrices(square=False))
    ndim = v.ndim
    axis = data.draw(st.none() | st.integers(-ndim, ndim - 1) | st.lists(
        st.integers(0, ndim - 1), unique=True, min_size=1, max_size=ndim).map(tuple))
    keepdims = data.draw(st.booleans())
    ord = data.draw(st.sampled_from([2, 1, math.inf, -math.inf, 0, 3, 0.5, -1, -2, 2.5]))
    r = la.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    axes = tuple(range(ndim)) if axis is None else axis
    a = np.abs(wide(v))
    if ord == math.inf:
        ref = np.max(a, axis=axes, keepdims=keepdims, initial=0)
    elif ord == -math.inf:
        ref = np.min(a, axis=axes, keepdims=keepdims, initial=np.inf)
    elif ord == 0:
        ref = np.sum(a != 0, axis=axes, keepdims=keepdims).astype(float)
    else:
        with np.errstate(divide="ignore"):
            ref = np.sum(a ** ord, axis=axes, keepdims=keepdims) ** (1 / ord)
    n = math.prod(a.shape[i] for i in ((axes,) if isinstance(axes, int) else axes))
    growth = 1 + abs(ord) if math.isfinite(ord) else 1
    assert_close(r, ref, tol(x.dtype, n, np.abs(ref) * growth), real(x.dtype))


@pytest.mark.parametrize("dt", [xp.float32, xp.float64, xp.bfloat16])
def test_vector_norm_no_overflow_or_underflow(dt):
    info = np.finfo(np.float32 if dt is xp.bfloat16 else dt)
    big, tiny = float(info.max) / 4, float(info.smallest_normal) * 4
    for scale in (big, tiny):
        v = np.array([scale, scale, -scale, 0.0]).astype(dt)
        got = float(la.vector_norm(fx(v)))
        ref = math.sqrt(3) * float(v[0])
        assert abs(got - ref) <= 4 * eps(dt) * ref, (got, ref)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_matrix_norm(data):
    x, v = data.draw(matrices(square=False))
    ord = data.draw(st.sampled_from(["fro", "nuc", 1, 2, -1, -2, math.inf, -math.inf]))
    keepdims = data.draw(st.booleans())
    r = la.matrix_norm(x, ord=ord, keepdims=keepdims)
    a = np.abs(wide(v))
    if ord == "fro":
        ref = np.sqrt(np.sum(a * a, axis=(-2, -1)))
    elif ord in ("nuc", 2, -2):
        s = np.linalg.svd(wide(v), compute_uv=False)
        ref = {"nuc": lambda: np.sum(s, axis=-1), 2: lambda: np.max(s, -1, initial=0),
               -2: lambda: np.min(s, -1, initial=np.inf)}[ord]()
    else:
        sums = np.sum(a, axis=-2 if ord in (1, -1) else -1)
        ref = np.max(sums, -1, initial=0) if ord > 0 else np.min(sums, -1, initial=np.inf)
    if keepdims:
        ref = ref[..., None, None]
    m, n = v.shape[-2:]
    assert_close(r, ref, tol(x.dtype, m * n, np.abs(ref)), real(x.dtype))


# --- dtypes and errors ----------------------------------------------------------------------

def test_result_dtypes_half_and_empty():
    for dt in (xp.float16, xp.bfloat16):
        x = xp.asarray([[2.0, 1.0], [1.0, 3.0]], dtype=dt)
        assert la.inv(x).dtype == dt and la.det(x).dtype == dt
        assert la.eig(x).eigenvalues.dtype == xp.complex64
        w, q = la.eigh(x)
        assert w.dtype == dt and q.dtype == dt
        assert la.matrix_norm(x).dtype == dt and la.vector_norm(x).dtype == dt
    d = np.diag([1.0, 1e-3, 1e-5])  # default rtol: max(M, N) * eps of x's own dtype
    assert int(la.matrix_rank(fx(d.astype(np.float16)))) == 1
    assert int(la.matrix_rank(fx(d.astype(np.float32)))) == 3
    e = xp.zeros((0, 0))
    assert float(la.det(e)) == 1.0 and la.inv(e).shape == (0, 0)
    assert int(la.matrix_rank(xp.zeros((3, 0)))) == 0
    assert float(la.matrix_norm(xp.zeros((3, 0)), ord=2)) == 0.0
    assert float(la.vector_norm(xp.zeros((0,)), ord=-math.inf)) == math.inf
    sign, logabs = la.slogdet(xp.zeros((2, 2)))
    assert float(sign) == 0.0 and float(logabs) == -math.inf
    assert la.eigvalsh(xp.asarray([[1 + 0j, 0], [0, 2]])).dtype == xp.float64
    assert la.matrix_power(xp.asarray([[1, 1], [0, 1]], dtype=xp.int8), 0).dtype == xp.int8
    r = la.svd(xp.eye(2))
    assert r._fields == ("U", "S", "Vh") and la.qr(xp.eye(2))._fields == ("Q", "R")
    assert la.slogdet(xp.eye(2))._fields == ("sign", "logabsdet")
    assert la.eigh(xp.eye(2))._fields == la.eig(xp.eye(2))._fields == ("eigenvalues",
                                                                        "eigenvectors")


def test_bad_input():
    sq, rect, i = xp.eye(3), xp.ones((2, 3)), xp.eye(3, dtype=xp.int32)
    for f in (la.cholesky, la.det, la.eigh, la.eigvalsh, la.eig, la.eigvals, la.inv,
              la.slogdet):
        name = f.__name__
        with pytest.raises(ValueError, match=rf"{name}: 'x' must be a stack of square "
                                             rf"matrices, got shape \(2, 3\) \(2x3\)"):
            f(rect)
        with pytest.raises(TypeError, match=rf"{name}: 'x' must have a floating-point dtype, "
                                            rf"got int32"):
            f(i)
    for f in (la.qr, la.svd, la.svdvals, la.pinv, la.matrix_rank, la.matrix_norm):
        with pytest.raises(ValueError, match=rf"{f.__name__}: 'x' must have at least 2 "
                                             rf"dimensions"):
            f(xp.ones(3))
        with pytest.raises(TypeError, match=f"{f.__name__}: 'x' must be a flexarray array"):
            f([[1.0]])
    with pytest.raises(la.LinAlgError, match="inv: Singular matrix"):
        la.inv(xp.zeros((2, 2)))
    with pytest.raises(ValueError):  # LinAlgError is a ValueError
        la.cholesky(-sq)
    with pytest.raises(ValueError, match=r"solve: x1 \(3, 3\) is 3x3 but x2 \(2,\) has 2 rows"):
        la.solve(sq, xp.ones(2))
    with pytest.raises(ValueError, match="solve: the batch dimensions"):
        la.solve(xp.ones((2, 3, 3)), xp.ones((3, 3, 1)))
    with pytest.raises(ValueError, match="qr: mode='r' is not supported"):
        la.qr(sq, mode="r")
    with pytest.raises(ValueError, match="matrix_norm: ord=3 is not supported"):
        la.matrix_norm(sq, ord=3)
    with pytest.raises(TypeError, match="vector_norm: 'ord' must be a number, got str"):
        la.vector_norm(sq, ord="fro")
    with pytest.raises(TypeError, match="vector_norm: 'keepdims' must be a bool"):
        la.vector_norm(sq, keepdims=None)
    with pytest.raises(TypeError, match="svd: 'full_matrices' must be a bool"):
        la.svd(sq, full_matrices=1)
    with pytest.raises(TypeError, match="matrix_power: 'n' must be an int, got float"):
        la.matrix_power(sq, 2.0)
    with pytest.raises(TypeError, match="matrix_power: 'x' must have a floating-point dtype"):
        la.matrix_power(i, -1)
    with pytest.raises(ValueError, match=r"cross: x1 \(3, 2\) and x2 \(3, 2\) must both have "
                                         r"size 3 along axis -1"):
        la.cross(xp.ones((3, 2)), xp.ones((3, 2)))
    with pytest.raises(ValueError, match=r"outer: 'x1' and 'x2' must be 1-D"):
        la.outer(sq, xp.ones(3))
    with pytest.raises(ValueError, match=r"diagonal: 'x' must have at least 2 dimensions"):
        la.diagonal(xp.ones(3))
    with pytest.raises(TypeError, match="trace: 'x' must have a numeric dtype"):
        la.trace(xp.ones((2, 2), dtype=xp.bool))
    with pytest.raises(TypeError, match="pinv: 'rtol' must be None, a Python float"):
        la.pinv(sq, rtol="1e-3")
    with pytest.raises(TypeError, match="matrix_rank: 'rtol' must have a real floating dtype, "
                                        "got int64; .*; or pass a Python float"):
        la.matrix_rank(sq, rtol=xp.asarray(1))
    with pytest.raises(TypeError, match="matmul: 'x1' and 'x2' must have a numeric dtype, "
                                        "got bool"):
        la.matmul(xp.ones((2, 2), dtype=xp.bool), xp.ones((2, 2), dtype=xp.bool))

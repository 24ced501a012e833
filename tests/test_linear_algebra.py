"""matmul, matrix_transpose, tensordot, vecdot against NumPy over dtypes, broadcast batch
shapes and memory layouts. Integer products must equal NumPy's wrapping integer matmul
exactly (whichever engine runs: exact float64 BLAS or the Numba kernel); floating ones
stay within ``eps * (K + 2) * (|a| @ |b|)`` of a float64/complex128 reference."""
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexarray as xp
from helpers.strategies import std_kind, ALL_DTYPES, arrays, assert_shares, fx, to_np
from helpers.statistical import assert_close, assert_exact, eps, moderate_pool, wide

NUMERIC = [d for d in ALL_DTYPES if d is not xp.bool]
PAIRS = [(a, b) for a in NUMERIC for b in NUMERIC if (a, b) in xp._dtypes.PROMOTION]


def promoted(d1, d2):
    return xp.result_type(d1, d2)


@st.composite
def matmul_shapes(draw):
    """Shapes of x1, x2 for matmul: vectors, matrices and broadcast stacks."""
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    b1 = [1 if draw(st.booleans()) else s for s in batch]
    b2 = [1 if draw(st.booleans()) else s for s in batch]
    b1 = b1[draw(st.integers(0, len(b1))):]
    s1 = (k,) if draw(st.booleans()) and not b1 else tuple(b1) + (m, k)
    s2 = (k,) if draw(st.integers(0, 3)) == 0 else tuple(b2) + (k, n)
    return s1, s2


def check_product(r, a, b, dt, reference):
    """``r`` equals ``reference(a, b)`` exactly (integers) or within the error bound."""
    if std_kind(dt) in "iu":
        assert_exact(r, reference(a.astype(dt), b.astype(dt)), dt)
        return
    wa, wb = wide(a), wide(b)
    with np.errstate(all="ignore"):
        ref = reference(wa, wb)
        k = max(a.shape[-1] if a.ndim else 1, 1)
        scale = reference(np.abs(wa), np.abs(wb))
    assert_close(r, ref, eps(dt) * (k + 2) * np.abs(scale) + 1e-300, dt)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_matmul_against_numpy(data):
    d1, d2 = data.draw(st.sampled_from(PAIRS))
    s1, s2 = data.draw(matmul_shapes())
    x1, a = data.draw(arrays(dtypes=[d1], shape=s1, pool=moderate_pool))
    x2, b = data.draw(arrays(dtypes=[d2], shape=s2, pool=moderate_pool))
    dt = promoted(d1, d2)
    r = xp.matmul(x1, x2) if data.draw(st.booleans()) else x1 @ x2
    check_product(r, a, b, dt, np.matmul)


@pytest.mark.parametrize("dtype", [xp.int32, xp.int64, xp.uint32, xp.uint64, xp.int8])
def test_integer_matmul_wraps_like_numpy(dtype):
    """Magnitudes where float64 is not exact, and sums that overflow the dtype."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(0)
    a = rng.integers(info.min // 2, info.max // 2, (3, 5, 7), dtype=dtype, endpoint=True)
    b = rng.integers(info.min // 2, info.max // 2, (7, 4), dtype=dtype, endpoint=True)
    assert_exact(xp.matmul(fx(a), fx(b)), np.matmul(a, b), dtype)
    # at the edge of the exact-float64 bound: K * max|a| * max|b| just below / at 2**53
    for k, va in ((1, 2 ** 26), (2, 2 ** 26), (4, 2 ** 25 + 1)):
        if va > info.max:
            continue
        a = np.full((2, k), va, dtype)
        b = np.full((k, 3), min(2 ** 26, info.max), dtype)
        a[0, 0] -= 1
        assert_exact(xp.matmul(fx(a), fx(b)), np.matmul(a, b), dtype)


@pytest.mark.parametrize("half", [xp.float16, xp.bfloat16])
@pytest.mark.parametrize("shapes", [((3, 40), (40, 2)), ((2, 256, 256), (256, 16))],
                         ids=["small", "kernel-sized"])
def test_half_matmul_rounds_once(half, shapes):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shapes[0]).astype(half)
    b = rng.standard_normal(shapes[1]).astype(half)
    wa, wb = a.astype(np.float64), b.astype(np.float64)
    exact = wa @ wb
    got = to_np(xp.matmul(fx(a), fx(b)))
    assert got.dtype == half
    # one rounding to the half dtype (one ulp of it: 2**(exponent - mantissa bits)) after
    # a float32 accumulation (K * eps32 * sum |a||b|)
    mant = 10 if half is xp.float16 else 7
    ulp = np.ldexp(1.0, np.frexp(exact)[1] - 1 - mant)
    k = a.shape[-1]
    acc = k * 2.0 ** -23 * (np.abs(wa) @ np.abs(wb))
    diff = np.abs(got.astype(np.float64) - exact)
    assert np.all(diff <= ulp + acc), (got, exact)
    assert np.mean(got == exact.astype(half)) > 0.95  # nearly always the rounded value


def test_matrix_transpose_is_a_view():
    x = fx(np.arange(24.0).reshape(2, 3, 4))
    t = xp.matrix_transpose(x)
    assert t.shape == (2, 4, 3)
    assert np.array_equal(to_np(t), np.swapaxes(np.arange(24.0).reshape(2, 3, 4), -1, -2))
    assert_shares(t, x)
    t[0, 1, 0] = 100.0  # a write through the view is seen by x, as in NumPy
    assert float(x[0, 0, 1]) == 100.0


@st.composite
def tensordot_args(draw):
    nc = draw(st.integers(0, 2))
    contracted = [draw(st.integers(0, 3)) for _ in range(nc)]
    f1 = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))]
    f2 = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))]
    if draw(st.booleans()):  # the int form: last n of x1, first n of x2
        return tuple(f1 + contracted), tuple(contracted + f2), nc
    p1 = draw(st.permutations(range(len(f1) + nc)))
    p2 = draw(st.permutations(range(len(f2) + nc)))
    s1 = [None] * (len(f1) + nc)
    s2 = [None] * (len(f2) + nc)
    ax1, ax2 = p1[:nc], p2[:nc]
    for i, (i1, i2) in enumerate(zip(ax1, ax2)):
        s1[i1] = s2[i2] = contracted[i]
    free1, free2 = iter(f1), iter(f2)
    s1 = [next(free1) if s is None else s for s in s1]
    s2 = [next(free2) if s is None else s for s in s2]
    neg = draw(st.booleans())
    ax1 = [a - len(s1) if neg else a for a in ax1]
    return tuple(s1), tuple(s2), (list(ax1), tuple(ax2))


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_tensordot_against_numpy(data):
    s1, s2, axes = data.draw(tensordot_args())
    d1, d2 = data.draw(st.sampled_from(PAIRS))
    x1, a = data.draw(arrays(dtypes=[d1], shape=s1, pool=moderate_pool))
    x2, b = data.draw(arrays(dtypes=[d2], shape=s2, pool=moderate_pool))
    dt = promoted(d1, d2)
    r = xp.tensordot(x1, x2, axes=axes)
    nax = axes if isinstance(axes, int) else (list(axes[0]), list(axes[1]))
    check_product(r, a, b, dt, lambda p, q: np.tensordot(p, q, axes=nax))


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_vecdot_against_numpy(data):
    d1, d2 = data.draw(st.sampled_from(PAIRS))
    k = data.draw(st.integers(0, 4))
    batch = data.draw(st.lists(st.integers(1, 3), max_size=2))
    b1 = [1 if data.draw(st.booleans()) else s for s in batch]
    b1 = b1[data.draw(st.integers(0, len(b1))):]
    axis_pos = data.draw(st.integers(0, min(len(b1), len(batch))))  # from the end
    s1, s2 = list(b1), list(batch)
    s1.insert(len(s1) - axis_pos, k)
    s2.insert(len(s2) - axis_pos, k)
    x1, a = data.draw(arrays(dtypes=[d1], shape=tuple(s1), pool=moderate_pool))
    x2, b = data.draw(arrays(dtypes=[d2], shape=tuple(s2), pool=moderate_pool))
    axis = -axis_pos - 1
    dt = promoted(d1, d2)
    r = xp.vecdot(x1, x2, axis=axis)

    def reference(p, q):
        p, q = np.broadcast_arrays(p, q)
        return np.sum(np.conj(p) * q, axis=axis, dtype=np.result_type(p, q))
    check_product(r, a, b, dt, reference)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("s1,s2,axis", [((40, 6), (40, 6), 0), ((40, 6), (40, 1), -2),
                                        ((3, 40, 5), (40, 5), -2), ((7, 40), (7, 40), 0),
                                        ((5, 9, 4), (1, 9, 4), 1),
                                        ((40, 3, 5), (40, 3, 5), 0)])
def test_vecdot_along_a_strided_axis_by_einsum(dtype, s1, s2, axis, monkeypatch):
    """Along an axis that is not contiguous (large operands), vecdot runs NumPy's einsum
    along the contiguous axis: NumPy's vecdot values (x1 conjugated), dtype and shape."""
    from flexarray._engines import gates
    monkeypatch.setattr(gates, "VECDOT_STRIDED_MIN", 0)
    calls = []
    real_einsum = np.einsum
    monkeypatch.setattr(np, "einsum", lambda *a, **k: calls.append(1) or real_einsum(*a, **k))
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(s1), rng.standard_normal(s2)
    if dtype.startswith("complex"):
        a, b = a + 1j * rng.standard_normal(s1), b - 2j * rng.standard_normal(s2)
    a, b = a.astype(dtype), b.astype(dtype)
    r = xp.vecdot(fx(a), fx(b), axis=axis)
    e = np.vecdot(a, b, axis=axis)
    assert calls, "the einsum path was not taken"
    assert r.dtype == e.dtype and r.shape == e.shape
    single = dtype in ("float32", "complex64")  # (sums of ~40 products of size ~1)
    np.testing.assert_allclose(to_np(r), e, rtol=1e-5 if single else 1e-12,
                               atol=1e-4 if single else 1e-12)


def test_vecdot_conjugates_x1():
    a = fx(np.array([1 + 2j, 3 - 1j]))
    b = fx(np.array([2 - 1j, 1j]))
    assert complex(xp.vecdot(a, b)) == (1 - 2j) * (2 - 1j) + (3 + 1j) * 1j


def test_bad_input():
    m = xp.ones((2, 3))
    with pytest.raises(ValueError, match=r"matmul: x1 \(2, 3\) has 3 columns but x2 \(2, 3\) "
                                         r"has 2 rows"):
        xp.matmul(m, m)
    with pytest.raises(ValueError, match="matmul: operands must have at least 1 dimension"):
        xp.matmul(xp.asarray(1.0), m)
    with pytest.raises(ValueError, match="matmul: the batch dimensions"):
        xp.matmul(xp.ones((2, 2, 3)), xp.ones((3, 3, 2)))
    with pytest.raises(TypeError, match="matmul: 'x1' and 'x2' must have a numeric dtype, "
                                        "got bool"):
        xp.matmul(xp.ones((2, 2), dtype=xp.bool), xp.ones((2, 2), dtype=xp.bool))
    with pytest.raises(TypeError, match="matmul: 'x2' must be a flexarray array"):
        xp.matmul(m, np.ones((3, 2)))
    with pytest.raises(TypeError, match="no type promotion between"):
        xp.matmul(xp.ones((2, 2), dtype=xp.int64), xp.ones((2, 2), dtype=xp.uint64))
    with pytest.raises(ValueError, match=r"matrix_transpose: 'x' must have at least 2 "
                                         r"dimensions, got shape \(3,\)"):
        xp.matrix_transpose(xp.ones(3))
    with pytest.raises(ValueError, match=r"tensordot: axes=3 must be in \[0, 2\]"):
        xp.tensordot(m, m, axes=3)
    with pytest.raises(ValueError, match="tensordot: x1 axis 1 has size 3 but x2 axis 0 "
                                         "has size 2"):
        xp.tensordot(m, m, axes=([1], [0]))
    with pytest.raises(ValueError, match="tensordot: repeated axes for x1"):
        xp.tensordot(m, m, axes=([0, -2], [0, 1]))
    with pytest.raises(ValueError, match="tensordot: axis 2 is out of range for x2"):
        xp.tensordot(m, m, axes=([0], [2]))
    with pytest.raises(TypeError, match="tensordot: 'axes' must be an int or a pair"):
        xp.tensordot(m, m, axes="ij")
    with pytest.raises(ValueError, match=r"vecdot: x1 \(2, 3\) and x2 \(3, 2\) must have the "
                                         r"same size along axis -1"):
        xp.vecdot(m, xp.ones((3, 2)))
    with pytest.raises(ValueError, match=r"vecdot: axis=-3 is out of range"):
        xp.vecdot(m, m, axis=-3)
    with pytest.raises(TypeError, match="vecdot: 'axis' must be an int"):
        xp.vecdot(m, m, axis=None)
    with pytest.raises(ValueError, match="vecdot: shapes .* do not broadcast"):
        xp.vecdot(xp.ones((2, 3)), xp.ones((4, 3)))


@pytest.fixture
def pool_products(monkeypatch):
    """The products on the pool (gates.MATMUL_SPLIT_*) moved down to small sizes, two
    threads, no BLAS spin pending; yields the list of ("k" | "mn", shape, shape) of the
    products that ran there."""
    from flexarray import _memory, _threads
    from flexarray._engines import gates
    from flexarray._engines import matmul as engine
    if not engine.blas_libs():
        pytest.skip("needs threadpoolctl to run BLAS single-threaded")
    monkeypatch.setattr(_threads, "NTHREADS", 2)
    monkeypatch.setattr(gates, "MATMUL_SPLIT_K_MIN_K", 16)
    monkeypatch.setattr(gates, "MATMUL_SPLIT_K_MIN_MN", 4)
    monkeypatch.setattr(gates, "MATMUL_SPLIT_K_ASPECT", 2)
    monkeypatch.setattr(gates, "MATMUL_SPLIT_MN_MIN_BYTES", 256)
    monkeypatch.setattr(_memory, "RECYCLE_MIN_BYTES", 256)
    monkeypatch.setattr(gates, "BLAS_THREADED_MIN_MACS", 0)  # (every product to the choice)
    monkeypatch.setattr(_threads, "_blas_spins_until", 0.0)
    calls = []
    for kind in ("k", "mn"):
        real = getattr(engine, f"_split_{kind}")
        monkeypatch.setattr(engine, f"_split_{kind}", lambda a, b, out, kind=kind, real=real:
                            calls.append((kind, a.shape, b.shape)) or real(a, b, out))
    return calls


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k,m,n,gram", [(64, 8, 8, True), (64, 8, 5, False), (65, 9, 8, False),
                                        (1001, 12, 12, True)])
def test_long_inner_dimensions_split_over_threads(dtype, k, m, n, gram, pool_products):
    """A product with a long inner dimension (X^T X of a tall X, X^T Y) runs as one
    single-threaded BLAS product per thread over a slice of it, summed: NumPy's values
    within the product error bound, dtype and shape."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((k, m)).astype(dtype)
    b = a if gram else rng.standard_normal((k, n)).astype(dtype)
    x = fx(a)
    r = xp.matmul(x.mT, x if gram else fx(b))
    assert [c[0] for c in pool_products] == ["k"], "the split of k was not taken"
    assert r.dtype == xp.asarray(a).dtype and r.shape == (m, b.shape[1])
    check_product(r, a.T, b, r.dtype, np.matmul)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n,layout", [(40, 3, 17, "C"), (7, 5, 90, "C"), (33, 4, 33, "T"),
                                          (70, 2, 3, "C")])
def test_large_shallow_results_split_over_threads(dtype, m, k, n, layout, pool_products):
    """A product with a large result and a short inner dimension (distances, kernels) runs
    on the pool cut along the result's longer side: NumPy's values, with either operand
    transposed (sklearn's X @ Y.T)."""
    rng = np.random.default_rng(12)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((n, k)).astype(dtype).T if layout == "T" else \
        rng.standard_normal((k, n)).astype(dtype)
    r = xp.matmul(fx(a), fx(np.ascontiguousarray(b.T)).mT if layout == "T" else fx(b))
    assert [c[0] for c in pool_products] == ["mn"], "the split of the result was not taken"
    check_product(r, a, b, r.dtype, np.matmul)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("two_pools", [True, False])
def test_thin_products_stay_out_of_blas_threads(dtype, two_pools, pool_products, monkeypatch):
    """A product with a few rows or columns (gates.MATMUL_THIN_MAX): a long result whose
    rows are contiguous is cut along its rows on the pool; a short one (G^T X) runs with
    BLAS on one thread where SciPy's OpenBLAS sits beside NumPy's, in BLAS's threads
    otherwise; a long result of transposed rows (X^T y) is never cut. NumPy's values."""
    from flexarray._engines import gates
    from flexarray._engines import matmul as engine
    libs = engine.blas_libs()
    monkeypatch.setattr(gates, "BLAS_SINGLE_THREAD_MAX_MACS", 64)
    monkeypatch.setattr(gates, "MATMUL_THIN_MAX", 3)
    monkeypatch.setattr(engine, "_two_blas_pools", lambda: two_pools)
    seen = []
    real = np.matmul
    monkeypatch.setattr(np, "matmul", lambda *a, **k: seen.append(
        max(lib.get_num_threads() for lib in libs)) or real(*a, **k))
    rng = np.random.default_rng(13)
    x = rng.standard_normal((60, 8)).astype(dtype)
    w = rng.standard_normal((3, 8)).astype(dtype)
    g = rng.standard_normal((60, 3)).astype(dtype)
    r = xp.matmul(fx(x), fx(w).mT)                   # X W^T: 60 x 3, rows on the pool
    assert [c[0] for c in pool_products] == ["mn"], "the rows were not cut"
    check_product(r, x, w.T, r.dtype, real)
    del seen[:]
    r = xp.matmul(fx(g).mT, fx(x))                   # G^T X: 3 x 8
    check_product(r, g.T, x, r.dtype, real)
    r = xp.matmul(fx(x).mT, fx(g))                   # X^T G: 8 x 3, transposed rows
    check_product(r, x.T, g, r.dtype, real)
    assert [c[0] for c in pool_products] == ["mn"], "a product of transposed rows was cut"
    if max(lib.get_num_threads() for lib in libs) > 1:
        assert (seen == [1, 1]) if two_pools else (min(seen) > 1), seen


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("form", ["X v", "X col", "v X^T", "row X^T", "X^T y", "v X", "y y",
                                  "row col"])
def test_vector_products_stay_out_of_blas_threads(dtype, form, pool_products, monkeypatch):
    """A product with a single vector on one side (BLAS's dot or gemv, 1-D or 2-D operands)
    never runs in BLAS's own threads, which spin after it: a matrix with contiguous rows
    times a vector is cut along its rows on the pool (real floats), any other runs with
    BLAS on one thread. NumPy's values, shape and dtype; a result into recycled memory
    (``out``) too."""
    from flexarray._engines import gates
    from flexarray._engines import matmul as engine
    libs = engine.blas_libs()
    monkeypatch.setattr(gates, "BLAS_VECTOR_THREADED_MIN", 8)
    monkeypatch.setattr(gates, "MATVEC_POOL_MIN_MACS", 8)
    seen = []
    real = np.matmul
    monkeypatch.setattr(np, "matmul", lambda *a, **k: seen.append(
        max(lib.get_num_threads() for lib in libs)) or real(*a, **k))
    rng = np.random.default_rng(14)
    x = fx(rng.standard_normal((61, 7)).astype(dtype))
    v, y = fx(rng.standard_normal(7).astype(dtype)), fx(rng.standard_normal(61).astype(dtype))
    a, b = {"X v": (x, v), "X col": (x, v[:, None]), "v X^T": (v, x.mT),
            "row X^T": (v[None], x.mT), "X^T y": (x.mT, y), "v X": (y, x), "y y": (y, y),
            "row col": (y[None], y[:, None])}[form]
    r = xp.matmul(a, b)
    threads = list(seen)
    a, b = to_np(a), to_np(b)
    pooled = form in ("X v", "X col", "v X^T", "row X^T") and dtype != "complex128"
    assert [c[0] for c in pool_products] == (["mn"] if pooled else []), pool_products
    assert r.shape == real(a, b).shape and r.dtype == xp.asarray(a).dtype
    check_product(r, a, b, r.dtype, real)
    if max(lib.get_num_threads() for lib in libs) > 1:
        assert threads and max(threads) == 1, threads


def test_thread_counts_are_the_blas_libraries_own():
    """The functions that read and set each BLAS library's thread count (OpenBLAS's own C
    functions where threadpoolctl finds OpenBLAS) read what threadpoolctl reads and set
    what it then reads; SingleThreadedBLAS sets one thread and restores the count, on the
    main thread and on another one (where threadpoolctl's own setter would be ignored)."""
    import threading
    from flexarray._engines import matmul as engine
    libs = engine.blas_libs()
    if not libs:
        pytest.skip("needs threadpoolctl")
    counts = engine.thread_counts()
    assert len(counts) == len(libs)

    def now():
        return [lib.get_num_threads() for lib in libs]

    before = now()
    assert [get() for get, _ in counts] == before
    try:
        for _, put in counts:
            put(1)
        assert now() == [1] * len(libs)
    finally:
        for (_, put), n in zip(counts, before):
            put(n)
    assert now() == before
    box = {}

    def inside():
        with engine.SingleThreadedBLAS():
            box["inside"] = now()
        box["after"] = now()

    inside()
    assert box == {"inside": [1] * len(libs), "after": before}
    box.clear()
    t = threading.Thread(target=inside)
    t.start()
    t.join()
    assert box == {"inside": [1] * len(libs), "after": before}


def test_two_blas_pools_are_two_blas_libraries(monkeypatch):
    """SciPy's BLAS counts as a second thread pool only where threadpoolctl finds it a
    library of its own beside NumPy's."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import scipy.linalg  # noqa: F401 (loads SciPy's BLAS)
    from flexarray._engines import matmul as engine
    monkeypatch.setattr(engine, "_two_pools", None)
    files = {lib["filepath"] for lib in threadpoolctl.threadpool_info()
             if lib["user_api"] == "blas"}
    assert engine._two_blas_pools() is (len(files) >= 2)
    monkeypatch.setattr(engine, "_two_pools", None)
    monkeypatch.delitem(sys.modules, "scipy.linalg")  # (restored afterwards)
    assert engine._two_blas_pools() is False  # (not looked up before SciPy's BLAS loads)
    assert engine._two_pools is None


def test_products_stay_whole_without_blas_control(pool_products, monkeypatch):
    """Without threadpoolctl BLAS keeps its threads: splitting would oversubscribe the
    cores, so the products stay one BLAS call each."""
    from flexarray._engines import matmul as engine
    monkeypatch.setattr(engine, "_controllers", [])
    a = np.random.default_rng(10).standard_normal((64, 8))
    r = xp.matmul(fx(a).mT, fx(a))
    r2 = xp.matmul(fx(a), fx(a).mT)
    assert not pool_products
    check_product(r, a.T, a, r.dtype, np.matmul)
    check_product(r2, a, a.T, r2.dtype, np.matmul)


def test_tall_svd_products_on_the_pool(pool_products):
    """The Cholesky-QR SVD of a tall matrix forms X^T X and X V S^-1 on the pool: U S Vh
    is X, S is LAPACK's."""
    a = np.random.default_rng(11).standard_normal((2000, 8))
    u, s, vh = xp.linalg.svd(fx(a), full_matrices=False)
    assert {c[0] for c in pool_products} == {"k", "mn"}
    np.testing.assert_allclose(to_np(s), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(to_np(u) * to_np(s) @ to_np(vh), a, atol=1e-12)

"""flexarray.fft and its real-FFT kernel against numpy.fft (float64/complex128 references).

Accuracy: max|got - ref| / max|ref| at most 1e-12 (float64) and 1e-5 (float32), over
sizes, batch shapes, axes, norms, strided and negative-stride inputs. Every path of the
kernel is reached: lane blocks of short rows, one four-step row at a time, rows in
parallel, and one huge row split over threads. Sizes up to 2^20 are @pytest.mark.slow.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import flexarray as xp
import flexarray.fft as xfft  # (also binds xp.fft until __init__ imports it)
from flexarray._engines import fft as fft_engine
from flexarray._kernels.fft import rfft as rfft_kernels

TOL = {np.float32: 1e-5, np.float64: 1e-12, np.complex64: 1e-5, np.complex128: 1e-12}
REAL = {np.complex64: np.float32, np.complex128: np.float64}
CPLX = {np.float32: np.complex64, np.float64: np.complex128}


def rel_err(got, ref):
    got = np.asarray(got)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.size == 0:
        return 0.0
    scale = np.abs(ref).max()
    return float(np.abs(got.astype(ref.dtype) - ref).max() / (scale if scale else 1.0))


def assert_close(got, ref, dtype):
    err = rel_err(got, ref)
    assert err <= TOL[np.dtype(dtype).type], f"relative error {err:.3g} for {np.dtype(dtype)}"


def wide(a):
    """float64 / complex128 copy: the reference runs at the higher precision."""
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def normal(rng, shape, dtype):
    v = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def in_layout(v, kind):
    """A NumPy view holding v's values: contiguous, reversed, strided or transposed."""
    if kind == "reversed":
        key = (slice(None, None, -1),) * v.ndim
        return np.ascontiguousarray(v[key])[key]
    if kind == "strided":
        big = np.zeros(v.shape[:-1] + (3 * v.shape[-1],), v.dtype)
        big[..., ::3] = v
        return big[..., ::3]
    if kind == "transposed" and v.ndim >= 2:
        return np.ascontiguousarray(v.T).T
    return v.copy()


def check_pair(x, n, axis, norm):
    """rfft of x and irfft of its spectrum against numpy.fft in float64."""
    dt = x.dtype.type
    got = rfft_kernels.rfft(x, n, axis, norm)
    ref = np.fft.rfft(wide(x), n, axis, norm)
    assert got.dtype == CPLX[dt]
    assert_close(got, ref, dt)
    spec = ref.astype(CPLX[dt])
    nn = n if n is not None else x.shape[axis]
    back = rfft_kernels.irfft(spec, nn, axis, norm)
    assert back.dtype == dt
    assert_close(back, np.fft.irfft(wide(spec), nn, axis, norm), dt)


# --- the kernel -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("logn", range(0, 15))
def test_kernel_power_of_two_sizes(dtype, logn, monkeypatch):
    rng = np.random.default_rng(logn)
    n = 1 << logn
    for shape in [(n,), (3, n)]:
        check_pair(normal(rng, shape, dtype), None, -1, "backward")
    monkeypatch.setattr(rfft_kernels, "PAR_MIN_WORK", 1)              # rows over worker threads
    check_pair(normal(rng, (37, n), dtype), None, -1, "ortho")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_huge_rows_split_over_threads(dtype, monkeypatch):
    rng = np.random.default_rng(9)
    for norm in ("backward", "forward"):
        check_pair(normal(rng, (1, 1 << 17), dtype), None, -1, norm)    # the real thresholds
    monkeypatch.setattr(rfft_kernels, "PAR_MIN_WORK", 1)
    monkeypatch.setattr(rfft_kernels, "BIG_MIN_NC", 1)
    for shape in [(1, 1 << 9), (1, 1 << 12), (1, 1 << 15), (2, 1 << 14)]:
        check_pair(normal(rng, shape, dtype), None, -1, "ortho")
    check_pair(normal(rng, (1 << 13, 1), dtype)[::-1], None, 0, "backward")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_many_short_rows(dtype, monkeypatch):
    rng = np.random.default_rng(1)
    for par in (False, True):
        if par:
            monkeypatch.setattr(rfft_kernels, "PAR_MIN_WORK", 1)
        for n in (2, 4, 8, 16, 64, 128, 256):
            check_pair(normal(rng, (1001, n), dtype), None, 1, "ortho")
            check_pair(normal(rng, (n, 37), dtype), None, 0, "forward")


@settings(max_examples=60, deadline=None)
@given(logn=st.integers(1, 12), batch=st.lists(st.integers(1, 5), max_size=3),
       axis=st.integers(0, 3), norm=st.sampled_from(["backward", "ortho", "forward"]),
       layout=st.sampled_from(["contiguous", "reversed", "strided", "transposed"]),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16),
       resize=st.sampled_from([None, "cut", "pad"]))
def test_kernel_random_layouts(logn, batch, axis, norm, layout, dtype, seed, resize):
    rng = np.random.default_rng(seed)
    n = 1 << logn
    shape = list(batch)
    axis = axis % (len(shape) + 1)
    m = {None: n, "cut": n + 3, "pad": max(1, n - 3)}[resize]
    shape.insert(axis, m)
    x = in_layout(normal(rng, tuple(shape), dtype), layout)
    check_pair(x, None if resize is None else n, axis, norm)
    # the inverse from a strided, reversed spectrum
    spec = in_layout(normal(rng, tuple(shape[:axis] + [n // 2 + 1] + shape[axis + 1:]),
                            CPLX[dtype]), layout)
    assert_close(rfft_kernels.irfft(spec, n, axis, norm), np.fft.irfft(wide(spec), n, axis, norm), dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_kernel_irfft_ignores_imaginary_dc_and_nyquist(dtype):
    rng = np.random.default_rng(5)
    for n in (8, 1024):
        spec = normal(rng, (4, n // 2 + 1), dtype)   # non-Hermitian ends on purpose
        assert_close(rfft_kernels.irfft(spec, n), np.fft.irfft(wide(spec), n), REAL[dtype])


def test_kernel_other_sizes_match_numpy():
    rng = np.random.default_rng(7)
    for n in (3, 5, 6, 7, 12, 100, 127, 1000, 4097):
        for dt in (np.float32, np.float64):
            check_pair(normal(rng, (2, n), dt), None, -1, "backward")


@pytest.mark.parametrize("n", [257, 502, 1021, 1527, 4093, 12289])
def test_kernel_bluestein_lengths(n):
    """float32 lengths with a large prime factor run a Bluestein convolution."""
    assert fft_engine.use_bluestein(n, np.float32) and not fft_engine.use_bluestein(n, np.float64)
    rng = np.random.default_rng(n)
    for layout in ("contiguous", "reversed", "strided"):
        x = in_layout(normal(rng, (3, n), np.float32), layout)
        check_pair(x, None, -1, "ortho")
    x = normal(rng, (n + 5, 2), np.float32)
    check_pair(x, n, 0, "forward")                      # cut, along axis 0
    check_pair(x[:n - 7], n, 0, "backward")             # zero-padded
    spec = normal(rng, (2, n // 2 + 1), np.complex64)   # non-Hermitian ends
    assert_close(rfft_kernels.irfft(spec, n), np.fft.irfft(wide(spec), n), np.float32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_kernel_complex_fft(dtype):
    rng = np.random.default_rng(2)
    for n in (2, 4, 64, 256, 4096, 1 << 15):
        z = normal(rng, (3, n), dtype)
        assert_close(rfft_kernels.cfft(z), np.fft.fft(wide(z)), dtype)
        assert_close(rfft_kernels.cfft(z, inverse=True, scale=1.0 / n), np.fft.ifft(wide(z)), dtype)
        assert_close(rfft_kernels.cfft(z[:, ::-1]), np.fft.fft(wide(z[:, ::-1])), dtype)


def test_kernel_empty_batch_and_input_untouched():
    x = np.zeros((0, 16), np.float32)
    assert rfft_kernels.rfft(x).shape == (0, 9) and rfft_kernels.rfft(x).dtype == np.complex64
    assert rfft_kernels.irfft(np.zeros((3, 0, 9), np.complex128), 16, axis=-1).shape == (3, 0, 16)
    rng = np.random.default_rng(0)
    x = normal(rng, (4, 64), np.float64)
    keep = x.copy()
    x.flags.writeable = False                       # read-only input is fine
    rfft_kernels.rfft(x)
    assert np.array_equal(x, keep)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("logn", range(15, 21))
def test_kernel_large_sizes(dtype, logn):
    rng = np.random.default_rng(logn)
    n = 1 << logn
    for shape, axis in [((n,), 0), ((2, n), 1), ((5, n), 1), ((n, 2), 0)]:
        for norm in ("backward", "ortho", "forward"):
            check_pair(normal(rng, shape, dtype), None, axis, norm)
    x = normal(rng, (3, 2 * n), dtype)[::-1, ::-2]
    check_pair(x, None, 1, "backward")


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 1 << 20), rows=st.integers(1, 3),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_kernel_random_sizes(n, rows, dtype, seed):
    rng = np.random.default_rng(seed)
    check_pair(normal(rng, (rows, n), dtype), None, -1, "backward")


@pytest.mark.torch
def test_kernel_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for dt in (np.float32, np.float64):
        x = normal(rng, (16, 4096), dt)
        ref = torch.fft.rfft(torch.from_numpy(x.astype(np.float64))).numpy()
        assert_close(rfft_kernels.rfft(x), ref, dt)
        spec = ref.astype(CPLX[dt])
        back = torch.fft.irfft(torch.from_numpy(wide(spec)), 4096).numpy()
        assert_close(rfft_kernels.irfft(spec, 4096), back, dt)


# --- the fft extension ------------------------------------------------------------------

def fx(v):
    return xp.asarray(v)


def np_of(a):
    return np.asarray(a._arr)


REALS = [xp.float32, xp.float64]
COMPLEXES = [xp.complex64, xp.complex128]
NORMS = st.sampled_from(["backward", "ortho", "forward"])
shapes = st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple)


def expected_complex(dt):
    return {xp.float32: xp.complex64, xp.float64: xp.complex128, xp.float16: xp.complex64,
            xp.bfloat16: xp.complex64}.get(dt, dt)


def expected_real(dt):
    return {xp.complex64: xp.float32, xp.complex128: xp.float64}.get(dt, dt)


@st.composite
def arrays(draw, dtypes):
    dt = draw(st.sampled_from(dtypes))
    shape = draw(shapes)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    layout = draw(st.sampled_from(["contiguous", "reversed", "strided", "transposed"]))
    v = in_layout(normal(rng, shape, dt), layout)
    return xp.asarray(v), v


@st.composite
def one_dim_args(draw, x_shape, inverse_real=False):
    axis = draw(st.integers(-len(x_shape), len(x_shape) - 1))
    m = x_shape[axis]
    default = 2 * (m - 1) if inverse_real else m
    n = draw(st.none() | st.integers(max(1, m // 2), 2 * m + 2))
    if n is None and default < 1:
        n = 2
    return n, axis, draw(NORMS)


@st.composite
def n_dim_args(draw, x_shape, inverse_real=False):
    nd = len(x_shape)
    axes = draw(st.none() | st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd,
                                     unique_by=lambda a: a % nd))
    ax = list(range(nd)) if axes is None else axes
    s = None
    if axes is not None and draw(st.booleans()):
        s = [draw(st.integers(1, 2 * x_shape[a] + 1)) for a in ax]
    if s is None and inverse_real and x_shape[ax[-1]] == 1:
        s = [x_shape[a] for a in ax[:-1]] + [2]
        axes = ax
    return s, axes, draw(NORMS)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), xv=arrays(COMPLEXES + REALS),
       name=st.sampled_from(["fft", "ifft"]))
def test_fft_ifft(data, xv, name):
    x, v = xv
    n, axis, norm = data.draw(one_dim_args(v.shape))
    got = getattr(xp.fft, name)(x, n=n, axis=axis, norm=norm)
    assert got.dtype == expected_complex(x.dtype)
    assert_close(np_of(got), getattr(np.fft, name)(wide(v), n, axis, norm), v.dtype.type)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), xv=arrays(REALS), name=st.sampled_from(["rfft", "ihfft"]))
def test_rfft_ihfft(data, xv, name):
    x, v = xv
    n, axis, norm = data.draw(one_dim_args(v.shape))
    got = getattr(xp.fft, name)(x, n=n, axis=axis, norm=norm)
    assert got.dtype == expected_complex(x.dtype)
    assert_close(np_of(got), getattr(np.fft, name)(wide(v), n, axis, norm), v.dtype.type)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), xv=arrays(COMPLEXES), name=st.sampled_from(["irfft", "hfft"]))
def test_irfft_hfft(data, xv, name):
    x, v = xv
    n, axis, norm = data.draw(one_dim_args(v.shape, inverse_real=True))
    got = getattr(xp.fft, name)(x, n=n, axis=axis, norm=norm)
    assert got.dtype == expected_real(x.dtype)
    assert_close(np_of(got), getattr(np.fft, name)(wide(v), n, axis, norm),
                 REAL[v.dtype.type])


@settings(max_examples=40, deadline=None)
@given(data=st.data(), xv=arrays(COMPLEXES), name=st.sampled_from(["fftn", "ifftn"]))
def test_fftn_ifftn(data, xv, name):
    x, v = xv
    s, axes, norm = data.draw(n_dim_args(v.shape))
    got = getattr(xp.fft, name)(x, s=s, axes=axes, norm=norm)
    assert got.dtype == x.dtype
    assert_close(np_of(got), getattr(np.fft, name)(wide(v), s, axes, norm), v.dtype.type)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), xv=arrays(REALS))
def test_rfftn(data, xv):
    x, v = xv
    s, axes, norm = data.draw(n_dim_args(v.shape))
    got = xp.fft.rfftn(x, s=s, axes=axes, norm=norm)
    assert got.dtype == expected_complex(x.dtype)
    assert_close(np_of(got), np.fft.rfftn(wide(v), s, axes, norm), v.dtype.type)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), xv=arrays(COMPLEXES))
def test_irfftn(data, xv):
    x, v = xv
    s, axes, norm = data.draw(n_dim_args(v.shape, inverse_real=True))
    got = xp.fft.irfftn(x, s=s, axes=axes, norm=norm)
    assert got.dtype == expected_real(x.dtype)
    assert_close(np_of(got), np.fft.irfftn(wide(v), s, axes, norm), REAL[v.dtype.type])


def test_round_trips_on_the_kernel_sizes():
    rng = np.random.default_rng(11)
    for dt in (np.float32, np.float64):
        v = normal(rng, (3, 4, 2048), dt)
        x = fx(v)
        back = xp.fft.irfftn(xp.fft.rfftn(x), s=[3, 4, 2048], axes=[0, 1, 2])
        assert back.dtype == x.dtype
        assert_close(np_of(back), wide(v), dt)
        back = xp.fft.hfft(xp.fft.ihfft(x), n=2048)
        assert_close(np_of(back), wide(v), dt)


REAL_FAMILY = {"rfft": (REALS, np.fft.rfft), "ihfft": (REALS, np.fft.ihfft),
               "irfft": (COMPLEXES, np.fft.irfft), "hfft": (COMPLEXES, np.fft.hfft)}


@pytest.mark.parametrize("name", sorted(REAL_FAMILY))
def test_kernel_gate_engines_and_results(name, monkeypatch):
    """Around the kernel-length gate: shorter transforms go to pocketfft, longer ones to
    flexarray's kernel; both give NumPy's results and dtypes (cut, padded, any axis)."""
    dtypes, ref = REAL_FAMILY[name]
    calls = []
    for hook in ("_rfft_kernel", "_irfft_kernel"):
        orig = getattr(fft_engine, hook)
        monkeypatch.setattr(fft_engine, hook, lambda a, n, axis, norm, orig=orig:
                            calls.append(n) or orig(a, n, axis, norm))
    rng = np.random.default_rng(5)
    for dt in dtypes:
        lim = fft_engine.kernel_min_n(np.dtype(dt))
        for n in (lim // 2, lim - 2, lim, 2 * lim):
            for shape, axis in (((3, n), -1), ((n, 2), 0)):
                v = normal(rng, shape, dt)
                for nn, norm in ((None, "backward"), (n, "ortho"), (n // 2 + 2, "forward")):
                    calls.clear()
                    got = getattr(xp.fft, name)(fx(v), n=nn, axis=axis, norm=norm)
                    want = ref(wide(v), nn, axis, norm)
                    assert got.shape == want.shape
                    assert got.dtype == (expected_real(dt) if name in ("irfft", "hfft")
                                         else expected_complex(dt))
                    assert_close(np_of(got), want, REAL.get(np.dtype(dt).type, dt))
                    length = want.shape[axis] if name in ("irfft", "hfft") else (
                        v.shape[axis] if nn is None else nn)
                    assert bool(calls) == (length >= lim), (dt, n, nn, calls)


ONE_D_REFS = {"fft": np.fft.fft, "ifft": np.fft.ifft, "rfft": np.fft.rfft,
              "ihfft": np.fft.ihfft, "irfft": np.fft.irfft, "hfft": np.fft.hfft}


@pytest.fixture
def pocket_engine_everywhere(monkeypatch):
    """The pocketfft engine's gates at 1: every batch split over the pool, fft/ifft of
    real input from the real transform, at hypothesis's small sizes."""
    from flexarray._engines import gates
    for name in ("FFT_THREADS_MIN", "FFT_FROM_REAL_MIN", "FFT_FROM_REAL_MIN_N"):
        monkeypatch.setattr(gates, name, 1)  # (FFT_THREADS_MIN // 4: every batch split)


ONE_D_INPUTS = {"fft": REALS + COMPLEXES, "ifft": REALS + COMPLEXES, "rfft": REALS,
                "ihfft": REALS, "irfft": COMPLEXES, "hfft": COMPLEXES}


@pytest.mark.parametrize("name", sorted(ONE_D_REFS))
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # (constant patches)
@given(data=st.data())
def test_pocketfft_engine_split_and_from_real(pocket_engine_everywhere, name, data):
    """Split batches (any axis, cut or padded, every norm) and fft/ifft of real input by
    Hermitian symmetry give NumPy's values and dtypes."""
    x, v = data.draw(arrays(ONE_D_INPUTS[name]))
    half = name in ("irfft", "hfft")
    n, axis, norm = data.draw(one_dim_args(v.shape, inverse_real=half))
    got = getattr(xp.fft, name)(x, n=n, axis=axis, norm=norm)
    assert got.dtype == (expected_real(x.dtype) if half else expected_complex(x.dtype))
    assert_close(np_of(got), ONE_D_REFS[name](wide(v), n, axis, norm),
                 REAL.get(v.dtype.type, v.dtype.type))


@pytest.mark.parametrize("name", sorted(ONE_D_REFS))
@pytest.mark.parametrize("shape, axis", [((3000, 40), -1), ((3000, 40), 0), ((5, 30002), 1)])
def test_pocketfft_engine_at_its_sizes(name, shape, axis):
    """The engine at the sizes where it runs by default (no patched gates): lengths that
    are not powers of two, real and complex input, float32 and float64."""
    rng = np.random.default_rng(7)
    for dt in ((np.float32, np.float64) if name in ("fft", "ifft", "rfft", "ihfft") else ())\
            + ((np.complex64, np.complex128) if name not in ("rfft", "ihfft") else ()):
        v = normal(rng, shape, dt)
        m = shape[axis]
        for n in (None, m - 3) if name not in ("irfft", "hfft") else (None, 2 * m - 3):
            got = getattr(xp.fft, name)(fx(v), n=n, axis=axis, norm="ortho")
            assert_close(np_of(got), ONE_D_REFS[name](wide(v), n, axis, "ortho"),
                         REAL.get(np.dtype(dt).type, dt))


@pytest.mark.parametrize("name", sorted(ONE_D_REFS))
@pytest.mark.parametrize("shape, axis", [((1920,), 0), ((1, 1920), 1), ((1920, 1), 0),
                                         ((1922,), 0), ((2036,), 0)])
def test_four_step_lone_rows(name, shape, axis, monkeypatch):
    """A lone row whose length splits into a matrix takes the four-step FFT (its gates and
    the matrix's shortest side lowered to these sizes; 2,036 = 4 x 509 splits for neither
    transform): NumPy's values and dtypes, for every norm, cut and zero-padded, float32
    and float64, on the pool's threads, and the input untouched."""
    from flexarray._engines import gates
    from flexarray._kernels.fft import fourstep
    monkeypatch.setattr(gates, "FFT_FOUR_STEP_MIN_N", 64)
    monkeypatch.setattr(gates, "FFT_FOUR_STEP_MIN_N_REAL", 64)
    monkeypatch.setattr(gates, "FFT_THREADS_MIN", 4)  # (the pool's threads from 64 points)
    monkeypatch.setattr(fourstep, "MIN_SIDE", 8)
    ran = []
    monkeypatch.setattr(fourstep, "fft", lambda z, *a, real=fourstep.fft: (
        ran.append(z.shape[0]), real(z, *a))[1])
    rng = np.random.default_rng(21)
    half = name in ("irfft", "hfft")
    for dt in ((np.complex64, np.complex128) if half or name in ("fft", "ifft") else ()) + \
            ((np.float32, np.float64) if not half else ()):
        v = normal(rng, shape, dt)
        before = v.copy()
        m = shape[axis]
        for n in (None, m - 6, m + 30) if not half else (None, 2 * m - 6, 2 * m + 40):
            points = n if n is not None else (2 * (m - 1) if half else m)
            if name in ("fft", "ifft"):  # (large real input: the real transform, mirrored)
                from_real = np.dtype(dt).kind == "f" and v.size >= gates.FFT_FROM_REAL_MIN
                expect = not from_real and fourstep.split(points) is not None
            else:
                rdt = REAL.get(np.dtype(dt).type, dt)
                expect = points % 2 == 0 and fourstep.split(points // 2) is not None and \
                    not fft_engine.use_bluestein(points, rdt)
            for norm in ("backward", "ortho", "forward"):
                del ran[:]
                got = getattr(xp.fft, name)(fx(v), n=n, axis=axis, norm=norm)
                assert bool(ran) is expect, (dt, n, ran)
                assert_close(np_of(got), ONE_D_REFS[name](wide(v), n, axis, norm),
                             REAL.get(np.dtype(dt).type, dt))
        np.testing.assert_array_equal(v, before)


def test_kernel_gate_n_dim():
    rng = np.random.default_rng(6)
    for dt in (np.float32, np.float64):
        lim = fft_engine.kernel_min_n(np.dtype(dt))
        for m in (lim // 2, lim):
            v = normal(rng, (4, m), dt)
            got = xp.fft.rfftn(fx(v), s=[3, m], axes=[0, 1], norm="ortho")
            want = np.fft.rfftn(wide(v), [3, m], [0, 1], "ortho")
            assert_close(np_of(got), want, dt)
            assert got.dtype == CPLX[dt]
            back = xp.fft.irfftn(got, s=[3, m], axes=[0, 1], norm="ortho")
            assert_close(np_of(back), np.fft.irfftn(want, [3, m], [0, 1], "ortho"), dt)
            assert back.dtype == dt


def test_explicit_n_takes_the_checks():
    x = fx(np.ones(8))
    for bad, exc in ((True, TypeError), (np.int64(0), ValueError), (-3, ValueError),
                     (1 << 62, ValueError)):
        with pytest.raises(exc, match="rfft"):
            xp.fft.rfft(x, n=bad)
    assert xp.fft.rfft(x, n=np.int64(6)).shape == (4,)
    assert xp.fft.fft(x, axis=np.int64(0)).shape == (8,)


@pytest.mark.parametrize("dt", [xp.float16, xp.bfloat16])
def test_half_precision_computes_in_float32(dt):
    v = np.linspace(-1, 1, 64).astype(dt)
    got = xp.fft.rfft(fx(v))
    assert got.dtype == xp.complex64
    assert_close(np_of(got), np.fft.rfft(v.astype(np.float64)), np.float32)
    assert xp.fft.fft(fx(v)).dtype == xp.complex64


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 100), d=st.floats(0.1, 5),
       dtype=st.sampled_from([None, xp.float32, xp.float64]))
def test_fftfreq_rfftfreq(n, d, dtype):
    for name in ("fftfreq", "rfftfreq"):
        got = getattr(xp.fft, name)(n, d=d, dtype=dtype)
        want = dtype or xp.float64
        assert got.dtype == want
        ref = getattr(np.fft, name)(n, d)
        rtol = 1e-6 if want is xp.float32 else 1e-15
        np.testing.assert_allclose(np_of(got), ref.astype(want), rtol=rtol)
    assert xp.fft.fftfreq(4, device=xp.asarray(1.0).device).shape == (4,)


@settings(max_examples=40, deadline=None)
@given(xv=arrays(REALS + COMPLEXES), data=st.data(),
       name=st.sampled_from(["fftshift", "ifftshift"]))
def test_shifts(xv, data, name):
    x, v = xv
    nd = v.ndim
    axes = data.draw(st.none() | st.integers(-nd, nd - 1)
                     | st.lists(st.integers(0, nd - 1), min_size=1, unique=True))
    got = getattr(xp.fft, name)(x, axes=axes)
    assert got.dtype == x.dtype
    assert np.array_equal(np_of(got), getattr(np.fft, name)(v, axes))


def test_results_are_independent_values():
    v = np.arange(16.0)
    x = fx(v)
    y = xp.fft.fftshift(x)
    y[0] = 100.0
    z = xp.fft.rfft(x)
    z[0] = 0
    assert np.array_equal(np_of(x), v)


# --- bad input --------------------------------------------------------------------------

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn"]


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_integer_and_bool_input_raise_type_error(name):
    for v in (np.arange(8), np.ones(8, bool)):
        with pytest.raises(TypeError, match=name):
            getattr(xp.fft, name)(fx(v))
    with pytest.raises(TypeError, match="flexarray array"):
        getattr(xp.fft, name)(np.ones(8))


@pytest.mark.parametrize("name", ["rfft", "ihfft", "rfftn"])
def test_complex_input_to_real_transforms_raises(name):
    with pytest.raises(TypeError, match="real floating"):
        getattr(xp.fft, name)(fx(np.ones(8, np.complex64)))


@pytest.mark.parametrize("name", ONE_D)
def test_one_dim_bad_arguments(name):
    f = getattr(xp.fft, name)
    x = fx(np.ones((4, 8)))
    with pytest.raises(ValueError, match="norm"):
        f(x, norm="both")
    with pytest.raises(ValueError, match="n=0"):
        f(x, n=0)
    with pytest.raises(TypeError, match="'n'"):
        f(x, n=2.5)
    with pytest.raises(IndexError, match="axis"):
        f(x, axis=2)
    with pytest.raises(IndexError, match="axis"):
        f(fx(np.array(1.0)))


@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_default_length_zero_raises(name):
    with pytest.raises(ValueError, match="pass n"):
        getattr(xp.fft, name)(fx(np.ones((3, 1), np.complex128)))


@pytest.mark.parametrize("name", N_D)
def test_n_dim_bad_arguments(name):
    f = getattr(xp.fft, name)
    x = fx(np.ones((4, 6)))
    with pytest.raises(ValueError, match="without 'axes'"):
        f(x, s=[4, 6])
    with pytest.raises(ValueError, match="entries"):
        f(x, s=[4], axes=[0, 1])
    with pytest.raises(ValueError, match="repeated"):
        f(x, axes=[1, -1])
    with pytest.raises(ValueError, match="invalid length"):
        f(x, s=[0, 4], axes=[0, 1])
    with pytest.raises(IndexError, match="axes"):
        f(x, axes=[2])
    with pytest.raises(TypeError, match="sequence"):
        f(x, axes=1)
    with pytest.raises(ValueError, match="norm"):
        f(x, norm=None)


def test_freq_bad_arguments():
    for f in (xp.fft.fftfreq, xp.fft.rfftfreq):
        with pytest.raises(ValueError, match="n must be >= 1"):
            f(0)
        with pytest.raises(TypeError, match="'n'"):
            f(4.0)
        with pytest.raises(ValueError, match="dtype"):
            f(4, dtype=xp.int64)
        with pytest.raises(ValueError, match="dtype"):
            f(4, dtype=xp.complex64)
        with pytest.raises(ValueError, match="device"):
            f(4, device="gpu")
        with pytest.raises(TypeError, match="spacing"):
            f(4, d="1")


def test_shift_bad_axes():
    x = fx(np.ones((2, 3)))
    with pytest.raises(IndexError):
        xp.fft.fftshift(x, axes=2)
    with pytest.raises(ValueError, match="repeated"):
        xp.fft.ifftshift(x, axes=[0, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("axis", [0, 1])
def test_one_axis_n_dimensional_transforms_match_numpy(dtype, axis):
    """fftn/ifftn/rfftn/irfftn over one axis take the one-dimensional transforms' engines
    (threaded batches, real input through the real transform: scipy.signal.oaconvolve's
    blocks): NumPy's values and dtypes, with and without s."""
    rng = np.random.default_rng(11)
    v = rng.standard_normal((300, 256))
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal((300, 256))
    v = v.astype(dtype)
    x = fx(v)
    for s in (None, [200]):
        for name in ("fftn", "ifftn"):
            got = getattr(xp.fft, name)(x, s=s, axes=[axis])
            want = getattr(np.fft, name)(wide(v), s, [axis])
            assert got.dtype == CPLX.get(dtype, dtype)
            assert_close(np_of(got), want, dtype)
        if np.dtype(dtype).kind == "f":
            got = xp.fft.rfftn(x, s=s, axes=[axis], norm="ortho")
            assert_close(np_of(got), np.fft.rfftn(wide(v), s, [axis], "ortho"), dtype)
            back = xp.fft.irfftn(got, s=s, axes=[axis], norm="ortho")
            assert back.dtype == dtype
            assert_close(np_of(back), np.fft.irfftn(np.fft.rfftn(wide(v), s, [axis], "ortho"),
                                                    s, [axis], "ortho"), dtype)


@pytest.mark.parametrize("func", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [(1,), [0, 1], (0,), None, 1])
def test_shifts_of_empty_axes_shift_nothing(func, axes):
    """A shift has no transform length: an empty axis among ``axes`` is no error (NumPy's
    fftshift is the reference)."""
    a = np.zeros((3, 0))
    got = getattr(xp.fft, func)(xp.asarray(a), axes=axes)
    assert got.shape == getattr(np.fft, func)(a, axes=axes).shape


@pytest.mark.parametrize("n", [1, 4, 1000, 2048])
@pytest.mark.parametrize("func", ["irfft", "hfft"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_inverse_real_transforms_of_an_empty_spectrum_are_zeros(func, n, dtype):
    """An empty half spectrum zero-padded to n is all zeros: its transform is zeros of the
    real dtype (NumPy's irfft/hfft/irfftn return unwritten memory there; the reference is
    the same transform of n//2 + 1 explicit zeros)."""
    for shape, axis in (((0,), 0), ((2, 0), 1), ((0, 3), 0)):
        a = np.zeros(shape, dtype)
        padded = np.zeros(shape[:axis] + (n // 2 + 1,) + shape[axis + 1:], dtype)
        expected = getattr(np.fft, func)(padded, n=n, axis=axis)
        got = np.asarray(getattr(xp.fft, func)(xp.asarray(a), n=n, axis=axis))
        assert got.dtype == np.finfo(dtype).dtype and got.shape == expected.shape
        assert not got.any()
    z = xp.asarray(np.zeros((2, 0), dtype))
    got = np.asarray(xp.fft.irfftn(z, s=(3, n), axes=(0, 1)))
    assert got.shape == (3, n) and not got.any()

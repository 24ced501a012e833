"""The same bits on any thread (docs/architecture.md, "Same bits on any thread").

Reductions (sum, prod, mean, var, std, max, min, the nan-forms, cumulative sums, vecdot,
vector norms), matrix products (the pieces of ``_engines.matmul``, integer and half-float
products), convolution, pooling, attention and the real FFT must give bit-identical results for the
same input whether they run on the main thread or another one, inline or on the pool, with
any ``FLEXARRAY_NUM_THREADS``. The reference of each result is the same call under every
other setting: each setting runs in a subprocess of its own (the thread count is read at
import), which computes every case three times, on its main thread (on the pool), on a
worker thread (inline unless a thread count was given) and on the main thread while BLAS's
threads are taken to spin (inline), and prints a digest of each result. A few results are
also checked against NumPy, so that a consistently wrong engine does not pass.

The default run lowers the size gates of the threaded paths (the NumPy reductions' cuts,
the reduction kernels' threads, the product splits, nn's and the FFT's thread gates) so
that small inputs take them; ``-m slow`` adds a sweep at sizes above the real gates.

Run one setting by hand: ``FLEXARRAY_NUM_THREADS=3 python tests/test_same_bits.py core``.
"""
import hashlib
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

HERE = os.path.abspath(__file__)
#: FLEXARRAY_NUM_THREADS of the subprocesses (None: unset, the CPUs this process may use)
SETTINGS = [None, "1", "2", "3", "4", "8"]
MODES = ("main", "thread", "inline")

FLOATS = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")


# --- the cases ------------------------------------------------------------------------

def _data(shape, dt, seed, nan=False):
    """Random normal values of NumPy dtype name ``dt`` (complex: both parts)."""
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape)
    if dt in COMPLEX:
        v = v + 1j * rng.standard_normal(shape)
    if nan:
        v.reshape(-1)[::7] = np.nan
    if dt == "bfloat16":
        import ml_dtypes
        return v.astype(ml_dtypes.bfloat16)
    return v.astype(dt)


def _layouts(a):
    """The layout classes of a 2-D array: contiguous, transposed, strided, reversed."""
    import flexarray as xp
    x = xp.asarray(a)
    return {"C": x, "T": xp.asarray(np.ascontiguousarray(a.T)).T, "strided": x[:, ::2],
            "reversed": xp.flip(x, axis=1), "reversed2": xp.flip(x)}


def reduction_cases(rows, cols):
    """(name, zero-argument call) of the reductions for every dtype, layout and axis."""
    import flexarray as xp
    cases = []
    for dt in FLOATS + COMPLEX:
        real = dt not in COMPLEX
        lay = _layouts(_data((rows, cols), dt, 1))
        nan_lay = _layouts(_data((rows, cols), dt, 2, nan=True)) if real else {}
        for ln, x in lay.items():
            for axis in (None, 0, -1):
                pre = f"{dt} {ln} axis={axis}"
                cases += [(f"sum {pre}", lambda x=x, a=axis: xp.sum(x, axis=a)),
                          (f"mean {pre}", lambda x=x, a=axis: xp.mean(x, axis=a))]
                if real:
                    cases += [(f"prod {pre}", lambda x=x, a=axis: xp.prod(x * 0.001 + 1,
                                                                          axis=a)),
                              (f"var {pre}", lambda x=x, a=axis: xp.var(x, axis=a)),
                              (f"std {pre}", lambda x=x, a=axis: xp.std(x, axis=a,
                                                                        correction=1)),
                              (f"max {pre}", lambda x=x, a=axis: xp.max(x, axis=a)),
                              (f"min {pre}", lambda x=x, a=axis: xp.min(x, axis=a))]
                    if dt in ("float32", "float64"):
                        y = nan_lay[ln]
                        cases += [(f"nansum {pre}", lambda y=y, a=axis: xp.nansum(y, axis=a)),
                                  (f"nanmean {pre}", lambda y=y, a=axis: xp.nanmean(y, axis=a)),
                                  (f"nanvar {pre}", lambda y=y, a=axis: xp.nanvar(y, axis=a)),
                                  (f"nanstd {pre}", lambda y=y, a=axis: xp.nanstd(y, axis=a)),
                                  (f"nanprod {pre}", lambda y=y, a=axis: xp.nanprod(
                                      y * 0.001 + 1, axis=a))]
                if axis is not None:
                    cases.append((f"cumulative_sum {pre}",
                                  lambda x=x, a=axis: xp.cumulative_sum(x, axis=a)))
                    if dt not in ("float16", "bfloat16"):
                        cases.append((f"vecdot {pre}", lambda x=x, a=axis: xp.vecdot(
                            x, x, axis=a)))
            cases.append((f"vector_norm {dt} {ln}", lambda x=x: xp.linalg.vector_norm(x)))
            cases.append((f"sum {dt} {ln} 1-D", lambda x=x: xp.sum(xp.reshape(x, (-1,)))))
    return cases


def matmul_cases(k):
    """The products ``_engines.matmul`` cuts into pieces (a long inner dimension, a large shallow
    result, a thin result, a matrix times a vector), and integer and half-float products."""
    import flexarray as xp
    cases = []
    for dt in ("float32", "float64"):
        t = xp.asarray(_data((k, 24), dt, 3))
        w = xp.asarray(_data((24, 3), dt, 4))
        cases += [(f"X^T X {dt}", lambda t=t: t.mT @ t),
                  (f"X^T Y {dt}", lambda t=t: t.mT @ (t * 0.5)),
                  (f"distances X Y^T {dt}", lambda t=t: t[:64] @ t.mT),
                  (f"thin X W {dt}", lambda t=t, w=w: t @ w),
                  (f"X v {dt}", lambda t=t, w=w: t @ w[:, 0]),
                  (f"v X^T {dt}", lambda t=t, w=w: w[:, 1] @ t.mT),
                  (f"X^T y {dt}", lambda t=t: t.mT @ t[:, 0])]
        long = xp.asarray(_data((50_000, 24), dt, 7))  # (a dot long enough for BLAS's threads)
        cases.append((f"X^T y of 50,000 rows {dt}", lambda t=long: t.mT @ t[:, 1]))
    for dt in ("float16", "bfloat16"):
        a = xp.asarray(_data((160, 96), dt, 5))
        cases.append((f"matmul {dt}", lambda a=a: a @ a.mT))
    i = xp.asarray(np.random.default_rng(6).integers(-2**30, 2**30, (96, 96)).astype(np.int32))
    cases.append(("matmul int32", lambda: i @ i))
    return cases


def nn_cases(scale):
    """Convolution (each engine), pooling and attention, for every float dtype."""
    import flexarray as xp
    nn = xp.nn
    cases = []
    for dt in FLOATS:
        def r(*shape, seed, dt=dt):
            return xp.asarray(_data(shape, dt, seed))

        x = r(2, 16, 12 * scale, 12 * scale, seed=10)
        img = r(1, 3, 32 * scale, 32 * scale, seed=11)
        cases += [
            (f"conv2d winograd 3x3 {dt}", lambda x=x, w=r(16, 16, 3, 3, seed=12):
                nn.conv2d(x, w, padding=1)),
            (f"conv2d winograd along W k7 s2 {dt}", lambda i=img, w=r(32, 3, 7, 7, seed=13):
                nn.conv2d(i, w, stride=2, padding=3)),
            (f"conv2d im2col k5 {dt}", lambda x=x, w=r(8, 16, 5, 5, seed=14):
                nn.conv2d(x, w, padding=2)),
            (f"conv2d im2col s2 bias {dt}", lambda x=x, w=r(24, 16, 3, 3, seed=15),
                b=r(24, seed=16): nn.conv2d(x, w, b, stride=2, padding=1)),
            (f"conv2d depthwise {dt}", lambda x=x, w=r(16, 1, 3, 3, seed=17):
                nn.conv2d(x, w, padding=1, groups=16)),
            (f"conv1d {dt}", lambda x=r(2, 8, 64 * scale, seed=18), w=r(12, 8, 5, seed=19):
                nn.conv1d(x, w, padding=2)),
            (f"conv3d {dt}", lambda x=r(1, 4, 6, 8 * scale, 8, seed=20),
                w=r(6, 4, 3, 3, 3, seed=21): nn.conv3d(x, w, padding=1)),
            (f"conv_transpose2d {dt}", lambda x=x, w=r(16, 8, 3, 3, seed=22):
                nn.conv_transpose2d(x, w, stride=2, padding=1)),
            (f"avg_pool2d {dt}", lambda x=x: nn.avg_pool2d(x, 3, stride=1, padding=1)),
            (f"max_pool2d {dt}", lambda x=x: nn.max_pool2d(x, 3, stride=2, padding=1)),
        ]
        q = r(1, 3, 48 * scale, 32, seed=23)
        k = r(1, 3, 48 * scale, 32, seed=24)
        v = r(1, 3, 48 * scale, 32, seed=25)
        cases += [(f"attention {dt}", lambda q=q, k=k, v=v:
                   nn.scaled_dot_product_attention(q, k, v)),
                  (f"attention causal {dt}", lambda q=q, k=k, v=v:
                   nn.scaled_dot_product_attention(q, k, v, is_causal=True)),
                  (f"attention mask {dt}", lambda q=q, k=k, v=v: nn.scaled_dot_product_attention(
                      q, k, v, attn_mask=xp.asarray(np.tril(np.ones((q.shape[2], k.shape[2]),
                                                                    bool), 3))))]
    return cases


def fft_cases(n):
    """The real FFT over rows (the kernel's lengths), fft of real input, and the four-step
    FFT of a lone row."""
    import flexarray as xp
    cases = []
    for dt in ("float32", "float64", "float16"):
        a = xp.asarray(_data((12, n), dt, 30))
        cases += [(f"rfft rows {dt}", lambda a=a: xp.fft.rfft(a)),
                  (f"irfft rows {dt}", lambda a=a: xp.fft.irfft(xp.fft.rfft(a), n=n)),
                  (f"rfft axis 0 {dt}", lambda a=a: xp.fft.rfft(xp.reshape(a, (n, 12)), axis=0)),
                  (f"fft of real rows {dt}", lambda a=a: xp.fft.fft(a)),
                  (f"rfftn {dt}", lambda a=a: xp.fft.rfftn(a))]
        if dt != "float16":  # a lone row of 12 n points (3 x 2^k: not a power of two, and
            row = xp.reshape(a, (-1,))  # it splits): the four-step FFT above its gates
            cases += [(f"rfft four-step {dt}", lambda r=row: xp.fft.rfft(r)),
                      (f"irfft four-step {dt}", lambda r=row: xp.fft.irfft(xp.fft.rfft(r))),
                      (f"fft four-step {dt}", lambda r=row: xp.fft.fft(r * (1 + 1j)))]
    return cases


def split_row_fft_cases(n):
    """Fewer rows than threads, each of at least ``BIG_MIN_NC`` complex points: each
    row's phases are cut into tasks over the threads (``_kernels.fft.rfft._launch``)."""
    import flexarray as xp
    cases = []
    for dt in ("float32", "float64"):
        for rows in (1, 2):
            a = xp.asarray(_data((rows, n), dt, 31))
            cases += [(f"rfft {rows} split rows {dt}", lambda a=a: xp.fft.rfft(a)),
                      (f"irfft {rows} split rows {dt}", lambda a=a: xp.fft.irfft(
                          xp.fft.rfft(a), n=n))]
    return cases


# --- the gates, lowered so that small inputs take the threaded paths -------------------

def lower_gates():
    from flexarray._kernels.fft import rfft
    from flexarray._engines import gates
    gates.REDUCE_SPLIT_MIN_BYTES = 1 << 16
    gates.REDUCE_SPLIT_SHORT_ROWS_MIN = 1 << 12
    gates.REDUCE_THREADS_MIN = 0
    gates.REDUCE_OVERLAP_THREADS_MIN = 0
    gates.NAN_REDUCE_KERNEL_MIN = 1 << 12
    gates.MATMUL_SPLIT_K_MIN_K = 256
    gates.MATMUL_SPLIT_K_MIN_MN = 4
    gates.MATMUL_SPLIT_K_ASPECT = 2
    gates.MATMUL_SPLIT_MN_MIN_BYTES = 1 << 12
    gates.BLAS_SINGLE_THREAD_MAX_MACS = 1 << 10
    gates.BLAS_THREADED_MIN_MACS = 0
    gates.FFT_FOUR_STEP_MIN_N = gates.FFT_FOUR_STEP_MIN_N_REAL = 1 << 12
    gates.INT_MATMUL_THREADS_MIN = 0
    gates.CONV_GEMM_THREADS_MIN = 0
    gates.CONV_DIRECT_THREADS_MIN = 0
    gates.ATTENTION_THREADS_MIN = 0
    gates.ATTENTION_MATERIALIZE_MAX = 1 << 10  # (the longer attention: flash)
    gates.POOL_THREADS_MIN = 0
    rfft.PAR_MIN_WORK = 0


def cases(group, slow=False):
    if group == "core":
        if slow:  # above the real gates: 16 MB of float64 per array
            return (reduction_cases(2048, 1024) + matmul_cases(50_000) + nn_cases(4)
                    + fft_cases(4096))
        return reduction_cases(96, 130) + matmul_cases(3000) + nn_cases(1) + fft_cases(1024)
    if group == "fft_split":
        return split_row_fft_cases(1 << 20 if slow else 1 << 17)
    raise ValueError(group)


def digest(r):
    a = np.asarray(r)
    return hashlib.sha1(a.tobytes() + f"{a.dtype}{a.shape}".encode()).hexdigest()[:16]


def run_group(group, slow=False):
    """{mode: {case: digest}} of every case of ``group`` in this process's setting."""
    import flexarray  # noqa: F401
    from flexarray import _threads
    if not slow:
        lower_gates()
    todo = cases(group, slow)

    def all_cases():
        return {name: digest(call()) for name, call in todo}

    _threads._BLAS_SPIN_SECONDS = 0.0  # main and thread: no spin left by a product
    out = {"main": all_cases()}
    box = {}
    t = threading.Thread(target=lambda: box.update(r=all_cases()))
    t.start()
    t.join()
    out["thread"] = box["r"]
    _threads._blas_spins_until = time.perf_counter() + 3600.0  # BLAS's threads "spin":
    try:                                                      # parallel calls run inline
        out["inline"] = all_cases()
    finally:
        _threads._blas_spins_until = 0.0
    return out


# --- the tests ------------------------------------------------------------------------

def _start(group, setting, slow):
    env = dict(os.environ)
    env.pop("FLEXARRAY_NUM_THREADS", None)
    if setting is not None:
        env["FLEXARRAY_NUM_THREADS"] = setting
    args = [sys.executable, HERE, group] + (["--slow"] if slow else [])
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _collect(procs, timeout):
    results = {}
    for setting, p in procs.items():
        out, err = p.communicate(timeout=timeout)
        assert p.returncode == 0, f"FLEXARRAY_NUM_THREADS={setting}: exit {p.returncode}\n" \
                                  f"{err[-3000:]}"
        results[setting] = json.loads(out)
    return results


def _compare(results):
    """Failures: for each case whose digests differ, the settings behind each digest."""
    first = next(iter(results.values()))["main"]
    bad = []
    for name in first:
        seen = {}
        for setting, res in results.items():
            for mode in MODES:
                seen.setdefault(res[mode][name], []).append(f"{setting or 'unset'}/{mode}")
        if len(seen) > 1:
            bad.append(f"{name}: " + " | ".join(", ".join(v) for v in seen.values()))
    return bad


def _check_group(group, settings, slow, timeout):
    # the first setting alone, then the others at once: a cold kernel cache is compiled
    # once, not by every subprocess at the same time
    results = _collect({settings[0]: _start(group, settings[0], slow)}, timeout)
    results.update(_collect({s: _start(group, s, slow) for s in settings[1:]}, timeout))
    bad = _compare(results)
    assert not bad, f"{len(bad)} cases differ between settings:\n" + "\n".join(bad[:40])


def test_same_bits_in_every_setting():
    """Every case, in every setting and mode, gives one digest."""
    _check_group("core", SETTINGS, False, 1200)


def test_same_bits_when_fft_rows_are_split():
    """One or two rows longer than the split threshold: each row's phases cut over the
    threads (1, 2, 3, 4 and 8 threads)."""
    _check_group("fft_split", SETTINGS, False, 1200)


@pytest.mark.slow
def test_same_bits_in_every_setting_at_full_size():
    """The same above the real gates (16 MB of float64 per reduction input, X^T X of
    50,000 rows, larger convolutions and attention): no lowered gate, the engines as
    users meet them."""
    _check_group("core", SETTINGS, True, 3600)


@pytest.mark.slow
def test_same_bits_when_fft_rows_are_split_at_full_size():
    _check_group("fft_split", SETTINGS, True, 3600)


def test_worker_thread_gives_the_main_threads_bits(monkeypatch):
    """In this process: a worker thread's call (inline, or on the pool when the thread
    count was given) gives the main thread's bits, and the results agree with NumPy."""
    import flexarray as xp
    from flexarray import _threads
    monkeypatch.setattr(_threads, "_blas_spins_until", 0.0)
    monkeypatch.setattr(_threads, "_BLAS_SPIN_SECONDS", 0.0)
    rng = np.random.default_rng(40)
    a = rng.standard_normal((2048, 1024))  # 16 MB: the reductions' real gates
    x = xp.asarray(a)
    calls = {"sum": (lambda: xp.sum(x), lambda: np.sum(a)),
             "sum axis 0": (lambda: xp.sum(x, axis=0), lambda: np.sum(a, axis=0)),
             "mean axis 0 reversed": (lambda: xp.mean(xp.flip(x), axis=0),
                                      lambda: np.mean(a[::-1, ::-1], axis=0)),
             "var axis 1": (lambda: xp.var(x, axis=1), lambda: np.var(a, axis=1)),
             "max": (lambda: xp.max(x), lambda: np.max(a)),
             "cumulative_sum": (lambda: xp.cumulative_sum(x, axis=0),
                                lambda: np.cumsum(a, axis=0))}
    main = {k: digest(f()) for k, (f, _) in calls.items()}
    box = {}
    t = threading.Thread(target=lambda: box.update({k: digest(f()) for k, (f, _) in
                                                     calls.items()}))
    t.start()
    t.join()
    assert box == main
    for name, (f, ref) in calls.items():
        np.testing.assert_allclose(np.asarray(f()), ref(), rtol=1e-10, atol=1e-9,
                                   err_msg=name)


def test_large_sums_give_numpys_bits():
    """The NumPy reductions' cuts reproduce NumPy's single call bit for bit (its pairwise
    tree over every axis, its row-by-row order along an outer axis), on the pool."""
    import flexarray as xp
    from flexarray import _threads
    from flexarray._engines import reductions as engine
    if _threads.NTHREADS < 2 or _threads.off_the_pool():
        pytest.skip("needs the pool")
    rng = np.random.default_rng(41)
    for dt in (np.float64, np.float32, np.complex128):
        a = rng.standard_normal((1536, 1400)).astype(dt)
        if dt == np.complex128:
            a = a + 1j * rng.standard_normal(a.shape)
        for v in (a, a.T, a[:, ::3], a[::-1]):
            for axis in ((None, 0) if dt != np.float32 else (None,)):
                got = np.asarray(engine.reduce(
                    "sum", v, tuple(range(v.ndim)) if axis is None else (axis,), v.dtype))
                want = np.asarray(np.add.reduce(v, axis))
                assert got.tobytes() == want.tobytes(), (dt, v.strides, axis)
    del xp


@pytest.mark.parametrize("op", ["max", "min"])
def test_extrema_over_every_axis_have_one_zero_sign_and_nan(op, monkeypatch):
    """Over every axis of a large float array, max and min are cut over the pool; the sign
    of a zero result and a NaN result (which NumPy's loop leaves to the order it met the
    elements in) are canonical, inline and on the pool alike: a zero max is +0 when the
    array holds a +0 (IEEE 754's maximum), a zero min -0 when it holds a -0, a NaN the
    default one."""
    import flexarray as xp
    from flexarray import _threads
    from flexarray._engines import gates
    monkeypatch.setattr(gates, "REDUCE_SPLIT_MIN_BYTES", 1 << 16)
    monkeypatch.setattr(_threads, "_blas_spins_until", 0.0)
    sign = 1.0 if op == "max" else -1.0
    n = 1 << 17  # (above the engine's KERNEL_MIN: smaller ones are NumPy's single call)
    base = -sign * np.abs(np.random.default_rng(42).standard_normal(n)) - sign
    cases = []
    for where in ([0], [n - 1], [5, n // 2], list(range(0, n, 97))):
        v = base.copy()
        v[where] = -sign * 0.0                # the "wrong" zero everywhere it is zero ...
        cases.append((v, np.copysign(0.0, -sign)))
        w = v.copy()
        w[where[-1]] = sign * 0.0             # ... and once the extremal zero: it wins
        cases.append((w, np.copysign(0.0, sign)))
    nan = base.copy()
    nan[[3, n - 2]] = [np.float64(np.nan), -np.float64(np.nan)]
    for v, want in cases:
        for nthreads, inline in ((1, True), (2, False), (3, False), (8, False)):
            monkeypatch.setattr(_threads, "NTHREADS", nthreads)
            monkeypatch.setattr(_threads, "runs_inline", lambda inline=inline: inline)
            got = float(getattr(xp, op)(xp.asarray(v)))
            assert got == 0.0 and np.signbit(got) == np.signbit(want), (nthreads, got, want)
            assert np.isnan(float(getattr(xp, op)(xp.asarray(nan))))
            r = np.asarray(getattr(xp, op)(xp.asarray(nan)))
            assert r.tobytes() == np.asarray(np.nan).tobytes()


if __name__ == "__main__":
    print(json.dumps(run_group(sys.argv[1], "--slow" in sys.argv)))

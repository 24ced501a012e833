"""First calls in a fresh environment: no compile on the caller's thread where a stand-in
exists, the stand-ins' bits equal to their kernels', and the disk cache shared between
processes (flexarray/_kernels/_warm.py, docs/reliability.md "The kernel cache").

The fresh-process checks run in subprocesses with an empty cache directory; compiles are
counted with Numba's event API (``numba:compile`` fires for a real compile, not for a load
from the disk cache), never timed."""
import json
import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

from flexarray._kernels import _warm

# Installs a recorder of the compiles on the main thread, before anything compiles.
_PRELUDE = """
import json, sys, threading, time
import numpy as np
from numba.core import event
main = threading.main_thread().ident
compiles = []
class Rec(event.Listener):
    def on_start(self, ev):
        if threading.get_ident() == main:
            compiles.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Rec())

def record_every():  # the compiles from now on, on every thread of the process
    every = []
    class All(event.Listener):
        def on_start(self, ev):
            every.append(ev.data["dispatcher"].py_func.__qualname__)
        def on_end(self, ev):
            pass
    event.register("numba:compile", All())
    return every

def until_compiled(calls, also=lambda: True):
    # calls() until the background process has compiled every kernel this process asked
    # for (and also()), at most 240 s: the last result
    from flexarray._kernels import _warm
    t = time.monotonic()
    while True:
        r = calls()
        if (_warm._asked and all(sig in d.overloads for d, sig in _warm._asked) and also()
                or time.monotonic() - t >= 240):
            return r
        time.sleep(0.2)

def first_and_later(calls, record, also=lambda: True):
    # calls() first (an empty cache: the stand-ins serve), then once the background process
    # has compiled every kernel asked for (until_compiled): the first results, and a report
    # of the compiles ``record`` saw during the first calls and the later ones, the kernels
    # asked for, and whether each later result has the first one's dtype and bits
    from flexarray._kernels import _warm
    first = calls()
    got = list(record)
    until_compiled(calls, also)
    n = len(record)
    later = calls()
    return first, {"compiles": got, "later": record[n:],
                   "asked": sorted(d.py_func.__name__ for d, _ in _warm._asked),
                   "same": [bool(a.dtype == b.dtype and a.tobytes() == b.tobytes())
                            for a, b in zip(first, later)]}
"""


def _run(code, cache, extra_env=None, background="1", timeout=300):
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env.update(NUMBA_CACHE_DIR=str(cache), FLEXARRAY_BACKGROUND_COMPILE=background,
               XDG_CACHE_HOME=str(cache) + "-user")
    env.update(extra_env or {})
    r = subprocess.run([sys.executable, "-c", _PRELUDE + textwrap.dedent(code)],
                       capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_first_calls_do_not_compile_on_the_callers_thread(tmp_path):
    """argmax, float16 arithmetic, max pooling, sort: the first call in a process
    with an empty cache is served by the stand-in (correct result, no compile on the
    caller's thread); once the background process has compiled it, the kernel runs with
    the same bits."""
    out = _run("""
        import flexarray as xp
        from flexarray import nn
        r = np.random.default_rng(0)
        a = r.standard_normal(1 << 20).astype(np.float32); a[7777] = np.nan
        h = r.standard_normal(1000).astype(np.float16)
        img = r.standard_normal((2, 3, 9, 9)).astype(np.float32); img[0, 0, 4, 4] = np.nan
        z = np.where(r.random(1024) < 0.5, -0.0, 0.0).astype(np.float32); z[::7] = np.nan
        A, H, I, Z = (xp.asarray(v) for v in (a, h, img, z))
        def calls():
            return {"argmax": int(xp.argmax(A)),
                    "f16": np.asarray(H * H).view(np.uint16).tolist(),
                    "sort": np.asarray(xp.sort(Z)).view(np.uint32).tolist(),
                    "pool": [np.asarray(v).tolist()
                             for v in nn.max_pool2d(I, 3, 2, 1, return_indices=True)]}
        res = calls()
        first = list(compiles)
        # the background process compiles the kernels meanwhile: once all are in the
        # cache, the same calls load them (a compile here: a signature ready() got wrong)
        from flexarray._kernels import _warm
        again = until_compiled(calls)
        n = len(compiles)
        later = calls()
        print(json.dumps({"first": first, "res": res, "later": later, "again": again,
                          "asked": len(_warm._asked), "compiles": compiles[n:]}))
    """, tmp_path / "cache", {"FLEXARRAY_NUM_THREADS": "2"})
    assert out["first"] == []
    r = np.random.default_rng(0)
    a = r.standard_normal(1 << 20).astype(np.float32)
    a[7777] = np.nan
    h = r.standard_normal(1000).astype(np.float16)
    img = r.standard_normal((2, 3, 9, 9)).astype(np.float32)
    img[0, 0, 4, 4] = np.nan
    z = np.where(r.random(1024) < 0.5, -0.0, 0.0).astype(np.float32)
    z[::7] = np.nan
    assert out["res"]["sort"] == np.sort(z, kind="stable").view(np.uint32).tolist()
    assert out["res"] == out["later"] == out["again"]      # stand-ins and kernels alike
    assert out["res"]["argmax"] == 7777
    assert out["asked"] == 5 and out["compiles"] == []     # (and the pool's polling kernel)
    assert out["res"]["f16"] == (h * h).view(np.uint16).tolist()
    vals, idx = out["res"]["pool"]
    ref = np.full((2, 3, 5, 5), -np.inf, np.float32)
    pad = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    for oy in range(5):
        for ox in range(5):
            w = pad[:, :, 2 * oy:2 * oy + 3, 2 * ox:2 * ox + 3].reshape(2, 3, 9)
            ref[:, :, oy, ox] = np.where(np.isnan(w).any(-1), np.nan, w.max(-1))
    np.testing.assert_array_equal(np.array(vals, np.float32), ref)
    assert np.array(idx)[0, 0, 2, 2] == 4 * 9 + 4          # the NaN's flat index


def test_background_compiles_off(tmp_path):
    """FLEXARRAY_BACKGROUND_COMPILE=0: the first call compiles on the caller's thread, as
    kernels without a stand-in always do, and no background process starts."""
    out = _run("""
        import flexarray as xp
        from flexarray._kernels import _warm
        z = xp.asarray(np.arange(2000, 0, -1, dtype=np.float32))
        r = np.asarray(xp.sort(z)).tolist()
        print(json.dumps({"compiles": compiles, "proc": _warm._proc is not None, "r": r}))
    """, tmp_path / "cache", background="0")
    assert "_values" in out["compiles"]
    assert not out["proc"]
    assert out["r"] == list(range(1, 2001))


def test_off_under_pytest_unless_asked(monkeypatch):
    monkeypatch.delenv(_warm.ENV, raising=False)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "x")
    assert not _warm.enabled()
    monkeypatch.setenv(_warm.ENV, "1")
    assert _warm.enabled()
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setenv(_warm.ENV, "0")
    assert not _warm.enabled()


def test_cache_shared_between_processes(tmp_path):
    """A cache built by one process is loaded by the next (no compile); a different CPU
    target ignores it and compiles (no crash); a read-only cache directory is read through
    links and new compiles go to the user's writable cache, never into it."""
    cache = tmp_path / "cache"
    code = """
        from flexarray._kernels import cache_dir
        from flexarray._kernels.sort.counting import _dense
        a, c, f, k = np.array([2, 0, 2], np.int64), *(np.zeros(3, np.int64) for _ in range(3))
        _dense(a, np.int64(0), c, f, k)
        print(json.dumps({"compiles": compiles, "v": c.tolist(), "dir": cache_dir()}))
    """
    first = _run(code, cache, background="0")
    assert first["compiles"] == ["_dense"] and first["v"] == [1, 0, 2]
    again = _run(code, cache, background="0")
    assert again["compiles"] == [] and again["dir"] == first["dir"]
    other = _run(code, cache, {"NUMBA_CPU_NAME": "generic"}, background="0")
    assert other["compiles"] == ["_dense"] and other["v"] == [1, 0, 2]
    # read-only: os.access says so (the tests may run as root, who can write anywhere)
    ro = """
        import os
        _access = os.access
        shared = os.environ["NUMBA_CACHE_DIR"] + os.sep
        os.access = lambda p, m, **k: False if (m & os.W_OK and str(p).startswith(shared)) \\
            else _access(p, m, **k)
        from flexarray._kernels import cache_dir
        from flexarray._kernels.sort.counting import _dense
        from flexarray._kernels.sort.ties import _ties
        a, c, f, k = np.array([2, 0, 2], np.int64), *(np.zeros(3, np.int64) for _ in range(3))
        _dense(a, np.int64(0), c, f, k)
        p = np.array([[1, 0, 2]], np.int64)
        _ties(np.array([[5.0, 5.0, 7.0]]), p, 10)
        print(json.dumps({"compiles": compiles, "v": c.tolist(), "dir": cache_dir(),
                          "r": p.tolist()}))
    """
    before = {p: p.stat().st_mtime for p in cache.rglob("*") if p.is_file()}
    out = _run(ro, cache, background="0")
    assert out["compiles"] == ["_ties"] and out["v"] == [1, 0, 2] and out["r"] == [[0, 1, 2]]
    assert out["dir"].startswith(str(tmp_path / "cache-user"))
    after = {p: p.stat().st_mtime for p in cache.rglob("*") if p.is_file()}
    assert after == before                      # nothing written into the shared cache
    user = tmp_path / "cache-user"
    assert any(p.is_symlink() for p in user.rglob("*.nbi"))


# ---------------------------------------------------------------------------------------
# stand-ins against their kernels, bit for bit (in this process: the kernels compile here)

def _out_size(n, k, s, p, d, ceil):
    """PyTorch's pooling output size (the last window starts inside the input or the left
    padding)."""
    span = n + 2 * p - d * (k - 1) - 1
    o = -(-span // s) + 1 if ceil else span // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return max(o, 0)


def _geometry(shape, ks, st, pad, dil, osp):
    """The pooling kernels' geometry tuple (flexarray/_kernels/nn/pool.py's header)."""
    return tuple(int(v) for v in (*shape, *ks, *st, *pad, *dil, *osp))


def _windows(n, o):
    """Adaptive pooling's window starts and ends along one axis."""
    i = np.arange(o, dtype=np.int64)
    return (i * n) // o, ((i + 1) * n + o - 1) // o

def test_half_standin_bits_equal_the_kernels():
    from flexarray._kernels.elementwise import half
    r = np.random.default_rng(1)
    a = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    b = r.integers(0, 65536, a.size, dtype=np.uint32).astype(np.uint16)
    b[::3] = np.roll(a, 12345)[::3]                 # NaN with NaN, payloads differing
    for dt in (np.float16, ml_dtypes.bfloat16):
        A, B = a.view(dt), b.view(dt)
        for op in half.OPS:
            k = half.binary(op, A, B, np.empty_like(A))
            s = half._standin_binary(op, A, B, np.empty_like(A))
            np.testing.assert_array_equal(k.view(np.uint16), s.view(np.uint16), err_msg=op)


def test_argmax_standin_equals_the_kernel():
    from flexarray._kernels.reductions import argminmax
    r = np.random.default_rng(2)
    for dt in (np.float32, np.float16):
        a = (r.standard_normal((5, 7, 300)) * 3).astype(dt)
        if np.dtype(dt).kind == "f" or dt is ml_dtypes.bfloat16:
            a.reshape(-1)[r.integers(0, a.size, 40)] = np.nan
        for op in ("argmax", "argmin"):
            for axis in (None, 0, 1, 2):
                for v in (a, a[:, ::-1, ::2]):
                    k = getattr(argminmax, op)(v, axis)
                    np.testing.assert_array_equal(k, argminmax._standin(op, v, axis))


def test_max_pool_standin_equals_the_kernel():
    from flexarray._kernels.nn import pool
    from flexarray._engines.nn import pool as pe
    r = np.random.default_rng(3)
    n = 0
    while n < 60:
        dt = (np.float32, np.float64)[n % 2]
        D = 1 if n % 3 else int(r.integers(1, 4))
        H, W = (int(v) for v in r.integers(1, 9, 2))
        ks = (int(r.integers(1, D + 1)), *(int(v) for v in r.integers(1, 4, 2)))
        st = tuple(int(v) for v in r.integers(1, 3, 3))
        dil = tuple(int(v) for v in r.integers(1, 3, 3))
        pad = tuple(int(r.integers(0, k // 2 + 1)) for k in ks)
        ceil = bool(r.integers(0, 2))
        if any((k - 1) * d + 1 > m + 2 * p for k, d, m, p in zip(ks, dil, (D, H, W), pad)):
            continue
        osp = tuple(_out_size(m, k, s, p, d, ceil)
                    for m, k, s, p, d in zip((D, H, W), ks, st, pad, dil))
        if min(osp) <= 0:
            continue
        x = r.standard_normal((2, 3, D, H, W)).astype(dt)
        u = r.random(x.shape)
        x[u < 0.1] = np.nan
        x[(u > 0.1) & (u < 0.15)] = -np.inf
        x[(u > 0.15) & (u < 0.25)] = 0.5                            # ties
        x.view(np.uint32 if dt == np.float32 else np.uint64)[u < 0.05] ^= 7   # payloads
        g = _geometry((D, H, W), ks, st, pad, dil, osp)
        P = int(np.prod(osp))
        for want in (False, True):
            o1, o2 = np.empty(6 * P, dt), np.empty(6 * P, dt)
            i1, i2 = (np.empty(6 * P if want else 1, np.int64) for _ in range(2))
            pool._max_pool(x.reshape(-1), o1, i1, want, g, 0, 6)
            pool.max_pool_standin(x.reshape(-1), o2, i2, want, g, 0, 6)
            np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))
            if want:
                np.testing.assert_array_equal(i1, i2)
        n += 1


def test_sort_standins_equal_the_kernels():
    """The tie repairs' stand-ins (NumPy's stable sort and argsort) give the kernels' bits:
    zeros of both signs, NaNs with different payloads and signs, long runs of ties."""
    from flexarray._kernels.sort import ties
    r = np.random.default_rng(4)
    for dt in (np.float32, np.float64, np.int64):
        a = r.integers(-3, 4, (5, 700)).astype(dt)
        if a.dtype.kind == "f":
            a[a == 0] = np.where(r.random((a == 0).sum()) < 0.5, -0.0, 0.0)
            nan = r.random(a.shape) < 0.1
            a[nan] = np.nan
            a.view(np.uint32 if dt == np.float32 else np.uint64)[nan & (r.random(a.shape)
                                                                       < 0.5)] ^= 0x80000005
        for rows in (a, a[:, ::-1]):
            if a.dtype.kind == "f":
                s = np.sort(rows, axis=1)
                ties._values(s, rows)
                ref = np.sort(rows, axis=1, kind="stable")
                np.testing.assert_array_equal(s.view(np.uint8), ref.view(np.uint8))
            p1 = np.argsort(rows, axis=1)
            if ties._ties(rows, p1, 10 ** 6):
                np.testing.assert_array_equal(p1, np.argsort(rows, axis=1, kind="stable"))


def test_radix_standin_equals_the_kernels():
    """The radix sort's stand-in (NumPy's stable argsort of the same order): the kernels'
    indices and bits, ascending and descending, NaNs with payloads, zeros of both signs."""
    from flexarray._kernels.sort import radix
    r = np.random.default_rng(5)
    for dt in (np.float16, ml_dtypes.bfloat16, np.float32, np.int32):
        if dt is np.int32:
            a = r.integers(-50, 50, (3, 2000)).astype(dt)
        else:
            a = r.integers(-5, 6, (3, 2000)).astype(np.float32)
            a[r.random(a.shape) < 0.05] = np.nan
            a[(a == 0) & (r.random(a.shape) < 0.5)] = -0.0
            a = a.astype(dt)
            bits = a.view(np.uint16 if a.itemsize == 2 else np.uint32)
            bits[np.isnan(a.astype(np.float32)) & (r.random(a.shape) < 0.5)] ^= 1
        for descending in (False, True):
            i = radix._standin_argsort(a, descending)
            np.testing.assert_array_equal(radix.argsort(a, descending), i)
            np.testing.assert_array_equal(radix.sort(a, descending).view(np.uint8),
                                          np.take_along_axis(a, i, 1).view(np.uint8))


def test_avg_pool_standin_equals_the_kernel():
    from flexarray._kernels.nn import pool
    from flexarray._engines.nn import pool as pe
    r = np.random.default_rng(6)
    n = 0
    while n < 60:
        dt = (np.float32, np.float64)[n % 2]
        D = 1 if n % 3 else int(r.integers(1, 4))
        H, W = (int(v) for v in r.integers(1, 9, 2))
        ks = (int(r.integers(1, D + 1)), *(int(v) for v in r.integers(1, 4, 2)))
        st = tuple(int(v) for v in r.integers(1, 3, 3))
        pad = tuple(int(r.integers(0, k // 2 + 1)) for k in ks)
        ceil = bool(r.integers(0, 2))
        osp = tuple(_out_size(m, k, s, p, 1, ceil)
                    for m, k, s, p in zip((D, H, W), ks, st, pad))
        if min(osp) <= 0:
            continue
        x = r.standard_normal((2, 3, D, H, W)).astype(dt)
        u = r.random(x.shape)
        x[u < 0.05] = np.nan
        x[(u > 0.05) & (u < 0.15)] = -0.0                   # sums of -0.0 stay -0.0
        x[(u > 0.15) & (u < 0.17)] = np.inf
        divs = [r.integers(1, 10, o).astype(dt) for o in osp]    # (any divisors)
        g = _geometry((D, H, W), ks, st, pad, (1, 1, 1), osp)
        P = int(np.prod(osp))
        o1, o2 = np.empty(6 * P, dt), np.empty(6 * P, dt)
        pool._avg_pool(x.reshape(-1), o1, g, *divs, 0, 6)
        pool.avg_pool_standin(x.reshape(-1), o2, g, *divs, 0, 6)
        np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))
        n += 1


def test_failures_fall_back_to_compiling_here(monkeypatch):
    """A background process that cannot start, or fails a compile ``MAX_ASKS`` times, makes
    the call compile on the caller's thread (``available`` says True) instead of serving
    stand-ins for ever."""
    from flexarray._kernels.sort.ties import _ties as kernel
    args = (np.zeros((1, 1), np.int8), np.zeros((1, 1), np.int16), 3)   # never compiled
    monkeypatch.setenv(_warm.ENV, "1")
    monkeypatch.setattr(_warm, "load", lambda disp, sig: False)
    monkeypatch.setattr(_warm, "_probed", {})

    def no_process(*a, **k):
        raise OSError("no interpreter")
    monkeypatch.setattr(_warm, "_spawn", no_process)
    monkeypatch.setattr(_warm, "_broken", False)
    assert _warm.available(kernel, args) is True
    assert _warm._broken

    class Dead:                                  # a process that ends without compiling
        stdin = open(os.devnull, "wb")

        def poll(self):
            return 1
    monkeypatch.setattr(_warm, "_broken", False)
    monkeypatch.setattr(_warm, "_spawn", lambda *a, **k: Dead())
    monkeypatch.setattr(_warm, "_asked", set())
    monkeypatch.setattr(_warm, "_asks", {})
    monkeypatch.setattr(_warm, "RECHECK_SECONDS", 0.0)
    answers = [_warm.available(kernel, args) for _ in range(_warm.MAX_ASKS + 1)]
    assert answers == [False] * _warm.MAX_ASKS + [True]


def test_a_family_warms_in_the_background(tmp_path):
    """A kernel of a family asked for in the background by its stand-in (global average
    pooling's) brings the rest of its family in that dtype: max pooling's kernel lands in
    the disk cache without any call asking for it."""
    out = _run("""
        import flexarray as xp
        from flexarray import nn
        from flexarray._kernels import _warm
        from flexarray._kernels.nn import pool
        x = xp.asarray(np.arange(2 * 3 * 8 * 8, dtype=np.float32).reshape(2, 3, 8, 8))
        nn.adaptive_avg_pool2d(x, 1)
        g = (1, 8, 8, 1, 2, 2, 1, 2, 2, 0, 0, 0, 1, 1, 1, 1, 4, 4)
        f = np.zeros(4, np.float32)
        sig = _warm.signature(pool._max_pool, (f, f, np.zeros(1, np.int64), False, g, 0, 1))
        t = time.monotonic()
        while not _warm.cached(pool._max_pool, sig) and time.monotonic() - t < 240:
            time.sleep(0.2)
        print(json.dumps({"asked": [[n, str(d)] for n, d in _warm._families_asked],
                          "cached": _warm.cached(pool._max_pool, sig), "compiles": compiles}))
        _warm._proc.kill()
    """, tmp_path / "cache")
    assert out == {"asked": [["pool", "float32"]], "cached": True, "compiles": []}


def test_more_first_calls_do_not_compile_in_the_process(tmp_path):
    """A 3x3 convolution (Winograd), global average pooling, a call split over the pool's
    threads (whose helpers poll with a kernel of their own) and causal attention: with an
    empty cache,
    nothing compiles in the calling process, on any of its threads; the results match
    NumPy, and once the background process has compiled the kernels the same calls give
    the same bits."""
    out = _run("""
        import flexarray as xp
        from flexarray import nn
        every = record_every()
        r = np.random.default_rng(0)
        x = r.standard_normal((2, 64, 12, 12)).astype(np.float32)
        w = r.standard_normal((64, 64, 3, 3)).astype(np.float32)
        g = r.standard_normal((16, 512, 7, 7)).astype(np.float32)
        e = r.standard_normal(1 << 22).astype(np.float32)
        q = r.standard_normal((2, 4, 64, 32)).astype(np.float32)
        X, Wt, G, E, Q = (xp.asarray(v) for v in (x, w, g, e, q))
        def calls():
            return [np.asarray(nn.conv2d(X, Wt, padding=1)),
                    np.asarray(nn.adaptive_avg_pool2d(G, 1)),
                    np.asarray(xp.exp(E)), np.asarray(xp.exp(E)),
                    np.asarray(nn.scaled_dot_product_attention(Q, Q, Q, is_causal=True))]
        from flexarray import _threads
        first, report = first_and_later(calls, every, lambda: _threads._pool.polls)
        print(json.dumps({**report, "polls": _threads._pool.polls,
                          "conv": first[0].astype(float).tolist(),
                          "gap": first[1].astype(float).tolist(),
                          "att": first[4].astype(float).tolist()}))
    """, tmp_path / "cache", {"FLEXARRAY_NUM_THREADS": "2"})
    assert out["compiles"] == []
    assert out["asked"] == ["_all_below", "_divide_rows", "_mean_rows", "_softmax_tiles",
                            "_wino_input", "_wino_output", "linger"]
    assert out["same"] == [True] * 5 and out["polls"] > 0
    r = np.random.default_rng(0)
    x = r.standard_normal((2, 64, 12, 12))
    w = r.standard_normal((64, 64, 3, 3))
    g = r.standard_normal((16, 512, 7, 7)).astype(np.float32)
    xpad = np.pad(x.astype(np.float32).astype(float), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 64, 12, 12))
    for ky in range(3):
        for kx in range(3):
            ref += np.einsum("nchw,oc->nohw", xpad[:, :, ky:ky + 12, kx:kx + 12],
                             w.astype(np.float32).astype(float)[:, :, ky, kx])
    np.testing.assert_allclose(out["conv"], ref, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(out["gap"], g.astype(float).mean((2, 3), keepdims=True),
                               rtol=1e-5, atol=1e-6)
    r.standard_normal(1 << 22)
    q = r.standard_normal((2, 4, 64, 32)).astype(np.float32).astype(float)
    s = q @ q.swapaxes(-1, -2) / np.sqrt(32)
    s[..., np.triu_indices(64, 1)[0], np.triu_indices(64, 1)[1]] = -np.inf
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(out["att"], (p / p.sum(-1, keepdims=True)) @ q,
                               rtol=1e-4, atol=1e-5)


def test_counting_standin_equals_the_kernel():
    from flexarray._kernels.sort import counting
    r = np.random.default_rng(7)
    for dt in (np.uint8, np.int16, np.int64, np.uint64):
        info = np.iinfo(dt)
        lo = dt(info.max - 40) if dt in (np.uint64,) else dt(max(info.min, -20))
        a = (r.integers(0, 30, 500).astype(dt) + lo).astype(dt)
        for with_codes in (False, True):
            k = counting.dense(a, lo, 30, with_codes)
            s = counting._standin(a, lo, 30, with_codes)
            np.testing.assert_array_equal(k[0], s[0])
            present = k[0] > 0
            np.testing.assert_array_equal(k[1][present], s[1][present])
            if with_codes:
                np.testing.assert_array_equal(k[2], s[2])


def test_adaptive_pool_standin_equals_the_kernel():
    from flexarray._kernels.nn import pool
    from flexarray._engines.nn import pool as pe
    r = np.random.default_rng(8)
    for n in range(40):
        dt = (np.float32, np.float64)[n % 2]
        D = 1 if n % 3 else int(r.integers(1, 4))
        H, W = (int(v) for v in r.integers(1, 10, 2))
        osp = (int(r.integers(1, D + 1)), int(r.integers(1, H + 2)), int(r.integers(1, W + 2)))
        x = r.standard_normal((2, 3, D, H, W)).astype(dt)
        u = r.random(x.shape)
        x[u < 0.08] = np.nan
        x[(u > 0.08) & (u < 0.2)] = -0.0
        x[(u > 0.2) & (u < 0.25)] = -np.inf
        x.view(np.uint32 if dt == np.float32 else np.uint64)[u < 0.04] ^= 3   # payloads
        wins = []
        for m, o in zip((D, H, W), osp):
            wins.extend(_windows(m, o))
        P = int(np.prod(osp))
        for mode in (0, 1, 2):
            o1, o2 = np.empty(6 * P, dt), np.empty(6 * P, dt)
            i1, i2 = (np.empty(6 * P if mode == 2 else 1, np.int64) for _ in range(2))
            pool._adaptive(x.reshape(-1), o1, i1, mode, (D, H, W), *wins, 0, 6)
            pool.adaptive_standin(x.reshape(-1), o2, i2, mode, (D, H, W), *wins, 0, 6)
            np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))
            if mode == 2:
                np.testing.assert_array_equal(i1, i2)


def test_mean_rows_standin_equals_the_kernel():
    """Global average pooling's stand-in: the kernel's vector sums (four accumulators,
    lanes folded by halves, the scalar tail), rows of every length around the vector
    width, zeros of both signs, NaN, inf."""
    from flexarray._kernels.nn import pool
    r = np.random.default_rng(9)
    for it in range(200):
        dt = (np.float32, np.float64)[it % 2]
        m, n = int(r.integers(0, 300)), int(r.integers(1, 6))
        x = (r.standard_normal(n * m) * 10.0 ** r.integers(-3, 4)).astype(dt)
        u = r.random(x.shape)
        x[u < 0.02] = np.nan
        x[(u > 0.02) & (u < 0.1)] = -0.0
        x[(u > 0.1) & (u < 0.11)] = np.inf
        if it % 7 == 0:
            x[:] = -0.0
        r0 = int(r.integers(0, n))
        r1 = int(r.integers(r0, n + 1))
        o1, o2 = np.full(n, 7, dt), np.full(n, 7, dt)
        pool._mean_rows(x, o1, m, r0, r1)
        pool.mean_rows_standin(x, o2, m, r0, r1)
        np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))


def test_winograd_standins_equal_the_kernels():
    """The 3x3 Winograd transforms' stand-ins: V and the finiteness answer of the input
    transform, the outputs (odd and even sizes, bias) of the output transform, and the
    magnitude check, bit for bit with the kernels."""
    from flexarray._kernels.nn import conv
    r = np.random.default_rng(10)
    for it in range(60):
        dt = (np.float32, np.float64)[it % 2]
        C, ntr, TW = (int(v) for v in r.integers(1, 6, 3))
        Hp, Wp = 2 * ntr + 2, 2 * TW + 2
        xp = (r.standard_normal(C * Hp * Wp) * 10.0 ** r.integers(-2, 3)).astype(dt)
        u = r.random(xp.shape)
        xp[u < 0.05] = -0.0
        if it % 3 == 0:
            xp[u > 0.98] = (np.nan, np.inf, -np.inf)[it % 9 // 3]
        if it % 5 == 0:
            xp[u > 0.9] = np.finfo(dt).max / 2            # sums that overflow
        V1, V2 = np.empty((16, C, ntr * TW), dt), np.empty((16, C, ntr * TW), dt)
        assert conv._wino_input(xp, Hp, Wp, ntr, TW, V1) == conv.wino_input_standin(
            xp, Hp, Wp, ntr, TW, V2)
        np.testing.assert_array_equal(V1.view(np.uint8), V2.view(np.uint8))
        limit = dt(np.sqrt(np.finfo(dt).max) * 1e-6)
        with np.errstate(invalid="ignore"):
            assert conv._all_below(xp, limit) == bool((np.abs(xp) < limit).all())
        Cout = int(r.integers(1, 5))
        tr0 = int(r.integers(0, 3))                 # the block's first tile row
        Ho = 2 * (tr0 + ntr) - int(r.integers(0, 2))
        Wo = 2 * TW - int(r.integers(0, 2))
        M = r.standard_normal((16, Cout, ntr * TW)).astype(dt)
        M.reshape(-1)[r.random(M.size) < 0.05] = -0.0
        bias = r.standard_normal(Cout).astype(dt)
        ooff = int(r.integers(0, 5))
        o1 = r.standard_normal(ooff + Cout * Ho * Wo + 3).astype(dt)
        o2 = o1.copy()
        conv._wino_output(M, bias, o1, ooff, Ho, Wo, tr0, ntr, TW)
        conv.wino_output_standin(M, bias, o2, ooff, Ho, Wo, tr0, ntr, TW)
        np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))


def test_attention_standins_equal_the_kernels():
    """Attention's softmax step and row division in NumPy: the kernel's own float32 exp
    (its fused multiply-adds emulated exactly), the C library's exp for the rescale
    factors, the maxima and column sums key by key; without and with masks (additive,
    boolean, broadcast), causal tiles at offsets, NaN and -inf scores, both dtypes."""
    from flexarray._kernels.nn import attention
    r = np.random.default_rng(12)
    x = np.concatenate([-r.random(100000).astype(np.float32) * 100,
                        np.array([0, -0.0, -87, -86.99, -np.inf, np.nan], np.float32)])
    out = np.empty_like(x)
    _exp_kernel(x, out)
    np.testing.assert_array_equal(out.view(np.uint32),
                                  attention.exp_f32_nonpos(x).view(np.uint32))
    for it in range(48):
        dt = (np.float32, np.float64)[it % 2]
        H, Bk, Bq = int(r.integers(1, 4)), int(r.integers(1, 40)), int(r.integers(1, 40))
        mkind, causal = it // 2 % 3, bool(it // 6 % 2)
        scale = dt(1) if it % 4 == 0 else dt(r.random() + 0.1)
        r0, c0 = int(r.integers(0, 20)), int(r.integers(0, 20))
        ST = (r.standard_normal((H, Bk, Bq)) * 4).astype(dt)
        ST.reshape(-1)[r.random(ST.size) < 0.02] = np.nan
        ST.reshape(-1)[r.random(ST.size) < 0.02] = -np.inf
        if mkind == 2:
            mbuf = (r.random(H * Bq * Bk + 5) < 0.7).astype(np.uint8)
        else:
            mbuf = r.standard_normal(H * Bq * Bk + 5).astype(dt)
            mbuf[r.random(mbuf.size) < 0.05] = -np.inf
        mqs, mks = (Bk, 1) if it % 5 else (0, 1)                 # (a broadcast mask)
        moffs = (np.arange(H) * Bq * Bk).astype(np.int64) if it % 3 else np.zeros(H, np.int64)
        state = [np.full((H, Bq), -np.inf, dt)] + [np.empty((H, Bq), dt) for _ in range(3)]
        state[0][:, ::3] = r.standard_normal(state[0][:, ::3].shape)   # an earlier tile's
        fused = dt == np.float32
        runs = []
        for fn in (attention._softmax_tiles, attention.softmax_tiles_standin):
            S, st = ST.copy(), [s.copy() for s in state]
            fn(S, scale, mbuf, moffs, mqs, mks, mkind, causal, r0, c0, *st, fused)
            runs.append([S] + st[:3] + ([st[3]] if fused else []))
        for a, b in zip(*runs):
            np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
        o = r.standard_normal((H, Bq, 7)).astype(dt)
        l = np.abs(r.standard_normal((H, Bq))).astype(dt)
        l[:, ::4] = 0
        o1, o2 = o.copy(), o.copy()
        attention._divide_rows(o1, l)
        attention.divide_rows_standin(o2, l)
        np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8))


def _exp_kernel(x, out):
    from flexarray._kernels.nn import attention
    if not hasattr(_exp_kernel, "k"):
        @attention.numba.njit
        def k(x, out):
            for i in range(x.size):
                out[i] = attention._exp_f32_nonpos(x[i])
        _exp_kernel.k = k
    _exp_kernel.k(x, out)


def test_fft_standin_equals_the_kernel():
    """The real FFT's stand-in (flexarray/_kernels/fft/standin.py) against the kernel, bit
    for bit: rfft, irfft and the complex transforms of the Bluestein path, lengths 2 to
    2^15 (short rows in lane blocks and the six-step), strided rows, every norm's scale,
    one row to many (the kernel's threads), both dtypes."""
    from flexarray._kernels.fft import rfft, standin
    r = np.random.default_rng(13)
    for it in range(40):
        dt = np.dtype((np.float32, np.float64)[it % 2])
        n = 1 << int(r.integers(1, 16))
        rows = int(r.integers(1, 5)) if it % 4 else int(r.integers(20, 70))
        strided = it % 3 == 0
        scale = (1.0, 1 / n, 1 / np.sqrt(n))[it % 3]
        cdt = rfft._CPLX[dt.char]
        for kind in (rfft.RFFT, rfft.IRFFT, rfft.CFFT, rfft.ICFFT):
            m = {rfft.RFFT: n, rfft.IRFFT: n // 2 + 1}.get(kind, n)
            shape = (rows, m * (2 if strided and kind != rfft.CFFT else 1))
            x = r.standard_normal(shape) * 10.0 ** r.integers(-3, 4)
            if kind == rfft.RFFT:
                x = x.astype(dt)
                x[r.random(shape) < 0.05] = -0.0
            else:
                x = (x + 1j * r.standard_normal(shape)).astype(cdt)
            v = x[:, ::2] if shape[1] != m else x
            out_len, out_dt = {rfft.RFFT: (n // 2 + 1, cdt), rfft.IRFFT: (n, dt)}.get(
                kind, (n, cdt))
            out, flat, offs, es, olen, nc, rdt = rfft._rows_of(
                v, n, rfft.CFFT if kind == rfft.ICFFT else kind, out_len, out_dt)
            size = out.reshape(-1).view(rdt).size
            o1, o2 = np.full(size, 7, rdt), np.full(size, 7, rdt)
            rfft._launch(kind, flat, offs, es, o1, olen, nc, rdt, scale)
            standin.launch(kind, flat, offs, es, o2, olen, nc, rdt, scale)
            np.testing.assert_array_equal(o1.view(np.uint8), o2.view(np.uint8),
                                          err_msg=f"kind {kind} n {n} {dt}")
    assert not standin.fits(np.array([1.0, np.nan]), np.float64)
    assert not standin.fits(np.array([1e-200, 1.0]), np.float64)
    assert standin.fits(np.array([1e-30, 0.0], np.float32), np.float32)


def test_fft_first_call_does_not_compile(tmp_path):
    """rfft and irfft with an empty cache: no compile in the process (its stand-in serves
    while the background process compiles the kernel), NumPy's results."""
    out = _run("""
        import flexarray as xp
        from flexarray._kernels import _warm
        every = record_every()
        x = np.random.default_rng(0).standard_normal((8, 4096)).astype(np.float32)
        y = xp.fft.rfft(xp.asarray(x))
        z = xp.fft.irfft(y)
        print(json.dumps({"compiles": every,
                          "y": np.abs(np.asarray(y) - np.fft.rfft(x)).max().item(),
                          "z": np.abs(np.asarray(z) - x).max().item()}))
        _warm._proc.kill()
    """, tmp_path / "cache")
    assert out["compiles"] == []
    assert out["y"] < 1e-3 and out["z"] < 1e-5


def test_reduction_first_calls_do_not_compile(tmp_path):
    """Sums of float16, float32 and widening integers, a nansum and a max over an outer
    axis with an empty cache: no compile on the caller's thread (the reductions' stand-ins
    serve while the background process compiles the kernels), then the kernels with the
    same bits; the values checked against float64 sums of the same elements."""
    out = _run("""
        import flexarray as xp
        r = np.random.default_rng(0)
        h = r.standard_normal(1 << 20).astype(np.float16); h[5] = -0.0
        f = r.standard_normal((2048, 2048)).astype(np.float32)
        i = r.integers(-2**31, 2**31, 1 << 20, dtype=np.int64).astype(np.int32)
        n = r.standard_normal((512, 515)); n[::7, ::3] = np.nan
        H, F, I, N = (xp.asarray(v) for v in (h, f, i, n))
        def calls():
            return [np.asarray(v) for v in (xp.sum(H), xp.sum(F), xp.sum(I),
                                            xp.nansum(N, axis=1), xp.max(F, axis=0),
                                            xp.sum(H[::3]))]
        first, report = first_and_later(calls, compiles)
        print(json.dumps({**report, "vals": [v.astype(float).tolist() for v in first]}))
    """, tmp_path / "cache", {"FLEXARRAY_NUM_THREADS": "2"})
    assert out["compiles"] == [] and out["later"] == []
    assert "_inner_kernel" in out["asked"] and "_outer_kernel" in out["asked"]
    assert out["same"] == [True] * 6
    r = np.random.default_rng(0)
    h = r.standard_normal(1 << 20).astype(np.float16)
    h[5] = -0.0
    f = r.standard_normal((2048, 2048)).astype(np.float32)
    i = r.integers(-2**31, 2**31, 1 << 20, dtype=np.int64).astype(np.int32)
    n = r.standard_normal((512, 515))
    n[::7, ::3] = np.nan
    v = out["vals"]
    assert abs(v[0] - h.astype(float).sum()) <= 0.5       # (float16's spacing near it)
    assert abs(v[1] - f.astype(float).sum()) <= 1e-6 * np.abs(f).sum()
    assert v[2] == int(i.astype(np.int64).sum())
    np.testing.assert_allclose(v[3], np.nansum(n, axis=1), rtol=1e-12)
    np.testing.assert_array_equal(v[4], f.max(axis=0).astype(float))
    assert abs(v[5] - h[::3].astype(float).sum()) <= 0.25


def test_copy_gather_select_int_matmul_first_calls_do_not_compile(tmp_path):
    """A transposing reshape (float32, and complex128 reversed), a large take, a where with
    a scalar side and int8/int32 matrix products that wrap, with an empty cache: nothing
    compiles in the process, on any of its threads (the copy, gather, select and integer
    matmul stand-ins serve while the background process compiles the kernels); then the
    kernels with the same bits, without a compile here. Values checked against NumPy."""
    out = _run("""
        import flexarray as xp
        every = record_every()
        r = np.random.default_rng(0)
        f = r.standard_normal((600, 700)).astype(np.float32); f[3, 4] = np.nan
        z = (r.standard_normal((300, 400)) + 1j * r.standard_normal((300, 400)))
        g = r.standard_normal(1 << 21); g[::5] = -0.0
        i = r.integers(0, 1 << 21, 1 << 21)
        c = r.random(1 << 16) < 0.5
        w = r.standard_normal(1 << 16).astype(np.float32)
        m8 = r.integers(-128, 128, (160, 150)).astype(np.int8)
        m32 = r.integers(-2**31, 2**31, (150, 140)).astype(np.int32)
        F, Z, G, I, C, W, M8, M32 = (xp.asarray(v) for v in (f, z, g, i, c, w, m8, m32))
        def calls():
            return [np.asarray(xp.reshape(F.T, (-1,))),
                    np.asarray(xp.reshape(Z.T[::-1], (-1,))),
                    np.asarray(xp.take(G, I)),
                    np.asarray(xp.where(C, W, -0.0)),
                    np.asarray(M8 @ M8.T), np.asarray(M32.T @ M32)]
        first, report = first_and_later(calls, every)
        print(json.dumps({**report, "bits": [a.tobytes().hex() for a in first]}))
    """, tmp_path / "cache", {"FLEXARRAY_NUM_THREADS": "2"})
    assert out["compiles"] == [] and out["later"] == []
    assert out["asked"] == ["_copy_kernel", "_copy_kernel", "_gather_flat", "_matmul_kernel",
                            "_matmul_kernel", "_select", "linger"]    # (the pool's polling)
    assert out["same"] == [True] * 6
    r = np.random.default_rng(0)
    f = r.standard_normal((600, 700)).astype(np.float32)
    f[3, 4] = np.nan
    z = (r.standard_normal((300, 400)) + 1j * r.standard_normal((300, 400)))
    g = r.standard_normal(1 << 21)
    g[::5] = -0.0
    i = r.integers(0, 1 << 21, 1 << 21)
    c = r.random(1 << 16) < 0.5
    w = r.standard_normal(1 << 16).astype(np.float32)
    m8 = r.integers(-128, 128, (160, 150)).astype(np.int8)
    m32 = r.integers(-2**31, 2**31, (150, 140)).astype(np.int32)
    refs = [f.T.reshape(-1), z.T[::-1].reshape(-1), np.take(g, i),
            np.where(c, w, np.float32(-0.0)), m8 @ m8.T, m32.T @ m32]  # (NumPy's wrap)
    for bits, ref in zip(out["bits"], refs):
        assert bits == np.ascontiguousarray(ref).tobytes().hex()


def test_other_convolutions_first_calls_do_not_compile(tmp_path):
    """A 5x5 convolution (im2col + GEMM), a strided depthwise one (the direct loops) and a
    transposed one (GEMM + col2im), with an empty cache and infinities among the inputs:
    nothing compiles in the process (their stand-ins serve), then the kernels with the
    same bits; the values against float64 sums."""
    out = _run("""
        import flexarray as xp
        from flexarray import nn
        from flexarray._kernels import _warm
        every = record_every()
        r = np.random.default_rng(0)
        x = r.standard_normal((2, 8, 20, 20)).astype(np.float32); x[0, 1, 2, 3] = np.inf
        w5 = r.standard_normal((16, 8, 5, 5)).astype(np.float32)
        wd = r.standard_normal((8, 1, 3, 3)).astype(np.float32)
        wt = r.standard_normal((8, 4, 3, 3)).astype(np.float32)
        X, W5, WD, WT = (xp.asarray(v) for v in (x, w5, wd, wt))
        def calls():
            return [np.asarray(nn.conv2d(X, W5, padding=2)),
                    np.asarray(nn.conv2d(X, WD, stride=2, padding=1, groups=8)),
                    np.asarray(nn.conv_transpose2d(X, WT, stride=2))]
        first, report = first_and_later(calls, every)
        print(json.dumps({**report, "vals": [a.astype(float).tolist() for a in first]}))
        _warm._proc.kill()
    """, tmp_path / "cache", {"FLEXARRAY_NUM_THREADS": "2"})
    assert out["compiles"] == [] and out["later"] == []
    assert {"_col2im", "_direct", "_im2col"} <= set(out["asked"])
    assert out["same"] == [True] * 3
    r = np.random.default_rng(0)
    x = r.standard_normal((2, 8, 20, 20)).astype(np.float32).astype(float)
    x[0, 1, 2, 3] = np.inf
    w5 = r.standard_normal((16, 8, 5, 5)).astype(np.float32).astype(float)
    wd = r.standard_normal((8, 1, 3, 3)).astype(np.float32).astype(float)
    wt = r.standard_normal((8, 4, 3, 3)).astype(np.float32).astype(float)

    def corr(x, w, stride, pad, groups):
        N, C, H, W = x.shape
        co, cig, kh, kw = w.shape
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        Ho, Wo = (H + 2 * pad - kh) // stride + 1, (W + 2 * pad - kw) // stride + 1
        out = np.zeros((N, co, Ho, Wo))
        cog = co // groups
        with np.errstate(invalid="ignore"):
            for o in range(co):
                gi = o // cog
                for ky in range(kh):
                    for kx in range(kw):
                        win = xp[:, gi * cig:(gi + 1) * cig, ky:ky + stride * Ho:stride,
                                 kx:kx + stride * Wo:stride]
                        out[:, o] += np.einsum("nchw,c->nhw", win, w[o, :, ky, kx])
        return out

    def tconv(x, w, stride):
        N, C, H, W = x.shape
        co, kh, kw = w.shape[1], w.shape[2], w.shape[3]
        out = np.zeros((N, co, (H - 1) * stride + kh, (W - 1) * stride + kw))
        for ky in range(kh):
            for kx in range(kw):
                out[:, :, ky:ky + stride * H:stride, kx:kx + stride * W:stride] += \
                    np.einsum("nchw,co->nohw", x, w[:, :, ky, kx])
        return out

    for got, ref in zip(out["vals"], (corr(x, w5, 1, 2, 1), corr(x, wd, 2, 1, 8),
                                      tconv(x, wt, 2))):
        got = np.array(got)
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(ref))
        fin = np.isfinite(ref)
        np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-4, atol=1e-4)

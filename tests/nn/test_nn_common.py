"""Shared helpers for the flexarray.nn tests (layouts, dtypes, tolerances), and tests of
the module as a whole (exports, signatures)."""
import inspect

import numpy as np
import pytest

import flexarray as xp
from helpers.nn import np_of
from helpers.threads import no_blas_spin, run_threads  # noqa: F401 (autouse: no spin)














# --------------------------------------------------------------------------- module tests

def test_exports():
    import flexarray.nn as nn
    for name in nn.__all__:
        f = getattr(nn, name)
        assert callable(f) and f.__name__ == name and f.__doc__, name
    assert len(nn.__all__) == 20


# torch.nn.functional's parameters after the input (from its documentation; dropout_p,
# which flexarray does not take, left out)
_CONV = ["weight", "bias", "stride", "padding", "dilation", "groups"]
_CONVT = ["weight", "bias", "stride", "padding", "output_padding", "groups", "dilation"]
_MAX = ["kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"]
_AVG1 = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]
TORCH_PARAMS = {
    **{f"conv{n}d": _CONV for n in (1, 2, 3)},
    **{f"conv_transpose{n}d": _CONVT for n in (1, 2, 3)},
    **{f"max_pool{n}d": _MAX for n in (1, 2, 3)},
    "avg_pool1d": _AVG1,
    **{f"avg_pool{n}d": _AVG1 + ["divisor_override"] for n in (2, 3)},
    **{f"adaptive_avg_pool{n}d": ["output_size"] for n in (1, 2, 3)},
    **{f"adaptive_max_pool{n}d": ["output_size", "return_indices"] for n in (1, 2, 3)},
    "scaled_dot_product_attention": ["key", "value", "attn_mask", "is_causal", "scale",
                                     "enable_gqa"],
    "unfold": ["axis", "size", "step"],
}


def test_signatures_match_torch():
    import flexarray.nn as nn
    assert set(TORCH_PARAMS) == set(nn.__all__)
    for name, params in TORCH_PARAMS.items():
        ours = list(inspect.signature(getattr(nn, name)).parameters)[1:]
        assert ours == params, name


def test_concurrent_calls_from_threads():
    """Two Python threads running large (worker-parallel) nn calls at once get the
    results of one at a time (up to BLAS summation order), and BLAS gets its thread count
    back afterwards."""
    import flexarray.nn as nn
    rng = np.random.default_rng(0)
    x = xp.asarray(rng.standard_normal((4, 16, 40, 40)).astype(np.float32))
    w = xp.asarray(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))
    q = xp.asarray(rng.standard_normal((8, 300, 32)).astype(np.float32))
    calls = [lambda: nn.conv2d(x, w, padding=1), lambda: nn.conv2d(x, w, stride=2),
             lambda: nn.scaled_dot_product_attention(q, q, q, is_causal=True),
             lambda: nn.max_pool2d(x, 3, 1, 1)]
    expected = [np_of(c()) for c in calls]
    threadpoolctl = __import__("pytest").importorskip("threadpoolctl")
    before = [i["num_threads"] for i in threadpoolctl.threadpool_info()]
    results = {}

    def worker(i):
        for _ in range(3):
            results[i] = np_of(calls[i]())

    run_threads(worker, len(calls))
    for i, e in enumerate(expected):
        # OpenBLAS may split a GEMM differently when two callers share the cores (its
        # thread count per call changes the summation order): float32 rounding apart
        np.testing.assert_allclose(results[i], e, rtol=2e-5, atol=1e-5)
    assert [i["num_threads"] for i in threadpoolctl.threadpool_info()] == before


def test_scratch_arrays_are_per_thread_disjoint_and_kept():
    """nn's per-thread scratch: one array per (name, dtype), reused across calls, grown
    on demand, never overlapping another name's (they share the thread's arena), and a
    request larger than the arena still gets memory of its own."""
    import threading

    from flexarray._engines.nn import par as _par

    def take(results):
        a = _par.scratch("test_a", (100, 3), np.float32)
        b = _par.scratch("test_b", (1000,), np.float64)
        a[...] = 1.0
        b[...] = 2.0
        assert not np.shares_memory(a, b)
        again = _par.scratch("test_a", (50, 2), np.float32)  # smaller: the same memory
        assert again.base is a.base or np.shares_memory(again, a)
        grown = _par.scratch("test_a", (5000,), np.float32)  # larger: new memory
        assert not np.shares_memory(grown, b) and (b == 2.0).all()
        huge = _par.scratch("test_huge", (_par._ARENA_BYTES // 4 + 1,), np.float32)
        huge[-1] = 3.0
        assert not np.shares_memory(huge, b) and not np.shares_memory(huge, grown)
        results.append(b)

    results = []
    threads = [threading.Thread(target=take, args=(results,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    take(results)
    assert len(results) == 3
    for i in range(3):
        for j in range(i):
            assert not np.shares_memory(results[i], results[j])


def test_worker_pool_runs_every_item_once_and_raises_the_first_error():
    """nn's worker pool: every item exactly once (counted against a plain loop), from
    several threads at once; an exception in an item reaches the caller, and the pool
    keeps working afterwards."""
    import threading

    import pytest

    from flexarray._engines.nn import par as _par

    def count(n):
        seen = [0] * n
        lock = threading.Lock()

        def fn(i):
            with lock:
                seen[i] += 1
        _par.run(fn, range(n), parallel=True, blas=False)
        return seen

    for n in (2, 3, 50):
        assert count(n) == [1] * n
    outs = [None] * 4
    threads = [threading.Thread(target=lambda k=k: outs.__setitem__(k, count(200)))
               for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outs == [[1] * 200] * 4

    def bad(i):
        if i == 7:
            raise ValueError("item 7")
    with pytest.raises(ValueError, match="item 7"):
        _par.run(bad, range(20), parallel=True, blas=False)
    assert count(30) == [1] * 30


def test_parallel_calls_pin_the_caller_only_while_they_run():
    """A parallel nn call runs its caller on one CPU (the helpers on the others) and
    gives the caller its own CPU affinity back afterwards, also after an error."""
    import os
    import threading

    import pytest

    from flexarray._engines.nn import par as _par
    if not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs CPU affinity and two CPUs")
    if _par.workers() < 2:
        pytest.skip("one worker: nothing runs in parallel")
    before = os.sched_getaffinity(0)
    seen = {}

    def item(i):
        seen.setdefault(threading.current_thread().name, set()).update(os.sched_getaffinity(0))
        if i == 5:
            raise KeyError("stop")
    with pytest.raises(KeyError):
        _par.run(item, range(40), parallel=True, blas=False)
    assert os.sched_getaffinity(0) == before
    main = seen.get(threading.current_thread().name)
    assert main is not None and len(main) == 1
    for name, cpus in seen.items():
        if name.startswith("flexarray-worker"):
            assert len(cpus) == 1 and not cpus & main  # a CPU of its own


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_sum_is_the_documented_fixed_order(dtype):
    """The intrinsic against its order written out in NumPy (bit for bit): vectors of 64
    bytes into four accumulators in turn (the last nvec % 4 into the first), accumulators
    starting at -0.0, then (a0 + a1) + (a2 + a3) and a pairwise fold of the lanes."""
    from flexarray._kernels import kernel
    from flexarray._kernels.nn.common import vector_sum

    @kernel(cache=False)
    def call(src, start, nvec):
        return vector_sum(src, start, nvec)

    V = 64 // np.dtype(dtype).itemsize
    rng = np.random.default_rng(5)
    src = (rng.standard_normal(40 * V + 3) * 10.0 ** rng.integers(-3, 4, 40 * V + 3)).astype(dtype)
    for nvec in range(0, 11):
        start = int(rng.integers(0, 3))
        vecs = src[start:start + nvec * V].reshape(nvec, V)
        acc = np.full((4, V), -0.0, dtype)
        for k in range(nvec):
            acc[k % 4 if k < nvec // 4 * 4 else 0] += vecs[k]
        v = (acc[0] + acc[1]) + (acc[2] + acc[3])
        h = V // 2
        while h:
            v[:h] += v[h:2 * h]
            h //= 2
        got = call(src, start, nvec)
        assert np.array_equal(np.array(got, dtype), v[0]) and np.signbit(got) == np.signbit(v[0])
    assert np.signbit(call(src, 0, 0))  # no vectors: the identity -0.0

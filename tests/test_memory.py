"""Recycled memory for large results (flexarray/_memory.py): a block is reused only
when nothing can reach it any more, and reuse never changes an array someone still holds."""
import threading

import numpy as np
import pytest

import flexarray as xp
from flexarray import _memory
from helpers.threads import run_threads

N = (_memory.RECYCLE_MIN_BYTES // 8) * 2  # float64 elements of a recycled result


def ptr(a):
    """The address of ``a``'s elements (read without exporting: an export pins memory)."""
    return a._arr.__array_interface__["data"][0]


@pytest.fixture
def src(monkeypatch):
    # recycling as if FLEXARRAY_RECYCLE_BYTES were set: on even when another test imported cubed
    monkeypatch.setattr(_memory, "CAP_GIVEN", True)
    _memory.release()
    v = np.random.default_rng(0).standard_normal(N)
    return v, xp.asarray(v)


def test_a_dead_result_gives_its_memory_to_the_next(src):
    v, x = src
    a = xp.exp(x)
    p = ptr(a)
    del a
    b = xp.exp(x)
    assert ptr(b) == p
    np.testing.assert_array_equal(np.asarray(b), np.exp(v))


@pytest.mark.parametrize("keep", ["view", "numpy export", "dlpack", "copy", "memoryview"])
def test_memory_anything_still_reaches_is_not_reused(src, keep):
    v, x = src
    a = xp.exp(x)
    p = ptr(a)
    held = {"view": lambda: a[1:],
            "numpy export": lambda: np.asarray(a),
            "dlpack": lambda: np.from_dlpack(a),
            "copy": lambda: xp.asarray(a, copy=True),
            "memoryview": lambda: memoryview(np.asarray(a))}[keep]()
    del a
    others = [xp.sin(x), xp.cos(x), xp.add(x, 1.0), xp.empty(N)]
    assert all(ptr(o) != p for o in others)
    for o in others[:3]:
        o[...] = 0.0
    got = np.asarray(held).reshape(-1)
    expect = np.exp(v)[1:] if keep == "view" else np.exp(v)
    np.testing.assert_array_equal(got, expect)


def test_elided_temporaries_and_half_kernels_stay_correct(src):
    v, x = src
    for _ in range(3):  # reused blocks hold old values: every result is still exact
        r = x * x + x
        np.testing.assert_array_equal(np.asarray(r), v * v + v)
    h = xp.astype(x, xp.float16)
    hv = v.astype(np.float16)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(h + h), hv + hv)
        np.testing.assert_array_equal(np.asarray(xp.full(N, 2.5)), np.full(N, 2.5))


def test_recycled_memory_stays_within_its_cap(src, monkeypatch):
    v, x = src
    monkeypatch.setattr(_memory, "CAP", 3 * N * 8)
    live = [xp.exp(x) for _ in range(5)]  # more than the cap: the rest is plain NumPy
    assert sum(b.size for b in _memory._blocks) <= _memory.CAP
    for a, k in zip(live, range(5)):
        np.testing.assert_array_equal(np.asarray(a), np.exp(v))
    del live, a
    assert _memory.release() <= _memory.CAP
    assert _memory._blocks == []


def test_threads_never_share_a_live_block(src, monkeypatch):
    """(Recycling on in threads, as FLEXARRAY_RECYCLE_BYTES=... asks.)"""
    monkeypatch.setattr(_memory, "CAP_GIVEN", True)
    v, x = src
    results = {}

    def work(k):
        for i in range(4):
            r = xp.multiply(x, float(k + 1))
            results[k, i] = r
            np.testing.assert_array_equal(np.asarray(r), v * (k + 1))

    run_threads(work, 3)
    assert len({ptr(r) for r in results.values()}) == len(results)
    for (k, _), r in results.items():
        np.testing.assert_array_equal(np.asarray(r), v * (k + 1))


def test_recycling_serves_the_main_thread_unless_asked_for(src, monkeypatch):
    """Results computed on other threads (Dask's threaded scheduler) are not recycled, unless
    FLEXARRAY_RECYCLE_BYTES was given; the main thread's are."""
    v, x = src
    monkeypatch.delitem(__import__("sys").modules, "cubed", raising=False)
    for given in (False, True):
        monkeypatch.setattr(_memory, "CAP_GIVEN", given)
        out = []
        t = threading.Thread(target=lambda: out.append(xp.exp(x)))
        t.start()
        t.join()
        recycled = any(np.shares_memory(b, out[0]._arr) for b in _memory._blocks)
        assert recycled is given
        np.testing.assert_array_equal(np.asarray(out[0]), np.exp(v))
        a = xp.exp(x)
        assert any(np.shares_memory(b, a._arr) for b in _memory._blocks)


def test_recycling_is_off_under_cubed_unless_asked_for(src, monkeypatch):
    """cubed bounds each task's memory (allowed_mem) and cannot see blocks kept warm here:
    in a process that imported cubed, results are not recycled, unless FLEXARRAY_RECYCLE_BYTES
    was given."""
    v, x = src
    monkeypatch.setitem(__import__("sys").modules, "cubed", object())
    monkeypatch.setattr(_memory, "CAP_GIVEN", False)
    a = xp.exp(x)
    assert not any(np.shares_memory(b, a._arr) for b in _memory._blocks)
    np.testing.assert_array_equal(np.asarray(a), np.exp(v))
    monkeypatch.setattr(_memory, "CAP_GIVEN", True)
    b = xp.exp(x)
    assert any(np.shares_memory(blk, b._arr) for blk in _memory._blocks)

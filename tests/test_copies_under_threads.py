"""Copies stay copies under threads (docs/value-model.md, "Under threads").

Random-free programs of copies, views, writes and reads run from several threads at once,
against what NumPy's eager copies give for the same programs: a copy equals its source at
the time it was taken (it may see part of a write in progress, as NumPy's ``copy`` can) and
never changes afterwards unless written through itself; a write lands in exactly the family
it was made through; nothing raises. Every program counts its differences and exceptions;
each test asserts there are none.

The default run repeats each program a few times; the long run is

    FLEXARRAY_STRESS_ROUNDS=200 python -m pytest -q tests/test_copies_under_threads.py

(``FLEXARRAY_STRESS_N`` sets the element count, default 1M; races are likelier at 4M).
"""
import copy
import os
import pickle
import sys
import threading

import numpy as np
import pytest

import flexarray as xp

ROUNDS = int(os.environ.get("FLEXARRAY_STRESS_ROUNDS", "2"))
N = int(os.environ.get("FLEXARRAY_STRESS_N", str(1 << 20)))
WRITES = 12  # writes per round by the writing thread


@pytest.fixture(autouse=True)
def fast_switching():
    """Switch threads every 10 us (default 5 ms): many more interleavings per round."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def _run(*targets):
    """Run each ``target()`` on its own thread, released together; return the exceptions
    they raised (as strings)."""
    errors = []
    start = threading.Barrier(len(targets))

    def body(f):
        try:
            start.wait()
            f()
        except Exception as e:  # noqa: BLE001 - counted, then asserted empty
            errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=body, args=(f,)) for f in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def _source(dtype="int64"):
    return xp.asarray(np.arange(N, dtype=dtype), copy=True)  # owned memory: lazy copies


# --- reads of a copy while its source is written --------------------------------------------

def _reads():
    """(name, read(c) -> NumPy value) of every kind: reductions, elementwise, views,
    exports, pickling, sort, fft."""
    def dl(c):
        return np.from_dlpack(c).copy()
    return [
        ("sum", lambda c: np.asarray(xp.sum(c))),
        ("max", lambda c: np.asarray(xp.max(c))),
        ("sum of a strided view", lambda c: np.asarray(xp.sum(c[::2]))),
        ("np.array(copy=True)", lambda c: np.array(c, copy=True)),
        ("np.asarray export", lambda c: np.asarray(c).copy()),
        ("dlpack", dl),
        ("pickle", lambda c: np.asarray(pickle.loads(pickle.dumps(c)))),
        ("elementwise", lambda c: np.asarray(c * 3 + 1)),
        ("sort", lambda c: np.asarray(xp.sort(c[::-1]))),
        ("cumulative_sum", lambda c: np.asarray(xp.cumulative_sum(c[: 1 << 16]))),
        ("rfft", lambda c: np.asarray(xp.fft.rfft(xp.astype(c[: 1 << 12], xp.float64)))),
    ]


@pytest.mark.parametrize("name, read", _reads(), ids=[r[0] for r in _reads()])
@pytest.mark.parametrize("how", ["asarray", "copy.copy", "astype", "copy of a copy"])
def test_reading_a_copy_while_the_source_is_written(name, read, how):
    differences, errors = 0, []
    for _ in range(ROUNDS):
        x = _source()
        make = {"asarray": lambda a: xp.asarray(a, copy=True), "copy.copy": copy.copy,
                "astype": lambda a: xp.astype(a, a.dtype, copy=True),
                "copy of a copy": lambda a: xp.asarray(xp.asarray(a, copy=True), copy=True)}
        c = make[how](x)
        expected = read(xp.asarray(np.arange(N, dtype="int64")))  # NumPy's eager copy's
        seen = []

        def writer():
            for _ in range(WRITES):
                x[...] += 1

        def reader():
            for _ in range(4):
                seen.append(read(c))

        errors += _run(writer, reader)
        differences += sum(not np.array_equal(s, expected) for s in seen)
        differences += not np.array_equal(np.asarray(x), np.arange(N) + WRITES)
    assert (differences, errors) == (0, [])


# --- copies taken while the source is written ----------------------------------------------

def test_copies_taken_while_the_source_is_written_never_change():
    """Copies (and copies of copies) of ``x`` taken while another thread fills ``x`` with
    1, 2, 3, ...: each may hold a mix of two fills (NumPy's copy can too), but never
    changes after it was taken."""
    differences, errors = 0, []
    for _ in range(ROUNDS):
        x = _source()
        taken = []

        def writer():
            for k in range(1, WRITES + 1):
                x[...] = k

        def copier():
            for _ in range(8):
                c = xp.asarray(x, copy=True)
                cc = copy.copy(c)
                snap = np.array(np.asarray(cc), copy=True)  # cc: what c was at its return
                taken.append((c, cc, snap))

        errors += _run(writer, copier)
        for c, cc, snap in taken:
            differences += not np.array_equal(np.asarray(c), snap)
            differences += not np.array_equal(np.asarray(cc), snap)
        differences += not np.array_equal(np.asarray(x), np.full(N, WRITES))
    assert (differences, errors) == (0, [])


# --- writes through views while others copy ------------------------------------------------

def test_writes_through_views_while_another_thread_copies():
    differences, errors = 0, []
    for _ in range(ROUNDS):
        x = _source()
        v = x[1::2]
        w = xp.reshape(x, (N // 1024, 1024)).T  # a transposed view of the same memory
        taken = []

        def writer():
            for k in range(WRITES):
                v[...] = -k
                w[0, :] = k  # x[::1024] = k

        def copier():
            for _ in range(8):
                c = xp.asarray(x, copy=True)
                taken.append((c, np.array(np.asarray(copy.copy(c)), copy=True)))

        errors += _run(writer, copier)
        expected = np.arange(N)
        expected[1::2] = -(WRITES - 1)
        expected[::1024] = WRITES - 1
        differences += not np.array_equal(np.asarray(x), expected)
        differences += sum(not np.array_equal(np.asarray(c), s) for c, s in taken)
    assert (differences, errors) == (0, [])


def test_disjoint_slice_writes_from_several_threads_with_live_copies():
    differences, errors = 0, []
    for _ in range(ROUNDS):
        x = _source()
        copies = [xp.asarray(x, copy=True)]
        h = N // 2

        def lower():
            for k in range(WRITES):
                x[:h] = k

        def upper():
            for k in range(WRITES):
                x[h:] += 1

        def copier():
            for _ in range(6):
                copies.append(xp.asarray(copies[-1], copy=True))

        errors += _run(lower, upper, copier)
        expected = np.arange(N)
        expected[:h] = WRITES - 1
        expected[h:] += WRITES
        differences += not np.array_equal(np.asarray(x), expected)
        differences += sum(not np.array_equal(np.asarray(c), np.arange(N)) for c in copies)
    assert (differences, errors) == (0, [])


@pytest.mark.parametrize("how", ["ufunc out=", "in-place operator", "setitem", "copy writes"])
def test_writes_of_every_kind_reach_only_their_family(how):
    """The source, its copies and copies of copies written from three threads: each ends
    with exactly its own writes."""
    differences, errors = 0, []
    for _ in range(ROUNDS):
        x = _source()
        a = xp.asarray(x, copy=True)
        b = xp.asarray(a, copy=True)
        write = {"ufunc out=": lambda t, k: np.add(t, 1, out=t),
                 "in-place operator": lambda t, k: t.__iadd__(1),
                 "setitem": lambda t, k: t.__setitem__(slice(None), t[...] + 1),
                 "copy writes": lambda t, k: xp.asarray(t, copy=True).__iadd__(5)}[how]
        counts = {"x": WRITES, "a": WRITES // 2, "b": WRITES // 3}

        def writes(t, n):
            return lambda: [write(t, k) for k in range(n)]

        errors += _run(writes(x, counts["x"]), writes(a, counts["a"]), writes(b, counts["b"]))
        bump = 0 if how == "copy writes" else 1
        for t, name in ((x, "x"), (a, "a"), (b, "b")):
            differences += not np.array_equal(np.asarray(t), np.arange(N) + bump * counts[name])
    assert (differences, errors) == (0, [])

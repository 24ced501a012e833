"""One pool of worker threads for the whole package: the core kernels and flexarray.nn.

Kernels are serial and release the GIL; callers cut large work into pieces that the calling
thread and the pool's helper threads take in turn (dynamic scheduling: a thread slowed by a
busy core simply takes fewer pieces). ``FLEXARRAY_NUM_THREADS`` sets the thread count
(default: the CPUs this process may run on).

- :func:`run_items` calls ``fn(item)`` for every item across the pool;
  :func:`run_split` cuts ``[0, total)`` into pieces for a kernel ``fn(*args, lo, hi)``;
  :func:`threads_for` is the one rule for a thread count under a gate.
- The helpers linger ~2 ms after each job, polling for the next one in a ``nogil`` kernel
  before they block (once that kernel is compiled or in the disk cache: it never compiles
  on a first call), and are pinned to CPUs of their own; the caller is pinned to the
  first CPU for the duration of a call (see :class:`_Pool` and :class:`_Pinned` for the
  measurements). ``flexarray.nn`` adds single-threaded BLAS around its calls
  (``_engines/nn/par.py``).
- The pool serves the main thread: a call made from another thread runs inline (see
  :func:`runs_inline`), unless ``FLEXARRAY_NUM_THREADS`` was given; then threads share the
  pool (see :func:`run_items`).
- For ~0.15 s after a product large enough for BLAS's own threads, which spin-wait for
  the next call meanwhile, parallel calls run inline too (:func:`blas_ran`).

This module imports no Numba until the pool is first used (the helpers' polling kernel):
``import flexarray`` stays cheap.
"""
import collections
import contextlib
import os
import threading
import time

import numpy as np

from ._engines import gates

try:
    NTHREADS = len(os.sched_getaffinity(0))
except AttributeError:  # pragma: no cover - not Linux
    NTHREADS = os.cpu_count() or 1
NTHREADS_GIVEN = os.environ.get("FLEXARRAY_NUM_THREADS", "").isdigit()
if NTHREADS_GIVEN:
    NTHREADS = max(1, int(os.environ["FLEXARRAY_NUM_THREADS"]))

_lock = threading.Lock()
_pool = None
_pinned_calls = 0  # parallel calls running (the first pins its caller, see _Pinned)
_running = 0  # parallel calls running, from any thread (see run_items)
_LINGER_SECONDS = 0.002  # helpers poll for the next job this long before they block
_DONE = object()
_THREAD_PREFIX = "flexarray-worker"
_blas_spins_until = 0.0  # time.perf_counter() until which BLAS's threads may spin (blas_ran)


def workers() -> int:
    """Number of threads a parallel call uses, the caller included (``NTHREADS``)."""
    return NTHREADS


def threads_for(work, gate) -> int:
    """Threads for ``work`` (in the gate's unit) under the thread gate ``gate`` (a value of
    ``flexarray._engines.gates``; None: never): ``NTHREADS`` from the gate on, else 1."""
    return NTHREADS if gate is not None and work >= gate else 1


def runs_inline() -> bool:
    """Whether a parallel call made now runs on the calling thread alone: on one of the
    pool's helpers (waiting on the pool from inside it could deadlock, and the work is
    parallel already), on any thread but the main one unless ``FLEXARRAY_NUM_THREADS``
    was given, and while BLAS's own threads spin after a large product (see
    :func:`blas_ran`). Other threads are, nearly always, one of several running tasks
    (Dask's threaded scheduler and ``distributed`` workers, cubed's threads executor,
    joblib's threading backend), which use the cores already. Measured on Dask's threads
    (docs/scaling.md): at 1 GB in one process, the pool's helper competing with the other
    task's Zarr reads cost 10-20% of the wall time; at 2 GB in fresh processes the two
    rules came out even."""
    return off_the_pool() or (
        _blas_spins_until > 0.0 and time.perf_counter() < _blas_spins_until)


def off_the_pool() -> bool:
    """Whether this thread's parallel calls run inline: a helper of the pool, or another
    thread than the main one unless ``FLEXARRAY_NUM_THREADS`` was given."""
    t = threading.current_thread()
    return t is not threading.main_thread() and (
        not NTHREADS_GIVEN or t.name.startswith(_THREAD_PREFIX))


def blas_ran() -> None:
    """Note a call that ran in NumPy's BLAS's own threads (``_engines/matmul.py``): they
    spin-wait for the next call for a while, and parallel calls until then run inline (two
    threads beside a spinning one lose to one: see ``gates.BLAS_SPIN_SECONDS``)."""
    global _blas_spins_until
    if NTHREADS > 1:
        _blas_spins_until = time.perf_counter() + _BLAS_SPIN_SECONDS


_BLAS_SPIN_SECONDS = gates.BLAS_SPIN_SECONDS


def _get_pool():
    global _pool
    with _lock:
        if _pool is None:
            _pool = _Pool(NTHREADS - 1)
    return _pool


class _Job:
    """One ``run`` call: items taken in turn by the caller and the helpers that join it.
    The first exception stops the job and is raised by :meth:`finish`."""

    __slots__ = ("fn", "it", "lock", "active", "open", "error", "idle")

    def __init__(self, fn, items):
        self.fn, self.it = fn, iter(items)
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self.active, self.open, self.error = 0, True, None

    def drain(self):
        while True:
            with self.lock:
                item = next(self.it, _DONE) if self.error is None else _DONE
            if item is _DONE:
                return
            try:
                self.fn(item)
            except BaseException as e:  # noqa: B036 - handed to the caller
                with self.lock:
                    if self.error is None:
                        self.error = e
                return

    def help(self):
        """A helper's share: nothing when the caller has already finished the job (a
        helper that wakes late does not make the caller wait)."""
        with self.lock:
            if not self.open:
                return
            self.active += 1
        try:
            self.drain()
        finally:
            with self.lock:
                self.active -= 1
                if not self.active:
                    self.idle.notify_all()
                    if not self.open:       # the caller did not wait (finish)
                        self.fn = self.it = None

    def finish(self, wait=True):
        """The caller, after its own drain: close the job, wait for the helpers in it
        (`wait` False: only close it; the last helper to leave drops it)."""
        with self.lock:
            self.open = False
            while self.active and wait:
                self.idle.wait()
            if self.active:
                return
        # a helper that wakes late still finds this job in the pool's queue: drop what it
        # references (results under construction: memory that _memory recycles)
        self.fn = self.it = None
        if self.error is not None:
            raise self.error


def _allowed_cpus():
    """The CPUs this process may run on, sorted ([] where threads cannot be pinned)."""
    if not hasattr(os, "sched_setaffinity"):
        return []
    return sorted(os.sched_getaffinity(0))


class _Pinned:
    """The calling thread on the pool's first CPU for the duration of a parallel call,
    its own affinity restored after; only while no other call is running (concurrent
    callers stay free). Helper i is pinned to the pool's CPU i + 1 for good.

    Without it, after a pause, Linux woke the helper on the caller's CPU and took tens of
    milliseconds to move one of them to the idle CPU: measured, attention b1 h12 s512 at
    9.5-12.5 ms in the 2nd-4th calls after a 0.15 s pause (one CPU ~22% idle, a few
    involuntary switches per call), 6.4-6.9 ms in every call with both threads pinned."""

    def __enter__(self):
        global _pinned_calls
        self.saved = None
        cpus = _get_pool().cpus
        self.counted = len(cpus) >= 2
        if not self.counted:
            return
        with _lock:
            _pinned_calls += 1
            first = _pinned_calls == 1
        if first:
            try:
                saved = os.sched_getaffinity(0)
                if cpus[0] in saved:
                    os.sched_setaffinity(0, {cpus[0]})
                    self.saved = saved
            except OSError:
                pass

    def __exit__(self, *exc):
        global _pinned_calls
        if not self.counted:
            return
        if self.saved is not None:
            try:
                os.sched_setaffinity(0, self.saved)
            except OSError:
                pass
        with _lock:
            _pinned_calls -= 1


class _Pool:
    """Helper threads that linger after each job: for ~``_LINGER_SECONDS`` they poll, in a
    ``nogil`` kernel, for the next job before they block, as OpenMP runtimes spin after a
    parallel region. A blocked thread's CPU goes idle, and on a virtual machine waking it again
    took ~40 us at best (a 2-item job's round trip: 36 us best, 87 us median; 5.7 us with
    a lingering helper) and more when the host had descheduled the idle CPU meanwhile.

    The polling kernel (``flexarray._kernels._intrinsics.linger``) is asked for by the
    caller as it posts a job, never compiled there: until it runs without a compile
    (compiled, or in the disk cache: ``flexarray._kernels.ready``, which has the
    background process compile it meanwhile) the helpers block after each job without
    lingering. So no first parallel call waits for its compile. (The caller, not a helper:
    a helper importing Numba or loading the kernel while the process forks would leave
    the child a module or lock held by a thread it does not have.)"""

    def __init__(self, n):
        from flexarray._kernels import ready
        from flexarray._kernels._intrinsics import linger
        self.ready, self.linger = ready, linger
        self.jobs = collections.deque()
        self.cv = threading.Condition()
        self.signal = np.zeros(8, np.int64)  # [0]: jobs posted so far
        self.polls = 0  # polls per linger; 0 until the polling kernel is ready
        self.cpus = _allowed_cpus()[:n + 1]  # caller on cpus[0], helper i on cpus[i + 1]
        for i in range(n):
            threading.Thread(target=self._loop, args=(i,), name=f"{_THREAD_PREFIX}-{i}",
                             daemon=True).start()

    def post(self, job, helpers):
        if not self.polls:
            self._settle()
        with self.cv:
            self.jobs.extend([job] * helpers)
            self.signal[0] += 1
            self.cv.notify(helpers)

    def _settle(self):
        """Let the helpers linger once the polling kernel runs without a compile here
        (calibrated then: ~25 ns a poll here); until then ~1 us a call (``ready``)."""
        if not self.ready(self.linger, "poll", self.signal, 0, 0):
            return
        probe = np.zeros(8, np.int64)
        self.linger(probe, 0, 1)  # (loads it here when background compiles are off)
        t = time.perf_counter()
        self.linger(probe, 0, 4096)  # (the full 4096 polls)
        per_poll = max((time.perf_counter() - t) / 4096, 1e-9)
        self.polls = max(1, int(_LINGER_SECONDS / per_poll))

    def _loop(self, i):
        np.seterr(all="ignore")  # this thread's setting (see run)
        if len(self.cpus) > i + 1:
            try:
                os.sched_setaffinity(0, {self.cpus[i + 1]})
            except OSError:  # the CPU went away meanwhile: run unpinned
                pass
        while True:
            with self.cv:
                while not self.jobs:
                    self.cv.wait()
                job = self.jobs.popleft()
                seen = int(self.signal[0])
            job.help()
            if not self.jobs and self.polls:
                self.linger(self.signal, seen, self.polls)


def _after_fork_in_child():  # the helper threads do not exist in a forked child, and a
    global _pool, _lock      # lock another thread held at the fork stays held there
    _pool = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def run_items(fn, items, nthreads=None, pin=True, wait=True):
    """Call ``fn(item)`` for every item, on up to ``nthreads`` threads (default: all),
    the caller included; inline when there is one item or one thread, or when
    :func:`runs_inline`. Where threads other than the main one use the pool
    (``FLEXARRAY_NUM_THREADS`` given), calls from several threads at once share the
    threads out: while k other calls run, a call takes at most ``NTHREADS // (k + 1)``
    (inline on two cores under Dask's threaded scheduler). ``fn`` must
    write only disjoint parts of shared outputs. The first exception stops the job and is
    raised here. ``pin``: the caller runs on the pool's first CPU meanwhile
    (:class:`_Pinned`; nn's calls); :func:`run_split` leaves the caller free, as the core
    kernels' calls always did (measured without a clear win either way for them on the
    busy 2-core machine). ``wait`` False: return once the items are all taken and the
    caller's own are done, without waiting for helpers still inside ``fn`` (their
    exceptions are lost): for a kernel that itself waits until all the work is done, as
    the real FFT's does. A helper that leaves its kernel after the caller needs the GIL,
    and handing it over and waking the caller again cost ~60-80 us here (a sleeping
    thread's idle vCPU is slow to wake)."""
    global _running
    items = list(items)
    nw = NTHREADS if nthreads is None else max(1, min(nthreads, NTHREADS))
    if _running:  # other threads' parallel calls are running (a Dask task per core, ...):
        nw = min(nw, NTHREADS // (_running + 1))  # share the cores, never oversubscribe
    if len(items) <= 1 or nw <= 1 or runs_inline():
        for it in items:
            fn(it)
        return
    with _lock:
        _running += 1
    try:
        with _Pinned() if pin else contextlib.nullcontext():
            job = _Job(fn, items)
            _get_pool().post(job, min(nw, len(items)) - 1)
            job.drain()
            job.finish(wait)
    finally:
        with _lock:
            _running -= 1


def run_split(fn, args, total, nthreads, pieces_per_thread=8):
    """Run ``fn(*args, lo, hi)`` over the work items ``[0, total)`` on up to ``nthreads``.

    ``fn`` is a ``nogil`` serial kernel. The items are cut into ``pieces_per_thread`` pieces
    per thread which the calling thread and the pool's helpers take in turn, so a helper
    that the OS schedules late (a busy machine) costs little: the caller does its share.
    Python threads instead of ``parallel=True`` keep one compiled specialization per kernel
    (a parallel build compiles 2-3x longer).
    """
    nthreads = max(1, min(nthreads, total))
    if nthreads == 1 or runs_inline():
        fn(*args, 0, total)
        return
    npieces = min(total, nthreads * pieces_per_thread)
    bounds = [total * i // npieces for i in range(npieces + 1)]
    run_items(lambda i: fn(*args, bounds[i], bounds[i + 1]), range(npieces), nthreads,
              pin=False)

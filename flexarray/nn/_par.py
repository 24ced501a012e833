"""Coarse-grained parallelism for flexarray.nn: worker threads, each serial inside.

(nn keeps its own pool, with BLAS limited to one thread while it runs; kernels called from
its threads run inline: see ``flexarray._threads.run_split``.)

Convolution and attention alternate BLAS GEMMs with Numba kernels block by block. Running
both multithreaded (OpenBLAS's pool, then Numba's OpenMP pool, then OpenBLAS's again, ...)
makes the two pools' spinning threads fight over the cores: measured on this 2-core machine
under load from other processes, an im2col conv went from 0.13 s to 4.7 s. Instead each
worker thread takes whole blocks and runs single-threaded GEMMs (BLAS limited to one thread
for the duration of the call) and serial ``nogil`` Numba kernels: no barriers between
blocks, L2-resident scratch per core, graceful degradation when the machine is busy.
"""
import collections
import os
import threading
import time

import numpy as np

from flexarray import _threads

_lock = threading.Lock()
_pool = None
_controller = None  # threadpoolctl's BLAS library controllers, once looked up
_depth = 0
_limiter = None
_pinned_calls = 0  # parallel calls running (the first pins its caller, see _Pinned)
_LINGER_SECONDS = 0.002  # helpers poll for the next job this long before they block


def workers() -> int:
    """Number of worker threads: ``FLEXARRAY_NUM_THREADS``, else the CPUs this process may
    run on (``flexarray._threads.NTHREADS``, shared with the core kernels)."""
    return _threads.NTHREADS


def _get_pool():
    global _pool
    with _lock:
        if _pool is None:
            _pool = _Pool(workers() - 1)
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

    def finish(self):
        """The caller, after its own drain: close the job, wait for the helpers in it."""
        with self.lock:
            self.open = False
            while self.active:
                self.idle.wait()
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
    parallel region. A blocked thread's CPU goes idle, and on this VM waking it again
    took ~40 us at best (a 2-item job's round trip: 36 us best, 87 us median; 5.7 us with
    a lingering helper) and more when the host had descheduled the idle CPU meanwhile."""

    def __init__(self, n):
        from flexarray._kernels.nn.common import linger
        self.jobs = collections.deque()
        self.cv = threading.Condition()
        self.signal = np.zeros(8, np.int64)  # [0]: jobs posted so far
        self.linger = linger
        t = time.perf_counter()
        linger(self.signal, 0, 4096)  # calibrate the poll (~25 ns here)
        per_poll = max((time.perf_counter() - t) / 4096, 1e-9)
        self.polls = int(_LINGER_SECONDS / per_poll)
        self.cpus = _allowed_cpus()[:n + 1]  # caller on cpus[0], helper i on cpus[i + 1]
        for i in range(n):
            threading.Thread(target=self._loop, args=(i,), name=f"flexarray-nn_{i}",
                             daemon=True).start()

    def post(self, job, helpers):
        with self.cv:
            self.jobs.extend([job] * helpers)
            self.signal[0] += 1
            self.cv.notify(helpers)

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
            if not self.jobs:
                self.linger(self.signal, seen, self.polls)


def _after_fork_in_child():  # the helper threads do not exist in a forked child
    global _pool
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _blas_libs():
    """threadpoolctl's controllers of the BLAS libraries loaded when first asked ([] when
    threadpoolctl is missing or fails: BLAS keeps its threads)."""
    global _controller
    if _controller is None:
        try:
            import threadpoolctl
            _controller = threadpoolctl.ThreadpoolController().select(
                user_api="blas").lib_controllers
        except Exception:
            _controller = []
    return _controller


class _SingleThreadedBLAS:
    """Reference-counted: BLAS runs single-threaded while any nn parallel call is active.

    Sets each library's thread count directly (~1 us) rather than through
    ``threadpoolctl.ThreadpoolController.limit`` (~25 us per call, which rereads every
    library's state: serial time at the start of each call)."""

    def __enter__(self):
        global _depth, _limiter
        with _lock:
            if _depth == 0:
                _limiter = [(lib, n) for lib in _blas_libs()
                            if (n := lib.get_num_threads()) not in (None, 1)]
                for lib, _ in _limiter:
                    lib.set_num_threads(1)
            _depth += 1

    def __exit__(self, *exc):
        global _depth, _limiter
        with _lock:
            _depth -= 1
            if _depth == 0:
                for lib, n in _limiter:
                    lib.set_num_threads(n)
                _limiter = None


def run(fn, items, parallel=True, blas=True):
    """Call ``fn(item)`` for every item; across worker threads when ``parallel``.

    ``fn`` must only write to disjoint parts of shared outputs. Inline when ``parallel``
    is false, there is one item, or one worker. With ``blas`` (fn calls BLAS), BLAS runs
    single-threaded while the items run (unless there is a single item, run inline).
    """
    items = list(items)
    nw = workers()
    # NumPy's floating-point warnings off, as everywhere in flexarray (an inf in a GEMM
    # is data here, not an error); the helper threads have them off for good
    with np.errstate(all="ignore"):
        _run(fn, items, parallel, blas, nw)


def _run(fn, items, parallel, blas, nw):
    if not parallel or len(items) <= 1 or nw <= 1 or threading.current_thread().name.startswith(
            "flexarray-nn"):
        # Inline. Blocks that alternate serial kernels with BLAS still get single-threaded
        # BLAS: OpenBLAS's idle threads spin after each GEMM and starve the next kernel
        # (measured under load: k7 s2 conv inline 38-211 ms with BLAS's threads, against
        # 14 ms on the workers).
        with _SingleThreadedBLAS() if blas and len(items) > 1 else _NoLimit():
            for it in items:
                fn(it)
        return
    with _SingleThreadedBLAS() if blas else _NoLimit(), _Pinned():
        # Dynamic scheduling: a worker slowed by a busy core simply takes fewer items.
        # The calling thread works too: one thread fewer to wake (measured after an idle
        # pause: a k7 s2 conv took 8.6 ms with two pool threads, 7.2 ms this way).
        job = _Job(fn, items)
        _get_pool().post(job, min(nw, len(items)) - 1)
        job.drain()
        job.finish()


class _NoLimit:
    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass


def run_ranges(fn, n, parallel=True):
    """fn(lo, hi) over range(n) cut into contiguous chunks, on the workers when parallel.

    For serial ``nogil`` Numba kernels over independent planes/jobs (``fn`` runs no NumPy
    arithmetic, so it needs no ``errstate``): measured under load on this 2-core machine,
    Numba's OpenMP ``prange`` waited ~20 ms per call for a descheduled thread at its
    barrier, where worker threads with dynamic scheduling just share the chunks out; and a
    serial kernel compiles several times faster. Serial calls go straight to ``fn`` (the
    way through :func:`run` costs ~4 us).
    """
    nw = workers()
    if not parallel or nw <= 1 or n <= 1:
        fn(0, n)
        return
    nchunks = min(n, 4 * nw)
    bounds = [n * i // nchunks for i in range(nchunks + 1)]
    run(lambda i: fn(bounds[i], bounds[i + 1]), range(nchunks), parallel, blas=False)


_DONE = object()
_local = threading.local()

# Each thread's scratch arrays are carved from one arena in transparent huge pages (2 MB,
# physically contiguous) when the kernel grants them, so that their placement in the
# caches is the same in every process. Measured on the k7 s2 convolution benchmark (two
# threads, median of 40 calls, 8 processes each): 4.75-5.29 ms with the arena, against
# 4.52-7.31 ms with ordinary 4 KB pages, whose random physical placement put some
# processes in a persistent slow mode (~7.2 ms; reallocating the same buffers elsewhere
# moved a process in and out of it).
_HUGE = 2 << 20
_ARENA_BYTES = 4 << 20  # per thread; larger requests get ordinary memory


def _new_arena():
    import mmap
    try:
        # private (anonymous shared memory would be shmem, which THP usually skips)
        m = mmap.mmap(-1, _ARENA_BYTES + _HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        raw = np.frombuffer(m, np.uint8)
        start = -raw.ctypes.data % _HUGE
        if hasattr(mmap, "MADV_HUGEPAGE"):
            m.madvise(mmap.MADV_HUGEPAGE)
    except (OSError, ValueError, AttributeError):  # no such mmap (not POSIX): ordinary memory
        raw, start = np.empty(_ARENA_BYTES, np.uint8), 0
    return [raw[start:start + _ARENA_BYTES], 0]  # the arena and its used bytes


def scratch(name, shape, dtype):
    """A per-thread scratch array (reused across calls; contents undefined), in the
    thread's huge-page arena while it has room."""
    dtype = np.dtype(dtype)
    key = (name, dtype.str)
    cache = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = {}
        _local.arena = _new_arena()
    size = 1
    for s in shape:
        size *= s
    buf = cache.get(key)
    if buf is None or buf.size < size:
        arena = _local.arena
        nbytes = max(size, 1) * dtype.itemsize
        start = -(-arena[1] // 64) * 64
        if start + nbytes <= arena[0].size:
            buf = arena[0][start:start + nbytes].view(dtype)
            arena[1] = start + nbytes
        else:
            buf = np.empty(max(size, 1), dtype)
        cache[key] = buf
    return buf[:size].reshape(shape)

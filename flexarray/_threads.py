"""One pool of worker threads for the whole package (no Numba here).

Kernels are serial and release the GIL; callers cut large work into pieces that the calling
thread and the pool's threads take in turn. ``FLEXARRAY_NUM_THREADS`` sets the thread count
(default: the CPUs this process may run on).
"""
import itertools
import os
import threading

try:
    NTHREADS = len(os.sched_getaffinity(0))
except AttributeError:  # pragma: no cover - not Linux
    NTHREADS = os.cpu_count() or 1
if os.environ.get("FLEXARRAY_NUM_THREADS", "").isdigit():
    NTHREADS = max(1, int(os.environ["FLEXARRAY_NUM_THREADS"]))
_pool = None
_pool_lock = threading.Lock()


def pool():
    """The package's worker threads (NTHREADS - 1 of them: the caller works too)."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                from concurrent.futures import ThreadPoolExecutor
                _pool = ThreadPoolExecutor(max_workers=max(NTHREADS - 1, 1),
                                           thread_name_prefix="flexarray")
    return _pool


def run_split(fn, args, total, nthreads, pieces_per_thread=8):
    """Run ``fn(*args, lo, hi)`` over the work items ``[0, total)`` on up to ``nthreads``.

    ``fn`` is a ``nogil`` serial kernel. The items are cut into ``pieces_per_thread`` pieces
    per thread which the calling thread and pool threads take in turn, so a helper thread
    that the OS schedules late (a busy machine) costs little: the caller does its share.
    Python threads instead of ``parallel=True`` keep one compiled specialization per kernel
    (a parallel build compiles 2-3x longer).
    """
    nthreads = max(1, min(nthreads, total))
    if threading.current_thread().name.startswith("flexarray"):
        nthreads = 1  # already on a worker (of this pool or nn's): waiting on the pool could
        # deadlock, and the caller's work is parallel already
    if nthreads == 1:
        fn(*args, 0, total)
        return
    npieces = min(total, nthreads * pieces_per_thread)
    bounds = [total * i // npieces for i in range(npieces + 1)]
    counter = itertools.count()  # next() is atomic under the GIL

    def worker():
        while True:
            i = next(counter)
            if i >= npieces:
                return
            fn(*args, bounds[i], bounds[i + 1])

    futures = [pool().submit(worker) for _ in range(nthreads - 1)]
    try:
        worker()
    finally:
        for f in futures:
            f.result()

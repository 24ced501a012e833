"""Private Numba kernels: no validation inside, one decorator style.

Importing this package imports Numba (~0.25 s), so the frontend imports kernel modules
lazily, inside the functions that need them: ``import flexarray`` stays cheap.

Kernels assume well-formed input (the frontend validated it), read strided operands and
write into the output they are given. They take flat buffers plus offsets and fixed-rank
shape/stride tuples, or plain contiguous NumPy arrays, so that rank and layout do not
multiply compiled signatures.
"""
import os
import tempfile

import numba

__all__ = ["kernel", "parallel_kernel", "numba"]


def _choose_cache_dir():
    """Numba caches next to the source; where that is read-only, use a per-user dir."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    if os.access(here, os.W_OK):
        return
    for base in (os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                 tempfile.gettempdir()):
        path = os.path.join(base, "flexarray", "numba")
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            numba.config.CACHE_DIR = path
            return


_choose_cache_dir()

# The OpenMP layer costs 1.3-2.9 us per parallel call; the fallback 'workqueue' layer
# costs ~90 us and aborts the process when two Python threads run parallel kernels.
if os.environ.get("NUMBA_THREADING_LAYER") is None:
    numba.config.THREADING_LAYER = "omp"

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", fastmath=False)


def kernel(*args, **kwargs):
    """``@kernel``: a serial Numba kernel, cached on disk, GIL released, strict IEEE."""
    opts = {**_OPTIONS, **kwargs}
    if args and callable(args[0]):
        return numba.njit(**opts)(args[0])
    return numba.njit(*args, **opts)


def parallel_kernel(*args, **kwargs):
    """``@parallel_kernel``: like :func:`kernel` with ``parallel=True`` (use ``prange``)."""
    return kernel(*args, parallel=True, **kwargs)

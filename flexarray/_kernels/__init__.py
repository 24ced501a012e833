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

__all__ = ["kernel", "numba"]


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

# Threads: kernels are serial and ``nogil``; callers split work across Python worker
# threads (``_intrinsics.run_split``, ``nn/_par.py``). Measured on this 2-core machine:
# ``parallel=True`` (prange) kernels waited 10-20 ms per call at their barriers whenever
# another process held a core, and compiled 2-3x longer; worker threads that take pieces in
# turn degrade gracefully instead.
_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", fastmath=False)


def kernel(*args, **kwargs):
    """``@kernel``: a serial Numba kernel, cached on disk, GIL released, strict IEEE."""
    opts = {**_OPTIONS, **kwargs}
    if args and callable(args[0]):
        return numba.njit(**opts)(args[0])
    return numba.njit(*args, **opts)

"""Private Numba kernels: no validation inside, one decorator style.

Importing this package imports Numba (~0.25 s), so the frontend imports kernel modules
lazily, inside the functions that need them: ``import flexarray`` stays cheap.

Kernels assume well-formed input (the frontend validated it), read strided operands and
write into the output they are given. They take flat buffers plus offsets and fixed-rank
shape/stride tuples, or plain contiguous NumPy arrays, so that rank and layout do not
multiply compiled signatures.
"""
import hashlib
import os
import sys
import tempfile

import numba

from .._version import __version__

__all__ = ["kernel", "numba"]


def _sources_digest(here=None) -> str:
    """A digest of the kernels' sources: every ``.py`` file of this package (``here``), and
    the gates they read (~0.5 ms, once, at the first kernel's import)."""
    here = here or os.path.dirname(os.path.abspath(__file__))
    files = [os.path.join(here, os.pardir, "_engines", "gates.py")]
    for dirpath, dirnames, filenames in os.walk(here):
        dirnames.sort()
        files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
    h = hashlib.sha1()
    for path in files:
        h.update(os.path.relpath(path, here).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def cache_key() -> str:
    """The name of the cache directory of this flexarray, its kernels' sources, Numba and
    Python."""
    py = sys.implementation.cache_tag or "py%d%d" % sys.version_info[:2]  # "cpython-311"
    return f"flexarray-{__version__}-{_sources_digest()}-numba-{numba.__version__}-{py}"


def _choose_cache_dir():
    """Numba's disk cache in a directory keyed by :func:`cache_key`, under
    ``NUMBA_CACHE_DIR`` if set, else the user's cache directory (or the temporary one).

    Numba checks a cached kernel against its own source file's time stamp and size only,
    not against the files it calls into (``_intrinsics.py``, ``reduce._lanes`` from
    ``argminmax.py``) nor flexarray's version: a changed helper would run stale machine
    code (it did, 2026-11-27: a warm cache kept passing the tests of a kernel that no
    longer compiled). One directory per flexarray version, digest of the kernel sources,
    Numba and Python version makes every such change compile afresh.
    """
    env = os.environ.get("NUMBA_CACHE_DIR")
    bases = [env] if env else [
        os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                     "flexarray", "numba"),
        os.path.join(tempfile.gettempdir(), f"flexarray-numba-{getattr(os, 'getuid', str)()}")]
    for base in bases:
        path = os.path.join(base, cache_key())
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            numba.config.CACHE_DIR = path
            return
    # nothing writable: Numba's own choice (next to the sources) or its clear error


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

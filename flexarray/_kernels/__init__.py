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


def _gate_values(path) -> bytes:
    """The gates' values as ``gates.py`` states them: ``repr`` of its public UPPER_CASE names
    and values, sorted by name. The file is pure data, run here in a namespace of its own,
    so the values are the file's (not the module's, which tests move) and its comments,
    which change no machine code, are not part of them."""
    with open(path, encoding="utf-8") as f:
        namespace = {}
        exec(compile(f.read(), path, "exec"), namespace)
    return repr(sorted((name, value) for name, value in namespace.items()
                       if name.isupper() and name != "GATES")).encode()


def _sources_digest(here=None) -> str:
    """A digest of the kernels' sources: every ``.py`` file of this package (``here``) but
    ``_warm.py`` (the compile machinery, no kernels: it changes no machine code), and the
    values of the gates they read (~1 ms, once, at the first kernel's import)."""
    here = here or os.path.dirname(os.path.abspath(__file__))
    files = []
    for dirpath, dirnames, filenames in os.walk(here):
        dirnames.sort()
        files += [os.path.join(dirpath, f) for f in sorted(filenames)
                  if f.endswith(".py") and not (dirpath == here and f == "_warm.py")]
    h = hashlib.sha1()
    h.update(_gate_values(os.path.join(here, os.pardir, "_engines", "gates.py")))
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

    A read-only ``NUMBA_CACHE_DIR`` (a prebuilt cache shared by workers, see
    docs/reliability.md) is read through links: the first writable directory of the list
    gets a link to each of its files it does not have yet, and new compiles are written
    there (Numba replaces a link when it rewrites an index, never the file behind it).
    """
    exact = os.environ.get("FLEXARRAY_KERNEL_CACHE_DIR")
    if exact:       # the directory of the process that started this one (_warm.py)
        numba.config.CACHE_DIR = exact
        return
    key = cache_key()
    env = os.environ.get("NUMBA_CACHE_DIR")
    user = [os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "flexarray", "numba"),
            os.path.join(tempfile.gettempdir(), f"flexarray-numba-{getattr(os, 'getuid', str)()}")]
    shared = None
    if env:
        path = os.path.join(env, key)
        if os.path.isdir(path) and not os.access(path, os.W_OK):
            shared = path
        else:
            user = [env] + user     # (the user's directories if it cannot be written)
    for base in user:
        path = os.path.join(base, key)
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            if shared is not None:
                _link_files(shared, path)
            numba.config.CACHE_DIR = path
            return
    # nothing writable: Numba's own choice (next to the sources) or its clear error


def _link_files(src, dst):
    """A link in ``dst`` to each file under ``src`` that ``dst`` does not have (Numba keeps
    a kernel's files under the path of its source directory), directories made."""
    try:
        for dirpath, _, filenames in os.walk(src):
            d = os.path.join(dst, os.path.relpath(dirpath, src))
            os.makedirs(d, exist_ok=True)
            have = set(os.listdir(d))
            for name in filenames:
                if name not in have:
                    try:
                        os.symlink(os.path.join(dirpath, name), os.path.join(d, name))
                    except FileExistsError:     # another process linked it meanwhile
                        pass
    except OSError:
        pass


_choose_cache_dir()


def cache_dir() -> str:
    """The directory of the kernels' disk cache (``numba.config.CACHE_DIR``)."""
    return numba.config.CACHE_DIR

# Threads: kernels are serial and ``nogil``; callers split work across Python worker
# threads (``flexarray._threads.run_split``, ``_engines/nn/par.py``). Measured on this
# 2-core machine: ``parallel=True`` (prange) kernels waited 10-20 ms per call at their
# barriers whenever another process held a core, and compiled 2-3x longer; worker threads
# that take pieces in turn degrade gracefully instead.
_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", fastmath=False)

#: every ``@kernel`` dispatcher, in definition order (``python -m flexarray warm`` reports
#: the ones a warm-up left uncompiled)
KERNELS = []


def kernel(*args, **kwargs):
    """``@kernel``: a serial Numba kernel, cached on disk, GIL released, strict IEEE."""
    opts = {**_OPTIONS, **kwargs}

    def make(f):
        d = numba.njit(**opts)(f)
        KERNELS.append(d)
        return d

    if args and callable(args[0]):
        return make(args[0])
    if args:
        return numba.njit(*args, **opts)
    return make


def _listen():
    """A kernel of a family without stand-ins compiling here asks for the rest of its family
    in the background (``_warm.FAMILIES``); registering the listener starts nothing."""
    from flexarray._kernels import _warm
    _warm.listen()


_listen()

# (dispatcher, key) pairs whose specialization is in memory: ``ready``'s fast path
_READY = set()


def ready(disp, key, *args) -> bool:
    """Whether calling ``disp(*args)`` runs without a compile on this thread: compiled in
    this process already, or in the disk cache (then loaded now, ~3 ms).

    ``key`` is a hashable the caller derives cheaply from the arguments (a dtype, a mode)
    that determines their Numba types: after the first True, ``ready`` costs one set
    lookup (~0.1 us). When the specialization is neither compiled nor cached, a background
    process is asked to compile it (``flexarray._kernels._warm``) and ``ready`` returns
    False: the caller computes the same bits another way (its stand-in) meanwhile. With
    background compiles off (``FLEXARRAY_BACKGROUND_COMPILE=0``, and by default under
    pytest) it returns True and the call compiles as usual.
    """
    if (disp, key) in _READY:
        return True
    from flexarray._kernels import _warm
    if _warm.available(disp, args):
        _READY.add((disp, key))
        return True
    return False

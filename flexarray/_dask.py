"""flexarray arrays as Dask chunks: registration with Dask (see docs/scaling.md).

Dask wraps any NumPy-like array as chunks (``da.from_array(x, chunks=...)`` with a
flexarray array gives a Dask array of flexarray chunks); what it needs to be told is that
flexarray sits *below* it in NEP 13's type hierarchy, so that ``dask_array + flexarray_array``
and ``np.concatenate([dask_array, flexarray_array])`` are Dask's to handle
(``dask.array.register_chunk_type``), plus the few per-type lookups Dask has no generic
path for (``percentile``, ``sizeof`` for its memory accounting), and ``da.unique``'s
``return_*`` options for flexarray chunks (:func:`_wrap_unique`).

When: :func:`install` runs at ``import flexarray``. If ``dask.array`` is already imported it
registers at once; otherwise a one-shot import hook registers right after ``dask.array``
is first imported. Dask is never imported by flexarray itself (import time stays
unchanged without Dask). :func:`register` may also be called directly; it is idempotent.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import warnings

_registered = False


def register() -> None:
    """Register :class:`flexarray.Array` with Dask (imports ``dask.array``)."""
    global _registered
    if _registered:
        return
    import dask.array as da
    from dask.array.dispatch import percentile_lookup
    from dask.sizeof import sizeof

    from ._array import Array
    import numpy as np

    da.register_chunk_type(Array)
    percentile_lookup.register(Array, percentile_lookup.dispatch(np.ndarray))
    sizeof.register(Array, lambda x: int(x.nbytes) + 64)
    _wrap_unique(da)
    _registered = True


def _wrap_unique(da) -> None:
    """``da.unique(x, return_index=/return_inverse=/return_counts=True)`` for flexarray
    chunks. Dask computes those options with NumPy structured arrays and, for chunk types
    that refuse them (``np.empty_like(chunk, dtype=<structured>)`` raises TypeError, as for
    CuPy; flexarray keeps that refusal so that Dask's ``argmax`` keeps flexarray chunks),
    raises ValueError. For flexarray chunks the wrapper runs Dask's own ``unique`` on the
    chunks' NumPy views (``np.asarray``: no copy) and turns each result's chunks back into
    flexarray arrays. Every other call is Dask's ``unique`` unchanged."""
    import functools

    import numpy as np
    from dask.array import routines
    from dask.array.utils import meta_from_array

    from ._array import Array, wrap

    original = routines.unique
    if getattr(original, "_flexarray", False):
        return

    @functools.wraps(original)
    def unique(ar, return_index=False, return_inverse=False, return_counts=False):
        if not (return_index or return_inverse or return_counts) or not isinstance(
                getattr(ar, "_meta", None), Array):
            return original(ar, return_index=return_index, return_inverse=return_inverse,
                            return_counts=return_counts)
        nd = ar.map_blocks(np.asarray, meta=meta_from_array(ar._meta._arr))
        out = original(nd, return_index=return_index, return_inverse=return_inverse,
                       return_counts=return_counts)
        return tuple(o.map_blocks(wrap, meta=wrap(meta_from_array(o._meta))) for o in out)

    unique._flexarray = True
    routines.unique = unique
    if da.unique is original:
        da.unique = unique


class _AfterDaskArrayImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself; when ``dask.array`` is imported, lets the other finders find
    it and has :func:`register` run right after its module body. Removes itself."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "dask.array":
            return None
        _remove_hook()
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            try:
                register()
            except Exception as e:  # an incompatible Dask must not break its own import
                warnings.warn(f"flexarray could not register with dask.array: {e!r}",
                              RuntimeWarning, stacklevel=2)
        spec.loader.exec_module = exec_then_register
        return spec


_HOOK = _AfterDaskArrayImport()


def _remove_hook() -> None:
    if _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)


def install() -> None:
    """Register now if ``dask.array`` is imported, else when it is."""
    if "dask.array" in sys.modules:
        register()
    elif _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)

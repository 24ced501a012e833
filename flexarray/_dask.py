"""flexarray arrays as Dask chunks: registration with Dask (see docs/scaling.md).

Dask wraps any NumPy-like array as chunks (``da.from_array(x, chunks=...)`` with a
flexarray array gives a Dask array of flexarray chunks); what it needs to be told is that
flexarray sits *below* it in NEP 13's type hierarchy, so that ``dask_array + flexarray_array``
and ``np.concatenate([dask_array, flexarray_array])`` are Dask's to handle
(``dask.array.register_chunk_type``), plus the few per-type lookups Dask has no generic
path for (``percentile``, ``sizeof`` for its memory accounting).

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
    _registered = True


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

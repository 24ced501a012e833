"""NumPy's ``numpy.lib`` path for what array-API consumers look up there (an extension
beyond the standard): ``flexarray.lib.stride_tricks.sliding_window_view``, which xarray's
``rolling`` calls as ``xp.lib.stride_tricks.sliding_window_view``."""
from . import stride_tricks

__all__ = ["stride_tricks"]

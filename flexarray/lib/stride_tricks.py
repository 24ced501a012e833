"""``sliding_window_view`` under NumPy's path (see flexarray/_extensions.py)."""
from .._extensions import sliding_window_view

__all__ = ["sliding_window_view"]

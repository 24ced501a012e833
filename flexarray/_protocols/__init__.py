"""Python's operators and NumPy's protocols on :class:`~flexarray._array.Array`, one
module per protocol: Python operators (:mod:`.operators`), NumPy's ufunc and function
protocols (:mod:`.numpy_protocols`), NumPy's ndarray methods (:mod:`.ndarray_methods`).

This package sits above the chapter modules: it binds their functions to the array.
"""
from . import ndarray_methods, numpy_protocols, operators

__all__ = ["install"]


def install(namespace, numpy_named=()) -> None:
    """Install every protocol on the array (``namespace``: the complete flexarray namespace,
    for NEP 18's function table; ``numpy_named``: its NumPy-named extensions)."""
    operators.install()
    numpy_protocols.install(namespace, numpy_named)
    ndarray_methods.install()

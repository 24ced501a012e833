"""flexarray: a Python Array API standard (2025.12) namespace.

Arrays are strided views over shared buffers: views share their elements with their base
as NumPy's do, copies are O(1) copy-on-write (see docs/value-model.md).

    import flexarray as xp
"""
import math as _math

from ._version import __version__
from ._array import API_VERSION as __array_api_version__
from ._array import Array
from ._device import Device
from ._dtypes import (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                      float16, bfloat16, float32, float64, complex64, complex128)
from ._creation import *  # noqa: F401,F403 (each chapter module defines __all__)
from ._data_types import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._linear_algebra import *  # noqa: F401,F403
from ._manipulation import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._searching import *  # noqa: F401,F403
from ._sorting import *  # noqa: F401,F403
from ._sets import *  # noqa: F401,F403
from ._statistical import *  # noqa: F401,F403
from ._utility import *  # noqa: F401,F403
from ._info import __array_namespace_info__
from ._extensions import *  # noqa: F401,F403 (NumPy-named extensions beyond the standard)
from . import (_creation, _data_types, _elementwise, _linear_algebra, _manipulation,
               _indexing, _searching, _sorting, _sets, _statistical, _utility, _extensions)
from . import _operators, fft, linalg, nn
from . import lib  # extension: NumPy's lib.stride_tricks.sliding_window_view path

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

_operators.install()
from . import _dask
_dask.install()  # registers flexarray.Array as a Dask chunk type when dask.array is imported

__all__ = (
    ["__array_api_version__", "__array_namespace_info__", "Array", "Device",
     "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
     "e", "inf", "nan", "pi", "newaxis"]
    + _creation.__all__ + _data_types.__all__ + _elementwise.__all__
    + _linear_algebra.__all__ + _manipulation.__all__ + _indexing.__all__
    + _searching.__all__ + _sorting.__all__ + _sets.__all__ + _statistical.__all__
    + _utility.__all__ + ["fft", "linalg", "nn"]
    # --- extensions beyond the standard, with NumPy's names and signatures
    # (flexarray/_extensions.py): nansum, nanprod, nanmax, nanmin, nanargmax, nanargmin,
    # nanmean, nanvar, nanstd, nancumsum, nancumprod, einsum; NumPy names xarray calls on
    # the namespace: cumsum, cumprod, transpose, pad, median, quantile, lib (its
    # stride_tricks.sliding_window_view)
    + _extensions.__all__ + ["lib"]
)

"""flexarray: a Python Array API standard (2025.12) namespace.

Arrays are strided views over shared buffers: views share their elements with their base
as NumPy's do, copies are O(1) copy-on-write (see docs/value-model.md).

    import flexarray as xp

This module only assembles the namespace: one block of imports per chapter of the
standard, by name, each followed by the chapter's ``__all__`` (the names are written in the
chapter's ``__all__`` and here; tests/test_namespace.py checks the two agree).
"""
import math as _math
import sys as _sys

from ._version import __version__
from ._array import API_VERSION as __array_api_version__
from ._array import Array
from ._device import Device
from ._info import __array_namespace_info__

__all__ = ["__array_api_version__", "__array_namespace_info__", "__version__", "Array", "Device"]

# constants
e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None
__all__ += ["e", "inf", "nan", "pi", "newaxis"]

# data types (NumPy dtype objects; float16 and bfloat16 are storage extensions)
from ._dtypes import (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,  # noqa: E402
                      float16, bfloat16, float32, float64, complex64, complex128)
__all__ += _dtypes.__all__
# creation functions; diag and logspace: extensions with NumPy's names and signatures
from ._creation import (arange, asarray, diag, empty, empty_like, eye, from_dlpack, full,  # noqa: E402
                        full_like, linspace, logspace, meshgrid, ones, ones_like, tril, triu,
                        zeros, zeros_like)
__all__ += _creation.__all__
# data type functions
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type  # noqa: E402
__all__ += _data_type_functions.__all__
# element-wise functions
from ._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitwise_and,  # noqa: E402
                           bitwise_invert, bitwise_left_shift, bitwise_or, bitwise_right_shift,
                           bitwise_xor, ceil, clip, conj, copysign, cos, cosh, divide, equal,
                           exp, expm1, floor, floor_divide, greater, greater_equal, hypot,
                           imag, isfinite, isinf, isnan, less, less_equal, log, log10, log1p,
                           log2, logaddexp, logical_and, logical_not, logical_or, logical_xor,
                           maximum, minimum, multiply, negative, nextafter, not_equal,
                           positive, pow, real, reciprocal, remainder, round, sign, signbit,
                           sin, sinh, sqrt, square, subtract, tan, tanh, trunc)
__all__ += _elementwise.__all__
# indexing functions
from ._indexing import take, take_along_axis  # noqa: E402
__all__ += _indexing.__all__
# linear algebra functions
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot  # noqa: E402
__all__ += _linear_algebra.__all__
# manipulation functions
from ._manipulation import (broadcast_arrays, broadcast_shapes, broadcast_to, concat,  # noqa: E402
                            expand_dims, flip, moveaxis, permute_dims, repeat, reshape, roll,
                            squeeze, stack, tile, unstack)
__all__ += _manipulation.__all__
# searching functions
from ._searching import argmax, argmin, count_nonzero, nonzero, searchsorted, where  # noqa: E402
__all__ += _searching.__all__
# set functions
from ._sets import isin, unique_all, unique_counts, unique_inverse, unique_values  # noqa: E402
__all__ += _sets.__all__
# sorting functions
from ._sorting import argsort, sort  # noqa: E402
__all__ += _sorting.__all__
# statistical functions
from ._statistical import (cumulative_prod, cumulative_sum, max, mean, min, prod, std,  # noqa: E402
                           sum, var)
__all__ += _statistical.__all__
# utility functions
from ._utility import all, any, diff  # noqa: E402
__all__ += _utility.__all__
# extensions beyond the standard, with NumPy's names and signatures (for chunked and
# labelled code: Dask, cubed, xarray; docs/numpy-interop.md)
from ._extensions import (cross, cumprod, cumsum, einsum, gradient, median, nanargmax,  # noqa: E402
                          nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin, nanprod,
                          nanstd, nansum, nanvar, pad, quantile, transpose)
__all__ += _extensions.__all__
# extension modules: the standard's linalg and fft, flexarray.nn, NumPy's lib path
# (sliding_window_view, for xarray's rolling), SciPy's special functions (SciPy calls them)
from . import fft, linalg, nn, lib, special  # noqa: E402
__all__ += ["fft", "linalg", "nn", "lib", "special"]

# operators and NumPy's protocols on Array
from . import _dask, _protocols  # noqa: E402
_protocols.install(_sys.modules[__name__], numpy_named=_extensions.__all__)
_dask.install()  # a Dask chunk type once dask.array is imported (docs/scaling.md)

"""flexarray: a Python Array API standard (2025.12) namespace.

Arrays are strided views over shared buffers: views share their elements with their base
as NumPy's do, copies are O(1) copy-on-write (see docs/value-model.md).

    import flexarray as xp

This module only assembles the namespace: one block of imports per chapter of the
standard, by name, and ``__all__`` with the same names (docs/architecture.md: the layers).
"""
import math as _math
import sys as _sys

from ._version import __version__
from ._array import API_VERSION as __array_api_version__
from ._array import Array
from ._device import Device
from ._info import __array_namespace_info__
# data types (NumPy dtype objects; float16 and bfloat16 are storage extensions)
from ._dtypes import (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                      float16, bfloat16, float32, float64, complex64, complex128)
# creation functions
from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like,
                        linspace, meshgrid, ones, ones_like, tril, triu, zeros, zeros_like)
# extensions beyond the standard, with NumPy's names and signatures
from ._creation import diag, logspace
# data type functions
from ._data_types import astype, can_cast, finfo, iinfo, isdtype, result_type
# element-wise functions
from ._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitwise_and,
                           bitwise_invert, bitwise_left_shift, bitwise_or, bitwise_right_shift,
                           bitwise_xor, ceil, clip, conj, copysign, cos, cosh, divide, equal,
                           exp, expm1, floor, floor_divide, greater, greater_equal, hypot,
                           imag, isfinite, isinf, isnan, less, less_equal, log, log10, log1p,
                           log2, logaddexp, logical_and, logical_not, logical_or, logical_xor,
                           maximum, minimum, multiply, negative, nextafter, not_equal,
                           positive, pow, real, reciprocal, remainder, round, sign, signbit,
                           sin, sinh, sqrt, square, subtract, tan, tanh, trunc)
# indexing functions
from ._indexing import take, take_along_axis
# linear algebra functions
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot
# manipulation functions
from ._manipulation import (broadcast_arrays, broadcast_shapes, broadcast_to, concat,
                            expand_dims, flip, moveaxis, permute_dims, repeat, reshape, roll,
                            squeeze, stack, tile, unstack)
# searching functions
from ._searching import argmax, argmin, count_nonzero, nonzero, searchsorted, where
# set functions
from ._sets import isin, unique_all, unique_counts, unique_inverse, unique_values
# sorting functions
from ._sorting import argsort, sort
# statistical functions
from ._statistical import cumulative_prod, cumulative_sum, max, mean, min, prod, std, sum, var
# utility functions
from ._utility import all, any, diff
# extensions beyond the standard, with NumPy's names and signatures (for chunked and
# labelled code: Dask, cubed, xarray; docs/numpy-interop.md)
from ._extensions import (cross, cumprod, cumsum, einsum, gradient, median, nanargmax,
                          nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin, nanprod,
                          nanstd, nansum, nanvar, pad, quantile, transpose)
# the standard's extensions, and flexarray's own
from . import fft, linalg, nn
from . import lib  # NumPy's lib.stride_tricks.sliding_window_view path (xarray's rolling)
from . import _dask, _extensions, _protocols

# constants
e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

# operators and NumPy's protocols on Array
_protocols.install(_sys.modules[__name__], numpy_named=_extensions.__all__)
_dask.install()  # a Dask chunk type once dask.array is imported (docs/scaling.md)

__all__ = [
    "__array_api_version__", "__array_namespace_info__", "__version__", "Array", "Device",
    # constants
    "e", "inf", "nan", "pi", "newaxis",
    # data types
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    # creation functions
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # extensions beyond the standard (NumPy's names)
    "diag", "logspace",
    # data type functions
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # element-wise functions
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal",
    "exp", "expm1", "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag",
    "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log10", "log1p", "log2",
    "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum",
    "minimum", "multiply", "negative", "nextafter", "not_equal", "positive", "pow", "real",
    "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square",
    "subtract", "tan", "tanh", "trunc",
    # indexing functions
    "take", "take_along_axis",
    # linear algebra functions
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation functions
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack",
    # searching functions
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    # set functions
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # sorting functions
    "argsort", "sort",
    # statistical functions
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    # utility functions
    "all", "any", "diff",
    # extensions beyond the standard, with NumPy's names and signatures
    "cross", "cumprod", "cumsum", "einsum", "gradient", "median", "nanargmax", "nanargmin",
    "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum",
    "nanvar", "pad", "quantile", "transpose",
    # extension modules: the standard's linalg and fft, flexarray.nn, NumPy's lib path
    "fft", "linalg", "nn", "lib",
]

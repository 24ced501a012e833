"""The inspection namespace: ``__array_namespace_info__()``."""
from . import _dtypes as _dt
from ._device import CPU, check_device

__all__ = ["__array_namespace_info__"]

_KINDS = {
    "bool": ("bool",), "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"), "complex floating": ("complex64", "complex128"),
}
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class _Devices(tuple):
    """The devices: a tuple, as the 2025.12 standard says (2024.12 said a list), that also
    concatenates with lists, as code written for the list does (SciPy's test
    configuration: ``devices() + [None]``)."""

    __slots__ = ()

    def __add__(self, other):
        if isinstance(other, list):
            return list(self) + other
        return _Devices(tuple.__add__(self, other))

    def __radd__(self, other):
        if isinstance(other, list):
            return other + list(self)
        return _Devices(tuple(other) + tuple(self))


class Info:
    """What this namespace supports: capabilities, devices and dtypes."""

    __module__ = "flexarray"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        return CPU

    def devices(self):
        return _Devices((CPU,))

    def default_dtypes(self, *, device=None):
        check_device(device, "default_dtypes")
        return {"real floating": _dt.default_float, "complex floating": _dt.default_complex,
                "integral": _dt.default_int, "indexing": _dt.default_index}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes of ``kind`` (float16/bfloat16 are storage extensions)."""
        check_device(device, "dtypes")
        if kind is None:
            names = ("bool",) + _KINDS["numeric"]
        elif isinstance(kind, tuple):
            names = tuple(dict.fromkeys(n for k in kind for n in self._names(k)))
        else:
            names = self._names(kind)
        return {n: _dt._BY_NAME[n] for n in names}

    @staticmethod
    def _names(kind):
        names = _KINDS.get(kind) if type(kind) is str else None
        if names is not None:
            return names
        allowed = f"one of {', '.join(map(repr, _KINDS))}, a dtype, or a tuple of those"
        if type(kind) is str:
            try:  # a dtype's name or another spelling np.dtype() takes ("float32", "f4")
                return (_dt.normalize(kind, "dtypes", "kind", allow_none=False).name,)
            except TypeError:
                raise ValueError(f"dtypes: 'kind' {kind!r} is not a kind; allowed: "
                                 f"{allowed}") from None
        return (_dt.normalize(kind, "dtypes", "kind", allow_none=False,
                              what=f"{allowed} (or None)").name,)


def __array_namespace_info__():
    return Info()

"""pytest plugin: flexarray as one more array-API backend of scikit-learn's own tests.

scikit-learn parametrizes its array-API tests with
``sklearn.utils._array_api.yield_namespace_device_dtype_combinations()``, which asks
``yield_namespaces()`` for the namespace names; this plugin appends ``"flexarray"`` to that
list, with float64 and float32 as array_api_strict gets them, before the test modules are
collected (no copy of scikit-learn's code). The tests then import ``flexarray`` by name,
exactly as they import ``array_api_strict``.

Load it with ``-p flexarray_peers`` and ``conformance/peers`` on PYTHONPATH (see ``run``).
"""
import os


def pytest_configure(config):
    os.environ.setdefault("SCIPY_ARRAY_API", "1")
    try:
        from sklearn.utils import _array_api
    except ImportError:  # pragma: no cover - scikit-learn not installed
        return
    original = _array_api.yield_namespaces

    def yield_namespaces(include_numpy_namespaces=True):
        yield from original(include_numpy_namespaces=include_numpy_namespaces)
        yield "flexarray"

    _array_api.yield_namespaces = yield_namespaces
    combinations = _array_api.yield_namespace_device_dtype_combinations

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        """flexarray with both float dtypes, as array_api_strict and torch are tested."""
        for ns, device, dtype in combinations(include_numpy_namespaces):
            if ns == "flexarray":
                yield ns, None, "float64"
                yield ns, None, "float32"
            else:
                yield ns, device, dtype

    _array_api.yield_namespace_device_dtype_combinations = \
        yield_namespace_device_dtype_combinations


# --- xarray: tests/test_duck_array_wrapping.py -----------------------------------------------
#
# That module parametrizes its test classes with its module-level NAMESPACES list (cupy,
# dask.array, jax.numpy, pint, sparse; each with an entry in NAMESPACE_ARRAYS giving the
# array class, the constructor and its expected failures). Just before pytest collects the
# module, this hook imports it and adds flexarray to both (pytest then finds the module in
# sys.modules and collects the same objects; the parametrize marks hold the same list).

#: xarray tests flexarray is expected to fail, with the reason (none so far)
XARRAY_XFAILS = {}


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name != "test_duck_array_wrapping.py" or "xarray" not in module_path.parts:
        return None
    import importlib

    import pytest
    mod = importlib.import_module("xarray.tests.test_duck_array_wrapping")
    if "flexarray" not in mod.NAMESPACE_ARRAYS:
        mod.NAMESPACE_ARRAYS["flexarray"] = {
            "attrs": {"array": "Array", "constructor": "asarray"},
            "xfails": dict(XARRAY_XFAILS),
        }
        mod.NAMESPACES.append(pytest.param("flexarray"))
    return None

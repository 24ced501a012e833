"""pytest plugin: flexarray as one more array-API backend of scikit-learn's and SciPy's own tests.

Nothing of either project's code is copied; the plugin only extends their backend lists,
before their test modules are collected, so that their tests import and run ``flexarray``
exactly as they run ``array_api_strict``.

- scikit-learn parametrizes its array-API tests with
  ``sklearn.utils._array_api.yield_namespace_device_dtype_combinations()``, which asks
  ``yield_namespaces()`` for the namespace names: ``"flexarray"`` is appended, with float64 and
  float32 as array_api_strict gets them.
- SciPy's ``scipy/conftest.py`` builds its ``xp`` fixture from ``xp_available_backends`` and
  checks ``skip_xp_backends``/``xfail_xp_backends`` markers against ``xp_known_backends``:
  when that conftest is registered, ``flexarray`` joins both and the ``xp`` fixture is
  redefined with the longer parameter list (same function, same marks). A SciPy marker that
  names ``array_api_strict`` alone does not apply to flexarray: those tests run for flexarray.
  Two exceptions: a test that SciPy skips by name for every eager backend (numpy, cupy,
  torch and array_api_strict, "lazy backends only") is for JAX and Dask; flexarray is eager,
  so it is skipped for flexarray too, with that reason. And a test that SciPy expects to
  fail on array_api_strict (``xfail_xp_backends("array_api_strict", reason=...)``: a rule of
  the standard that both follow, such as ``exp`` refusing integers) is expected to fail for
  flexarray too, non-strictly, with SciPy's reason: it counts as XPASS if it passes.

Load it with ``-p flexarray_peers`` and ``conformance/peers`` on PYTHONPATH (see ``run``).
"""
import dataclasses
import os

import pytest

os.environ.setdefault("SCIPY_ARRAY_API", "1")


def pytest_configure(config):
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


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin, manager):
    """Add flexarray to SciPy's backends when ``scipy/conftest.py`` is registered.

    ``tryfirst``: this runs before pytest's fixture manager reads the conftest's fixtures,
    so the redefined ``xp`` fixture is the one the tests get.
    """
    if getattr(plugin, "__name__", None) != "scipy.conftest":
        return
    if "flexarray" in plugin.xp_known_backends:
        return
    import flexarray
    from _pytest.fixtures import FixtureFunctionDefinition

    plugin.xp_known_backends.add("flexarray")
    plugin.xp_available_backends.append(
        pytest.param(flexarray, id="flexarray", marks=pytest.mark.array_api_backends))
    old = plugin.xp
    marker = dataclasses.replace(old._fixture_function_marker,
                                 params=tuple(plugin.xp_available_backends))
    plugin.xp = FixtureFunctionDefinition(function=old._get_wrapped_function(),
                                          fixture_function_marker=marker, _ispytest=True)


_EAGER = {"numpy", "array_api_strict", "torch", "cupy"}


def pytest_collection_modifyitems(config, items):
    """For flexarray: skip SciPy's tests of lazy backends only; expect to fail what SciPy
    expects to fail on array_api_strict (see the module docs)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or getattr(callspec.params.get("xp"), "__name__", "") != "flexarray":
            continue
        named = {m.args[0] for m in item.iter_markers("skip_xp_backends") if m.args}
        if _EAGER <= named:
            item.add_marker(pytest.mark.skip(
                reason="SciPy runs it on lazy backends only (skips every eager backend); "
                       "flexarray is eager"))
        for m in item.iter_markers("xfail_xp_backends"):
            if m.args and m.args[0] == "array_api_strict":
                reason = m.kwargs.get("reason") or "expected to fail on array_api_strict"
                item.add_marker(pytest.mark.xfail(
                    reason=f"as on array_api_strict: {reason}", strict=False))
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

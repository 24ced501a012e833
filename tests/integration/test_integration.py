"""flexarray as a drop-in namespace for scikit-learn and SciPy (array API dispatch)."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("scipy")


def test_sklearn_and_scipy_accept_flexarray_arrays():
    script = os.path.join(os.path.dirname(__file__), "sklearn_scipy_check.py")
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all ok" in r.stdout


def test_array_api_compat_finds_the_namespace():
    compat = pytest.importorskip("array_api_compat")
    import flexarray as xp
    x = xp.ones(3)
    assert compat.array_namespace(x) is xp
    assert compat.is_array_api_obj(x)

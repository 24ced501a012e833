"""flexarray as cubed's backend namespace (``CUBED_BACKEND_ARRAY_API_MODULE=flexarray``;
docs/scaling.md). cubed reads that variable when it is first imported, so the check runs
in a fresh interpreter: cubed's chunk functions then run on flexarray arrays, and the
results must equal NumPy's. Skipped without cubed. (cubed's own suite with this backend:
``conformance/peers/run cubed``.)"""
import os
import subprocess
import sys

import pytest

pytest.importorskip("cubed", reason="cubed is not installed (pip install flexarray[cubed])")

SCRIPT = r"""
import numpy as np, cubed, cubed.array_api as cxp
from cubed.backend_array_api import namespace
import flexarray
assert namespace is flexarray, namespace
spec = cubed.Spec(work_dir=WORK, allowed_mem="200MB")
rng = np.random.default_rng(0)
a = rng.random((30, 40)); b = rng.random((40, 20))
x = cubed.from_array(a, chunks=(8, 10), spec=spec)
y = cubed.from_array(b, chunks=(10, 10), spec=spec)
seen = []
def record(blk):
    seen.append(type(blk).__module__)
    return blk
checks = {
    "add": (lambda: x + 1.5, a + 1.5),
    "sum": (lambda: cxp.sum(x, axis=0), a.sum(axis=0)),
    "mean": (lambda: cxp.mean(x), a.mean()),
    "var": (lambda: cxp.var(x, axis=1), a.var(axis=1)),
    "std-corr": (lambda: cxp.std(x, axis=0, correction=1), a.std(axis=0, ddof=1)),
    "max": (lambda: cxp.max(x, axis=1), a.max(axis=1)),
    "argmax": (lambda: cxp.argmax(x, axis=0), a.argmax(axis=0)),
    "matmul": (lambda: x @ y, a @ b),
    "rechunk": (lambda: x.rechunk((15, 20)), a),
    "slice": (lambda: x[3:25:2, ::3], a[3:25:2, ::3]),
    "exp": (lambda: cxp.exp(x), np.exp(a)),
    "map_blocks": (lambda: cubed.map_blocks(record, x, dtype=x.dtype), a),
    "nanmean": (lambda: cubed.nanmean(x, axis=0), np.nanmean(a, axis=0)),
}
for name, (f, expected) in checks.items():
    got = f().compute()
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12, err_msg=name)
assert seen and set(seen) == {"flexarray._array"}, set(seen)
print("ok", len(checks))
"""


def test_cubed_with_flexarray_backend(tmp_path):
    env = dict(os.environ, CUBED_BACKEND_ARRAY_API_MODULE="flexarray",
               PYTHONPATH=os.pathsep.join(sys.path))
    code = SCRIPT.replace("WORK", repr(str(tmp_path)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["ok", "13"]

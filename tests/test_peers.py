"""The peers' own array-API tests, a fast subset: scikit-learn's preprocessing and metrics,
SciPy's special and fft, each with flexarray added to its backend list
(``conformance/peers/``). The whole suites are a separate command (conformance/peers/run
sklearn | scipy); docs/peers.md has their results."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("scipy")

RUN = pathlib.Path(__file__).resolve().parent.parent / "conformance" / "peers" / "run"


def test_peer_suites_fast_subset_pass_with_flexarray():
    env = {**os.environ, "WORKERS": "0", "PATH": os.path.dirname(sys.executable) + os.pathsep
           + os.environ.get("PATH", "")}
    proc = subprocess.run(["bash", str(RUN), "ci", "-k", "flexarray"],
                          capture_output=True, text=True, env=env, timeout=1500)
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", summary), summary
    assert not re.search(r"\d+ (failed|errors?)\b", summary), summary

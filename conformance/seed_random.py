"""pytest plugin for conformance runs: reproducible and fast.

* Seeds Python's ``random`` per test from the test id (test_special_cases.py draws its
  inputs with the unseeded module-level ``random``).
* Turns off Hypothesis shrinking unless CONFORMANCE_SHRINK=1 (shrinking a failure can take
  minutes per test; the failing example is still reported).
"""
import os
import random
import zlib

import pytest
from hypothesis import Phase, settings


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    if os.environ.get("CONFORMANCE_SHRINK") == "1":
        return
    current = settings()  # the array-api-tests profile, loaded by its conftest
    settings.register_profile("flexarray-conformance", parent=current,
                              phases=[p for p in current.phases if p is not Phase.shrink])
    settings.load_profile("flexarray-conformance")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    random.seed(zlib.crc32(item.nodeid.encode()))

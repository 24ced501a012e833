"""A pytest plugin for tests/integration/test_peers.py: writes each test's outcome (passed, failed,
skipped, xfailed, xpassed) and file to the JSON file named by ``FLEXARRAY_PEER_OUTCOMES``,
so the peers' run can be counted per package and its unexpected passes listed (pytest's
summary and junit XML report a non-strict xpass without its name, or as a plain pass)."""
import json
import os

import pytest

_outcomes = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    report.user_properties.append(("path", str(item.path)))


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if hasattr(report, "wasxfail"):
            outcome = "xpassed" if report.outcome == "passed" else "xfailed"
        else:
            outcome = report.outcome
        if report.when == "call" or report.nodeid not in _outcomes:
            path = dict(report.user_properties).get("path", "")
            _outcomes[report.nodeid] = {"outcome": outcome, "path": path}


def pytest_sessionfinish(session):
    path = os.environ.get("FLEXARRAY_PEER_OUTCOMES")
    if path and not hasattr(session.config, "workerinput"):  # (xdist: the controller writes)
        with open(path, "w") as f:
            json.dump(_outcomes, f)

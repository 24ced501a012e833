"""Hypothesis settings for the project's own property tests, and the longest test files
collected first.

A run on a developer's machine draws new examples every time (that is how the random
programs of tests/test_value_model.py keep finding layouts NumPy treats differently). CI
(``CI`` set, as ``.ci/run`` runs) derandomizes them: the examples then depend only on the
code, so a submission's run cannot fail on an example no earlier run drew."""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


#: the longest test files (the peers' suites: 190-270 s in one test), collected first so
#: that under ``pytest -n 2`` one worker starts them at once while the other takes the rest,
#: instead of their running alone at the end of the run
FIRST = ("test_peers.py",)


def pytest_collection_modifyitems(session, config, items):
    first = [item for item in items if item.path.name in FIRST]
    if first:
        items[:] = first + [item for item in items if item.path.name not in FIRST]

"""Hypothesis settings for the project's own property tests.

A run on a developer's machine draws new examples every time (that is how the random
programs of tests/test_value_model.py keep finding layouts NumPy treats differently). CI
(``CI`` set, as ``.ci/run`` runs) derandomizes them: the examples then depend only on the
code, so a submission's run cannot fail on an example no earlier run drew."""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

"""An autouse fixture for tests of the lazy-copy machinery on small arrays: below
``gates.LAZY_COPY_MIN_BYTES`` a copy is real at once, so these tests lower the gate to 0
(import it into a test module to apply it there)."""
import pytest

from flexarray import _array


@pytest.fixture(autouse=True)
def lazy_small_copies(monkeypatch):
    monkeypatch.setattr(_array, "_LAZY_COPY_MIN", 0)

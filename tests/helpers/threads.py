"""Running a test's work on several threads at once; no pending spin of BLAS's threads."""
import threading

import pytest


@pytest.fixture(autouse=True)
def no_blas_spin(monkeypatch):
    """No spin of BLAS's threads pending from an earlier test's product: parallel calls
    use the pool (``flexarray._threads.blas_ran``). Autouse where imported."""
    from flexarray import _threads
    monkeypatch.setattr(_threads, "_blas_spins_until", 0.0)


def run_threads(work, n):
    """``work(k)`` for k in range(n), each on a thread of its own, all at once; fails with
    the errors any of them raised."""
    errors = []

    def guarded(k):
        try:
            work(k)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors

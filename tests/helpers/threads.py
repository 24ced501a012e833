"""Running a test's work on several threads at once."""
import threading


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

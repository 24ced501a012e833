"""Floating-point warnings off: the one home of ``np.errstate(all="ignore")``'s fast forms.

IEEE results (inf, NaN, a half that overflows to inf) are the defined behaviour of the
array functions, not an error, so their NumPy calls run with NumPy's floating-point
warnings off. ``with np.errstate(all="ignore"):`` costs ~1-2 us per call; NumPy 2 keeps
that state in a context variable, which these set directly. One stem, four forms:

- ``with fp_quiet():`` a block (~0.2 us);
- ``fp_quiet_call(func, args, out=None)``: one call of any function (~0.1 us);
- ``fp_quiet_numpy(func, *args)``: one call of a NumPy-level function, in this thread's
  quiet context (~0.05 us);
- ``fp_quiet_numpy_caller(func, nargs)``: such a call made ahead, for the fast paths of
  small elementwise calls.

"NumPy-level": a ufunc, or a function of ``_special``'s that calls NumPy only, nothing in
it calling back into flexarray. A context is entered by one thread at a time, and not
again from inside itself: hence one per thread, and NumPy-level functions only.
"""
import contextvars
import threading

import numpy as np

try:  # NumPy 2 keeps its floating-point error state in a context variable: setting it
    # directly costs ~0.1 us, where ``with np.errstate(...)`` costs ~1-2 us per call
    from numpy._core._multiarray_umath import _extobj_contextvar as _ERRSTATE
    from numpy._core._multiarray_umath import _make_extobj
    _IGNORE_ALL = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - other NumPy versions
    _ERRSTATE = None


class fp_quiet:
    """``with fp_quiet():`` is ``with np.errstate(all="ignore"):`` at ~0.2 us instead
    of ~1-1.5 us (NumPy's error state is a context variable; set and reset it directly)."""

    __slots__ = ("token",)

    def __enter__(self):
        if _ERRSTATE is None:
            self.token = np.errstate(all="ignore")
            self.token.__enter__()
        else:
            self.token = _ERRSTATE.set(_IGNORE_ALL)

    def __exit__(self, *exc):
        if _ERRSTATE is None:
            self.token.__exit__(*exc)
        else:
            _ERRSTATE.reset(self.token)


def fp_quiet_call(func, args, out=None):
    """``func(*args[, out=out])`` with floating-point warnings off, for any ``func`` (one
    that calls back into flexarray included)."""
    if _ERRSTATE is None:
        with np.errstate(all="ignore"):
            return func(*args) if out is None else func(*args, out=out)
    token = _ERRSTATE.set(_IGNORE_ALL)
    try:
        return func(*args) if out is None else func(*args, out=out)
    finally:
        _ERRSTATE.reset(token)


_contexts = threading.local()


def _quiet_context():
    """This thread's context whose NumPy error state ignores all (see the module's header)."""
    try:
        return _contexts.ctx
    except AttributeError:
        ctx = _contexts.ctx = contextvars.Context()
        ctx.run(_ERRSTATE.set, _IGNORE_ALL)
        return ctx


def fp_quiet_numpy(func, *args):
    """``func(*args)`` with floating-point warnings off, in this thread's quiet context
    (~0.05 us; :class:`fp_quiet` ~0.4 us): for a NumPy-level ``func`` only."""
    if _ERRSTATE is None:  # pragma: no cover - other NumPy versions
        return fp_quiet_call(func, args)
    try:
        return _contexts.ctx.run(func, *args)
    except AttributeError:
        return _quiet_context().run(func, *args)


def fp_quiet_numpy_caller(func, nargs, into_first=False):
    """``lambda *args: fp_quiet_numpy(func, *args)`` for ``nargs`` positional arguments of a
    NumPy-level ``func``, made ahead: ~0.05 us where setting and resetting NumPy's error
    state costs ~0.25 us (the fast paths of small elementwise calls). ``into_first``:
    ``func(x, y, out=x)``, an in-place operator."""
    if _ERRSTATE is None:  # pragma: no cover - other NumPy versions
        if into_first:
            return lambda x, y: fp_quiet_call(func, (x, y), x)
        return lambda *args: fp_quiet_call(func, args)
    if into_first:
        def run(x, y):
            try:
                return _contexts.ctx.run(func, x, y, out=x)
            except AttributeError:
                return _quiet_context().run(func, x, y, out=x)
    elif nargs == 1:
        def run(x):
            try:
                return _contexts.ctx.run(func, x)
            except AttributeError:
                return _quiet_context().run(func, x)
    else:
        def run(x, y):
            try:
                return _contexts.ctx.run(func, x, y)
            except AttributeError:
                return _quiet_context().run(func, x, y)
    return run

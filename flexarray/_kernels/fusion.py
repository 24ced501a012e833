"""Generated Numba loops for fused chains: the fusion engine's second executor.

A chain (``flexarray._engines.fusion``: its steps over registers, on flat runs of memory)
of float64/float32 arithmetic, comparisons and selections becomes the source of a module
(:func:`source`), written once into the kernels' cache directory and imported as
``flexarray._kernels.chains.c_<digest>`` (:func:`module`): a ``fill`` kernel that writes
the chain's values, and for float64 chains a ``sums`` kernel that adds them along
NumPy's pairwise summation tree (:func:`pairwise_sum`). Every step is one IEEE operation
of the eager call's dtype (no contraction to FMA: ``fastmath`` off), so each element gets
the eager call's bits. The kernels are serial and ``nogil``: the engine splits the work
over the pool's threads and asks ``flexarray._kernels.ready`` first, so a chain's first
calls run on the blocked executor while the background process compiles it.
"""
import hashlib
import importlib
import os
import threading

import numpy as np

from . import kernel
from .chains import DIR

__all__ = ["TEMPLATES", "module", "pairwise_sum", "source"]


@kernel
def _pairwise_leaf(a):
    """NumPy's ``pairwise_sum`` of ``a`` of at most 128 elements (its exact order)."""
    n = a.shape[0]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    m = n - n % 8
    for i in range(8, m, 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(m, n):
        res += a[i]
    return res


@kernel
def pairwise_sum(a, n):
    """NumPy's pairwise sum of float64 ``a[:n]`` (``np.add.reduce``'s order and bits): runs
    of more than 128 split at half their length rounded down to a multiple of 8, the
    halves' sums added; the recursion unrolled over an explicit stack."""
    if n <= 128:
        return _pairwise_leaf(a[:n])
    lo_s = np.empty(64, np.int64)
    n_s = np.empty(64, np.int64)
    d_s = np.empty(64, np.int64)
    v_s = np.empty(64, np.float64)
    vd_s = np.empty(64, np.int64)
    lo_s[0], n_s[0], d_s[0] = 0, n, 0
    nt, nv = 1, 0
    while nt:
        nt -= 1
        lo, m, d = lo_s[nt], n_s[nt], d_s[nt]
        if m > 128:
            h = m // 2
            h -= h % 8
            lo_s[nt], n_s[nt], d_s[nt] = lo + h, m - h, d + 1   # the right half, after
            lo_s[nt + 1], n_s[nt + 1], d_s[nt + 1] = lo, h, d + 1  # the left half, first
            nt += 2
        else:
            v = _pairwise_leaf(a[lo:lo + m])
            while nv and vd_s[nv - 1] == d:  # its left sibling is done: add them
                nv -= 1
                v = v_s[nv] + v
                d -= 1
            v_s[nv], vd_s[nv] = v, d
            nv += 1
    return v_s[0]


#: step name -> the expression of one element (operands {x}, {y}, {z}; ``T``: the
#: result's type)
TEMPLATES = {
    "add": "{x} + {y}", "subtract": "{x} - {y}", "multiply": "{x} * {y}",
    "divide": "{x} / {y}", "positive": "{x}", "square": "{x} * {x}",
    "sqrt": "np.sqrt({x})", "abs": "abs({x})", "reciprocal": "T(1.0) / {x}",
    "floor": "np.floor({x})", "ceil": "np.ceil({x})", "trunc": "np.trunc({x})",
    "copysign": "np.copysign({x}, {y})", "isnan": "np.isnan({x})", "isinf": "np.isinf({x})",
    "isfinite": "np.isfinite({x})", "signbit": "np.signbit({x})",
    "less": "{x} < {y}", "less_equal": "{x} <= {y}", "greater": "{x} > {y}",
    "greater_equal": "{x} >= {y}", "equal": "{x} == {y}", "not_equal": "{x} != {y}",
    "logical_and": "{x} and {y}", "logical_or": "{x} or {y}", "logical_not": "not {x}",
    "logical_xor": "{x} != {y}", "where": "{y} if {x} else {z}",
}


def _body(steps, ref, indent):
    """The loop body: one line per step, the last one's value in ``v``."""
    lines = []
    for name, refs, reg in steps:
        names = [ref(k, j) for k, j in refs]
        expr = TEMPLATES[name].format(**{v: f"({n})" for v, n in zip("xyz", names)})
        lines.append(indent + (f"v = {expr}" if reg < 0 else f"r{reg} = {expr}"))
    return "\n".join(lines)


def source(steps, operands, result_type, rows=False):
    """The module source of a chain: ``steps`` a list of ``(template name, operand refs,
    register)`` in order (register -1: the result; a ref is ``(kind, index)``, kind "r" a
    register), ``operands`` the kernel's inputs by kind: ``"a"`` an array of the result's
    shape (flat: 1-D; ``rows``: 2-D), ``"v"`` a row (1-D, broadcast along the rows),
    ``"k"`` a column (1-D, one value per row), ``"s"`` a scalar; ``result_type`` the
    NumPy name of the result's dtype.

    Flat: ``fill`` (elements ``[lo, hi)``) and, for float64, ``sums`` (each leaf of NumPy's
    summation tree added by :func:`pairwise_sum`). Rows: ``fill`` (rows ``[lo, hi)``) and
    ``sum_rows`` (the sum over the rows of columns ``[c0, c1)``, the rows added in turn
    from the first: NumPy's order for a sum over axis 0)."""
    params = ", ".join(f"{k if k == 's' else 'a'}{j}" for j, k in enumerate(operands))
    # (the loops index views from 0: an index known not to be negative lets LLVM drop
    # the wraparound test and vectorize, 3x faster than indexing from ``lo``)
    head = ['"""A fused chain\'s loops (generated by flexarray._kernels.fusion)."""',
            "import numpy as np", "from flexarray._kernels import kernel",
            "from flexarray._kernels.fusion import pairwise_sum", f"T = np.{result_type}", ""]
    cut = [j for j, k in enumerate(operands) if k in "ak"]
    if not rows:
        def ref(k, j):
            return f"p{j}[i]" if k == "a" else f"s{j}" if k == "s" else f"r{j}"
        lines = head + [
            "", "@kernel", f"def fill(out, {params}, lo, hi):", "    o = out[lo:hi]",
            *(f"    p{j} = a{j}[lo:hi]" for j in cut),
            "    for i in range(hi - lo):", _body(steps, ref, "        "), "        o[i] = v", ""]
        if result_type == "float64":
            lines += [
                "", "@kernel", f"def sums({params}, starts, sizes, parts, most, lo, hi):",
                "    buf = np.empty(most)", "    for k in range(lo, hi):",
                "        b = starts[k]", "        m = sizes[k]",
                *(f"        p{j} = a{j}[b:b + m]" for j in cut),
                "        for i in range(m):", _body(steps, ref, "            "),
                "            buf[i] = v", "        parts[k] = pairwise_sum(buf, m)", ""]
        return "\n".join(lines)

    def ref(k, j):
        return {"a": f"p{j}[i, c]", "v": f"q{j}[c]", "k": f"p{j}[i]", "s": f"s{j}",
                "r": f"r{j}"}[k]
    rows_ = [j for j, k in enumerate(operands) if k == "v"]
    full = [j for j, k in enumerate(operands) if k == "a"]
    lines = head + [
        "", "@kernel", f"def fill(out, {params}, lo, hi):", "    o = out[lo:hi]",
        *(f"    p{j} = a{j}[lo:hi]" for j in cut), *(f"    q{j} = a{j}" for j in rows_),
        "    for i in range(hi - lo):", "        for c in range(o.shape[1]):",
        _body(steps, ref, "            "), "            o[i, c] = v", "",
        "", "@kernel", f"def sum_rows(total, {params}, n, c0, c1):", "    t = total[c0:c1]",
        *(f"    p{j} = a{j}[:, c0:c1]" for j in full),
        *(f"    p{j} = a{j}" for j, k in enumerate(operands) if k == "k"),
        *(f"    q{j} = a{j}[c0:c1]" for j in rows_),
        "    for i in range(n):", "        for c in range(c1 - c0):",
        _body(steps, ref, "            "),
        "            if i == 0:", "                t[c] = v", "            else:",
        "                t[c] += v", ""]
    return "\n".join(lines)


_modules = {}
_lock = threading.Lock()


def _fresh_lock():  # (a forked child's copy may be held by a thread it does not have)
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_lock)


def module(text):
    """The module of a chain's source ``text``: written into the cache directory once
    (atomically: other processes may write the same file), then imported (one thread at a
    time: a chain met on several threads at once is written once)."""
    digest = hashlib.sha1(text.encode()).hexdigest()[:20]
    m = _modules.get(digest)
    if m is None:
        with _lock:
            m = _modules.get(digest)
            if m is None:
                name = f"c_{digest}"
                path = os.path.join(DIR, name + ".py")
                if not os.path.exists(path):
                    os.makedirs(DIR, exist_ok=True)
                    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
                    with open(tmp, "w") as f:
                        f.write(text)
                    os.replace(tmp, path)
                m = _modules[digest] = importlib.import_module(
                    f"flexarray._kernels.chains.{name}")
    return m

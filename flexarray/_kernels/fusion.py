"""Generated Numba loops for fused chains: the fusion engine's second executor.

A chain (``flexarray._engines.fusion``: its steps over registers, on flat runs of memory)
of float64/float32 arithmetic, comparisons and selections becomes the source of a module
(:func:`source`), written once into the kernels' cache directory and imported as
``flexarray._kernels.chains.c_<digest>`` (:func:`module`): a ``fill`` kernel that writes
the chain's values, for float64 chains a ``sums`` kernel that adds them along NumPy's
pairwise summation tree (computed 128 at a time in the cache, added by
:func:`pairwise_leaf`), and an ``extrema`` kernel (the largest and smallest values of
runs). Every step is one IEEE operation of the eager call's dtype (no contraction to FMA:
``fastmath`` off), so each element gets the eager call's bits. The kernels are serial and
``nogil``: the engine splits the work over the pool's threads and asks
``flexarray._kernels.ready`` first, so a chain's first calls run on the other executors
while the background process compiles it.
"""
import hashlib
import importlib
import os
import threading

from . import kernel
from ._intrinsics import stack_array
from .chains import DIR

__all__ = ["TEMPLATES", "module", "pairwise_leaf", "source"]


@kernel
def pairwise_leaf(a):
    """NumPy's ``pairwise_sum`` of ``a`` of at most 128 elements (its exact order): eight
    lanes, lane ``j`` adding ``a[j], a[j + 8], ...`` in turn (on the stack: one vector
    register), folded ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the tail."""
    n = a.shape[0]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r = stack_array(8, a[0])
    for j in range(8):
        r[j] = a[j]
    m = n - n % 8
    for i in range(8, m, 8):
        for j in range(8):
            r[j] += a[i + j]
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for i in range(m, n):
        res += a[i]
    return res


# The generated ``sums``: for each leaf ``[b, b + n)`` of the engine's cut of NumPy's
# summation tree, NumPy's pairwise recursion over it (runs of more than 128 split at half
# their length rounded down to a multiple of 8, the halves' sums added; unrolled over an
# explicit stack), each run of at most 128 elements computed into ``buf`` (in L1) and
# added by ``pairwise_leaf``: the chain's values never leave the cache.
_TREE_WALK = """\
    buf = np.empty(128)
    lo_s = np.empty(64, np.int64)
    n_s = np.empty(64, np.int64)
    d_s = np.empty(64, np.int64)
    v_s = np.empty(64, np.float64)
    vd_s = np.empty(64, np.int64)
    for k in range(lo, hi):
        lo_s[0], n_s[0], d_s[0] = starts[k], sizes[k], 0
        nt, nv = 1, 0
        while nt:
            nt -= 1
            s, m, d = lo_s[nt], n_s[nt], d_s[nt]
            if m > 128:
                h = m // 2
                h -= h % 8
                lo_s[nt], n_s[nt], d_s[nt] = s + h, m - h, d + 1
                lo_s[nt + 1], n_s[nt + 1], d_s[nt + 1] = s, h, d + 1
                nt += 2
            else:"""
_TREE_LEAF = """\
                    v = pairwise_leaf(buf[:m])
                    while nv and vd_s[nv - 1] == d:
                        nv -= 1
                        v = v_s[nv] + v
                        d -= 1
                    v_s[nv], vd_s[nv] = v, d
                    nv += 1
        parts[k] = v_s[0]"""


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

    Flat: ``fill`` (elements ``[lo, hi)``) and, for float64, ``sums`` (the sum of each
    leaf ``k`` in ``[lo, hi)`` of the engine's cut of NumPy's summation tree, elements
    ``[starts[k], starts[k] + sizes[k])``, into ``parts[k]``); for float64 and float32,
    ``extrema`` (the largest and smallest value of each such run into ``highs[k]`` and
    ``lows[k]``, NaN for both where the run holds a NaN). Rows: ``fill`` (rows
    ``[lo, hi)``) and ``sum_rows`` (the sum over the rows of columns ``[c0, c1)``, the
    rows added in turn from the first: NumPy's order for a sum over axis 0), and for
    float64 and float32 ``extrema_rows`` (their largest and smallest values over the
    rows, NaN where a column holds one)."""
    params = ", ".join(f"{k if k == 's' else 'a'}{j}" for j, k in enumerate(operands))
    # (the loops index views from 0: an index known not to be negative lets LLVM drop
    # the wraparound test and vectorize, 3x faster than indexing from ``lo``)
    head = ['"""A fused chain\'s loops (generated by flexarray._kernels.fusion)."""',
            "import numpy as np", "from flexarray._kernels import kernel",
            "from flexarray._kernels.fusion import pairwise_leaf", f"T = np.{result_type}", ""]
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
                "", "@kernel", f"def sums({params}, starts, sizes, parts, lo, hi):",
                *_TREE_WALK.splitlines(),
                *(f"                    p{j} = a{j}[s:s + m]" for j in cut),
                "                    for i in range(m):", _body(steps, ref, " " * 24),
                "                        buf[i] = v", *_TREE_LEAF.splitlines(), ""]
        if result_type in ("float64", "float32"):
            lines += [
                "", "@kernel", f"def extrema({params}, starts, sizes, highs, lows, lo, hi):",
                "    for k in range(lo, hi):", "        b = starts[k]", "        m = sizes[k]",
                *(f"        p{j} = a{j}[b:b + m]" for j in cut),
                "        high, low, nan = T(-np.inf), T(np.inf), False",
                "        for i in range(m):", _body(steps, ref, " " * 12),
                "            if v > high:", "                high = v",
                "            if v < low:", "                low = v",
                "            if v != v:", "                nan = True",
                "        highs[k], lows[k] = (T(np.nan), T(np.nan)) if nan else (high, low)", ""]
        return "\n".join(lines)

    def ref(k, j):
        return {"a": f"p{j}[i, c]", "v": f"q{j}[c]", "k": f"p{j}[i]", "s": f"s{j}",
                "r": f"r{j}"}[k]
    rows_ = [j for j, k in enumerate(operands) if k == "v"]
    full = [j for j, k in enumerate(operands) if k == "a"]
    columns = [*(f"    p{j} = a{j}[:, c0:c1]" for j in full),  # (columns [c0, c1))
               *(f"    p{j} = a{j}" for j, k in enumerate(operands) if k == "k"),
               *(f"    q{j} = a{j}[c0:c1]" for j in rows_)]
    lines = head + [
        "", "@kernel", f"def fill(out, {params}, lo, hi):", "    o = out[lo:hi]",
        *(f"    p{j} = a{j}[lo:hi]" for j in cut), *(f"    q{j} = a{j}" for j in rows_),
        "    for i in range(hi - lo):", "        for c in range(o.shape[1]):",
        _body(steps, ref, "            "), "            o[i, c] = v", "",
        "", "@kernel", f"def sum_rows(total, {params}, n, c0, c1):", "    t = total[c0:c1]",
        *columns, "    for i in range(n):", "        for c in range(c1 - c0):",
        _body(steps, ref, "            "),
        "            if i == 0:", "                t[c] = v", "            else:",
        "                t[c] += v", ""]
    if result_type in ("float64", "float32"):
        lines += [  # (a NaN stays: no comparison with it is true)
            "", "@kernel", f"def extrema_rows(highs, lows, {params}, n, c0, c1):",
            "    h = highs[c0:c1]", "    w = lows[c0:c1]", *columns,
            "    for c in range(c1 - c0):", "        h[c] = T(-np.inf)", "        w[c] = T(np.inf)",
            "    for i in range(n):", "        for c in range(c1 - c0):",
            _body(steps, ref, "            "),
            "            if v > h[c]:", "                h[c] = v",
            "            if v < w[c]:", "                w[c] = v",
            "            if v != v:", "                h[c] = v", "                w[c] = v", ""]
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

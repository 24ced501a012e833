"""Fusion: elementwise chains (1-6 operations), with and without a final reduction, timed
side by side: flexarray (fusion on), flexarray with fusion off, NumPy, numexpr (the anchor
for fused CPU evaluation) and PyTorch CPU; and each flexarray time as a multiple of the
chain's memory-bandwidth limit (the bytes it must read once and write once, over the read
and write bandwidth measured in the same run).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_fusion.py
    ... --sizes 8192,1000000,10000000,125000000 --json bench/results/fusion.json

A result that is not reduced is read (its values computed) inside the timed call.
"""
import argparse
import math
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _harness as H  # noqa: E402

import flexarray as xp  # noqa: E402
from flexarray._engines import fusion  # noqa: E402

try:
    import numexpr as ne
except ImportError:  # pragma: no cover
    ne = None
torch = H.torch


def read(r):
    """The values of a flexarray result (computed now if deferred)."""
    return r._arr if isinstance(r, xp.Array) else r


# name: (inputs read, output elements written (0: reduced), flexarray/NumPy, numexpr, torch)
CHAINS = {
    "a * 2": ("a", 1, lambda x, a, b: x.multiply(a, 2.0), "a * 2", None),
    "2*a + 3*b": ("ab", 1, lambda x, a, b: 2 * a + 3 * b, "2*a + 3*b", None),
    "(a - b) ** 2": ("ab", 1, lambda x, a, b: (a - b) ** 2, "(a - b) ** 2", None),
    "sqrt(a*a + b*b)": ("ab", 1, lambda x, a, b: x.sqrt(a * a + b * b), "sqrt(a*a + b*b)",
                        None),
    "((a-0.5)*2 + b)/3 - a*b": ("ab", 1, lambda x, a, b: ((a - 0.5) * 2 + b) / 3 - a * b,
                                "((a-0.5)*2 + b)/3 - a*b", None),
    "where(a > 0, a, 0.1*a)": ("a", 1, lambda x, a, b: x.where(a > 0, a, 0.1 * a),
                               "where(a > 0, a, 0.1*a)", None),
    "sum((a - b) ** 2)": ("ab", 0, lambda x, a, b: x.sum((a - b) ** 2), "sum((a - b) ** 2)",
                          None),
    "mean((a - 0.5) ** 2)": ("a", 0, lambda x, a, b: x.mean((a - 0.5) ** 2),
                             "sum((a - 0.5) ** 2)", None),
    "sum(where(a > 0, a, 0.1*a))": ("a", 0, lambda x, a, b: x.sum(x.where(a > 0, a, 0.1 * a)),
                                    "sum(where(a > 0, a, 0.1*a))", None),
    "max(a * b)": ("ab", 0, lambda x, a, b: x.max(a * b), None, None),
    "var(a)": ("a", 0, lambda x, a, b: x.var(a), None, None),
    "var(a - b)": ("ab", 0, lambda x, a, b: x.var(a - b), None, None),
}

TORCH = {
    "a * 2": lambda a, b: a * 2, "2*a + 3*b": lambda a, b: 2 * a + 3 * b,
    "(a - b) ** 2": lambda a, b: (a - b) ** 2,
    "sqrt(a*a + b*b)": lambda a, b: torch.sqrt(a * a + b * b),
    "((a-0.5)*2 + b)/3 - a*b": lambda a, b: ((a - 0.5) * 2 + b) / 3 - a * b,
    "where(a > 0, a, 0.1*a)": lambda a, b: torch.where(a > 0, a, 0.1 * a),
    "sum((a - b) ** 2)": lambda a, b: torch.sum((a - b) ** 2),
    "mean((a - 0.5) ** 2)": lambda a, b: torch.mean((a - 0.5) ** 2),
    "sum(where(a > 0, a, 0.1*a))": lambda a, b: torch.sum(torch.where(a > 0, a, 0.1 * a)),
    "max(a * b)": lambda a, b: torch.max(a * b), "var(a)": lambda a, b: torch.var(a,
                                                                               correction=0),
    "var(a - b)": lambda a, b: torch.var(a - b, correction=0),
}


def bandwidth(n=1 << 25):
    """(read, write) bytes per second on every core: sums of halves of a 256 MB array on
    two threads (NumPy's reduce releases the GIL), and fills of them."""
    a = np.ones(n)
    halves = np.array_split(a, os.cpu_count() or 1)

    def both(fn):
        ts = [threading.Thread(target=fn, args=(h,)) for h in halves]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    r = H.best(H.rounds({"r": H.batch(lambda: both(np.add.reduce), 1)}, 5))["r"]
    w = H.best(H.rounds({"w": H.batch(lambda: both(lambda h: h.fill(1.0)), 1)}, 5))["w"]
    return a.nbytes / r, a.nbytes / w


def with_fusion(gate, f):
    def run():
        old, fusion.MIN = fusion.MIN, gate
        try:
            return read(f())
        finally:
            fusion.MIN = old
    return run


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="8192,1000000,10000000",
                   help="elements per operand, comma-separated (8192: 64 KB of float64)")
    p.add_argument("--chains", default=None, help="comma-separated names (default: all)")
    p.add_argument("--json", default=None)
    args = p.parse_args()
    rd, wr = bandwidth()
    print(f"bandwidth: read {rd / 1e9:.1f} GB/s, write {wr / 1e9:.1f} GB/s (float64 operands)")
    names = args.chains.split(",") if args.chains else list(CHAINS)
    records = []
    rng = np.random.default_rng(0)
    for n in map(int, args.sizes.split(",")):
        an, bn = rng.standard_normal(n), rng.standard_normal(n)
        a, b = xp.asarray(an, copy=True), xp.asarray(bn, copy=True)
        ta = torch.from_numpy(an.copy()) if torch is not None else None
        tb = torch.from_numpy(bn.copy()) if torch is not None else None
        cols = ["chain", "fused", "fusion off", "NumPy", "numexpr", "torch", "off/fused",
                "NumPy/fused", "numexpr/fused", "fused/limit"]
        table = H.Table(cols, f"{n:,} float64 elements per operand ({n * 8 / 1e6:g} MB)")
        for name in names:
            inputs, written, f, expr, _ = CHAINS[name]
            funcs = {
                "flexarray": with_fusion(fusion.MIN if math.isfinite(fusion.MIN)
                                         else fusion.gates.FUSION_MIN, lambda: f(xp, a, b)),
                "off": with_fusion(math.inf, lambda: f(xp, a, b)),
                "numpy": lambda: f(np, an, bn),
                "numexpr": (lambda: ne.evaluate(expr, local_dict={"a": an, "b": bn}) / (
                    n if name.startswith("mean") else 1)) if ne is not None and expr else None,
                "torch": (lambda: TORCH[name](ta, tb)) if torch is not None else None,
            }
            res = H.side_by_side(funcs, n=int(os.environ.get("BENCH_ROUNDS", 5)))
            t = res["time"]
            limit = len(inputs) * n * 8 / rd + written * n * 8 / wr
            ratio = res["ratio"]
            table.row(name, H.fmt(t["flexarray"]), H.fmt(t.get("off")), H.fmt(t.get("numpy")),
                      H.fmt(t.get("numexpr")), H.fmt(t.get("torch")),
                      H.fmt_ratio(ratio.get("off")), H.fmt_ratio(ratio.get("numpy")),
                      H.fmt_ratio(ratio.get("numexpr")),
                      H.fmt_ratio(t["flexarray"] / limit, bold_above=1.5))
            records.append({"chain": name, "n": n, "limit": limit, **{
                k: v for k, v in t.items()}})
    H.write_json(args.json, {"meta": H.meta(read_bw=rd, write_bw=wr), "rows": records})


if __name__ == "__main__":
    main()

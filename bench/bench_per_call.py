"""Per-call cost of small operations: flexarray vs NumPy, round-robin in one run.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python bench/bench_per_call.py \
        [--repeat 7] [--json out.json]

Each case is one row of CASES: (name, function(ns, d) -> callable, target). ``d`` holds the
same small arrays for both libraries (10 elements, a 10 x 10 matrix, 0-d arrays); the
NumPy side is the plain NumPy idiom a user had (``a[3]`` gives a NumPy scalar). Times are
medians over rounds (bench/_harness.py's rounds, the order rotated) of the best per-call
time of a batch; ratio = flexarray / NumPy.
"""
import argparse
import os
import sys

import numpy as np

import flexarray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import Table, batch, median, rounds, time_calls, write_json  # noqa: E402

CASES = [
    # (name, make(ns, d) -> zero-argument callable, target: ("us", 1.0) or ("x", 3.0))
    ("xp.add(x, y)", lambda ns, d: lambda: ns.add(d["x"], d["y"]), ("us", 1.0)),
    ("x + y", lambda ns, d: lambda: d["x"] + d["y"], ("us", 1.0)),
    ("x * 2.0", lambda ns, d: lambda: d["x"] * 2.0, ("us", 1.0)),
    ("float(x) 0-d", lambda ns, d: lambda: float(d["s"]), ("x", 3.0)),
    ("bool(x) 0-d", lambda ns, d: lambda: bool(d["b"]), ("x", 3.0)),
    ("x[i]", lambda ns, d: lambda: d["x"][3], ("x", 3.0)),
    ("x[a:b]", lambda ns, d: lambda: d["x"][2:7], ("x", 3.0)),
    ("x[i, j] (10 x 10)", lambda ns, d: lambda: d["m"][3, 4], ("x", 3.0)),
    ("reshape(x, (2, 5))", lambda ns, d: lambda: ns.reshape(d["x"], (2, 5)), ("x", 2.0)),
    ("astype(x, float64) same dtype", lambda ns, d: lambda: ns.astype(d["x"], ns.float64),
     ("x", 2.0)),
    ("asarray(x) of own array", lambda ns, d: lambda: ns.asarray(d["x"]), ("x", 2.0)),
    ("sum(x) 10 elements", lambda ns, d: lambda: ns.sum(d["x"]), ("x", 2.0)),
    ("x ** 2", lambda ns, d: lambda: d["x"] ** 2, None),
    ("1 / x", lambda ns, d: lambda: 1 / d["x"], None),
    ("mean(m.T, axis=0) (10 x 10)", lambda ns, d: lambda: ns.mean(d["m"].T, axis=0), None),
    ("x[i] = 1.0", lambda ns, d: lambda: d["x"].__setitem__(3, 1.0), None),
    ("x += 1.0", lambda ns, d: lambda: d["x"].__iadd__(1.0), None),
    ("asarray(x, copy=True) 1M", lambda ns, d: lambda: ns.asarray(d["big"], copy=True), None),
    # a copied array (flexarray: its family is tracked, views registered, writes locked)
    ("x[a:b] of a copied 1M array", lambda ns, d: lambda: d["copied"][2:7], None),
    ("x[i] = 1.0 in a copied 1M array", lambda ns, d: lambda: d["copied"].__setitem__(3, 1.0),
     None),
]


def data(ns, conv):
    rng = np.random.default_rng(0)
    copied = conv(rng.standard_normal(1 << 20))
    return {"x": conv(rng.standard_normal(10)), "y": conv(rng.standard_normal(10)),
            "m": conv(rng.standard_normal((10, 10))), "s": conv(np.asarray(1.5)),
            "b": conv(np.asarray(True)), "big": conv(rng.standard_normal(1 << 20)),
            "copied": copied, "copy": copied.__copy__()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="round-robin rounds (median)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    libs = {"flexarray": data(flexarray, lambda a: flexarray.asarray(a, copy=True)),
            "numpy": data(np, lambda a: a)}
    nss = {"flexarray": flexarray, "numpy": np}
    table = Table(["operation", "flexarray", "numpy", "flexarray/numpy", "target", "met"])
    rows = []
    for name, make, target in CASES:
        funcs = {lib: make(nss[lib], d) for lib, d in libs.items()}
        measures = {}
        for lib, f in funcs.items():  # warm up and calibrate: batches of ~5 ms
            f()
            number = max(100, int(0.005 / max(time_calls(f, 100), 1e-8)))
            measures[lib] = batch(f, number, block=3)
        t = median(rounds(measures, args.repeat))
        ratio = t["flexarray"] / t["numpy"]
        if target is None:
            tgt, met = "-", "-"
        elif target[0] == "us":
            tgt, met = f"<= {target[1]:g} us", "yes" if t["flexarray"] <= target[1] * 1e-6 else "NO"
        else:
            tgt, met = f"<= {target[1]:g}x NumPy", "yes" if ratio <= target[1] else "NO"
        table.row(name, f"{t['flexarray'] * 1e6:.2f} us", f"{t['numpy'] * 1e6:.2f} us",
                  f"{ratio:.2f}", tgt, met)
        rows.append({"name": name, "time": t, "ratio": ratio, "target": tgt, "met": met})
    if args.json:
        write_json(args.json, rows)


if __name__ == "__main__":
    main()

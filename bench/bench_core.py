"""Core benchmarks: elementwise math, scalar access, small-array overhead, views,
in-place updates; flexarray vs NumPy vs PyTorch CPU in one run (bench/_harness.py: each
case side by side, best of 5 rotated rounds; ``BENCH_ROUNDS`` sets the rounds).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_core.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import flexarray as xp  # noqa: E402
from _harness import run, torch  # noqa: E402


def pair(n, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(dtype)
    return a, xp.asarray(a.copy()), (torch.from_numpy(a.copy()) if torch else None)


def main():
    cases = []
    for n, label in ((1 << 20, "1M"), (1 << 24, "16M")):
        a, x, ta = pair(n)
        b, y, tb = pair(n, seed=1)
        c, z, tc = pair(n, seed=2)
        cases.append((f"add {label} f64", {"flexarray": lambda x=x, y=y: x + y,
                                            "numpy": lambda a=a, b=b: a + b,
                                            "torch": ta is not None and (lambda a=ta, b=tb: a + b)},
                      ">= 1x NumPy"))
        cases.append((f"a*b+c {label} f64", {"flexarray": lambda x=x, y=y, z=z: x * y + z,
                                              "numpy": lambda a=a, b=b, c=c: a * b + c,
                                              "torch": ta is not None and (lambda a=ta, b=tb, c=tc: a * b + c)},
                      ">= 1x NumPy"))
    for dt in (np.float32, np.float64):
        a, x, ta = pair(1 << 24, dt)
        cases.append((f"exp 16M {np.dtype(dt).name}", {
            "flexarray": lambda x=x: xp.exp(x), "numpy": lambda a=a: np.exp(a),
            "torch": ta is not None and (lambda a=ta: a.exp())}, ">= 1.8x NumPy"))
    a, x, ta = pair(1 << 24, np.float16)
    b, y, tb = pair(1 << 24, np.float16, seed=1)
    cases.append(("float16 add 16M", {"flexarray": lambda x=x, y=y: x + y,
                                       "numpy": lambda a=a, b=b: a + b,
                                       "torch": ta is not None and (lambda a=ta, b=tb: a + b)},
                  ">= 20x NumPy"))
    s, sx, st = pair(1000)
    cases.append(("x[i]", {"flexarray": lambda: sx[17], "numpy": lambda: s[17, ...],
                           "torch": st is not None and (lambda: st[17])}, "<= 1.5 us"))

    def fx_set():
        sx[17] = 1.5

    def np_set():
        s[17] = 1.5

    def t_set():
        st[17] = 1.5
    cases.append(("x[i] = v", {"flexarray": fx_set, "numpy": np_set,
                               "torch": st is not None and t_set}, "-"))
    a10, x10, t10 = pair(10)
    b10, y10, u10 = pair(10, seed=1)
    cases.append(("add 10 elements", {"flexarray": lambda: x10 + y10, "numpy": lambda: a10 + b10,
                                      "torch": t10 is not None and (lambda: t10 + u10)},
                  "<= 3 us"))
    m, mx, mt = pair(1 << 20)
    m, mx = m.reshape(1024, 1024), xp.reshape(mx, (1024, 1024))
    mt = mt.reshape(1024, 1024) if mt is not None else None
    cases.append(("view: x.T[::2, ::-1]", {"flexarray": lambda: mx.T[::2, ::-1],
                                           "numpy": lambda: m.T[::2, ::-1],
                                           "torch": mt is not None and (lambda: mt.T[::2].flip(1))},
                  "O(1)"))
    a, x, ta = pair(1 << 24)
    b, y, tb = pair(1 << 24, seed=1)

    def fx_iadd():
        x.__iadd__(y)

    def np_iadd():
        np.add(a, b, out=a)

    def t_iadd():
        ta.add_(tb)
    cases.append(("x += y, unique 16M f64", {"flexarray": fx_iadd, "numpy": np_iadd,
                                             "torch": ta is not None and t_iadd},
                  "within 10% of NumPy (>= 0.9x)"))
    run(cases, "flexarray core benchmarks (times: best of 5; ratios: peer time / flexarray time)")


if __name__ == "__main__":
    main()

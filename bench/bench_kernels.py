"""Kernel benchmark: the Numba kernel families called directly on NumPy arrays, next to
NumPy (and PyTorch CPU when installed), one run, printed as best times and ratios
peer / kernel (> 1: the kernel is faster).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_kernels.py [--quick]
        [--no-compile] [--json out.json]

Each case runs its contenders interleaved (bench/_harness.py: one call each per round, the
order rotated, at least 7 rounds (3 with --quick), more for fast cases until ~1 s is
spent, up to 40) and keeps each one's best wall time, so a busy machine hurts all of them
alike. The first call of each contender (compile or cache load) is not timed; cold
compile costs are measured separately at the end, in a fresh process with an empty Numba
cache directory.
"""
import argparse
import os
import subprocess
import sys
import tempfile

# torch's OpenMP threads spin after each call by default, starving the threads of the
# contender that runs next in the interleaved rounds; let them sleep instead.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from flexarray._kernels.reductions import reduce  # noqa: E402
from flexarray._kernels.reductions import argminmax  # noqa: E402
from flexarray._kernels.copy import strided as copy  # noqa: E402
from flexarray._kernels.elementwise import half  # noqa: E402
from flexarray._kernels.linalg import matmul  # noqa: E402
from flexarray._engines import gates  # noqa: E402
from flexarray._engines import matmul as matmul_engine  # noqa: E402
from flexarray._threads import threads_for  # noqa: E402
from _harness import batch, best, comparison_table, fmt, fmt_ratio, meta, rounds, torch, write_json  # noqa: E402

if torch is not None:
    torch.set_num_threads(os.cpu_count() or 1)


def bench(cases, n_rounds):
    """``cases``: list of (name, {contender: fn}); prints one row per case."""
    table, peers = comparison_table("best time per call; ratios: peer / kernel (> 1: the "
                                    "kernel is faster)")
    rows = []
    for name, fns in cases:
        for f in fns.values():
            f()
        # at least ``n_rounds`` rounds; fast cases get more (up to 40, ~1 s), so that the
        # best time escapes the preemptions of a busy machine
        t = best(rounds({k: batch(f) for k, f in fns.items()}, n_rounds, min_total=1.0,
                        max_rounds=40))
        ratio = {p: t[p] / t["flexarray"] for p in peers if p in t}
        table.row(name, fmt(t["flexarray"]), *[fmt(t.get(p)) for p in peers],
                  *[fmt_ratio(ratio.get(p)) for p in peers])
        rows.append({"name": name, "time": t, "ratio": ratio})
    return rows


def cases(quick):
    rng = np.random.default_rng(0)
    n = 2048 if quick else 4096
    out = []
    # --- half
    m = (1 << 22) if quick else (1 << 24)
    a16 = rng.standard_normal(m).astype(np.float16)
    b16 = rng.standard_normal(m).astype(np.float16)
    o16 = np.empty(m, np.float16)
    fns = {"numpy": lambda: np.add(a16, b16, out=o16),
           "flexarray": lambda: half.binary("add", a16, b16, o16)}
    if torch is not None:
        t16 = [torch.from_numpy(x) for x in (a16, b16, o16)]
        fns["torch"] = lambda: torch.add(t16[0], t16[1], out=t16[2])
    out.append((f"float16 add {m >> 20}M", fns))
    import ml_dtypes
    abf = a16.astype(ml_dtypes.bfloat16)
    bbf = b16.astype(ml_dtypes.bfloat16)
    obf = np.empty(m, ml_dtypes.bfloat16)
    fns = {"numpy": lambda: np.add(abf, bbf, out=obf),
           "flexarray": lambda: half.binary("add", abf, bbf, obf)}
    if torch is not None:
        tab, tbb = (torch.from_numpy(x.view(np.int16)).view(torch.bfloat16) for x in (abf, bbf))
        tob = torch.from_numpy(obf.view(np.int16)).view(torch.bfloat16)
        fns["torch"] = lambda: torch.add(tab, tbb, out=tob)
    out.append((f"bfloat16 add {m >> 20}M (numpy: ml_dtypes)", fns))
    x32 = rng.standard_normal(m).astype(np.float32)
    fns = {"numpy": lambda: x32.astype(np.float16),
           "flexarray": lambda: half.from_float32(x32, np.float16)}
    out.append((f"float32 -> float16 {m >> 20}M", fns))
    # --- reductions
    a = rng.standard_normal((n, n)).astype(np.float32)
    ta = torch.from_numpy(a) if torch is not None else None
    for axes in [(0, 1), (0,), (1,)]:
        fns = {"numpy": lambda axes=axes: a.sum(axis=axes),
               "flexarray": lambda axes=axes: reduce.reduce("sum", a, axes)}
        if torch is not None:
            fns["torch"] = lambda axes=axes: ta.sum(dim=axes)
        out.append((f"sum {n}x{n} float32 axis={axes}", fns))
    fns = {"numpy": lambda: a.max(axis=0), "flexarray": lambda: reduce.reduce("max", a, (0,))}
    if torch is not None:
        fns["torch"] = lambda: ta.amax(dim=0)
    out.append((f"max {n}x{n} float32 axis=0", fns))
    h = a.astype(np.float16)
    fns = {"numpy": lambda: h.sum(), "flexarray": lambda: reduce.reduce("sum", h, (0, 1))}
    out.append((f"sum {n}x{n} float16", fns))
    # --- argmax
    for axis in (0, 1):
        fns = {"numpy": lambda axis=axis: a.argmax(axis=axis),
               "flexarray": lambda axis=axis: argminmax.argmax(a, axis)}
        if torch is not None:
            fns["torch"] = lambda axis=axis: ta.argmax(dim=axis)
        out.append((f"argmax {n}x{n} float32 axis={axis}", fns))
    # --- transpose copy
    dst = np.empty((n, n), np.float32)
    fns = {"numpy": lambda: np.ascontiguousarray(a.T),
           "flexarray": lambda: copy.copy_into(dst, a.T)}
    if torch is not None:
        fns["torch"] = lambda: ta.T.contiguous()
    out.append((f"transpose-copy {n}x{n} float32", fns))
    # --- integer and half matmul
    k = 512 if quick else 1024
    ia = rng.integers(-1000, 1000, (k, k)).astype(np.int32)
    ib = rng.integers(-1000, 1000, (k, k)).astype(np.int32)
    nth = threads_for(k ** 3, gates.INT_MATMUL_THREADS_MIN)
    fns = {"numpy": lambda: ia @ ib,
           "flexarray": lambda: matmul.int_matmul(ia, ib, np.zeros((k, k), np.int32), nth)}
    if torch is not None:
        tia, tib = torch.from_numpy(ia), torch.from_numpy(ib)
        fns["torch"] = lambda: tia @ tib
    out.append((f"int32 matmul {k}", fns))
    ha = rng.standard_normal((k // 2, k // 2)).astype(np.float16)
    fns = {"numpy": lambda: ha @ ha,
           "flexarray": lambda: matmul_engine.product(ha, ha, np.dtype(np.float16))}
    if torch is not None:
        tha = torch.from_numpy(ha)
        fns["torch"] = lambda: tha @ tha
    out.append((f"float16 matmul {k // 2}", fns))
    return out


_COLD = """
import time, numpy as np, ml_dtypes
t0 = time.perf_counter()
from flexarray._kernels.elementwise import half
from flexarray._kernels.reductions import reduce
from flexarray._kernels.copy import strided as copy
from flexarray._kernels.reductions import argminmax
from flexarray._kernels.linalg import matmul
import numba
print(f"import kernels: {time.perf_counter() - t0:.2f} s")
a = np.ones((64, 64), np.float32)
steps = [
    ("half.binary float16 (all ops)", lambda: half.binary("add", a.astype(np.float16),
        a.astype(np.float16), np.empty((64, 64), np.float16))),
    ("half.to_float32 float16", lambda: half.to_float32(a.astype(np.float16))),
    ("half.from_float32 float16", lambda: half.from_float32(a, np.float16)),
    ("reduce float32, inner mode (all ops)", lambda: reduce.reduce("sum", a, (1,))),
    ("reduce float32, outer mode (all ops)", lambda: reduce.reduce("sum", a, (0,))),
    ("reduce int32 -> int64, inner mode", lambda: reduce.reduce("sum", a.astype(np.int32), (1,),
                                                                np.int64)),
    ("copy 4-byte items", lambda: copy.copy_into(np.empty((64, 64), np.float32), a.T)),
    ("argmax float32, outer mode", lambda: argminmax.argmax(a, 0)),
    ("argmax float32, inner mode", lambda: argminmax.argmax(a[:, ::2], 1)),
    ("int_matmul int32", lambda: matmul.int_matmul(a.astype(np.int32), a.astype(np.int32),
                                                   np.zeros((64, 64), np.int32))),
]
for name, f in steps:
    t, c = time.perf_counter(), time.process_time()
    f()
    w, c = time.perf_counter() - t, time.process_time() - c
    print(f"  first call {name:<42}{c:6.2f} s cpu {w:6.2f} s wall")
"""


def cold_compile():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, PYTHONPATH=root)
        for label in ("cold (empty cache)", "warm (cache filled)"):
            print(label)
            subprocess.run([sys.executable, "-c", _COLD], env=env, check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller sizes, fewer rounds")
    p.add_argument("--no-compile", action="store_true", help="skip the cold-compile timing")
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args()
    print(f"numpy {np.__version__}, torch {torch.__version__ if torch else 'not installed'}, "
          f"{os.cpu_count()} cpus")
    rows = bench(cases(args.quick), 3 if args.quick else 7)
    write_json(args.json, {"meta": meta(quick=args.quick), "rows": rows})
    if not args.no_compile:
        cold_compile()


if __name__ == "__main__":
    main()

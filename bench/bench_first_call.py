"""First calls in a fresh environment: each case runs in a fresh process with an empty
Numba cache directory and reports its first call, its second, its steady time once any
background compile has landed (flexarray/_kernels/_warm.py), NumPy's first and steady
times for the same call (same process, before flexarray's), and the compiles that ran on
this process (Numba's per-kernel cache-miss counts; the background process's compiles
are not among them).

    python bench/bench_first_call.py [CASE ...] [--markdown]

Background compiles are on (the default outside pytest); ``FLEXARRAY_BACKGROUND_COMPILE=0``
in the environment measures compiling on the caller's thread instead.
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap

# name: (setup, flexarray call, NumPy call or None); `xp`, `np`, `nn`, `r` are in scope
CASES = {
    "import flexarray": (None, None, None),
    "fft.rfft 4,096": ("x = r.standard_normal(4096).astype(np.float32); a = xp.asarray(x)",
                       "xp.fft.rfft(a)", "np.fft.rfft(x)"),
    "fft.irfft(rfft) 256x4,096": (
        "x = r.standard_normal((256, 4096)).astype(np.float32); a = xp.asarray(x)",
        "xp.fft.irfft(xp.fft.rfft(a))", "np.fft.irfft(np.fft.rfft(x))"),
    "float16 a + a, 1M": ("x = r.standard_normal(1 << 20).astype(np.float16); a = xp.asarray(x)",
                          "a + a", "x + x"),
    "bfloat16 a * a, 1M": (
        "import ml_dtypes; x = r.standard_normal(1 << 20).astype(ml_dtypes.bfloat16); "
        "a = xp.asarray(x)", "a * a", "x * x"),
    "float16 astype float32, 1M": (
        "x = r.standard_normal(1 << 20).astype(np.float16); a = xp.asarray(x)",
        "xp.astype(a, xp.float32)", "x.astype(np.float32)"),
    "argmax 1M float32": ("x = r.standard_normal(1 << 20).astype(np.float32); a = xp.asarray(x)",
                          "xp.argmax(a)", "np.argmax(x)"),
    "argmax axis 0, 1024x1024 float32": (
        "x = r.standard_normal((1024, 1024)).astype(np.float32); a = xp.asarray(x)",
        "xp.argmax(a, axis=0)", "np.argmax(x, axis=0)"),
    "nn.max_pool2d 8x64x56x56": (
        "x = r.standard_normal((8, 64, 56, 56)).astype(np.float32); a = xp.asarray(x)",
        "nn.max_pool2d(a, 3, 2, 1)", None),
    "nn.max_pool2d 2x8x28x28": (
        "x = r.standard_normal((2, 8, 28, 28)).astype(np.float32); a = xp.asarray(x)",
        "nn.max_pool2d(a, 3, 2, 1)", None),
    "nn.scaled_dot_product_attention": (
        "q = xp.asarray(r.standard_normal((2, 8, 256, 64)).astype(np.float32))",
        "nn.scaled_dot_product_attention(q, q, q)", None),
    "nn.conv2d 3x3": (
        "x = xp.asarray(r.standard_normal((8, 64, 32, 32)).astype(np.float32)); "
        "w = xp.asarray(r.standard_normal((64, 64, 3, 3)).astype(np.float32))",
        "nn.conv2d(x, w, padding=1)", None),
    "nn.conv2d 5x5 (im2col)": (
        "x = xp.asarray(r.standard_normal((8, 32, 32, 32)).astype(np.float32)); "
        "w = xp.asarray(r.standard_normal((64, 32, 5, 5)).astype(np.float32))",
        "nn.conv2d(x, w, padding=2)", None),
    "nn.conv2d depthwise 3x3 stride 2": (
        "x = xp.asarray(r.standard_normal((8, 64, 56, 56)).astype(np.float32)); "
        "w = xp.asarray(r.standard_normal((64, 1, 3, 3)).astype(np.float32))",
        "nn.conv2d(x, w, stride=2, padding=1, groups=64)", None),
    "nn.conv_transpose2d 3x3 stride 2": (
        "x = xp.asarray(r.standard_normal((8, 64, 16, 16)).astype(np.float32)); "
        "w = xp.asarray(r.standard_normal((64, 32, 3, 3)).astype(np.float32))",
        "nn.conv_transpose2d(x, w, stride=2)", None),
    "nn.adaptive_avg_pool2d to 1x1, 16x512x7x7": (
        "x = xp.asarray(r.standard_normal((16, 512, 7, 7)).astype(np.float32))",
        "nn.adaptive_avg_pool2d(x, 1)", None),
    "sort 1M float32": ("x = r.standard_normal(1 << 20).astype(np.float32); a = xp.asarray(x)",
                        "xp.sort(a)", "np.sort(x, kind='stable')"),
    "sum axis 0, 1024x1024 float32": (
        "x = r.standard_normal((1024, 1024)).astype(np.float32); a = xp.asarray(x)",
        "xp.sum(a, axis=0)", "np.sum(x, axis=0)"),
    "sum 1M float16": ("x = r.standard_normal(1 << 20).astype(np.float16); a = xp.asarray(x)",
                       "xp.sum(a)", "np.sum(x)"),
    "sum 2048x2048 float32": (
        "x = r.standard_normal((2048, 2048)).astype(np.float32); a = xp.asarray(x)",
        "xp.sum(a)", "np.sum(x)"),
    "sum 1M int32 (int64 result)": (
        "x = r.integers(0, 1000, 1 << 20).astype(np.int32); a = xp.asarray(x)",
        "xp.sum(a)", "np.sum(x, dtype=np.int64)"),
    "nansum axis 1, 1024x1024 float64": (
        "x = r.standard_normal((1024, 1024)); x[::7] = np.nan; a = xp.asarray(x)",
        "xp.nansum(a, axis=1)", "np.nansum(x, axis=1)"),
    "reshape(a.T) copy, 2048x2048 float32": (
        "x = r.standard_normal((2048, 2048)).astype(np.float32); a = xp.asarray(x)",
        "xp.reshape(a.T, (-1,))", "x.T.reshape(-1)"),
    "take 4M of 4M float32": (
        "x = r.standard_normal(1 << 22).astype(np.float32); i = r.integers(0, 1 << 22, 1 << 22); "
        "a = xp.asarray(x); ia = xp.asarray(i)", "xp.take(a, ia)", "np.take(x, i)"),
    "where 1M float64": (
        "c = r.random(1 << 20) < 0.5; x = r.standard_normal(1 << 20); y = -x; "
        "cc, a, b = xp.asarray(c), xp.asarray(x), xp.asarray(y)", "xp.where(cc, a, b)",
        "np.where(c, x, y)"),
    "int32 matmul 256x256": (
        "x = r.integers(-2**31, 2**31, (256, 256)).astype(np.int32); a = xp.asarray(x)",
        "a @ a", "x @ x"),
    "max axis 0, 2048x2048 float32": (
        "x = r.standard_normal((2048, 2048)).astype(np.float32); a = xp.asarray(x)",
        "xp.max(a, axis=0)", "np.max(x, axis=0)"),
}

_SCRIPT = """
import json, sys, threading, time
t0 = time.perf_counter()
import numpy as np
r = np.random.default_rng(0)

def compiled():
    # kernels compiled in this process so far (Numba's per-dispatcher miss counts: a load
    # from the disk cache is a hit); Numba is not imported before the first call
    names = set()
    for m in list(sys.modules.values()):
        if getattr(m, "__name__", "").startswith("flexarray._kernels"):
            for d in vars(m).values():
                if hasattr(d, "_cache_misses") and sum(d._cache_misses.values()):
                    names.add(d.py_func.__qualname__)
    return sorted(names)

setup, call, ref = json.loads(sys.argv[1])
res = {}
def timed(src, env):
    t = time.perf_counter()
    exec(src, env)
    return time.perf_counter() - t
def best(src, env, n=5):
    return min(timed(src, env) for _ in range(n))
class _Stub:  # NumPy's run of the setup: xp.asarray is the identity there
    float32 = np.float32
    @staticmethod
    def asarray(v, dtype=None):
        return v
env = {"np": np, "r": r, "xp": _Stub}
if setup and ref:
    exec(setup, env)
if ref:
    res["np_first"] = timed(ref, env)
    res["np_steady"] = best(ref, env)
t = time.perf_counter()
import flexarray as xp
from flexarray import nn
res["import"] = time.perf_counter() - t
env.update(xp=xp, nn=nn, r=np.random.default_rng(0))
if call:
    exec(setup, env)
    res["first"] = timed(call, env)
    res["first_compiles"] = compiled()
    res["second"] = timed(call, env)
    asked = getattr(sys.modules.get("flexarray._kernels._warm"), "_asked", ())
    t = time.monotonic()
    while asked and time.monotonic() - t < 300:
        exec(call, env)
        if all(sig in d.overloads for d, sig in asked):
            break
        time.sleep(0.1)
    res["background_wait"] = time.monotonic() - t if asked else None
    res["steady"] = best(call, env)
    res["compiles"] = compiled()
print(json.dumps(res))
"""


def run_case(name):
    setup, call, ref = CASES[name]
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
        env["NUMBA_CACHE_DIR"] = cache
        p = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps([setup, call, ref])],
                           capture_output=True, text=True, env=env, timeout=900)
    if p.returncode:
        return {"error": p.stderr.strip().splitlines()[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _fmt(t):
    if t is None:
        return ""
    return f"{t:.2f} s" if t >= 0.1 else f"{t * 1e3:.2f} ms"


def main(argv):
    names = [a for a in argv if not a.startswith("--")] or list(CASES)
    rows = []
    for name in names:
        r = run_case(name)
        if "error" in r:
            print(f"{name}: {r['error']}", file=sys.stderr)
            continue
        first = r.get("first", r["import"])
        row = (name, _fmt(first), _fmt(r.get("second")), _fmt(r.get("steady")),
               _fmt(r.get("np_first")), _fmt(r.get("np_steady")),
               ", ".join(sorted(set(r.get("first_compiles", [])))) or "-",
               _fmt(r.get("background_wait")))
        rows.append(row)
        print(" | ".join(row), flush=True)
    head = ("first call", "first", "second", "steady", "NumPy first", "NumPy steady",
            "compiled in the process (first call)", "background compile")
    if "--markdown" in argv:
        print("\n| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])

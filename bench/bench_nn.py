"""flexarray.nn against PyTorch (CPU) and a plain NumPy reference, in one run, as ratios.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_nn.py [--rounds N]
        [--only SUBSTRING] [--single-thread] [--json out.json]

Each case runs flexarray, torch and NumPy interleaved, round after round (bench/_harness.py:
the order rotated; before each timing a short pause, so that no library inherits another's
spinning idle threads, and one untimed call), and keeps each one's best time: on a shared
machine the three see the same noise. Ratios are time over flexarray's time, so > 1 means
flexarray is faster. Results are checked against torch before timing. Prints a Markdown
table (docs/benchmarks.md, docs/nn.md).

``--single-thread`` compares per-core efficiency: torch on one thread, BLAS limited to
one thread, flexarray.nn's worker pool off, and each library timed by the CPU time of
the calling thread, which other processes' load disturbs far less than wall time.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flexarray as xp  # noqa: E402
import flexarray.nn as nn  # noqa: E402
from _harness import batch, best, comparison_table, fmt, fmt_ratio, meta, rounds, torch, write_json  # noqa: E402

if torch is not None:
    import torch.nn.functional as F

swv = np.lib.stride_tricks.sliding_window_view


# ------------------------------------------------------------------------ NumPy references

def np_conv2d(x, w, stride, pad, groups=1):
    """im2col by a sliding-window view, then one tensordot (BLAS) per group."""
    xp_ = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    win = swv(xp_, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]  # N C Ho Wo kh kw
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    outs = [np.einsum("nchwij,ocij->nohw", win[:, g * cg:(g + 1) * cg],
                      w[g * og:(g + 1) * og], optimize=True) for g in range(groups)]
    return np.concatenate(outs, axis=1)


def np_depthwise_conv1d(x, w, pad):
    xp_ = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    L = x.shape[2] + 2 * pad - w.shape[2] + 1
    return sum(w[None, :, 0, k, None] * xp_[:, :, k:k + L] for k in range(w.shape[2]))


def np_max_pool2d(x, k, s, p):
    xp_ = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    return swv(xp_, (k, k), axis=(2, 3))[:, :, ::s, ::s].max(axis=(4, 5))


def np_avg_pool2d_k2(x):
    N, C, H, W = x.shape
    return x.reshape(N, C, H // 2, 2, W // 2, 2).mean(axis=(3, 5))


def np_attention(q, k, v, causal):
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]))
    if causal:
        L, S = s.shape[-2:]
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    return (s / s.sum(-1, keepdims=True)) @ v


# ------------------------------------------------------------------------ cases

def cases(rng):
    f32 = np.float32

    def r(*shape):
        return rng.standard_normal(shape).astype(f32)

    x, w = r(4, 3, 224, 224), r(64, 3, 7, 7)
    yield ("conv2d 4x3x224x224 k7 s2 p3 -> 64",
           lambda a, b: nn.conv2d(a, b, stride=2, padding=3),
           lambda a, b: F.conv2d(a, b, stride=2, padding=3),
           lambda a, b: np_conv2d(a, b, 2, 3), (x, w), 3)
    x, w = r(16, 128, 64, 64), r(128, 128, 3, 3) / 30
    yield ("conv2d 16x128x64x64 k3 p1 -> 128",
           lambda a, b: nn.conv2d(a, b, padding=1),
           lambda a, b: F.conv2d(a, b, padding=1),
           lambda a, b: np_conv2d(a, b, 1, 1), (x, w), 3)
    x, w = r(8, 32, 512), r(32, 1, 3)
    yield ("depthwise conv1d 8x32x512 k3 p1",
           lambda a, b: nn.conv1d(a, b, padding=1, groups=32),
           lambda a, b: F.conv1d(a, b, padding=1, groups=32),
           lambda a, b: np_depthwise_conv1d(a, b, 1), (x, w), 200)
    x = r(16, 64, 112, 112)
    yield ("max_pool2d k3 s2 p1 16x64x112x112",
           lambda a: nn.max_pool2d(a, 3, 2, 1), lambda a: F.max_pool2d(a, 3, 2, 1),
           lambda a: np_max_pool2d(a, 3, 2, 1), (x,), 3)
    yield ("avg_pool2d k2 s2 16x64x112x112",
           lambda a: nn.avg_pool2d(a, 2, 2), lambda a: F.avg_pool2d(a, 2, 2),
           np_avg_pool2d_k2, (x,), 5)
    x = r(16, 512, 7, 7)
    yield ("adaptive_avg_pool2d 1x1 16x512x7x7",
           lambda a: nn.adaptive_avg_pool2d(a, 1), lambda a: F.adaptive_avg_pool2d(a, 1),
           lambda a: a.mean(axis=(2, 3), keepdims=True), (x,), 1000)
    for b, h, s, d, causal in [(1, 32, 256, 128, False), (1, 12, 512, 64, False),
                               (1, 8, 4096, 64, True)]:
        qkv = (r(b, h, s, d), r(b, h, s, d), r(b, h, s, d))
        yield (f"attention b{b} h{h} s{s} d{d}{' causal' if causal else ''}",
               lambda q, k, v, c=causal: nn.scaled_dot_product_attention(q, k, v, is_causal=c),
               lambda q, k, v, c=causal: F.scaled_dot_product_attention(q, k, v, is_causal=c),
               lambda q, k, v, c=causal: np_attention(q, k, v, c), qkv, 3 if s < 4096 else 2)
    x = r(1 << 20)
    yield ("unfold 1M window 64 step 1 (view)",
           lambda a: nn.unfold(a, 0, 64, 1), lambda a: a.unfold(0, 64, 1),
           lambda a: swv(a, 64), (x,), 20000)
    yield ("unfold 1M window 64 step 1 + sum",
           lambda a: xp.sum(nn.unfold(a, 0, 64, 1), axis=-1),
           lambda a: a.unfold(0, 64, 1).sum(-1),
           lambda a: swv(a, 64).sum(-1), (x,), 3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="", help="substring of the case names to run")
    ap.add_argument("--settle", type=float, default=0.15,
                    help="seconds of pause before each timing (idle threads stop spinning)")
    ap.add_argument("--single-thread", action="store_true",
                    help="one thread each, timed by thread CPU time")
    ap.add_argument("--json", help="write the rows here")
    opts = ap.parse_args()
    clock = time.perf_counter
    if opts.single_thread:
        import threadpoolctl
        from flexarray._engines.nn import par as _par
        threadpoolctl.threadpool_limits(1)
        _par.workers = lambda: 1
        if torch:
            torch.set_num_threads(1)
        clock = time.thread_time
    rng = np.random.default_rng(0)
    mode = "single thread, thread CPU time" if opts.single_thread else "all threads, wall time"
    print(f"{mode}; torch {torch.__version__ if torch else '-'} threads "
          f"{torch.get_num_threads() if torch else '-'}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
    table, peers = comparison_table(f"best of {opts.rounds} rounds; ratios: time / flexarray's "
                                    f"time (> 1: flexarray faster)")
    rows = []
    for name, f_fx, f_t, f_np, args, reps in cases(rng):
        if opts.only not in name:
            continue
        fa = tuple(xp.asarray(a) for a in args)
        ta = tuple(torch.from_numpy(a) for a in args) if torch else None
        got = f_fx(*fa)  # warm-up (compiles) and check
        if torch:
            ref = f_t(*ta)
            np.testing.assert_allclose(np.asarray(got), ref.numpy(), rtol=2e-3, atol=2e-3)
            f_t(*ta)
            del ref
        # The warm-up results go before the timing: a live view changes the next calls'
        # cost (torch's unfold view: ~1.0 us with the warm-up view alive, ~1.25-1.5 us
        # without; flexarray's: ~1.15 us either way).
        del got
        f_np(*args)
        # Before each timing the previous library's idle threads stop spinning (OpenBLAS's
        # spin for ~0.1 s after a call: measured 104 ms of CPU in a 0.2 s pause after a
        # 2-thread matmul), then one untimed call wakes this library's threads and caches:
        # the timing is the steady state of back-to-back calls.
        measures = {"flexarray": batch(lambda: f_fx(*fa), reps, clock=clock, pause=opts.settle,
                                       warm=1)}
        if torch:
            measures["torch"] = batch(lambda: f_t(*ta), reps, clock=clock, pause=opts.settle,
                                      warm=1)
        measures["numpy"] = batch(lambda: f_np(*args), max(1, reps // 3), clock=clock,
                                  pause=opts.settle, warm=1)
        t = best(rounds(measures, opts.rounds))
        ratio = {p: t[p] / t["flexarray"] for p in peers if p in t}
        table.row(name, fmt(t["flexarray"]), *[fmt(t.get(p)) for p in peers],
                  *[fmt_ratio(ratio.get(p)) for p in peers])
        rows.append({"name": name, "time": t, "ratio": ratio})
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    write_json(opts.json, {"meta": meta(mode=mode, rounds=opts.rounds, settle_s=opts.settle),
                           "rows": rows})


if __name__ == "__main__":
    main()

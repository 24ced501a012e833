"""A computation on an array larger than the memory it may use, on Dask and on cubed, each
with NumPy chunks and with flexarray chunks (docs/scaling.md, docs/benchmarks.md).

The data: a float32 array of ``--size-gb`` GB in Zarr on local disk (made once, kept in
``--dir``), chunks of 65,536 rows x 256 columns (64 MB). The work: standardize every column,
then reduce, ``sum(((x - mean(x, 0)) / std(x, 0)) ** 2, axis=0)`` (which is n - 0 per column
up to rounding: the check). Each configuration runs in a fresh process so that its peak
resident memory (``ru_maxrss``) is its own; cubed runs under ``allowed_mem``. The process
first runs the same graph on the first two chunks ("start": the imports, and loading
flexarray's Numba kernels, ~0.5-0.8 s once per process), then the timed run ("wall").
Per engine, ``--rounds`` rounds of bench/_harness.py's ``rounds``: NumPy chunks,
flexarray chunks and flexarray chunks with fusion off (``FLEXARRAY_FUSION=0``) once each
per round, the order rotated.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_bounded_memory.py
    python bench/bench_bounded_memory.py --size-gb 4 --allowed-mem 1GB --rounds 2

Prints a table (start and wall time, the run's CPU time over all threads, peak RSS,
NumPy-chunk time / flexarray-chunk time, of the run and of start plus run) and, with
``--json``, writes the figures.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import Table, best, median, meta, rounds, write_json  # noqa: E402

COLS, ROWS_PER_CHUNK = 256, 65536
FUSION_OFF = "flexarray-fusion-off"  # flexarray chunks with FLEXARRAY_FUSION=0


def make_data(path, size_gb):
    import numpy as np
    import zarr
    rows = int(size_gb * 2**30 / (COLS * 4)) // ROWS_PER_CHUNK * ROWS_PER_CHUNK
    if os.path.exists(path):
        z = zarr.open_array(path, mode="r")
        if z.shape == (rows, COLS):
            return rows
    z = zarr.open_array(path, mode="w", shape=(rows, COLS), chunks=(ROWS_PER_CHUNK, COLS),
                        dtype="float32")
    rng = np.random.default_rng(0)
    for i in range(0, rows, ROWS_PER_CHUNK):
        z[i:i + ROWS_PER_CHUNK] = (rng.standard_normal((ROWS_PER_CHUNK, COLS), np.float32)
                                   * 3 + np.arange(COLS, dtype=np.float32))
    return rows


def compute(engine, chunks, path, spec, rows=None):
    """The work on the first ``rows`` rows of the Zarr array (all by default): (the module
    of the result's type, the column results as a NumPy float64 array)."""
    import numpy as np
    if engine == "dask":
        import dask
        import dask.array as da
        x = da.from_zarr(path)[:rows]
        if chunks.startswith("flexarray"):
            import flexarray as xp
            x = x.map_blocks(xp.asarray, meta=xp.asarray(np.empty((0, 0), np.float32)))
        z = (x - x.mean(axis=0)) / x.std(axis=0)
        with dask.config.set(scheduler="threads", num_workers=2):
            r = (z ** 2).sum(axis=0).compute()
    else:
        import cubed
        import cubed.array_api as cxp
        from cubed.runtime.create import create_executor
        x = cubed.from_zarr(path, spec=spec)[:rows]
        z = (x - cxp.mean(x, axis=0)) / cxp.sqrt(cxp.var(x, axis=0))
        r = cxp.sum(z * z, axis=0).compute(executor=create_executor("threads"))
    return type(r).__module__.split(".")[0], np.asarray(r, dtype=np.float64)


def _cpu_seconds():
    """This process's CPU time so far, user and system (every thread's)."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def run_one(engine, chunks, path, allowed_mem, work_dir):
    """One configuration, in this (fresh) process: prints JSON. ``start_s``: the imports
    and a warm-up run of the same graph on the first two chunks (Dask or cubed, and
    flexarray's Numba kernels, load once per process); ``wall_s``: the run itself."""
    t0 = time.perf_counter()
    spec = None
    if engine == "cubed":
        import cubed
        spec = cubed.Spec(work_dir=work_dir, allowed_mem=allowed_mem)
    compute(engine, chunks, path, spec, rows=2 * ROWS_PER_CHUNK)
    t1, c1 = time.perf_counter(), _cpu_seconds()
    kind, r = compute(engine, chunks, path, spec)
    t2, c2 = time.perf_counter(), _cpu_seconds()
    print(json.dumps({"engine": engine, "chunks": chunks, "wall_s": t2 - t1,
                      "cpu_s": c2 - c1, "start_s": t1 - t0, "result_type": kind,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "check": float(abs(r / r.mean() - 1).max())}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-gb", type=float, default=2.0)
    ap.add_argument("--allowed-mem", default="1GB", help="cubed's memory bound per task")
    ap.add_argument("--dir", default="/tmp/flexarray-bounded-memory")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--engines", default="dask,cubed", help="comma-separated: dask, cubed")
    ap.add_argument("--json")
    ap.add_argument("--one", nargs=2, metavar=("ENGINE", "CHUNKS"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    path = os.path.join(a.dir, f"data-{a.size_gb:g}GB.zarr")
    if a.one:
        run_one(*a.one, path, a.allowed_mem, os.path.join(a.dir, "cubed-work"))
        return
    os.makedirs(a.dir, exist_ok=True)
    rows = make_data(path, a.size_gb)
    print(f"data: {rows:,} x {COLS} float32 = {rows * COLS * 4 / 2**30:.1f} GB in {path}; "
          f"cubed allowed_mem={a.allowed_mem}")
    def one_run(engine, chunks):
        """A measurement: the configuration in a fresh process; its JSON line, or None."""
        env = dict(os.environ)
        if engine == "cubed" and chunks.startswith("flexarray"):
            env["CUBED_BACKEND_ARRAY_API_MODULE"] = "flexarray"
        else:
            env.pop("CUBED_BACKEND_ARRAY_API_MODULE", None)
        env["FLEXARRAY_FUSION"] = "0" if chunks == FUSION_OFF else "1"
        out = subprocess.run([sys.executable, __file__, "--one", engine, chunks,
                              "--size-gb", str(a.size_gb), "--dir", a.dir,
                              "--allowed-mem", a.allowed_mem],
                             check=False, capture_output=True, text=True, env=env)
        if out.returncode:
            print(f"{engine}/{chunks} failed:\n{out.stderr[-2000:]}")
            return None
        return json.loads(out.stdout.strip().splitlines()[-1])

    engines = a.engines.split(",")
    results, per = [], {}
    for engine in engines:
        runs = rounds({c: lambda engine=engine, c=c: one_run(engine, c)
                       for c in ("numpy", "flexarray", FUSION_OFF)}, a.rounds)
        for c, rs in runs.items():
            rs = [r for r in rs if r is not None]
            results += rs
            per[engine, c] = {k: [r[k] for r in rs] for k in ("wall_s", "cpu_s")}
            per[engine, c]["total_s"] = [r["start_s"] + r["wall_s"] for r in rs]
    table = Table(["engine", "chunks", "start (s)", "wall (s)", "CPU (s)", "peak RSS (MB)",
                   "result type", "max rel. dev."])
    for r in results:
        table.row(r["engine"], r["chunks"], f"{r['start_s']:.2f}", f"{r['wall_s']:.2f}",
                  f"{r['cpu_s']:.2f}", f"{r['peak_rss_mb']:.0f}", r["result_type"],
                  f"{r['check']:.1e}")
    summary = {}
    ratios = Table(["engine", "NumPy / flexarray, best of rounds", "median",
                    "start and run, median", "CPU time, median",
                    "fusion off / on, median"],
                   "NumPy-chunk time / flexarray-chunk time (above 1: flexarray chunks faster)")
    for engine in engines:
        n, f = per.get((engine, "numpy")), per.get((engine, "flexarray"))
        if not (n and f and n["wall_s"] and f["wall_s"]):
            continue
        wall, tot, cpu = ({k: v[key] for k, v in (("numpy", n), ("flexarray", f))}
                          for key in ("wall_s", "total_s", "cpu_s"))
        s = {"best": best(wall)["numpy"] / best(wall)["flexarray"],
             "median": median(wall)["numpy"] / median(wall)["flexarray"],
             "start_and_run_median": median(tot)["numpy"] / median(tot)["flexarray"],
             "cpu_median": median(cpu)["numpy"] / median(cpu)["flexarray"]}
        off = per.get((engine, FUSION_OFF))
        if off and off["wall_s"]:
            s["fusion_off_over_on_median"] = (median({"o": off["wall_s"]})["o"]
                                              / median(wall)["flexarray"])
        summary[engine] = s
        ratios.row(engine, *(f"{s[k]:.2f}" for k in ("best", "median", "start_and_run_median",
                                                        "cpu_median")),
                   f"{s['fusion_off_over_on_median']:.2f}" if "fusion_off_over_on_median"
                   in s else "-")
    write_json(a.json, {"meta": meta(rounds=a.rounds), "size_gb": a.size_gb,
                        "allowed_mem": a.allowed_mem, "rows": rows, "results": results,
                        "summary": summary})


if __name__ == "__main__":
    main()

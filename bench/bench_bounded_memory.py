"""A computation on an array larger than the memory it may use, on Dask and on cubed, each
with NumPy chunks and with flexarray chunks (issue 18; docs/scaling.md).

The data: a float32 array of ``--size-gb`` GB in Zarr on local disk (made once, kept in
``--dir``), chunks of 65,536 rows x 256 columns (64 MB). The work: standardize every column,
then reduce, ``sum(((x - mean(x, 0)) / std(x, 0)) ** 2, axis=0)`` (which is n - 0 per column
up to rounding: the check). Each configuration runs in a fresh process so that its peak
resident memory (``ru_maxrss``) is its own; cubed runs under ``allowed_mem``. The process
first runs the same graph on the first two chunks ("start": the imports, and loading
flexarray's Numba kernels, ~0.5-0.8 s once per process), then the timed run ("wall").

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
import statistics
import subprocess
import sys
import time

COLS, ROWS_PER_CHUNK = 256, 65536


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
        if chunks == "flexarray":
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
    results = []
    for k in range(a.rounds):
        for engine in a.engines.split(","):
            for chunks in ("numpy", "flexarray")[::1 - 2 * (k % 2)]:  # rotated each round
                env = dict(os.environ)
                if engine == "cubed" and chunks == "flexarray":
                    env["CUBED_BACKEND_ARRAY_API_MODULE"] = "flexarray"
                else:
                    env.pop("CUBED_BACKEND_ARRAY_API_MODULE", None)
                out = subprocess.run([sys.executable, __file__, "--one", engine, chunks,
                                      "--size-gb", str(a.size_gb), "--dir", a.dir,
                                      "--allowed-mem", a.allowed_mem],
                                     check=False, capture_output=True, text=True,
                                     env=env)
                if out.returncode:
                    print(f"{engine}/{chunks} failed:\n{out.stderr[-2000:]}")
                    continue
                results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print("| engine | chunks | start (s) | wall (s) | CPU (s) | peak RSS (MB) | result type | "
          "max rel. dev. |")
    print("|---|---|---|---|---|---|---|---|")
    walls, totals, cpus = {}, {}, {}
    for r in results:
        walls.setdefault((r["engine"], r["chunks"]), []).append(r["wall_s"])
        cpus.setdefault((r["engine"], r["chunks"]), []).append(r["cpu_s"])
        totals.setdefault((r["engine"], r["chunks"]), []).append(r["start_s"] + r["wall_s"])
        print(f"| {r['engine']} | {r['chunks']} | {r['start_s']:.2f} | {r['wall_s']:.2f} | "
              f"{r['cpu_s']:.2f} | {r['peak_rss_mb']:.0f} | "
              f"{r['result_type']} | {r['check']:.1e} |")
    for engine in a.engines.split(","):
        if (engine, "numpy") in walls and (engine, "flexarray") in walls:
            n, f = walls[(engine, "numpy")], walls[(engine, "flexarray")]
            tn, tf = totals[(engine, "numpy")], totals[(engine, "flexarray")]
            cf = statistics.median(cpus[(engine, "flexarray")])
            print(f"{engine}: NumPy-chunk time / flexarray-chunk time = {min(n) / min(f):.2f} "
                  f"(best of rounds), {statistics.median(n) / statistics.median(f):.2f} "
                  f"(median); start and run {statistics.median(tn) / statistics.median(tf):.2f} "
                  f"(median); CPU time {statistics.median(cpus[(engine, 'numpy')]) / cf:.2f} "
                  f"(median)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"size_gb": a.size_gb, "allowed_mem": a.allowed_mem, "rows": rows,
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()

"""Real work: scikit-learn (array_api_dispatch=True) and SciPy (SCIPY_ARRAY_API=1) calls
timed with flexarray, NumPy (dispatch off, plain NumPy arrays: what users had), torch CPU
(through array-api-compat) and array-api-strict, round-robin in one process (the order
rotated each round; bench/_harness.py's rounds, each backend's batch after ``--settle``
seconds of its own calls untimed).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python bench/bench_real_work.py \
        [--size small|medium|large|all] [--repeat 5] [--only substring] [--json out.json]

Sizes: small 2,000 x 20, medium 50,000 x 64 (`all` runs both), large 200,000 x 128 (on
request). Each workload is one row of WORKLOADS: (name, function(xp, d) -> result,
tolerance). ``d`` holds the data converted once to the backend (outside the timing);
``xp`` is the backend's namespace. Every result is compared with NumPy's (a mismatch shows
as MISMATCH in the table); an exception shows its type in the table.
"""
import argparse
import math
import os
import sys
import warnings

os.environ["SCIPY_ARRAY_API"] = "1"  # before scipy is imported anywhere

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.fft  # noqa: E402
import scipy.signal  # noqa: E402
import scipy.special  # noqa: E402
import scipy.stats  # noqa: E402
import sklearn  # noqa: E402
from sklearn import discriminant_analysis, kernel_approximation, linear_model, metrics  # noqa: E402
from sklearn import decomposition, mixture, naive_bayes, preprocessing  # noqa: E402
from sklearn.metrics import pairwise  # noqa: E402

import flexarray  # noqa: E402
import array_api_strict  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _harness import (Table, batch, calibrate, fmt, median, meta, rounds,  # noqa: E402
                      torch, write_json)  # (torch is None when not installed)

SIZES = {"small": (2_000, 20), "medium": (50_000, 64), "large": (200_000, 128)}
N_QUERY = 256  # rows of the query block of pairwise kernels/distances (n_query x n)

# ---------------------------------------------------------------- workloads
# (name, function(xp, d) -> array | tuple of arrays | float, (rtol, atol))
# Tolerances (rtol, atol; atol is scaled by max |reference|): float64 closed forms 1e-9;
# iterative solvers (lbfgs, EM) 1e-5 (a different summation order changes the path a
# little); euclidean_distances 1e-7 (|x|^2 - 2 x.y + |y|^2 cancels near 0).
EXACT = (1e-9, 1e-12)
ITER = (1e-5, 1e-8)


def fit_transform(est):
    return lambda xp, d: est().fit_transform(d["X"])


def ridge(xp, d):
    return linear_model.Ridge(alpha=1.0).fit(d["X"], d["y"]).predict(d["X"])


def ridge_cv(xp, d):
    return linear_model.RidgeCV(alphas=(0.1, 1.0, 10.0)).fit(d["X"], d["y"]).predict(d["X"])


def logistic(xp, d):
    est = linear_model.LogisticRegression(solver="lbfgs", max_iter=50, tol=1e-10)
    return est.fit(d["X"], d["labels"]).predict_proba(d["X"])


def lda(xp, d):
    est = discriminant_analysis.LinearDiscriminantAnalysis(solver="svd")
    return est.fit(d["X"], d["labels"]).predict_proba(d["X"])


def gaussian_nb(xp, d):
    return naive_bayes.GaussianNB().fit(d["X"], d["labels"]).predict_proba(d["X"])


def nystroem(xp, d):
    est = kernel_approximation.Nystroem(gamma=1.0 / d["X"].shape[1], n_components=100,
                                        random_state=0)
    return est.fit_transform(d["X"])


def gmm(xp, d):
    est = mixture.GaussianMixture(n_components=3, covariance_type="full", max_iter=10,
                                  tol=0.0, init_params="random_from_data", random_state=0)
    return est.fit(d["X"]).means_


def pca(solver):
    return lambda xp, d: decomposition.PCA(n_components=8, svd_solver=solver).fit_transform(d["X"])


WORKLOADS = [
    # scikit-learn, array_api_dispatch=True (NumPy: dispatch off)
    ("StandardScaler.fit_transform", fit_transform(preprocessing.StandardScaler), EXACT),
    ("MinMaxScaler.fit_transform", fit_transform(preprocessing.MinMaxScaler), EXACT),
    ("MaxAbsScaler.fit_transform", fit_transform(preprocessing.MaxAbsScaler), EXACT),
    ("PCA(full).fit_transform", pca("full"), EXACT),
    ("PCA(covariance_eigh).fit_transform", pca("covariance_eigh"), EXACT),
    ("Ridge.fit.predict", ridge, EXACT),
    ("RidgeCV.fit.predict", ridge_cv, EXACT),
    ("LogisticRegression(lbfgs).fit.proba", logistic, ITER),
    ("LinearDiscriminantAnalysis.fit.proba", lda, EXACT),
    ("GaussianNB.fit.predict_proba", gaussian_nb, EXACT),
    ("Nystroem.fit_transform", nystroem, EXACT),
    ("GaussianMixture(10 EM steps).means_", gmm, ITER),
    ("rbf_kernel(256 x n)", lambda xp, d: pairwise.rbf_kernel(d["Xq"], d["X"]), EXACT),
    ("euclidean_distances(256 x n)",
     lambda xp, d: pairwise.euclidean_distances(d["Xq"], d["X"]), (1e-7, 1e-7)),
    ("r2_score", lambda xp, d: metrics.r2_score(d["y"], d["y_pred"]), EXACT),
    ("mean_squared_error", lambda xp, d: metrics.mean_squared_error(d["y"], d["y_pred"]), EXACT),
    ("accuracy_score", lambda xp, d: metrics.accuracy_score(d["labels"], d["labels_pred"]), EXACT),
    ("roc_auc_score", lambda xp, d: metrics.roc_auc_score(d["binary"], d["score"]), EXACT),
    # SciPy, SCIPY_ARRAY_API=1
    ("special.logsumexp(axis=1)", lambda xp, d: scipy.special.logsumexp(d["X"], axis=1), EXACT),
    ("special.softmax(axis=1)", lambda xp, d: scipy.special.softmax(d["X"], axis=1), EXACT),
    ("special.expit", lambda xp, d: scipy.special.expit(d["X"]), EXACT),
    ("stats.skew(axis=0)", lambda xp, d: scipy.stats.skew(d["X"], axis=0), EXACT),
    ("stats.kurtosis(axis=0)", lambda xp, d: scipy.stats.kurtosis(d["X"], axis=0), EXACT),
    ("stats.moment(order=3, axis=0)",
     lambda xp, d: scipy.stats.moment(d["X"], order=3, axis=0), EXACT),
    ("stats.zscore(axis=0)", lambda xp, d: scipy.stats.zscore(d["X"], axis=0), EXACT),
    ("stats.pearsonr(axis=0)",
     lambda xp, d: tuple(scipy.stats.pearsonr(d["Xa"], d["Xb"], axis=0)), EXACT),
    ("stats.ttest_ind(axis=0)",
     lambda xp, d: tuple(scipy.stats.ttest_ind(d["Xa"], d["Xb"], axis=0)), EXACT),
    ("stats.rankdata(axis=0)", lambda xp, d: scipy.stats.rankdata(d["X"], axis=0), EXACT),
    ("fft.rfft(axis=0)", lambda xp, d: scipy.fft.rfft(d["X"], axis=0), EXACT),
    ("fft.fft(axis=1)", lambda xp, d: scipy.fft.fft(d["X"], axis=1), EXACT),
    ("signal.fftconvolve(1-D, 101 taps)",
     lambda xp, d: scipy.signal.fftconvolve(d["signal"], d["taps"]), EXACT),
    ("signal.oaconvolve(1-D, 101 taps)",
     lambda xp, d: scipy.signal.oaconvolve(d["signal"], d["taps"]), EXACT),
    ("signal.welch(1-D)", lambda xp, d: tuple(scipy.signal.welch(d["signal"], nperseg=256)),
     EXACT),
]


# ---------------------------------------------------------------- backends
def make_data(n, p, seed=0):
    """The NumPy data every backend starts from (fixed seed)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 3.0, p) + rng.uniform(-2, 2, p)
    w = rng.standard_normal(p)
    y = X @ w + 0.5 * rng.standard_normal(n)
    labels = np.digitize(X[:, :3] @ np.ones(3) + rng.standard_normal(n), [-2.0, 2.0])
    half = n // 2
    return {
        "X": X, "Xq": X[:N_QUERY].copy(), "Xa": X[:half].copy(), "Xb": X[half:2 * half].copy(),
        "y": y, "y_pred": y + 0.3 * rng.standard_normal(n),
        "labels": labels.astype(np.int64),
        "labels_pred": np.where(rng.random(n) < 0.8, labels, (labels + 1) % 3).astype(np.int64),
        "binary": (labels == 2).astype(np.int64), "score": X[:, 0] + rng.standard_normal(n),
        "signal": rng.standard_normal(n * p // 4), "taps": np.hanning(101),
    }


def backends():
    """name -> (namespace, convert NumPy -> backend, sklearn dispatch)."""
    out = {
        "flexarray": (flexarray, lambda a: flexarray.asarray(a, copy=True), True),
        "numpy": (np, lambda a: a, False),
        # NumPy arrays with dispatch on: the same array-API code path flexarray takes, so
        # flexarray / numpy-api separates flexarray's own cost from the algorithm change
        "numpy-api": (np, lambda a: a, True),
    }
    if torch is not None:
        from array_api_compat import torch as compat_torch
        out["torch"] = (compat_torch, lambda a: torch.asarray(a).clone(), True)
    out["strict"] = (array_api_strict, lambda a: array_api_strict.asarray(a), True)
    return out


def to_numpy(r):
    """A result (array, scalar, tuple of them) as a tuple of NumPy arrays."""
    if isinstance(r, (tuple, list)):
        return tuple(x for item in r for x in to_numpy(item))
    if torch is not None and isinstance(r, torch.Tensor):
        return (r.detach().cpu().numpy(),)
    if hasattr(r, "__dlpack__") and not isinstance(r, np.ndarray):
        try:
            return (np.from_dlpack(r),)
        except Exception:  # 0-d or exotic: fall back to __array__ / float
            pass
    try:
        return (np.asarray(r),)
    except Exception:
        return (np.asarray(float(r)),)


def check(result, reference, tol):
    """'' when ``result`` matches ``reference`` within tol, else a short reason."""
    rtol, atol = tol
    a, b = to_numpy(result), to_numpy(reference)
    if len(a) != len(b):
        return f"{len(a)} results vs {len(b)}"
    for x, y in zip(a, b):
        if x.shape != y.shape:
            return f"shape {x.shape} vs {y.shape}"
        scale = np.max(np.abs(y)) if y.size and np.isfinite(y).all() else 1.0
        if not np.allclose(x, y, rtol=rtol, atol=atol * max(scale, 1.0), equal_nan=True):
            err = np.max(np.abs(x.astype(np.complex128) - y))
            return f"max abs err {err:.2e}"
    return ""


def _with_dispatch(dispatch, measure):
    """The measurement under scikit-learn's ``array_api_dispatch=dispatch``."""
    def run():
        sklearn.set_config(array_api_dispatch=dispatch)
        return measure()
    return run


def bench_size(size, names, repeat, min_batch, select, settle, table):
    n, p = SIZES[size]
    base = make_data(n, p)
    be = {k: v for k, v in backends().items() if k in names}
    data = {b: {k: conv(v) for k, v in base.items()} for b, (_, conv, _) in be.items()}
    rows = []
    for name, func, tol in WORKLOADS:
        if select and select not in name:
            continue
        calls, err, status = {}, {}, {}
        reference = None
        for b, (ns, _, dispatch) in be.items():  # warm-up, check, calibrate
            sklearn.set_config(array_api_dispatch=dispatch)
            f = (lambda func=func, ns=ns, d=data[b]: func(ns, d))
            try:
                result = f()
                number = calibrate(f, min_batch, max_number=10_000, tries=1)
            except Exception as e:  # noqa: BLE001 (reported in the table)
                err[b] = type(e).__name__
                status[b] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
                continue
            if b == "numpy":
                reference = result
            elif reference is not None:
                try:
                    status[b] = check(result, reference, tol)
                except Exception as e:  # noqa: BLE001
                    status[b] = f"check failed: {type(e).__name__}: {e}"
            calls[b] = _with_dispatch(dispatch, batch(f, number, settle=settle))
        # round-robin: every backend once per round, the order rotated each round; before
        # each backend's timed calls, its own calls untimed for `settle` seconds: the
        # previous backend's BLAS (and torch's OpenMP) threads spin ~0.12 s after its last
        # call and would slow the next one, flexarray's two-thread passes most
        # (docs/benchmarks.md, "Threads"); an idle pause instead would leave every
        # library's threads to wake cold
        med = median(rounds(calls, repeat))
        sklearn.set_config(array_api_dispatch=False)
        row = {"name": name, "size": size, "shape": [n, p], "time": med,
               "error": err, "status": status}
        if "flexarray" in med and "numpy" in med:
            row["ratio"] = med["flexarray"] / med["numpy"]
        if "flexarray" in med and "numpy-api" in med:
            row["ratio_api"] = med["flexarray"] / med["numpy-api"]
        rows.append(row)
        print_row(table, row, names)
    return rows


def cell(row, b):
    if b in row["error"]:
        return f"**{row['error'][b]}**"
    if b not in row["time"]:
        return "-"
    s = fmt(row["time"][b]).strip()
    if row["status"].get(b):
        s += " **MISMATCH**"
    return s


def header(names):
    return Table(["workload", "size", *names, "flexarray/numpy", "flexarray/numpy-api"])


def print_row(table, row, names):
    ratio = f"{row['ratio']:.2f}" if "ratio" in row else "-"
    if "ratio" in row and row["ratio"] > 1.1:
        ratio = f"**{ratio}**"
    api = f"{row['ratio_api']:.2f}" if "ratio_api" in row else "-"
    table.row(row["name"], row["size"], *(cell(row, b) for b in names), ratio, api)


def geomean(rows, key="ratio"):
    r = [row[key] for row in rows if key in row and not row["status"].get("flexarray")]
    return math.exp(sum(map(math.log, r)) / len(r)) if r else float("nan"), len(r)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="all", choices=["small", "medium", "large", "all"])
    ap.add_argument("--repeat", type=int, default=5, help="round-robin rounds (median)")
    ap.add_argument("--min-batch", type=float, default=0.02,
                    help="seconds per timed batch (small calls are looped)")
    ap.add_argument("--only", default="", help="run workloads whose name contains this")
    ap.add_argument("--settle", type=float, default=0.15,
                    help="seconds of untimed calls before each backend's timed calls")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--torch-threads", type=int, default=2)
    ap.add_argument("--backends", default="",
                    help="comma-separated subset of the backends (default: all; flexarray and "
                         "numpy are always kept)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # convergence warnings of the fixed-iteration fits
    if torch is not None:
        torch.set_num_threads(args.torch_threads)
    sizes = ["small", "medium"] if args.size == "all" else [args.size]
    names = [b for b in backends() if not args.backends or b in ("flexarray", "numpy")
             or b in args.backends.split(",")]
    print(f"numpy {np.__version__}, scipy {scipy.__version__}, sklearn {sklearn.__version__}, "
          f"torch {torch.__version__ if torch else 'missing'}, "
          f"array_api_strict {array_api_strict.__version__}, flexarray from "
          f"{os.path.dirname(flexarray.__file__)}")
    print("Times are medians of per-call times over round-robin rounds; ratio = flexarray / "
          "NumPy time (below 1: flexarray faster). numpy-api: NumPy arrays with "
          "array_api_dispatch=True (scikit-learn's array-API path; SciPy rows: the same "
          "call as numpy).\n")
    table = header(names)
    rows = []
    for size in sizes:
        rows += bench_size(size, names, args.repeat, args.min_batch, args.only, args.settle,
                           table)
    print()
    summary = {}
    for size in sizes:
        g, k = geomean([r for r in rows if r["size"] == size])
        ga, _ = geomean([r for r in rows if r["size"] == size], "ratio_api")
        summary[size] = {"geomean_ratio": g, "geomean_ratio_api": ga, "workloads": k}
        print(f"geometric mean flexarray/numpy, {size} {SIZES[size]}: {g:.2f} over {k} "
              f"workloads (flexarray/numpy-api: {ga:.2f})")
    problems = [(r["name"], r["size"], b, s) for r in rows for b, s in r["status"].items() if s]
    if problems:
        print("\nMISMATCHES AND ERRORS (vs NumPy):")
        for name, size, b, s in problems:
            print(f"  {name} [{size}] {b}: {s}")
    if args.json:
        m = meta(repeat=args.repeat, backends=names, settle_s=args.settle,
                 torch_threads=args.torch_threads if torch is not None else None,
                 env={k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS",
                                                     "FLEXARRAY_NUM_THREADS")},
                 sizes={s: SIZES[s] for s in sizes}, scipy=scipy.__version__,
                 sklearn=sklearn.__version__)
        m["date"] = m["time"]  # the key plot_real_work.py and older records use
        write_json(args.json, {"meta": m, "summary": summary, "rows": rows})


if __name__ == "__main__":
    main()

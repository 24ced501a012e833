"""Sorting, sets and indexing at the sizes scikit-learn metrics and SciPy stats use:
flexarray vs NumPy vs torch CPU, round-robin in one process, medians and ratios.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python bench/bench_sorting.py \
        [--repeat 7] [--only substring] [--json out.json] [--no-e2e] [--min-batch 0.01]

Cases: ``sort``/``argsort`` (stable and not; 1-D; axis 0 and -1 of 2-D), ``searchsorted``,
the four ``unique_*`` functions, ``cumulative_sum``, ``x[mask]`` and ``take(x, idx, axis=0)``,
on float64 data (the sets also on int64 labels with 10 distinct values); 1-D sizes 100,
2,000, 50,000 and 1M, 2-D 2,000 x 20 and 50,000 x 64. Then end-to-end: SciPy's
``stats.rankdata(x, axis=0)`` (SCIPY_ARRAY_API=1, set before SciPy is imported) and
scikit-learn's ``roc_auc_score`` / ``accuracy_score`` (flexarray and torch with
``array_api_dispatch=True``; NumPy with dispatch off, the plain NumPy path users had).

Every case is timed in batches of at least ``--min-batch`` seconds; each round times every
backend once (bench/_harness.py's rounds, the order rotated), and the table shows each
backend's median over ``--repeat`` rounds and the ratios of the medians peer / flexarray
(above 1: flexarray is faster). NumPy's peer of a stable flexarray
call is ``kind="stable"``, of an unstable one NumPy's default (SIMD quicksort). Results are
checked against NumPy's before timing (MISMATCH in the table).
"""
import argparse
import os
import sys
import warnings

os.environ["SCIPY_ARRAY_API"] = "1"  # before scipy is imported anywhere

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import flexarray as xp  # noqa: E402
from _harness import (Table, batch, calibrate, fmt, fmt_ratio, median, meta, peers as present,  # noqa: E402
                      rounds, torch, write_json)  # (torch is None when not installed)

BACKENDS = ("flexarray", "numpy", "torch")
SIZES_1D = (100, 2_000, 50_000, 1_000_000)
SIZES_2D = ((2_000, 20), (50_000, 64))


def _conv(a):
    """(flexarray, numpy, torch) copies of NumPy array ``a``."""
    return (xp.asarray(a, copy=True), a.copy(),
            torch.from_numpy(a.copy()) if torch is not None else None)


def _case(name, f, n, t, check=True):
    """A case: name, {backend: callable}, whether results are compared with NumPy's."""
    funcs = {"flexarray": f, "numpy": n, "torch": t if torch is not None else None}
    return name, {k: v for k, v in funcs.items() if v is not None}, check


def sort_cases(rng):
    out = []
    shapes = [((n,), -1) for n in SIZES_1D] + [(s, ax) for s in SIZES_2D for ax in (0, -1)]
    for shape, ax in shapes:
        a = rng.standard_normal(shape)
        f, n, t = _conv(a)
        label = (f"{shape[0]:,}" if len(shape) == 1 else
                 f"{shape[0]:,}x{shape[1]} axis {ax}")
        for stable in (True, False):
            kind = "stable" if stable else None
            tag = "" if stable else ", unstable"
            out.append(_case(
                f"sort {label}{tag}",
                lambda f=f, ax=ax, s=stable: xp.sort(f, axis=ax, stable=s),
                lambda n=n, ax=ax, k=kind: np.sort(n, axis=ax, kind=k),
                t is not None and (lambda t=t, ax=ax, s=stable: t.sort(dim=ax, stable=s)[0]),
                check=True))
            out.append(_case(
                f"argsort {label}{tag}",
                lambda f=f, ax=ax, s=stable: xp.argsort(f, axis=ax, stable=s),
                lambda n=n, ax=ax, k=kind: np.argsort(n, axis=ax, kind=k),
                t is not None and (lambda t=t, ax=ax, s=stable: t.argsort(dim=ax, stable=s)),
                check=stable))  # unstable: ties may differ
        if len(shape) == 1:  # roc_auc_score: argsort(score, descending=True, stable=True)
            out.append(_case(
                f"argsort {label}, descending",
                lambda f=f: xp.argsort(f, descending=True),
                lambda n=n: np.argsort(-n, kind="stable"),
                t is not None and (lambda t=t: t.argsort(descending=True, stable=True))))
    # rankdata's second sort: a stable argsort of permutations (rows of int64)
    for rows, cols in SIZES_2D:
        a = np.argsort(rng.standard_normal((cols, rows)), axis=-1)
        f, n, t = _conv(a)
        out.append(_case(
            f"argsort {cols}x{rows:,} int64 permutations axis -1",
            lambda f=f: xp.argsort(f, axis=-1), lambda n=n: np.argsort(n, axis=-1, kind="stable"),
            t is not None and (lambda t=t: t.argsort(dim=-1, stable=True))))
    return out


def search_cases(rng):
    out = []
    for size in SIZES_1D:
        hay = np.sort(rng.standard_normal(size))
        needles = rng.standard_normal(size)
        (fh, nh, th), (fn, nn, tn) = _conv(hay), _conv(needles)
        out.append(_case(
            f"searchsorted {size:,} into {size:,}",
            lambda fh=fh, fn=fn: xp.searchsorted(fh, fn),
            lambda nh=nh, nn=nn: np.searchsorted(nh, nn),
            th is not None and (lambda th=th, tn=tn: torch.searchsorted(th, tn))))
        # label_binarize: searchsorted(classes, y) with a few classes
        classes = np.arange(3, dtype=np.int64)
        labels = rng.integers(0, 3, size)
        (fc, nc, tc), (fl, nl, tl) = _conv(classes), _conv(labels)
        out.append(_case(
            f"searchsorted {size:,} int64 into 3",
            lambda fc=fc, fl=fl: xp.searchsorted(fc, fl),
            lambda nc=nc, nl=nl: np.searchsorted(nc, nl),
            tc is not None and (lambda tc=tc, tl=tl: torch.searchsorted(tc, tl))))
    return out


def _np_unique(kind):
    def f(a):
        if kind == "values":
            return np.unique_values(a)
        if kind == "counts":
            return tuple(np.unique_counts(a))
        if kind == "inverse":
            return tuple(np.unique_inverse(a))
        return tuple(np.unique_all(a))
    return f


def _torch_unique(kind):
    def f(t):
        if kind == "values":
            return torch.unique(t)
        if kind == "counts":
            return torch.unique(t, return_counts=True)
        if kind == "inverse":
            return torch.unique(t, return_inverse=True)
        return torch.unique(t, return_inverse=True, return_counts=True)  # no first indices
    return f


def set_cases(rng):
    out = []
    for size in SIZES_1D:
        for dname, a in (("float64", rng.standard_normal(size)),
                         ("int64 10 values", rng.integers(0, 10, size))):
            f, n, t = _conv(a)
            for kind in ("values", "counts", "inverse", "all"):
                fx = getattr(xp, f"unique_{kind}")
                out.append(_case(
                    f"unique_{kind} {size:,} {dname}",
                    lambda f=f, fx=fx: fx(f), lambda n=n, g=_np_unique(kind): g(n),
                    t is not None and (lambda t=t, g=_torch_unique(kind): g(t))))
    return out


def cumsum_mask_take_cases(rng):
    out = []
    for size in SIZES_1D:
        a = rng.standard_normal(size)
        mask = rng.random(size) < 0.5
        (f, n, t), (fm, nm, tm) = _conv(a), _conv(mask)
        out.append(_case(f"cumulative_sum {size:,}", lambda f=f: xp.cumulative_sum(f),
                         lambda n=n: np.cumulative_sum(n),
                         t is not None and (lambda t=t: torch.cumsum(t, 0))))
        out.append(_case(f"x[mask] {size:,}", lambda f=f, m=fm: f[m], lambda n=n, m=nm: n[m],
                         t is not None and (lambda t=t, m=tm: t[m])))
    for shape in SIZES_2D:
        a = rng.standard_normal(shape)
        mask = rng.random(shape[0]) < 0.5
        idx = rng.permutation(shape[0])
        (f, n, t), (fm, nm, tm), (fi, ni, ti) = _conv(a), _conv(mask), _conv(idx)
        label = f"{shape[0]:,}x{shape[1]}"
        out.append(_case(f"cumulative_sum {label} axis 0",
                         lambda f=f: xp.cumulative_sum(f, axis=0),
                         lambda n=n: np.cumulative_sum(n, axis=0),
                         t is not None and (lambda t=t: torch.cumsum(t, 0))))
        out.append(_case(f"x[row mask] {label}", lambda f=f, m=fm: f[m],
                         lambda n=n, m=nm: n[m], t is not None and (lambda t=t, m=tm: t[m])))
        out.append(_case(f"take axis 0 {label}", lambda f=f, i=fi: xp.take(f, i, axis=0),
                         lambda n=n, i=ni: np.take(n, i, axis=0),
                         t is not None and (lambda t=t, i=ti: torch.index_select(t, 0, i))))
    return out


def e2e_cases(rng):
    """SciPy and scikit-learn end to end; sklearn's dispatch is switched per backend."""
    import scipy.stats
    import sklearn
    from sklearn import metrics
    out = []
    def with_dispatch(on, g):
        def f():
            sklearn.set_config(array_api_dispatch=on)
            try:
                return g()
            finally:
                sklearn.set_config(array_api_dispatch=False)
        return f

    for shape in SIZES_2D:
        a = rng.standard_normal(shape)
        f, n, t = _conv(a)
        out.append(_case(f"stats.rankdata axis 0 {shape[0]:,}x{shape[1]}",
                         lambda f=f: scipy.stats.rankdata(f, axis=0),
                         lambda n=n: scipy.stats.rankdata(n, axis=0),
                         t is not None and (lambda t=t: scipy.stats.rankdata(t, axis=0))))
    for size in (2_000, 50_000):
        labels = rng.integers(0, 3, size)
        pred = np.where(rng.random(size) < 0.8, labels, (labels + 1) % 3)
        binary = (labels == 2).astype(np.int64)
        score = binary + rng.standard_normal(size)
        (fl, nl, tl), (fp, np_, tp) = _conv(labels), _conv(pred)
        (fb, nb, tb), (fs, ns, ts) = _conv(binary), _conv(score)
        out.append(_case(
            f"sklearn accuracy_score {size:,}",
            with_dispatch(True, lambda fl=fl, fp=fp: metrics.accuracy_score(fl, fp)),
            with_dispatch(False, lambda nl=nl, np_=np_: metrics.accuracy_score(nl, np_)),
            tl is not None and with_dispatch(
                True, lambda tl=tl, tp=tp: metrics.accuracy_score(tl, tp))))
        out.append(_case(
            f"sklearn roc_auc_score {size:,}",
            with_dispatch(True, lambda fb=fb, fs=fs: metrics.roc_auc_score(fb, fs)),
            with_dispatch(False, lambda nb=nb, ns=ns: metrics.roc_auc_score(nb, ns)),
            tb is not None and with_dispatch(
                True, lambda tb=tb, ts=ts: metrics.roc_auc_score(tb, ts))))
    return out


def _as_numpy(r):
    if isinstance(r, (tuple, list)):
        return tuple(x for item in r for x in _as_numpy(item))
    if torch is not None and isinstance(r, torch.Tensor):
        return (r.numpy(),)
    return (np.asarray(r),)


def _mismatch(result, reference, unordered=False):
    a, b = _as_numpy(result), _as_numpy(reference)
    if len(a) != len(b):
        return f"{len(a)} results vs {len(b)}"
    if unordered:  # NumPy's unique_values hashes: its order is not sorted
        a, b = tuple(np.sort(v) for v in a), tuple(np.sort(v) for v in b)
    for x, y in zip(a, b):
        if x.shape != y.shape or not np.allclose(x, y, rtol=1e-12, atol=0, equal_nan=True):
            return "values differ"
    return ""


def bench(cases, repeat, min_batch):
    rows = []
    peers = present(BACKENDS[1:])
    table = Table(["case", "flexarray", *peers, *(f"{p}/flexarray" for p in peers)])
    for name, funcs, check in cases:
        calls, status = {}, {}
        reference = None
        for b in ("numpy", "flexarray", "torch"):  # warm up, check, calibrate
            if b not in funcs:
                continue
            f = funcs[b]
            try:
                r = f()
                number = calibrate(f, min_batch)
            except Exception as e:  # noqa: BLE001 (reported in the table)
                status[b] = type(e).__name__
                continue
            if b == "numpy":
                reference = r
            elif check and b == "flexarray" and reference is not None:
                if msg := _mismatch(r, reference, name.startswith("unique_values")):
                    status[b] = "MISMATCH"
                    print(f"  {name}: flexarray {msg}", file=sys.stderr)
            calls[b] = batch(f, number)
        med = median(rounds(calls, repeat))  # every backend once per round, order rotated
        row = {"name": name, "time": med, "status": status}
        cells = [fmt(med[b]) if b in med else status.get(b, "-") for b in ("flexarray", *peers)]
        if status.get("flexarray"):
            cells[0] += f" **{status['flexarray']}**"
        ratios = []
        for p in peers:
            r = med[p] / med["flexarray"] if p in med and "flexarray" in med else None
            if r is not None:
                row[f"{p}/flexarray"] = r
            ratios.append(fmt_ratio(r, bold_below=0.9))
        table.row(name, *cells, *ratios)
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--min-batch", type=float, default=0.01,
                    help="seconds per timed batch (calls are looped to reach it)")
    ap.add_argument("--only", help="run the cases whose name contains this")
    ap.add_argument("--json", help="write the rows to this JSON file")
    ap.add_argument("--no-e2e", action="store_true", help="skip SciPy/scikit-learn")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    cases = (sort_cases(rng) + search_cases(rng) + set_cases(rng)
             + cumsum_mask_take_cases(rng) + ([] if args.no_e2e else e2e_cases(rng)))
    if args.only:
        cases = [c for c in cases if args.only in c[0]]
    print(f"medians of {args.repeat} rounds; ratios peer / flexarray (above 1: flexarray "
          f"faster; bold below 0.9)\n")
    rows = bench(cases, args.repeat, args.min_batch)
    write_json(args.json, {"meta": meta(repeat=args.repeat, min_batch=args.min_batch),
                           "rows": rows})


if __name__ == "__main__":
    main()

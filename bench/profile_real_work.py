"""Profile one workload of bench_real_work.py with cProfile (flexarray backend by default).

    PYTHONPATH=. python bench/profile_real_work.py "Ridge.fit" --size medium [--calls 20]
        [--backend flexarray|numpy|numpy-api|torch|strict] [--sort tottime] [--top 30]
        [--callers REGEX]

Prints the top functions by own time and the call counts of flexarray's functions.
"""
import argparse
import cProfile
import os
import pstats
import sys

sys.path.insert(0, os.path.dirname(__file__))
import bench_real_work as brw  # noqa: E402  (sets SCIPY_ARRAY_API before scipy)
import sklearn  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", help="substring of the workload name")
    ap.add_argument("--size", default="small", choices=list(brw.SIZES))
    ap.add_argument("--backend", default="flexarray")
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--callers", help="also print who calls functions matching this")
    args = ap.parse_args()
    import warnings
    warnings.simplefilter("ignore")
    (name, func, _), = [w for w in brw.WORKLOADS if args.workload in w[0]][:1]
    ns, conv, dispatch = brw.backends()[args.backend]
    d = {k: conv(v) for k, v in brw.make_data(*brw.SIZES[args.size]).items()}
    sklearn.set_config(array_api_dispatch=dispatch)
    func(ns, d)  # warm up
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.calls):
        func(ns, d)
    prof.disable()
    print(f"{name} [{args.size}] on {args.backend}, {args.calls} calls")
    st = pstats.Stats(prof).strip_dirs().sort_stats(args.sort)
    st.print_stats(args.top)
    if args.callers:
        st.print_callers(args.callers)


if __name__ == "__main__":
    main()

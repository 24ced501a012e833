"""Plot bench_real_work.py's JSON: time of each backend relative to NumPy, per workload,
one panel per size (log scale; left of 1 is faster than NumPy).

    python bench/plot_real_work.py [bench/results/real_work.json [bench/results/real_work.png]]

Without arguments it reads and writes the files in bench/results/.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
COLORS = {"flexarray": "tab:blue", "numpy-api": "tab:green", "torch": "tab:orange",
          "strict": "tab:gray"}


def main(src=os.path.join(RESULTS, "real_work.json"),
         dst=os.path.join(RESULTS, "real_work.png")):
    with open(src) as f:
        res = json.load(f)
    sizes = list(res["meta"]["sizes"])
    names = [r["name"] for r in res["rows"] if r["size"] == sizes[0]]
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 0.32 * len(names) + 1.6),
                             sharey=True, squeeze=False)
    for ax, size in zip(axes[0], sizes):
        rows = {r["name"]: r for r in res["rows"] if r["size"] == size}
        height = 0.8 / len(COLORS)
        for k, (b, color) in enumerate(COLORS.items()):
            ys, xs = [], []
            for i, name in enumerate(names):
                t = rows.get(name, {}).get("time", {})
                if b in t and "numpy" in t:
                    ys.append(i + (k - (len(COLORS) - 1) / 2) * height)
                    xs.append(t[b] / t["numpy"])
            ax.barh(ys, xs, height=height, color=color, label=b, left=0)
        for i, name in enumerate(names):  # mark mismatches and errors of flexarray
            r = rows.get(name, {})
            if r.get("status", {}).get("flexarray"):
                ax.text(1.0, i, " ! vs NumPy", color="red", va="center", fontsize=7)
        ax.axvline(1.0, color="black", lw=1)
        ax.set_xscale("log")
        ax.set_xlim(0.1, 20)
        n, p = res["meta"]["sizes"][size]
        g = res["summary"][size]["geomean_ratio"]
        ax.set_title(f"{size}: {n:,} x {p} (flexarray geomean {g:.2f}x NumPy time)", fontsize=9)
        ax.set_xlabel("time / NumPy time (log; < 1 is faster than NumPy)")
        ax.grid(axis="x", which="both", alpha=0.3)
    axes[0][0].set_yticks(range(len(names)), names, fontsize=7)
    axes[0][0].invert_yaxis()
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.suptitle(f"scikit-learn / SciPy real work, median of {res['meta']['repeat']} rounds",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main(*sys.argv[1:3])

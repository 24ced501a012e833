"""Plot bench_fusion.py's JSON: each contender's time as a multiple of the chain's
bandwidth limit (read every input once, write the result once), per chain, one panel per
size (log scale; 1 is the limit, left of it faster than the bandwidth measured).

    python bench/plot_fusion.py [bench/results/fusion.json [bench/results/fusion.png]]

Without arguments it reads and writes the files in bench/results/.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
COLORS = {"flexarray": "tab:blue", "off": "lightsteelblue", "numpy": "tab:green",
          "numexpr": "tab:purple", "torch": "tab:orange"}
LABELS = {"flexarray": "flexarray (fused)", "off": "flexarray, fusion off"}


def main(src=os.path.join(RESULTS, "fusion.json"), dst=os.path.join(RESULTS, "fusion.png")):
    with open(src) as f:
        res = json.load(f)
    sizes = sorted({r["n"] for r in res["rows"]})
    names = [r["chain"] for r in res["rows"] if r["n"] == sizes[0]]
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 0.36 * len(names) + 1.8),
                             sharey=True, squeeze=False)
    height = 0.8 / len(COLORS)
    for ax, n in zip(axes[0], sizes):
        rows = {r["chain"]: r for r in res["rows"] if r["n"] == n}
        for k, (b, color) in enumerate(COLORS.items()):
            ys, xs = [], []
            for i, name in enumerate(names):
                r = rows.get(name, {})
                if r.get(b):
                    ys.append(i + (k - (len(COLORS) - 1) / 2) * height)
                    xs.append(r[b] / r["limit"])
            ax.barh(ys, xs, height=height, color=color, label=LABELS.get(b, b))
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.axvline(1.5, color="black", linewidth=0.8, linestyle=":")
        ax.set_xscale("log")
        ax.set_title(f"{n:,} float64 elements per operand")
        ax.set_xlabel("time / bandwidth limit (dotted: 1.5x)")
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names)
        ax.invert_yaxis()
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main(*sys.argv[1:3])

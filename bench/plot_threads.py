"""Plot bench_threads.py's JSON: time per element against size, one panel per operation,
flexarray on one thread, flexarray's default thread count and NumPy (solid: second core
idle, dashed: busy).

    python bench/plot_threads.py [bench/results/threads.json [bench/results/threads.png]]

Without arguments it reads and writes the files in bench/results/.
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
STYLE = {"one": ("flexarray, 1 thread", "tab:blue"), "default": ("flexarray, default", "tab:red"),
         "forced": ("flexarray, 2 threads always", "tab:gray"), "numpy": ("NumPy", "tab:green")}


def main(src=os.path.join(RESULTS, "threads.json"), dst=os.path.join(RESULTS, "threads.png")):
    with open(src) as f:
        data = json.load(f)
    by_op = {}
    for row in data["results"]:
        by_op.setdefault(row["op"], []).append(row)
    ncol = 4
    nrow = math.ceil(len(by_op) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4 * ncol, 3 * nrow), squeeze=False)
    for ax, (op, rows) in zip(axes.flat, by_op.items()):
        sizes = [r["n"] for r in rows]
        for cond, ls in (("idle", "-"), ("busy", "--")):
            if cond not in rows[0]:
                continue
            for cfg in data["configs"]:
                label, color = STYLE[cfg]
                ns = [r[cond]["median"][cfg] / r["n"] * 1e9 for r in rows]
                ax.plot(sizes, ns, ls, color=color, lw=1.2,
                        label=f"{label} ({cond})")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{op} ({rows[0]['kind']})", fontsize=9)
        ax.set_xlabel("elements", fontsize=8)
        ax.set_ylabel("ns per element", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(by_op):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels) // 2, fontsize=8)
    fig.suptitle("flexarray threads: 1 thread vs default vs NumPy (solid: second core idle, "
                 "dashed: a process spinning on it)", fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(dst, dpi=90)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main(*sys.argv[1:3])

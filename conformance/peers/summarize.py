"""Per-module results of peer runs, as a Markdown table: flexarray beside the references.

    python conformance/peers/summarize.py sklearn.xml [more.xml ...]

Reads pytest JUnit XML files (``--junitxml``) of ``conformance/peers/run`` (later files win
for a test that appears in several) and counts, per
top-level test package (``special``, ``stats``, ...) and backend (the test id's namespace
parameter), passed / failed (failures and errors) / skipped / xfailed tests.
"""
import collections
import re
import sys
import xml.etree.ElementTree as ET

BACKENDS = ("flexarray", "array_api_strict", "numpy")


def outcomes(paths):
    """Counts per (module, backend); a test in several files counts as in the last one."""
    latest = {}
    for path in paths:
        for tc in ET.parse(path).getroot().iter("testcase"):
            m = re.search(r"\b(" + "|".join(BACKENDS) + r")\b", tc.get("name", ""))
            if not m:
                continue
            out = "passed"
            for child in tc:
                if child.tag in ("failure", "error"):
                    out = "failed"
                elif child.tag == "skipped":
                    out = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
            module = (tc.get("classname") or "").split(".")[0]
            latest[(tc.get("classname"), tc.get("name"))] = (module, m.group(1), out)
    counts = collections.defaultdict(collections.Counter)
    for module, backend, out in latest.values():
        counts[(module, backend)][out] += 1
    return counts


def table(counts):
    modules = sorted({m for m, _ in counts})
    backends = [b for b in BACKENDS if any(b == be for _, be in counts)]
    head = "| module | " + " | ".join(f"{b}: passed / failed / skipped / xfailed"
                                        for b in backends) + " |"
    rows = [head, "|---" * (len(backends) + 1) + "|"]
    total = {b: collections.Counter() for b in backends}
    for m in modules:
        cells = []
        for b in backends:
            c = counts.get((m, b), collections.Counter())
            total[b].update(c)
            cells.append(f"{c['passed']} / {c['failed']} / {c['skipped']} / {c['xfailed']}")
        rows.append(f"| {m} | " + " | ".join(cells) + " |")
    rows.append("| **all** | " + " | ".join(
        f"**{t['passed']} / {t['failed']} / {t['skipped']} / {t['xfailed']}**"
        for t in total.values()) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table(outcomes(sys.argv[1:])))

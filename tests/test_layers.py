"""The package's layers import downward only, with no cycle (read from the source with ast).

Layers, bottom to top (docs/architecture.md draws them):

0. settings and memory: the gate table, the result-memory pool
1. kernels: ``flexarray._kernels`` (Numba; below the array object, so they see NumPy only),
   the one thread pool they run on (``_threads``: its helpers poll with a kernel), and
   NumPy's BLAS on that pool (``_blas``)
2. storage: dtypes, the device, buffers and copy-on-write
3. the array object
4. engine choice and argument checks: ``_engines.dispatch``, ``_helpers``
5. the standard's chapters, one module each (they do not import each other)
6. operators and NumPy's protocols, installed on the array from one table
7. extensions: ``linalg``, ``fft``, ``nn``; NumPy-named extensions (``_extensions``,
   ``lib``) and the Dask registration
8. the namespace (``flexarray/__init__.py``) and the tour

Every import counts, function-level ones included: a lazy import that goes upward is still
a cycle in the design.
"""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "flexarray"

CHAPTERS = ["_creation", "_data_type_functions", "_elementwise", "_indexing", "_info",
            "_linear_algebra", "_manipulation", "_searching", "_sets", "_sorting",
            "_statistical", "_utility"]

#: module (or package prefix) -> layer; the longest matching prefix wins
LAYERS = {
    "flexarray._version": 0, "flexarray._engines": 0, "flexarray._engines.gates": 0,
    "flexarray._memory": 0,
    "flexarray._kernels": 1, "flexarray._threads": 1, "flexarray._blas": 1,
    "flexarray._dtypes": 2, "flexarray._device": 2, "flexarray._buffer": 2,
    "flexarray._array": 3,
    "flexarray._engines.dispatch": 4, "flexarray._helpers": 4, "flexarray._special": 4,
    "flexarray._reductions": 4,
    "flexarray._engines.nn": 4,
    "flexarray._engines.nn": 4,
    **{f"flexarray.{c}": 5 for c in CHAPTERS},
    "flexarray._protocols": 6,
    "flexarray.linalg": 7, "flexarray.fft": 7, "flexarray.nn": 7,
    "flexarray._extensions": 7, "flexarray.lib": 7, "flexarray._dask": 7,
    "flexarray": 8, "flexarray.__main__": 8,
}


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(mod: str) -> int:
    probe = mod
    while probe not in LAYERS:
        probe = probe.rpartition(".")[0]
    return LAYERS[probe]


def imports(path: pathlib.Path):
    """The flexarray modules ``path`` imports (``from X import y`` counts X.y when X.y is
    a module), with their line numbers."""
    mod = module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.startswith("flexarray")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = ".".join(base[:len(base) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("flexarray"):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                is_module = (ROOT.parent / (sub.replace(".", "/") + ".py")).exists() or \
                    (ROOT.parent / sub.replace(".", "/") / "__init__.py").exists()
                found.append((sub if is_module else target, node.lineno))
    return found


SOURCES = sorted(ROOT.rglob("*.py"))
GRAPH = {module_name(p): imports(p) for p in SOURCES}


def test_every_module_has_a_layer():
    for mod in GRAPH:
        layer(mod)  # raises KeyError for a module outside the map


@pytest.mark.parametrize("mod", sorted(GRAPH))
def test_imports_go_downward_only(mod):
    here = layer(mod)
    upward = [(target, line) for target, line in GRAPH[mod]
              if layer(target) > here and not mod.startswith(target + ".")]
    assert not upward, (f"{mod} (layer {here}) imports upward: "
                        + ", ".join(f"{t} (layer {layer(t)}, line {n})" for t, n in upward))


def test_chapter_modules_do_not_import_each_other():
    chapters = {f"flexarray.{c}" for c in CHAPTERS}
    sideways = [(m, t) for m in chapters for t, _ in GRAPH[m] if t in chapters and t != m]
    assert not sideways, f"chapter modules import each other: {sideways}"


def test_no_import_cycle():
    edges = {m: {t for t, _ in GRAPH[m] if t in GRAPH and t != m and
                 not m.startswith(t + ".")}  # a submodule running its package's __init__
             for m in GRAPH}
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == "open":
                cycle = stack[stack.index(t):] + [t]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m)


def test_kernels_import_no_flexarray_module_above_them():
    """Kernels see NumPy arrays only: of flexarray they use their own package, the thread
    pool, the gate table and the result-memory pool."""
    for mod, targets in GRAPH.items():
        if mod.startswith("flexarray._kernels"):
            bad = [t for t, _ in targets if layer(t) > 1]
            assert not bad, f"{mod} imports {bad}"

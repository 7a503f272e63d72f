"""The module graph of src/: no import cycles, and the core imports neither Textual nor a front end.

Edges are module-level imports read with `ast` (importing `a.b.c` also runs the packages `a` and
`a.b`); imports under `if TYPE_CHECKING:` and inside functions are left out: they do not run
when the module is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
FRONT_ENDS = ("auger.tui", "auger.headless", "auger.server", "auger.remote", "auger.cli", "auger.hosted")
# what the TUI and headless use of the core: the port, its events, and the text helpers the port
# itself uses (control pictures, counts; a leaf: the standard library only, checked below)
PORT = ("auger.core.port", "auger.core.events", "auger.core.text")


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at import time (into if/try/with blocks, not into TYPE_CHECKING)."""
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _statements(node.orelse)
        elif isinstance(node, ast.If | ast.With):
            yield from _statements(node.body)
            yield from _statements(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _statements(block)
        else:
            yield node


def _imported(name: str, path: Path, *, everywhere: bool = False) -> set[str]:
    """What `name` imports at module level (`everywhere`: also in functions and TYPE_CHECKING)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree) if everywhere else _statements(tree.body):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found |= {module, *(f"{module}.{alias.name}" for alias in node.names)}
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for target in _imported(name, path):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):  # the module and the packages it runs on the way
                prefix = ".".join(parts[:i])
                if prefix in modules and prefix != name and not name.startswith(prefix + "."):
                    edges.add(prefix)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles_in_src() -> None:
    graph = _graph()
    assert len(graph) > 100 and sum(map(len, graph.values())) > 200  # the graph was really read
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_core_imports_neither_textual_nor_a_front_end() -> None:
    modules = _modules()
    bad = {
        name: sorted(t for t in _imported(name, path) if t.startswith(("textual", *FRONT_ENDS)))
        for name, path in modules.items()
        if name.startswith("auger.core")
    }
    assert {name: targets for name, targets in bad.items() if targets} == {}


def _outside_port(target: str) -> bool:
    """`target` (a module, or `module.name` from `from module import name`) is core, not the port."""
    if not target.startswith("auger.core") or target == "auger.core":
        return False
    return target not in PORT and target.rsplit(".", 1)[0] not in PORT


def test_the_ports_text_helpers_are_a_leaf() -> None:
    path = _modules()["auger.core.text"]
    assert [t for t in _imported("auger.core.text", path, everywhere=True) if t.startswith("auger")] == []


def test_the_tui_and_headless_use_only_the_port_of_the_core() -> None:
    """Everything else they need comes through `auger.core.port` (so it works remotely too)."""
    used = {
        name: sorted(filter(_outside_port, _imported(name, path, everywhere=True)))
        for name, path in _modules().items()
        if name.startswith("auger.tui") or name == "auger.headless"
    }
    assert {name: targets for name, targets in used.items() if targets} == {}


def test_no_folder_holds_more_than_15_modules_and_each_has_a_public_init() -> None:
    """A folder that grows past ~15 modules wants sub-packages named for what they hold."""
    folders = {path.parent for path in SRC.rglob("*.py") if "__pycache__" not in path.parts}
    assert len(folders) > 20  # the tree was really read
    crowded = {}
    for folder in folders:
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        if len(modules) > 15:
            crowded[str(folder.relative_to(SRC))] = len(modules)
        init = folder / "__init__.py"
        assert init.exists() and ast.get_docstring(ast.parse(init.read_text())), f"{folder}: no docstring"
    assert crowded == {}

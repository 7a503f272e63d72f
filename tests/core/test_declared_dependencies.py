"""Every library `src/auger` imports is declared in pyproject.toml (the base dependencies, or an
extra for the optional ones), with an upper bound: an undeclared one is a build that works only
while another package happens to bring it."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imported() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "src" / "auger").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "auger"}


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _names(requirement: str) -> set[str]:
    """What a requirement installs by name: `psycopg[binary,pool]` is psycopg, psycopg-pool, ..."""
    name = _name(requirement)
    extras = re.search(r"\[([^\]]*)\]", requirement)
    return {name} | {f"{name}-{e.strip()}" for e in (extras[1].split(",") if extras else [])}


def test_every_imported_library_is_declared_with_an_upper_bound() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {_name(r): r for r in project["dependencies"]}
    optional = project["optional-dependencies"]
    extras = {n for group, reqs in optional.items() if group != "test" for r in reqs for n in _names(r)}
    distributions = packages_distributions()
    missing = []
    for module in sorted(_imported()):
        installed = distributions.get(module) or [module]  # an extra not installed here: its module name
        owners = {d.lower().replace("_", "-") for d in installed}
        if not owners & (set(base) | extras):
            missing.append(f"{module} (from {', '.join(sorted(owners))})")
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
    unbounded = [r for r in base.values() if "<" not in r]
    assert not unbounded, f"declared without an upper bound: {unbounded}"


def test_the_lock_file_satisfies_pyproject() -> None:
    """requirements.lock (what CI installs, scripts/lock.sh) pins a version inside every range
    pyproject.toml declares for the base dependencies and the extras the tests use."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    assert not [line for line in lines if " @ " in line], "a pin by path or URL: run scripts/lock.sh"
    pins = dict(line.split("==", 1) for line in lines if "==" in line)
    pins = {_name(k): v.strip() for k, v in pins.items()}
    optional = project["optional-dependencies"]
    wrong = []
    for text in [*project["dependencies"], *optional["test"], *optional["postgres"], *optional["langgraph"]]:
        req = Requirement(text)
        pinned = pins.get(_name(req.name))
        if pinned is None or not req.specifier.contains(pinned, prereleases=True):
            wrong.append(f"{text}: the lock has {pinned}")
    assert not wrong, f"run scripts/lock.sh: {wrong}"

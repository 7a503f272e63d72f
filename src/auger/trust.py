"""Project trust: one decision per project folder, stored in `$AUGER_HOME/trust.json`.

Until the user trusts a project (`auger trust`, `--trust-project` for one run, the TUI's prompt), the
project's files can only make auger stricter: `screen` says which project settings are ignored
(providers, subagent endpoints and programs, a looser mode, allow rules, a shell or
sandbox the user's own settings turned off, another sandbox provider, key remaps), and the MCP
servers, hooks, Claude `allow` lists and memory imports from outside the project wait for the same
decision.

Trust is kept per project path, not per file content: a change of the project's files does not ask
again. One decision is what the user can reason about; a hash re-asks whenever the user edits their
own config or Claude Code rewrites `.claude/settings.local.json`, which teaches clicking "Trust"
without reading. A trusted folder is code the user already runs (its tests, its Makefile).
Only the standard library is imported here (settings load it).
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

from auger.atomic import write_atomic

TRUST_FILE = "trust.json"
HOW = "trust the project with `auger trust` (or --trust-project for one run, or the prompt in the TUI)"
_MODE_STRICTNESS = {"yolo": 0, "auto-edit": 1, "manual": 2, "plan": 3}
# a project's key remaps could make a common key answer an approval ("approval.always" = "y")
_NEEDS_TRUST = (
    ("providers",),
    ("async_subagents",),
    ("acp_agents",),
    ("permissions", "allow"),
    ("tui", "keys"),
    ("add_dirs",),  # folders outside the project the agent may read and write
    ("web_search",),  # where queries go, and which environment variable's key goes with them
)
_AS_THE_USER_SAYS = {("sandbox", "provider"): "bubblewrap"}  # key -> default: another one is other code
_STRICTER_IF = {  # key -> the value a project may always set (it only tightens)
    ("shell",): False,
    ("sandbox", "enabled"): True,
    ("sandbox", "network"): False,
}


class ProjectTrust:
    """`$AUGER_HOME/trust.json`: `{"projects": {"/abs/root": {"since": unix time}}}`."""

    def __init__(self, home: Path) -> None:
        self.path = Path(home) / TRUST_FILE

    def _read(self) -> dict[str, Any]:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self.path.read_text(encoding="utf-8"))
            projects = data.get("projects") if isinstance(data, dict) else None
            if isinstance(projects, dict):
                return projects
        return {}

    def is_trusted(self, root: Path) -> bool:
        return str(Path(root).resolve()) in self._read()

    def trust(self, root: Path) -> None:
        projects = self._read()
        projects[str(Path(root).resolve())] = {"since": int(time.time())}
        write_atomic(self.path, json.dumps({"projects": projects}, indent=2, sort_keys=True) + "\n")

    def forget(self, root: Path) -> bool:
        projects = self._read()
        if projects.pop(str(Path(root).resolve()), None) is None:
            return False
        write_atomic(self.path, json.dumps({"projects": projects}, indent=2, sort_keys=True) + "\n")
        return True


def is_trusted(home: Path, root: Path, *, once: bool = False) -> bool:
    """Trusted for this run (`once`: `--trust-project`), remembered, or the project is the home
    folder itself (its config is the user's)."""
    return once or Path(root).resolve() == Path.home().resolve() or ProjectTrust(home).is_trusted(root)


def screen(parts: tuple[str, ...], value: Any, data: dict[str, Any]) -> bool:
    """True when an untrusted project may not set `parts` to `value` (`data`: the settings the
    user's own layers gave so far) because it would loosen approvals or change where the
    conversation and keys go."""
    if any(parts[: len(p)] == p for p in _NEEDS_TRUST):
        return True
    current: Any = data
    for part in parts:
        current = current.get(part) if isinstance(current, dict) else None
    if parts == ("mode",):
        return _MODE_STRICTNESS.get(value, 0) < _MODE_STRICTNESS.get(current, 0)
    if parts in _AS_THE_USER_SAYS:
        return bool(value != (_AS_THE_USER_SAYS[parts] if current is None else current))
    if parts in _STRICTER_IF:
        return bool(value != _STRICTER_IF[parts] and value != current)
    return False


def ignored_line(path: Path | str, dotted: str) -> str:
    return f"{path}: {dotted} is ignored: the project is not trusted ({HOW})"


def status_line(settings: Any) -> str:
    """`trusted (root)`, or `not trusted (root)` with how to trust it (`/status`, `auger trust`)."""
    root = Path(settings.project_root)
    if settings.trusted or ProjectTrust(settings.home).is_trusted(root):
        return f"trusted ({root})"
    return f"not trusted ({root}): its files can only make auger stricter; {HOW}"

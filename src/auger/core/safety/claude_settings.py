"""Claude Code's settings files, read for what auger shares with them: hooks and permission rules.

    user           ~/.claude/settings.json
    project        <project root>/.claude/settings.json
    project-local  <project root>/.claude/settings.local.json

Their `hooks` join auger's hooks (`auger.core.hooks.config`; the project's two files run only once
the user trusts them, like `.auger/hooks.json`) and their `permissions.allow|ask|deny` lists join
`[permissions]` (`auger.core.safety.permissions`), in Claude Code's rule syntax (`Bash(git status:*)`,
`Read(./src/**)`, see `auger.core.safety.rules`; a project's `allow` only once the project is
trusted, `auger.trust`). Other keys (`env`, `model`, ...) are
Claude Code's own and ignored. A file that is not JSON, not an object, or holds a rule auger cannot
read is a warning naming the file and what to fix; the rest of it (and every other file) still loads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SETTINGS = "settings.json"
LOCAL_SETTINGS = "settings.local.json"
KINDS = ("allow", "ask", "deny")


@dataclass(frozen=True)
class ClaudeSettings:
    scope: str  # "user" | "project" | "project-local"
    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why the file gives nothing


def settings_paths(project_root: Path | str) -> list[tuple[str, Path]]:
    root, user = Path(project_root), Path.home() / ".claude" / SETTINGS
    out = [("user", user)]
    for scope, path in (
        ("project", root / ".claude" / SETTINGS),
        ("project-local", root / ".claude" / LOCAL_SETTINGS),
    ):
        if path.resolve() != user.resolve():  # the project is $HOME: its file is the user's
            out.append((scope, path))
    return out


def read_one(scope: str, path: Path) -> ClaudeSettings | None:
    """The file parsed, or with a `problem`; None when it does not exist."""
    try:
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except FileNotFoundError:
        return None
    except OSError as exc:
        problem = f"{path}: cannot read it ({exc.strerror or exc}); it is ignored"
    except UnicodeDecodeError as exc:
        problem = f"{path}: not UTF-8 text (byte {exc.start}); it is ignored"
    except json.JSONDecodeError as exc:
        problem = (
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg}); fix it, until then it is ignored"
        )
    else:
        if isinstance(data, dict):
            return ClaudeSettings(scope, path, data)
        problem = f"{path}: must be a JSON object; it is ignored"
    return ClaudeSettings(scope, path, problem=problem)


def read_settings(project_root: Path | str) -> list[ClaudeSettings]:
    """The Claude settings files that exist, user first."""
    found = (read_one(scope, path) for scope, path in settings_paths(project_root))
    return [f for f in found if f is not None]


def permission_rules(
    files: list[ClaudeSettings], *, trusted: bool = True
) -> tuple[dict[str, list[str]], list[str]]:
    """(`{allow|ask|deny: [rule, ...]}`, warnings) from the files' `permissions` tables; a rule that
    does not parse is left out with a warning naming the file and the rule. The `allow` lists of an
    untrusted project's files are left out too (`auger.trust`): they would loosen approvals."""
    from auger.core.safety.rules import RuleError, parse_rule
    from auger.trust import ignored_line

    rules: dict[str, list[str]] = {kind: [] for kind in KINDS}
    warnings: list[str] = []
    for file in files:
        table = file.data.get("permissions")
        if table is None:
            continue
        if not isinstance(table, dict):
            warnings.append(f"{file.path}: `permissions` must be an object; its rules are ignored")
            continue
        for kind in KINDS:
            items = table.get(kind) or []
            if not isinstance(items, list):
                warnings.append(f"{file.path}: permissions.{kind} must be a list of rules; it is ignored")
                continue
            if kind == "allow" and items and not trusted and file.scope != "user":
                warnings.append(ignored_line(file.path, "permissions.allow"))
                continue
            for item in items:
                try:
                    parse_rule(str(item))
                except RuleError as exc:
                    warnings.append(f"{file.path}: permissions.{kind}: {exc.message} That rule is ignored.")
                    continue
                rules[kind].append(str(item))
    return rules, warnings


def load_warnings(project_root: Path | str, *, trusted: bool = True) -> list[str]:
    """Problems of the Claude settings files (shown once, on the first turn)."""
    files = read_settings(project_root)
    return [*(f.problem for f in files if f.problem), *permission_rules(files, trusted=trusted)[1]]

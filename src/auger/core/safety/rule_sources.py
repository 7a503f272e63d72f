"""The permission rules in force and where each comes from, for `/permissions`; adding and
removing one in auger's own config files (and in the running engine at once).

Sources: the user's `config.toml`, the project's `.auger/config.toml` (a trusted project's),
Claude Code's settings files, rules added in this process, and the thread's "always allow"
grants. Claude's files are the user's to edit: a rule there is named with its file, not removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.safety.permissions import KINDS
from auger.core.safety.rules import parse_rule
from auger.errors import ConfigError

if TYPE_CHECKING:
    from auger.core.safety.permissions import PermissionEngine
    from auger.settings import Settings


@dataclass(frozen=True)
class RuleSource:
    kind: str  # allow | ask | deny
    rule: str
    source: str  # a file's path, "this session" or "this thread (always allow)"


def _auger_files(settings: Settings) -> list[tuple[Path, dict[str, Any]]]:
    from auger.settings import project_config_path, read_toml, user_config_path

    files = [user_config_path(Path(settings.home))]
    if settings.trusted:
        files.append(project_config_path(Path(settings.project_root)))
    return [(path, read_toml(path) or {}) for path in files]


def _listed(data: dict[str, Any], key: str, kind: str) -> list[str]:
    table = data.get(key)
    items = table.get(kind) if isinstance(table, dict) else None
    return [str(item) for item in items] if isinstance(items, list) else []


def rules_in_force(settings: Settings, engine: PermissionEngine, grants: set[str]) -> list[RuleSource]:
    """Every rule the engine applies, with its source, then the thread's grants."""
    from auger.core.safety.claude_settings import read_settings

    where: dict[tuple[str, str], str] = {}
    for claude in reversed(read_settings(settings.project_root)):
        for kind in KINDS:
            for rule in _listed(claude.data, "permissions", kind):
                where[(kind, rule)] = str(claude.path)
    for path, data in reversed(_auger_files(settings)):
        for kind in KINDS:
            for rule in _listed(data, "permissions", kind):
                where[(kind, rule)] = str(path)
    found = [
        RuleSource(kind, rule.text, where.get((kind, rule.text), "this session"))
        for kind in KINDS
        for rule in engine.rules[kind]
    ]
    return found + [RuleSource("allow", g, "this thread (always allow)") for g in sorted(grants)]


def remove_rule(settings: Settings, engine: PermissionEngine, kind: str, rule: str) -> str:
    """Take `rule` out of auger's config files that list it and out of the running engine."""
    from auger.core.safety.claude_settings import read_settings
    from auger.settings import write_atomic

    if kind not in KINDS:
        raise ConfigError(f"unknown permission list {kind!r}", hint=f"Use one of: {', '.join(KINDS)}.")
    import tomli_w

    changed = []
    for path, data in _auger_files(settings):
        items = _listed(data, "permissions", kind)
        if rule in items:
            data["permissions"][kind] = [item for item in items if item != rule]
            write_atomic(path, tomli_w.dumps(data))
            changed.append(str(path))
    files = read_settings(settings.project_root)
    claude = [str(f.path) for f in files if rule in _listed(f.data, "permissions", kind)]
    if claude:
        raise ConfigError(
            f"{kind} rule {rule!r} is in Claude Code's settings: {', '.join(claude)}.",
            hint="Edit that file (auger reads it; it does not write it).",
        )
    before = len(engine.rules[kind])
    engine.rules[kind] = [r for r in engine.rules[kind] if r.text != rule]
    if not changed and len(engine.rules[kind]) == before:
        raise ConfigError(f"no {kind} rule {rule!r}.", hint="/permissions lists the rules in force.")
    return f"Removed {kind} rule {rule}" + (f" from {', '.join(changed)}." if changed else " (this session).")


def add_in_force(settings: Settings, engine: PermissionEngine, kind: str, rule: str, scope: str) -> str:
    """`add_rule` to the project's (or user's) config, and to the running engine at once."""
    from auger.core.safety.permissions import add_rule

    parse_rule(rule)
    if kind == "allow" and scope == "project" and not settings.trusted:
        raise ConfigError(
            "this project is not trusted, so allow rules in its config are not read.",
            hint="Add it for you everywhere (--user), or trust the project first (`auger trust`).",
        )
    path = add_rule(settings, kind, rule, scope=scope)
    if rule not in [r.text for r in engine.rules[kind]]:
        engine.add(kind, rule)
    return f"Added {kind} rule {rule} to {path}."

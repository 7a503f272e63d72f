"""Permissions: `[permissions]` `allow` / `ask` / `deny` lists on top of the approval mode.

Rules are `TOOL` or `TOOL(PATTERN)`; their syntax and matching live in
`auger.core.safety.rules`. This module orders them into one verdict per call and writes the
rule an "always allow" grants (`rule_for_call`).

Order: **deny** (any matching rule; a file path outside the project) > **plan mode** (refuses
what is not read-only, `auger.core.safety.plan_mode`) > **ask** (protected paths: a
write/edit/delete under `.git/`, `.auger/`, `~/.ssh` or AUGER_HOME — by a file tool, judged by
the host file its path reaches through the mounts (`auger.core.safety.host_paths`), or by a shell command
(`auger.core.safety.written_paths`); then ask rules) > **allow** (allow rules and "always allow"
grants of this thread) > the **approval mode**. Every verdict names the rule or mode that decided.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from auger.core.agent.context import FILE_EDIT_TOOLS
from auger.core.safety import shell_parser as shellparse
from auger.core.safety.host_paths import PROTECTED_NAMES, AgentPaths, ProtectedPaths, Route
from auger.core.safety.plan_mode import PLAN_MODE, PLAN_TOOL, plan_only
from auger.core.safety.rules import (
    FILE_TOOLS,
    Rule,
    RuleError,
    Subject,
    call_path,
    covers,
    escape,
    has_wildcard,
    norm_pattern_path,
    parse_rule,
    path_regex,
    subject_for,
    touches,
)
from auger.core.safety.written_paths import ShellWrites
from auger.errors import ConfigError

if TYPE_CHECKING:
    from auger.settings import Settings

Action = Literal["allow", "ask", "deny"]
KINDS = ("allow", "ask", "deny")
# first words after which a command's prefix says little about what it does: always-allow the exact command
_RUNNERS = frozenset(
    {"python", "python3", "node", "ruby", "perl", "php", "deno", "bun", "sh", "bash", "zsh", "eval", "exec"}
    | {"npx", "uvx", "pipx", "xargs", "env", "sudo", "doas", "find", "awk", "sed", "rm", "mv", "cp", "chmod"}
)
_SUBCOMMAND = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@dataclass(frozen=True)
class Verdict:
    action: Action
    reason: str  # e.g. 'deny rule "execute(rm -rf *)"' or "mode 'manual' asks before execute"
    rules: tuple[str, ...] = ()
    by: Literal["mode", "rule", "protected", "grant", "hook", "turn", "plan", "paths"] = (
        "mode"  # what decided
    )


def rule_for_call(name: str, args: Mapping[str, Any], mcp: tuple[str, str] | None = None) -> str:
    """A rule that matches this call (and calls like it) when added to `allow`: MCP tools by
    `server:tool`, commands by their prefix (`git status *`) or, when that says too little
    (compound commands, interpreters), exactly; file tools by the file's folder (`src/**`),
    fetch_url by the URL's host (`fetch_url(domain:example.com)`)."""
    if mcp is not None:
        return f"{mcp[0]}:{mcp[1]}"
    if name == "execute":
        return f"execute({_command_pattern(str(args.get('command') or ''))})"
    if name in FILE_TOOLS:
        return f"{name}({_path_pattern(call_path(name, args))})"
    if name == "fetch_url" and (host := urlsplit(str(args.get("url") or "")).hostname):
        return f"fetch_url(domain:{host})"
    if name == "task" and args.get("subagent_type"):
        return f"task({escape(str(args['subagent_type']))})"
    return name


def _path_pattern(raw: str) -> str:
    if raw.startswith("~"):
        real = os.path.normpath(os.path.expanduser(raw))
        return "//" + escape(real.lstrip("/"))
    rel = norm_pattern_path(raw)
    folder = posixpath.dirname(rel)
    if folder and folder != "." and not folder.startswith(".."):
        return f"{escape(folder)}/**"
    return escape(rel)


def _command_pattern(command: str) -> str:
    exact = escape(shellparse.canonical(command))
    segments = shellparse.analyse(command)
    if len(segments) != 1 or segments[0].transparent or segments[0].hidden:
        return exact
    words = segments[0].command.split(" ")
    if words[0] in _RUNNERS or not _SUBCOMMAND.match(words[0]):
        return exact
    prefix = [words[0]]
    if len(words) > 1 and _SUBCOMMAND.match(words[1]):
        prefix.append(words[1])
    return escape(" ".join(prefix)) + " *"


# --- the engine -----------------------------------------------------------------------------------


def _parse_all(texts: Iterable[str], kind: str) -> list[Rule]:
    rules = []
    for text in texts:
        try:
            rules.append(parse_rule(text))
        except RuleError as exc:
            raise RuleError(f"[permissions] {kind}: {exc}", hint=exc.hint) from None
    return rules


class PermissionEngine:
    """The rules of one session (user + project config) and the protected paths."""

    def __init__(
        self,
        allow: Iterable[str] = (),
        ask: Iterable[str] = (),
        deny: Iterable[str] = (),
        *,
        root: Path | str = ".",
        protected: Iterable[Path | str] = (),
        routes: Iterable[Route] = (),
    ) -> None:
        lists = (allow, ask, deny)
        self.rules: dict[str, list[Rule]] = {k: _parse_all(t, k) for k, t in zip(KINDS, lists, strict=True)}
        self.paths = AgentPaths(root, routes)  # which host file a file tool's path is
        self.protected = ProtectedPaths(root, [os.path.expanduser("~/.ssh"), *protected])
        self.shell_writes = ShellWrites(self.protected)

    @classmethod
    def from_settings(cls, settings: Any) -> PermissionEngine:
        from auger.core.backends.mounts import mount_routes
        from auger.core.safety.claude_settings import permission_rules, read_settings

        table = settings.data.get("permissions") or {}
        claude, _ = permission_rules(
            read_settings(settings.project_root), trusted=settings.trusted
        )  # warned later
        return cls(
            *([*(table.get(kind) or ()), *claude[kind]] for kind in KINDS),
            root=settings.project_root,
            protected=[settings.home],
            routes=mount_routes(settings),
        )

    def add(self, kind: str, rule: str) -> None:
        self.rules[kind].append(parse_rule(rule))

    def protected_reason(self, sub: Subject) -> str | None:
        if sub.name == "execute":
            return self.shell_writes.reason(sub.command or "")
        if sub.name not in FILE_EDIT_TOOLS or sub.host_path is None:
            return None  # reading never asks; a path the tool refuses writes nothing
        return self._file_reason(sub, sub.host_path)

    def _file_reason(self, sub: Subject, host: str) -> str | None:
        folder = self.protected.folder(host, glob=False)
        if folder is not None:
            return f"protected path ({folder}/)"
        if sub.name != "delete":
            return None
        taken = self.protected.taken(host)  # delete removes a folder with all it holds
        if taken is not None:
            return f"protected path ({taken}/): delete {self.protected.show(host)} takes {taken}/ with it"
        rel = sub.agent_path or ""
        if has_wildcard(rel) and any(
            path_regex(part).fullmatch(name) for part in rel.split("/") for name in PROTECTED_NAMES
        ):
            return "protected path (a wildcard delete that can reach .git/ or .auger/)"
        return None

    def denial(
        self, name: str, args: Mapping[str, Any], mcp: tuple[str, str] | None = None
    ) -> Verdict | None:
        """The deny verdict for this call: a deny rule matches it, or its path is outside the project."""
        sub = subject_for(name, args, self.paths, mcp)
        return self._rule("deny", sub) or _outside(sub)

    def _rule(self, kind: Action, sub: Subject) -> Verdict | None:
        """The verdict of the first `kind` rule that touches the call."""
        hit = next((r for r in self.rules[kind] if touches(r, sub)), None)
        return Verdict(kind, f'{kind} rule "{hit.text}"', (hit.text,), "rule") if hit else None

    def _ask(self, sub: Subject) -> Verdict | None:
        """A protected path, then an ask rule."""
        protected = self.protected_reason(sub)
        return Verdict("ask", protected, by="protected") if protected is not None else self._rule("ask", sub)

    def evaluate(
        self,
        name: str,
        args: Mapping[str, Any],
        *,
        mode: str,
        gated: bool,
        grants: Iterable[str] = (),
        mcp: tuple[str, str] | None = None,
    ) -> Verdict:
        """deny > plan mode > ask (protected paths, ask rules) > allow (rules, grants) > approval
        mode. An MCP tool (`mcp`) that is not `gated` is a read-only one."""
        sub = subject_for(name, args, self.paths, mcp)
        first = (
            self._rule("deny", sub)
            or _outside(sub)
            or plan_verdict(name, mode, mcp_read_only=mcp is not None and not gated)
            or self._ask(sub)
        )
        if first is not None:
            return first
        used = covers(self.rules["allow"], sub)
        if used:
            return Verdict("allow", _named("allow rule", used), used, "rule")
        used = covers(_grant_rules(tuple(grants)), sub)
        if used:
            return Verdict("allow", _named("rule you allowed in this thread", used), used, "grant")
        return mode_verdict(name, mode, gated)


def _outside(sub: Subject) -> Verdict | None:
    return Verdict("deny", sub.outside, by="paths") if sub.outside else None


def _named(what: str, rules: Sequence[str]) -> str:
    quoted = ", ".join(f'"{r}"' for r in rules)
    return f"{what}{'s' if len(rules) > 1 else ''} {quoted}"


@lru_cache(maxsize=256)
def _grant_rules(grants: tuple[str, ...]) -> list[Rule]:
    out = []
    for text in grants:
        try:
            out.append(parse_rule(text))
        except RuleError:
            continue
    return out


def plan_verdict(name: str, mode: str, *, mcp_read_only: bool = False) -> Verdict | None:
    """Plan mode's part: refuse a tool that is not read-only, ask the user about a plan; outside
    plan mode `present_plan` needs nothing (it only says there is no plan to present). None: the
    usual order decides."""
    if name == PLAN_TOOL:
        if mode == PLAN_MODE:
            return Verdict("ask", "the plan is ready for your decision", by="plan")
        return Verdict("allow", f"not in plan mode ({mode})", by="mode")
    if mode != PLAN_MODE or plan_only(name, mcp_read_only=mcp_read_only):
        return None
    return Verdict("deny", f"plan mode (read-only tools only; {name} is not one)", by="plan")


def mode_verdict(name: str, mode: str, gated: bool) -> Verdict:
    planned = plan_verdict(name, mode, mcp_read_only=not gated)  # evaluate() judged it strictly first
    if planned is not None:
        return planned
    if not gated:
        return Verdict("allow", f"{name} needs no approval", by="mode")
    if mode == PLAN_MODE:  # a read-only tool (plan_verdict refused the others): `task`
        return Verdict("allow", f"plan mode runs {name}: its subagents only read too", by="mode")
    if mode == "yolo":
        return Verdict("allow", "mode 'yolo' asks for nothing", by="mode")
    if mode == "auto-edit" and name in FILE_EDIT_TOOLS:
        return Verdict("allow", "mode 'auto-edit' applies file edits", by="mode")
    return Verdict("ask", f"mode '{mode}' asks before {name}", by="mode")


def describe_call(name: str, args: Mapping[str, Any]) -> str:
    """A short human form of a call: the command, the path, or the arguments."""
    if name == "execute":
        return f"`{shellparse.canonical(str(args.get('command') or ''))[:200]}`"
    if name in FILE_TOOLS:
        return call_path(name, args)
    text = json.dumps(dict(args), ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:199] + "…"


def refusal_message(name: str, args: Mapping[str, Any], verdict: Verdict) -> str:
    """What the model reads when a deny rule (or plan mode) refused its call."""
    if verdict.by == "paths":
        return f"Refused: {verdict.reason}."
    if verdict.by == "plan":
        return (
            f"Refused: {name} {describe_call(name, args)} was not run: auger is in plan mode, where only "
            "read-only tools run. Keep exploring with those, then present the plan with present_plan; "
            "the change can be made once the user accepts it."
        )
    return (
        f"Refused: {name} {describe_call(name, args)} was not run because of the {verdict.reason} in the "
        "user's [permissions]. Do not retry it or work around it; if you need it, tell the user."
    )


def add_rule(settings: Settings, kind: str, rule: str, *, scope: str = "project") -> Path:
    """Append `rule` to `[permissions] kind` in the project (or user) config file, atomically,
    keeping every other key; returns the file written. Raises ConfigError on a bad rule or file."""
    import tomli_w

    from auger.settings import project_config_path, read_toml, user_config_path, write_atomic

    if kind not in KINDS:
        raise ConfigError(f"unknown permission list {kind!r}", hint=f"Use one of: {', '.join(KINDS)}.")
    parse_rule(rule)
    path = user_config_path(settings.home) if scope == "user" else project_config_path(settings.project_root)
    data = read_toml(path) or {}
    table = data.setdefault("permissions", {})
    if not isinstance(table, dict) or not isinstance(table.setdefault(kind, []), list):
        raise ConfigError(f"{path}: [permissions] {kind} is not a list.", hint="Fix or remove it first.")
    if rule not in table[kind]:
        table[kind].append(rule)
        write_atomic(path, tomli_w.dumps(data))
    return path

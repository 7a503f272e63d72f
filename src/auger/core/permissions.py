"""Permission rules: `[permissions]` `allow` / `ask` / `deny` lists on top of the approval mode.

A rule is `TOOL` (every call of the tool) or `TOOL(PATTERN)`:

* `execute(PATTERN)` — a glob over a shell command: `*` is any text, `\\*` a literal star, and a
  trailing ` *` (or Claude Code's `:*`) also matches nothing, so `git status *` matches
  `git status`. The command is split into its simple commands (`a && b`, `a; b`, pipes,
  `$(...)`, `sh -c '...'`, see `auger.core.shellparse`) and wrappers (`env X=1`, `timeout 60`,
  `sudo`, `nice`, `command`, ...) are peeled off: a deny/ask rule applies when it matches any
  part (as written or unwrapped); an allow applies only when every part is allowed. A pattern
  without `*` also matches the whole command line exactly.
* file tools (`read_file`, `write_file`, `edit_file`, `delete`, `ls`, `glob`, `grep`) — a path glob
  relative to the project root (`src/**`, `*.md`, `docs/*.txt`; `**` crosses folders, `*` and `?` do
  not; `~/x` patterns are relative to the home folder, `//x` ones absolute), matched on the
  normalised virtual path.
* MCP tools — `server:tool` (or `server:*`); the tool's own name works too.
* `task(TYPE)` matches the subagent type; any other tool's pattern matches any string argument.

Order: **deny** (any matching rule) > **ask** (protected paths: a write/edit/delete under `.git/`,
`.auger/`, `~/.ssh` or AUGER_HOME; then ask rules) > **allow** (allow rules and "always allow"
grants of this thread) > the **approval mode**. Every verdict names the rule or mode that decided.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from auger.core import shellparse
from auger.core.context import FILE_EDIT_TOOLS, GATED_TOOLS
from auger.errors import ConfigError

Action = Literal["allow", "ask", "deny"]
KINDS = ("allow", "ask", "deny")
FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file", "delete", "ls", "glob", "grep"})
PATH_ARG = {"ls": "path", "glob": "path", "grep": "path"}  # the others take `file_path`
PROTECTED_NAMES = (".git", ".auger")
# first words after which a command's prefix says little about what it does: always-allow the exact command
_RUNNERS = frozenset(
    {"python", "python3", "node", "ruby", "perl", "php", "deno", "bun", "sh", "bash", "zsh", "eval", "exec"}
    | {"npx", "uvx", "pipx", "xargs", "env", "sudo", "doas", "find", "awk", "sed", "rm", "mv", "cp", "chmod"}
)
_SUBCOMMAND = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.*-]+(:[A-Za-z0-9_.*-]+)?$")


class RuleError(ConfigError):
    """A rule string that cannot be parsed."""


@dataclass(frozen=True)
class Rule:
    text: str
    tool: str
    pattern: str | None = None

    @property
    def mcp(self) -> tuple[str, str] | None:
        server, sep, tool = self.tool.partition(":")
        return (server, tool) if sep else None


@dataclass(frozen=True)
class Verdict:
    action: Action
    reason: str  # e.g. 'deny rule "execute(rm -rf *)"' or "mode 'manual' asks before execute"
    rules: tuple[str, ...] = ()


def parse_rule(text: str) -> Rule:
    """`TOOL` or `TOOL(PATTERN)` -> Rule; RuleError if malformed."""
    raw = str(text).strip()
    tool, paren, rest = raw.partition("(")
    tool = tool.strip()
    if paren and not rest.endswith(")"):
        raise RuleError(
            f'permission rule "{text}": missing ")" at the end.', hint="Write TOOL or TOOL(PATTERN)."
        )
    if not tool or not _TOOL_NAME.match(tool):
        raise RuleError(
            f'permission rule "{text}": "{tool}" is not a tool name.',
            hint='Write TOOL or TOOL(PATTERN), e.g. "execute(git status *)" or "write_file(src/**)".',
        )
    pattern = rest[:-1] if paren else None
    if pattern is not None and ":" in tool:
        raise RuleError(f'permission rule "{text}": MCP rules (server:tool) take no pattern.')
    return Rule(raw, tool, pattern)


# --- globs ----------------------------------------------------------------------------------------


def escape(text: str) -> str:
    """`text` as a pattern that matches exactly it (`\\`, `*`, `?`, `[` escaped)."""
    return re.sub(r"([\\*?\[])", r"\\\1", text)


def _unescape(pattern: str) -> str:
    return re.sub(r"\\(.)", r"\1", pattern)


def _has_wildcard(pattern: str) -> bool:
    return re.search(r"(?<!\\)(?:\\\\)*[*?]", pattern) is not None


@lru_cache(maxsize=1024)
def _command_regex(pattern: str) -> re.Pattern[str]:
    text = shellparse.canonical(pattern)
    tail = ""
    if text.endswith(":*") and not text.endswith("\\:*"):
        text, tail = text[:-2].rstrip(), "(?: .*)?"
    elif text.endswith(" *") and not text.endswith("\\ *") and text != "*":
        text, tail = text[:-2], "(?: .*)?"
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append(re.escape(text[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "*" else re.escape(c))
        i += 1
    return re.compile("".join(out) + tail, re.DOTALL)


@lru_cache(maxsize=1024)
def _path_regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(c, re.escape(c)))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def _norm_pattern_path(pattern: str) -> str:
    stripped = pattern.lstrip("/")
    return posixpath.normpath(stripped) if stripped else "."


# --- what a call is about ---------------------------------------------------------------------------


@dataclass
class Subject:
    """A tool call seen by the rules: its shell segments, its path, or its MCP identity."""

    name: str
    args: Mapping[str, Any]
    mcp: tuple[str, str] | None = None
    command: str | None = None
    segments: list[shellparse.Segment] | None = None
    rel_path: str | None = None  # project-relative, normalised ("." is the root); None for ~ paths
    real_path: str | None = None
    strings: list[str] = field(default_factory=list)


def call_path(name: str, args: Mapping[str, Any]) -> str:
    key = PATH_ARG.get(name, "file_path")
    value = args.get(key)
    return str(value) if value not in (None, "") else "/"


def subject_for(
    name: str, args: Mapping[str, Any], root: Path, mcp: tuple[str, str] | None = None
) -> Subject:
    sub = Subject(name, args, mcp)
    if name == "execute":
        sub.command = str(args.get("command") or "")
        sub.segments = shellparse.analyse(sub.command)
    elif name in FILE_TOOLS:
        raw = call_path(name, args)
        if raw.startswith("~"):
            sub.real_path = os.path.normpath(os.path.expanduser(raw))
        else:
            stripped = raw.lstrip("/")
            sub.rel_path = posixpath.normpath(stripped) if stripped else "."
            sub.real_path = os.path.normpath(os.path.join(root, sub.rel_path))
    elif name == "task":
        sub.strings = [str(args.get("subagent_type") or "")]
    else:
        sub.strings = [str(v) for v in args.values() if isinstance(v, str)]
    return sub


# --- matching -------------------------------------------------------------------------------------


def _tool_matches(rule: Rule, sub: Subject) -> bool:
    if rule.mcp is not None:
        if sub.mcp is None:
            return False
        server, tool = rule.mcp
        return server == sub.mcp[0] and _command_regex(tool).fullmatch(sub.mcp[1]) is not None
    return rule.tool == sub.name


def _path_matches(pattern: str, sub: Subject) -> bool:
    text = pattern
    host = _host_pattern(text)
    if host is not None:
        return sub.real_path is not None and _path_regex(host).fullmatch(sub.real_path) is not None
    if sub.rel_path is None:
        return False
    return _path_regex(_norm_pattern_path(text)).fullmatch(sub.rel_path) is not None


def _host_pattern(text: str) -> str | None:
    """`~/x` (home) and `//x` (absolute) patterns as an absolute glob; None for project ones."""
    if text == "~" or text.startswith("~/"):
        rest = _norm_pattern_path(text[1:])
        home = escape(os.path.normpath(os.path.expanduser("~")))
        return home if rest == "." else f"{home}/{rest}"
    if text.startswith("//"):
        return "/" + _norm_pattern_path(text) if text.strip("/") else "/"
    return None


def _segment_matches(pattern: str, seg: shellparse.Segment, *, extra: bool) -> bool:
    regex = _command_regex(pattern)
    if seg.opaque and _has_wildcard(pattern):
        forms: Iterable[str] = seg.extra_forms if extra else ()
    else:
        forms = [*seg.forms, *(seg.extra_forms if extra else [])]
    return any(regex.fullmatch(form) for form in forms)


def _whole_matches(pattern: str, command: str, *, wildcard_ok: bool) -> bool:
    if not wildcard_ok and _has_wildcard(pattern):
        return False
    return _command_regex(pattern).fullmatch(shellparse.canonical(command)) is not None


def touches(rule: Rule, sub: Subject) -> bool:
    """Deny/ask semantics: the rule matches the call or any part of it."""
    if not _tool_matches(rule, sub):
        return False
    if rule.pattern is None:
        return True
    if sub.command is not None:
        if _whole_matches(rule.pattern, sub.command, wildcard_ok=True):
            return True
        return any(_segment_matches(rule.pattern, s, extra=True) for s in sub.segments or [])
    if sub.name in FILE_TOOLS:
        return _path_matches(rule.pattern, sub)
    regex = _command_regex(rule.pattern)
    return any(regex.fullmatch(s) for s in sub.strings)


def covers(rules: Sequence[Rule], sub: Subject) -> tuple[str, ...] | None:
    """Allow semantics: the rules that together allow every part of the call, or None."""
    mine = [r for r in rules if _tool_matches(r, sub)]
    for rule in mine:
        if rule.pattern is None:
            return (rule.text,)
    if sub.command is None:
        hit = next((r for r in mine if touches(r, sub)), None)
        return (hit.text,) if hit else None
    for rule in mine:
        if _whole_matches(rule.pattern or "", sub.command, wildcard_ok=False):
            return (rule.text,)
    parts = [s for s in sub.segments or [] if not s.transparent]
    if sub.segments is None or not parts:
        return None
    used: list[str] = []
    for seg in parts:
        hit = next((r for r in mine if _segment_matches(r.pattern or "", seg, extra=False)), None)
        if hit is None:
            return None
        if hit.text not in used:
            used.append(hit.text)
    return tuple(used)


def rule_for_call(name: str, args: Mapping[str, Any], mcp: tuple[str, str] | None = None) -> str:
    """A rule that matches this call (and calls like it) when added to `allow`: MCP tools by
    `server:tool`, commands by their prefix (`git status *`) or, when that says too little
    (compound commands, interpreters), exactly; file tools by the file's folder (`src/**`)."""
    if mcp is not None:
        return f"{mcp[0]}:{mcp[1]}"
    if name == "execute":
        return f"execute({_command_pattern(str(args.get('command') or ''))})"
    if name in FILE_TOOLS:
        return f"{name}({_path_pattern(call_path(name, args))})"
    if name == "task" and args.get("subagent_type"):
        return f"task({escape(str(args['subagent_type']))})"
    return name


def _path_pattern(raw: str) -> str:
    if raw.startswith("~"):
        real = os.path.normpath(os.path.expanduser(raw))
        return "//" + escape(real.lstrip("/")) if real != "/" else "//"
    stripped = raw.lstrip("/")
    rel = posixpath.normpath(stripped) if stripped else "."
    folder = posixpath.dirname(rel)
    if folder and folder != "." and not folder.startswith(".."):
        return f"{escape(folder)}/**"
    return escape(rel)


def _command_pattern(command: str) -> str:
    exact = escape(shellparse.canonical(command))
    segments = shellparse.analyse(command)
    parts = [s for s in segments or [] if not s.transparent]
    if segments is None or len(segments) != 1 or len(parts) != 1 or parts[0].opaque:
        return exact
    words = parts[0].command.split(" ")
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
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.rules: dict[str, list[Rule]] = {
            "allow": _parse_all(allow, "allow"),
            "ask": _parse_all(ask, "ask"),
            "deny": _parse_all(deny, "deny"),
        }
        home_ssh = Path(os.path.expanduser("~/.ssh"))
        self.protected_dirs = [Path(os.path.realpath(p)) for p in (home_ssh, *protected)]

    @classmethod
    def from_settings(cls, settings: Any) -> PermissionEngine:
        table = settings.data.get("permissions") or {}
        return cls(
            table.get("allow") or (),
            table.get("ask") or (),
            table.get("deny") or (),
            root=settings.project_root,
            protected=[settings.home],
        )

    def add(self, kind: str, rule: str) -> None:
        self.rules[kind].append(parse_rule(rule))

    def subject(self, name: str, args: Mapping[str, Any], mcp: tuple[str, str] | None = None) -> Subject:
        return subject_for(name, args, self.root, mcp)

    def protected_reason(self, sub: Subject) -> str | None:
        if sub.name not in FILE_EDIT_TOOLS or sub.real_path is None:
            return None
        rel = sub.rel_path or ""
        parts = rel.split("/")
        if any(part in PROTECTED_NAMES for part in parts):
            return f"protected path ({next(p for p in parts if p in PROTECTED_NAMES)}/)"
        if (
            sub.name == "delete"
            and _has_wildcard(rel)
            and any(_path_regex(part).fullmatch(name) for part in parts for name in PROTECTED_NAMES)
        ):
            return "protected path (a wildcard delete that can reach .git/ or .auger/)"
        real = Path(os.path.realpath(sub.real_path))
        for folder in self.protected_dirs:
            if real == folder or folder in real.parents:
                shown = str(folder).replace(os.path.expanduser("~"), "~", 1)
                return f"protected path ({shown}/)"
        return None

    def denial(
        self, name: str, args: Mapping[str, Any], mcp: tuple[str, str] | None = None
    ) -> Verdict | None:
        """The deny verdict for this call, if a deny rule matches it."""
        sub = self.subject(name, args, mcp)
        hit = next((r for r in self.rules["deny"] if touches(r, sub)), None)
        return Verdict("deny", f'deny rule "{hit.text}"', (hit.text,)) if hit else None

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
        """deny > ask (protected paths, ask rules) > allow (rules, grants) > approval mode."""
        sub = self.subject(name, args, mcp)
        hit = next((r for r in self.rules["deny"] if touches(r, sub)), None)
        if hit is not None:
            return Verdict("deny", f'deny rule "{hit.text}"', (hit.text,))
        protected = self.protected_reason(sub)
        if protected is not None:
            return Verdict("ask", protected)
        hit = next((r for r in self.rules["ask"] if touches(r, sub)), None)
        if hit is not None:
            return Verdict("ask", f'ask rule "{hit.text}"', (hit.text,))
        used = covers(self.rules["allow"], sub)
        if used:
            return Verdict("allow", _named("allow rule", used), used)
        used = covers(_grant_rules(tuple(grants)), sub)
        if used:
            return Verdict("allow", _named("rule you allowed in this thread", used), used)
        return mode_verdict(name, mode, gated)


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


def mode_verdict(name: str, mode: str, gated: bool) -> Verdict:
    if not gated:
        return Verdict("allow", f"{name} needs no approval")
    if mode == "yolo":
        return Verdict("allow", "mode 'yolo' asks for nothing")
    if mode == "auto-edit" and name in FILE_EDIT_TOOLS:
        return Verdict("allow", "mode 'auto-edit' applies file edits")
    return Verdict("ask", f"mode '{mode}' asks before {name}")


def is_gated(name: str, extra: Iterable[str] = ()) -> bool:
    return name in GATED_TOOLS or name in set(extra)


def describe_call(name: str, args: Mapping[str, Any]) -> str:
    """A short human form of a call: the command, the path, or the arguments."""
    if name == "execute":
        return f"`{shellparse.canonical(str(args.get('command') or ''))[:200]}`"
    if name in FILE_TOOLS:
        return call_path(name, args)
    text = json.dumps(dict(args), ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:199] + "…"


def refusal_message(name: str, args: Mapping[str, Any], verdict: Verdict) -> str:
    """What the model reads when a deny rule refused its call."""
    return (
        f"Refused: {name} {describe_call(name, args)} was not run because of the {verdict.reason} in the "
        "user's [permissions]. Do not retry it or work around it; if you need it, tell the user."
    )

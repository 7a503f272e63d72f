"""Permission rules: parsing `TOOL` / `TOOL(PATTERN)` and matching them against a tool call.

* `execute(PATTERN)` — a glob over a shell command: `*` is any text, `\\*` a literal star, and a
  trailing ` *` (or Claude Code's `:*`) also matches nothing, so `git status *` matches
  `git status`. The command is split into its simple commands (`a && b`, `a; b`, pipes,
  `$(...)`, `sh -c '...'`, `find -exec`, read by a bash grammar: `auger.core.safety.shell_parser`)
  and wrappers (`env X=1`, `timeout 60`, `sudo`, `nice`, `time -p`, ...) are peeled off: a
  deny/ask rule applies when it matches any part (as written or unwrapped); an allow applies
  only when every part is allowed, and no wildcard allows a part that cannot be known
  (`$CMD`, `eval "$X"`, `curl x | sh`, a line that does not parse). A pattern
  without `*` also matches the whole command line exactly. For common destructive commands
  (rm, chmod, chown, chgrp, git push/reset/clean/branch/checkout/switch) the rule and the command
  are also compared by what they do (`auger.core.safety.command_forms`): options in any order, cluster
  or spelling (`rm -rf *` = `rm -fr`, `rm -r -f`, `rm -Rf`, `rm --recursive --force`,
  `/bin/rm -rf`, `git push -f` = `git push --force` = `git push origin +main`); a deny/ask rule
  applies when the command has at least the rule's options, an allow only when exactly them.
* file tools (`read_file`, `write_file`, `edit_file`, `delete`, `ls`, `glob`, `grep`) — a path glob
  relative to the project root (`src/**`, `*.md`, `docs/*.txt`; `**` crosses folders, `*` and `?` do
  not), matched on the normalised agent path (`/~auger/AGENTS.md` is `~auger/AGENTS.md`) and on
  the project-relative path of the host file it reaches; `~/x` patterns (relative to the home
  folder) and `//x` ones (absolute) match the host file (`auger.core.safety.host_paths`), before or
  after symlinks — so `write_file(~/.auger/**)` matches `/~auger/AGENTS.md`.
* MCP tools — `server:tool` (or `server:*`), or the tool's name `mcp__server__tool`; the names
  rules used before that (the tool's bare name, `server__tool`) still match it.
* `task(TYPE)` matches the subagent type; `TOOL(domain:HOST)` (`fetch_url(domain:example.com)`)
  the host of the call's `url` and its subdomains; any other pattern matches any string argument.
* Claude Code's rules as users wrote them (`auger.core.safety.claude_tools`): `Bash(git status:*)` is
  `execute(...)`, `Read(./src/**)` applies to read_file, ls, glob and grep, `Edit(...)` to
  edit_file, write_file and delete, `Write`, `Glob`, `Grep`, `LS`, `Task(TYPE)`,
  `mcp__server__tool` (= `server:tool`; `mcp__server` = `server:*`), and `WebFetch(domain:HOST)`:
  any call with a `url` argument on that host or its subdomains.

`touches` is the deny/ask test (the rule matches the call or any part of it), `covers` the allow
test (the rules together allow every part). The engine that orders them is
`auger.core.safety.permissions`.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from auger.core.mcp.names import legacy_names
from auger.core.safety import claude_tools, command_forms
from auger.core.safety import shell_parser as shellparse
from auger.core.safety.host_paths import AgentPaths, OutsideProject, inside, normalise
from auger.errors import ConfigError

FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file", "delete", "ls", "glob", "grep"})
PATH_ARG = {"ls": "path", "glob": "path", "grep": "path"}  # the others take `file_path`
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.*-]+(:[A-Za-z0-9_.*-]+)?$")


class RuleError(ConfigError):
    """A rule string that cannot be parsed."""


@dataclass(frozen=True)
class Rule:
    text: str
    tool: str
    pattern: str | None = None
    also: tuple[str, ...] = ()  # more tools a Claude Code rule applies to (`Read` -> ls, glob, grep)

    @property
    def mcp(self) -> tuple[str, str] | None:
        server, sep, tool = self.tool.partition(":")
        return (server, tool) if sep else None


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
    if (mcp := claude_tools.mcp_rule_tool(tool)) is not None:
        if pattern is not None:
            raise RuleError(f'permission rule "{text}": MCP rules (mcp__server__tool) take no pattern.')
        return Rule(raw, mcp, None, (tool,))  # also the tool's own name (`mcp__server__tool`)
    if pattern is not None and ":" in tool:
        raise RuleError(f'permission rule "{text}": MCP rules (server:tool) take no pattern.')
    aliases = claude_tools.rule_tools(tool)
    if aliases:
        return Rule(raw, aliases[0], pattern, aliases[1:])
    if tool == claude_tools.WEB_FETCH and pattern is not None and not pattern.startswith("domain:"):
        raise RuleError(
            f'permission rule "{text}": WebFetch takes "domain:HOST", e.g. WebFetch(domain:example.com).'
        )
    return Rule(raw, tool, pattern)


# --- globs ----------------------------------------------------------------------------------------


def escape(text: str) -> str:
    """`text` as a pattern that matches exactly it (`\\`, `*`, `?`, `[` escaped)."""
    return re.sub(r"([\\*?\[])", r"\\\1", text)


def has_wildcard(pattern: str) -> bool:
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
def path_regex(pattern: str) -> re.Pattern[str]:
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


def norm_pattern_path(pattern: str) -> str:
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
    segments: list[shellparse.Segment] = field(default_factory=list)
    agent_path: str | None = None  # as the tool normalises it, without the "/" ("." is the root)
    host_path: str | None = None  # the host file (`auger.core.safety.host_paths`); None: the tool refuses it
    rel_path: str | None = None  # host_path relative to the project root, when it lies in it
    outside: str | None = None  # why the path is refused: outside the project (`AgentPaths.agent`)
    strings: list[str] = field(default_factory=list)


def path_key(name: str) -> str | None:
    """The argument holding a file tool's path (`file_path`, or `path` for ls/glob/grep)."""
    return PATH_ARG.get(name, "file_path") if name in FILE_TOOLS else None


def call_path(name: str, args: Mapping[str, Any]) -> str:
    key = PATH_ARG.get(name, "file_path")
    value = args.get(key)
    return str(value) if value not in (None, "") else "/"


def subject_for(
    name: str,
    args: Mapping[str, Any],
    paths: AgentPaths | str | os.PathLike[str],
    mcp: tuple[str, str] | None = None,
) -> Subject:
    """What the rules see of a call; `paths` resolves file paths (a bare root: no mounts)."""
    sub = Subject(name, args, mcp)
    paths = paths if isinstance(paths, AgentPaths) else AgentPaths(paths)
    if name == "execute":
        sub.command = str(args.get("command") or "")
        sub.segments = shellparse.analyse(sub.command)
    elif name in FILE_TOOLS:
        raw = call_path(name, args)
        try:
            normal = paths.agent(raw)
        except OutsideProject as exc:
            normal, sub.outside = normalise(raw), str(exc)
        sub.agent_path = (normal.strip("/") or ".") if normal else None
        sub.host_path = paths.host(raw)
        if sub.host_path is not None and inside(sub.host_path, paths.root):
            sub.rel_path = sub.host_path[len(paths.root) + 1 :] or "."
    elif name == "task":
        sub.strings = [str(args.get("subagent_type") or "")]
    else:
        sub.strings = [str(v) for v in args.values() if isinstance(v, str)]
    return sub


# --- matching -------------------------------------------------------------------------------------


def _tool_matches(rule: Rule, sub: Subject) -> bool:
    if rule.mcp is not None:
        if sub.name in rule.also:  # `mcp__server__tool` written as the tool is named
            return True
        if sub.mcp is None:
            return False
        server, tool = rule.mcp
        return server == sub.mcp[0] and _command_regex(tool).fullmatch(sub.mcp[1]) is not None
    if rule.tool == claude_tools.WEB_FETCH:
        return isinstance(sub.args.get("url"), str)
    if sub.mcp is not None and rule.tool in legacy_names(*sub.mcp):  # a rule from before mcp__ names
        return True
    return rule.tool == sub.name or sub.name in rule.also


def _domain_matches(pattern: str, url: str) -> bool:
    """`domain:example.com` matches that host and its subdomains (`*.example.com` only these)."""
    from urllib.parse import urlsplit

    want = pattern.removeprefix("domain:").strip().lower()
    host = (urlsplit(url if "//" in url else f"//{url}").hostname or "").lower()
    if want.startswith("*."):
        return host.endswith(want[1:])
    return host == want or host.endswith(f".{want}")


def _path_matches(pattern: str, sub: Subject) -> bool:
    """Host patterns (`~/x`, `//x`) against the host file, lexically or after symlinks; project
    patterns against the path as the model wrote it and the host file's project-relative path."""
    host = _host_pattern(pattern)
    if host is not None:
        if sub.host_path is None:
            return False
        regex = path_regex(host)
        return any(
            regex.fullmatch(p) for p in dict.fromkeys([sub.host_path, os.path.realpath(sub.host_path)])
        )
    regex = path_regex(norm_pattern_path(pattern))
    return any(regex.fullmatch(p) for p in (sub.agent_path, sub.rel_path) if p is not None)


def _host_pattern(text: str) -> str | None:
    """`~/x` (home) and `//x` (absolute) patterns as an absolute glob; None for project ones."""
    if text == "~" or text.startswith("~/"):
        rest = norm_pattern_path(text[1:])
        home = escape(os.path.normpath(os.path.expanduser("~")))
        return home if rest == "." else f"{home}/{rest}"
    if text.startswith("//"):
        return "/" + norm_pattern_path(text) if text.strip("/") else "/"
    return None


def _segment_matches(pattern: str, seg: shellparse.Segment, *, extra: bool) -> bool:
    """A form of the segment matches (`extra`: deny/ask, also the basename forms); a wildcard
    sees only an opaque segment's basename forms and allows no hidden segment (`curl x | sh`)."""
    regex = _command_regex(pattern)
    wildcard = has_wildcard(pattern)
    if wildcard and (seg.opaque or (seg.hidden and not extra)):
        forms: Iterable[str] = seg.extra_forms if extra else ()
    else:
        forms = [*seg.forms, *(seg.extra_forms if extra else [])]
    return any(regex.fullmatch(form) for form in forms) or (
        not seg.opaque and (extra or not seg.hidden) and _shape_matches(pattern, seg, subset=extra)
    )


@lru_cache(maxsize=1024)
def _rule_shape(pattern: str) -> tuple[str, command_forms.Shape, re.Pattern[str]] | None:
    """A rule's pattern read as a command (`auger.core.safety.command_forms`): its command word as
    written, its canonical form and a regex for its arguments; None if not a known command."""
    text = shellparse.canonical(pattern)
    if text.endswith(":*") and not text.endswith("\\:*"):
        text = text[:-2].rstrip() + " *"
    words = text.split(" ")
    found = command_forms.shape(words)
    if found is None or any(has_wildcard(f) for f in found.flags):
        return None
    return words[0], found, _command_regex(" ".join(found.args))


def _shape_matches(pattern: str, seg: shellparse.Segment, *, subset: bool) -> bool:
    """The rule and a form of the segment are the same command with the same arguments, and
    the command has the rule's options — every one of them and maybe more (`subset`, deny/ask:
    `rm -rf *` catches `rm -rfv x`), or exactly them (allow: `rm -rf x` allows `rm -fr x`)."""
    rule = _rule_shape(pattern)
    if rule is None:
        return False
    spelled, want, args = rule
    for form in dict.fromkeys(seg.forms):
        words = shellparse.split_words(form)
        got = command_forms.shape(words)
        if got is None or got.head != want.head or not args.fullmatch(" ".join(got.args)):
            continue
        if subset and want.flags <= got.flags:
            return True
        same = words[0] == spelled and got.global_options == want.global_options
        if not subset and same and want.flags == got.flags:
            return True
    return False


def _whole_matches(pattern: str, command: str, *, wildcard_ok: bool) -> bool:
    if not wildcard_ok and has_wildcard(pattern):
        return False
    return _command_regex(pattern).fullmatch(shellparse.canonical(command)) is not None


def touches(rule: Rule, sub: Subject) -> bool:
    """Deny/ask semantics: the rule matches the call or any part of it."""
    if not _tool_matches(rule, sub):
        return False
    if rule.pattern is None:
        return True
    if rule.tool == claude_tools.WEB_FETCH or (rule.pattern.startswith("domain:") and "url" in sub.args):
        return _domain_matches(rule.pattern, str(sub.args.get("url")))
    if sub.command is not None:
        return _whole_matches(rule.pattern, sub.command, wildcard_ok=True) or any(
            _segment_matches(rule.pattern, s, extra=True) for s in sub.segments
        )
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
    parts = [s for s in sub.segments if not s.transparent]
    if not parts:
        return None
    used: list[str] = []
    for seg in parts:
        hit = next((r for r in mine if _segment_matches(r.pattern or "", seg, extra=False)), None)
        if hit is None:
            return None
        if hit.text not in used:
            used.append(hit.text)
    return tuple(used)

"""Lifecycle hooks, Claude Code compatible: shell commands run on agent events.

Sources, all run (user first): `$AUGER_HOME/hooks.json`, `[hooks]` in the user config,
`<project>/.auger/hooks.json`, `[hooks]` in the project config. Project hooks run only once the
user trusts them (like project MCP servers: `HookTrustStore`, asked again when the files change;
`--trust-project-hooks` trusts them for one headless run). The format is Claude Code's:

    {"hooks": {"PreToolUse": [{"matcher": "execute|write_file",
                               "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}

Each command runs with `/bin/sh -c` in the project root and gets the event as JSON on stdin
(`hook_event_name`, `session_id` = the thread id, `cwd`, `tool_name`, `tool_input`, `prompt`, ...).
Matchers are regexes on auger's tool names (full match; empty or `*` matches all; for
SessionStart the source, for PreCompact the trigger, for Subagent* the subagent type).

What a hook can say: exit 2 blocks (the reason is its stderr); other non-zero exits are
reported and ignored; on exit 0 its stdout may be JSON: `{"decision": "block", "reason": ...}`
or `{"continue": false, "stopReason": ...}` blocks; `hookSpecificOutput.permissionDecision:
"deny"` blocks a tool call; `updatedInput` (top level or in `hookSpecificOutput`) changes the
tool input; `additionalContext` adds text for the model; `systemMessage` is shown to the user.
Plain stdout of UserPromptSubmit and SessionStart hooks is extra context too. A hook that times
out (default 60 s), crashes or cannot start is reported as a notice and never ends the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auger.core.mcp_config import TrustStore
from auger.core.redact import Redactor, default_redactor

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "Stop",
    "SessionEnd",
)
CONTEXT_FROM_STDOUT = frozenset({"UserPromptSubmit", "SessionStart"})
HOOKS_FILE = "hooks.json"
TRUST_FILE = "trusted_hooks.json"
DEFAULT_TIMEOUT = 60.0
_OUTPUT_CAP = 1_000_000


@dataclass(frozen=True)
class HookCommand:
    event: str
    command: str
    matcher: str = ""
    timeout: float = DEFAULT_TIMEOUT
    source: str = ""

    @property
    def label(self) -> str:
        short = " ".join(self.command.split())
        return f"{self.event} hook `{short[:60]}{'…' if len(short) > 60 else ''}`"

    def matches(self, subjects: Sequence[str]) -> bool:
        if self.matcher in ("", "*") or not subjects:
            return True
        for subject in subjects:
            try:
                if re.fullmatch(self.matcher, subject):
                    return True
            except re.error:
                if self.matcher == subject:
                    return True
        return False


@dataclass
class HookResult:
    """What the hooks of one event said, merged in order."""

    blocked: bool = False
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    permission: str | None = None  # "allow" | "deny" (PermissionRequest / PreToolUse)
    notices: list[tuple[str, str]] = field(default_factory=list)  # (message, "info" | "warning")
    ran: int = 0

    def block(self, reason: str) -> None:
        self.blocked = True
        self.reason = f"{self.reason}\n{reason}".strip() if self.reason else reason

    def merge(self, other: HookResult) -> None:
        if other.blocked:
            self.block(other.reason)
        if other.updated_input:
            self.updated_input = {**(self.updated_input or {}), **other.updated_input}
        self.context += other.context
        if other.permission == "deny" or (other.permission and not self.permission):
            self.permission = other.permission
        self.notices += other.notices
        self.ran += other.ran


# --- configuration ------------------------------------------------------------------------------------


def parse_hooks(data: Any, source: str) -> tuple[list[HookCommand], list[str]]:
    """Hooks from a Claude-Code-style mapping (`{"hooks": {...}}` or the inner `{EVENT: [...]}`)."""
    problems: list[str] = []
    if isinstance(data, dict) and isinstance(data.get("hooks"), dict):
        data = data["hooks"]
    if not isinstance(data, dict):
        return [], [f"{source}: hooks must be an object mapping event names to lists"]
    out: list[HookCommand] = []
    for event, groups in data.items():
        if event not in EVENTS:
            problems.append(f"{source}: unknown hook event {event!r} (known: {', '.join(EVENTS)})")
            continue
        for group in groups if isinstance(groups, list) else [groups]:
            if not isinstance(group, dict):
                problems.append(f"{source}: {event} entries must be objects with `hooks`")
                continue
            matcher = str(group.get("matcher") or "")
            for hook in group.get("hooks") or []:
                cmd = _command(hook, event, source, problems)
                if cmd:
                    out.append(HookCommand(event, cmd, matcher, _timeout(hook), source))
    return out, problems


def _command(hook: Any, event: str, source: str, problems: list[str]) -> str | None:
    if isinstance(hook, dict) and hook.get("type", "command") != "command":
        problems.append(f'{source}: {event} hook type {hook.get("type")!r} is not supported (only "command")')
        return None
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str) or not hook["command"].strip():
        problems.append(f"{source}: a {event} hook has no `command`")
        return None
    return str(hook["command"])


def _timeout(hook: Mapping[str, Any]) -> float:
    value = hook.get("timeout")
    return float(value) if isinstance(value, int | float) and value > 0 else DEFAULT_TIMEOUT


def _read_json(path: Path) -> tuple[Any, str | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path}: cannot read ({exc.strerror or exc})"
    try:
        return json.loads(text) if text.strip() else {}, None
    except json.JSONDecodeError as exc:
        return None, f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg}); its hooks are not run"


def _toml_hooks(path: Path) -> tuple[Any, bytes | None]:
    try:
        raw = path.read_bytes()
        table = tomllib.loads(raw.decode("utf-8")).get("hooks")
    except (OSError, ValueError):
        return None, None
    return (table, raw) if table else (None, None)


def _project_sources(root: Path, home: Path) -> list[tuple[str, Any, str | None]]:
    """(label, data, problem) for the project's hook sources that exist."""
    out: list[tuple[str, Any, str | None]] = []
    path = Path(root) / ".auger" / HOOKS_FILE
    if path.resolve() != (Path(home) / HOOKS_FILE).resolve():
        data, problem = _read_json(path)
        if data is not None or problem:
            out.append((str(path), data, problem))
    cfg = Path(root) / ".auger" / "config.toml"
    if cfg.resolve() != (Path(home) / "config.toml").resolve():
        table, _ = _toml_hooks(cfg)
        if table is not None:
            out.append((f"{cfg} [hooks]", table, None))
    return out


class HookTrustStore(TrustStore):
    """`$AUGER_HOME/trusted_hooks.json`: project root -> sha256 of its hook definitions."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.path = Path(home) / TRUST_FILE

    @staticmethod
    def _digest(root: Path) -> str | None:
        digest, found = hashlib.sha256(), False
        with contextlib.suppress(OSError):
            digest.update((Path(root) / ".auger" / HOOKS_FILE).read_bytes())
            found = True
        _, raw = _toml_hooks(Path(root) / ".auger" / "config.toml")
        if raw is not None:
            digest.update(b"\0.auger/config.toml\0" + raw)
            found = True
        return digest.hexdigest() if found else None


def untrusted_project_hooks(settings: Any) -> list[str]:
    """The project's hook sources that are not trusted yet (empty when none or trusted)."""
    sources = [label for label, data, _ in _project_sources(settings.project_root, settings.home) if data]
    if not sources or HookTrustStore(settings.home).is_trusted(settings.project_root):
        return []
    return sources


def trust_project_hooks(settings: Any) -> None:
    """Remember that the user trusts the project's current hook definitions."""
    HookTrustStore(settings.home).trust(settings.project_root)


def load_hooks(settings: Any, *, trust_project: bool = False) -> tuple[list[HookCommand], list[str]]:
    """Every hook to run for `settings`, and notices (problems, untrusted project hooks)."""
    home, root = Path(settings.home), Path(settings.project_root)
    hooks: list[HookCommand] = []
    notices: list[str] = []
    user: list[tuple[str, Any, str | None]] = []
    data, problem = _read_json(home / HOOKS_FILE)
    user.append((str(home / HOOKS_FILE), data, problem))
    table, _ = _toml_hooks(home / "config.toml")
    user.append((f"{home / 'config.toml'} [hooks]", table, None))
    project = _project_sources(root, home)
    untrusted = untrusted_project_hooks(settings) if project and not trust_project else []
    for label, data, problem in [*user, *project]:
        if problem:
            notices.append(problem)
        if not data or label in untrusted:
            continue
        found, problems = parse_hooks(data, label)
        hooks += found
        notices += problems
    if untrusted:
        notices.append(
            f"Project hooks in {', '.join(untrusted)} were not run: they run commands on this machine. "
            "Review them, then trust them with `auger hooks trust` (or --trust-project-hooks for one run)."
        )
    return hooks, notices


# --- running -------------------------------------------------------------------------------------------


@dataclass
class _Raw:
    code: int | None = None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None


class HookRunner:
    """Runs the hooks of an event and merges what they said. Never raises."""

    def __init__(
        self,
        hooks: Iterable[HookCommand],
        *,
        project_root: Path | str,
        cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        redactor: Redactor | None = None,
        notices: Iterable[str] = (),
    ) -> None:
        self.hooks = list(hooks)
        self.project_root = str(project_root)
        self.cwd = str(cwd or project_root)
        base = dict(os.environ if env is None else env)
        self.env = {**base, "AUGER_PROJECT_DIR": self.project_root, "CLAUDE_PROJECT_DIR": self.project_root}
        self._redactor = redactor
        self.notices = list(notices)  # load-time notices, shown once by the session

    @classmethod
    def from_settings(cls, settings: Any, *, trust_project: bool = False) -> HookRunner:
        hooks, notices = load_hooks(settings, trust_project=trust_project)
        return cls(hooks, project_root=settings.project_root, cwd=settings.cwd, notices=notices)

    @property
    def redactor(self) -> Redactor:
        return self._redactor or default_redactor()

    def has(self, event: str) -> bool:
        return any(h.event == event for h in self.hooks)

    def matching(self, event: str, subjects: Sequence[str] = ()) -> list[HookCommand]:
        return [h for h in self.hooks if h.event == event and h.matches(subjects)]

    def _stdin(self, event: str, payload: Mapping[str, Any]) -> bytes:
        data = {"hook_event_name": event, "cwd": self.cwd, "transcript_path": "", **payload}
        return json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")

    async def run(self, event: str, payload: Mapping[str, Any], subjects: Sequence[str] = ()) -> HookResult:
        hooks = self.matching(event, subjects)
        result = HookResult()
        if not hooks:
            return result
        stdin = self._stdin(event, payload)
        raws = await asyncio.gather(*(self._exec(h, stdin) for h in hooks))
        for hook, raw in zip(hooks, raws, strict=True):
            result.merge(self._interpret(hook, raw))
        return result

    def run_sync(self, event: str, payload: Mapping[str, Any], subjects: Sequence[str] = ()) -> HookResult:
        result = HookResult()
        hooks = self.matching(event, subjects)
        stdin = self._stdin(event, payload) if hooks else b""
        for hook in hooks:
            result.merge(self._interpret(hook, self._exec_sync(hook, stdin)))
        return result

    def _spawn_kwargs(self) -> dict[str, Any]:
        return {"cwd": self.project_root, "env": self.env, "start_new_session": True}

    async def _exec(self, hook: HookCommand, stdin: bytes) -> _Raw:
        try:
            proc = await asyncio.create_subprocess_exec(
                "/bin/sh",
                "-c",
                hook.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                **self._spawn_kwargs(),
            )
        except OSError as exc:
            return _Raw(error=str(exc.strerror or exc))
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), hook.timeout)
        except TimeoutError:
            _killpg(proc.pid)
            await proc.wait()
            return _Raw(timed_out=True)
        except BaseException:
            _killpg(proc.pid)
            raise
        return _Raw(proc.returncode, _decode(out), _decode(err))

    def _exec_sync(self, hook: HookCommand, stdin: bytes) -> _Raw:
        try:
            proc = subprocess.Popen(
                ["/bin/sh", "-c", hook.command],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                **self._spawn_kwargs(),
            )
        except OSError as exc:
            return _Raw(error=str(exc.strerror or exc))
        try:
            out, err = proc.communicate(stdin, timeout=hook.timeout)
        except subprocess.TimeoutExpired:
            _killpg(proc.pid)
            proc.communicate()
            return _Raw(timed_out=True)
        return _Raw(proc.returncode, _decode(out), _decode(err))

    def _interpret(self, hook: HookCommand, raw: _Raw) -> HookResult:
        result = HookResult(ran=1)
        red = self.redactor.text
        if raw.error is not None:
            result.notices.append((f"{hook.label} could not start: {red(raw.error)}; ignored.", "warning"))
        elif raw.timed_out:
            result.notices.append(
                (f"{hook.label} timed out after {hook.timeout:g} s and was stopped; ignored.", "warning")
            )
        elif raw.code == 2:
            result.block(red(raw.stderr.strip() or raw.stdout.strip() or f"blocked by {hook.label}"))
        elif raw.code != 0:
            tail = red(" ".join(raw.stderr.strip().splitlines()[-3:]))[:300]
            result.notices.append(
                (f"{hook.label} failed (exit {raw.code}){': ' + tail if tail else ''}; ignored.", "warning")
            )
        else:
            _apply_output(hook, raw.stdout, result, red)
        return result


def _apply_output(hook: HookCommand, stdout: str, result: HookResult, red: Any) -> None:
    text = stdout.strip()
    data: Any = None
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            result.notices.append((f"{hook.label} printed invalid JSON; ignored.", "warning"))
            return
    if not isinstance(data, dict):
        if text and hook.event in CONTEXT_FROM_STDOUT:
            result.context.append(red(text))
        return
    specific: dict[str, Any] = _table(data.get("hookSpecificOutput"))
    reason = red(str(data.get("reason") or specific.get("permissionDecisionReason") or ""))
    if data.get("continue") is False:
        result.block(red(str(data.get("stopReason") or "")) or reason or f"stopped by {hook.label}")
    decision = str(data.get("decision") or "").lower()
    if decision in ("block", "deny"):
        result.block(reason or f"blocked by {hook.label}")
    elif decision in ("approve", "allow"):
        result.permission = "allow"
    _apply_specific(hook, specific, result, reason, red)
    updated = data.get("updatedInput")
    if isinstance(updated, dict):
        result.updated_input = {**(result.updated_input or {}), **updated}
    extra = data.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        result.context.append(red(extra.strip()))
    if isinstance(data.get("systemMessage"), str) and data["systemMessage"].strip():
        result.notices.append((red(data["systemMessage"].strip()), "info"))


def _apply_specific(
    hook: HookCommand, specific: dict[str, Any], result: HookResult, reason: str, red: Any
) -> None:
    permission = str(specific.get("permissionDecision") or "").lower()
    perm = _table(specific.get("decision"))
    behavior = str(perm.get("behavior") or "").lower()
    if permission == "deny" or behavior == "deny":
        result.block(reason or red(str(perm.get("message") or "")) or f"denied by {hook.label}")
        result.permission = "deny"
    elif permission == "allow" or behavior == "allow":
        result.permission = result.permission or "allow"
    for updated in (specific.get("updatedInput"), perm.get("updatedInput")):
        if isinstance(updated, dict):
            result.updated_input = {**(result.updated_input or {}), **updated}
    extra = specific.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        result.context.append(red(extra.strip()))


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _decode(data: bytes | None) -> str:
    return (data or b"")[:_OUTPUT_CAP].decode("utf-8", errors="replace")


def _killpg(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)

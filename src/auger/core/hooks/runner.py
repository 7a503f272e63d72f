"""Lifecycle hooks, Claude Code compatible: running the shell commands of an agent event.

Which hooks exist (sources, project trust, the format, matchers) is `auger.core.hooks.config`.
Each command runs with `/bin/sh -c` in the project root and gets the event as JSON on stdin
(`hook_event_name`, `session_id` = the thread id, `cwd`, `tool_name`, `tool_input`, `prompt`, ...).

What a hook can say: exit 2 blocks (the reason is its stderr); other non-zero exits are
reported and ignored; on exit 0 its stdout may be JSON: `{"decision": "block", "reason": ...}`
or `{"continue": false, "stopReason": ...}` blocks; `hookSpecificOutput.permissionDecision`
"deny" blocks a tool call, "ask" / "allow" decide whether the user is asked (several hooks:
deny > ask > allow); `updatedInput` (top level or in `hookSpecificOutput`) changes the
tool input; PostToolUse `hookSpecificOutput.updatedToolOutput` (or Claude Code's
`updatedMCPToolOutput`) replaces the output the model reads, for any tool;
`additionalContext` adds text for the model; `systemMessage` is shown to the user.
Plain stdout of UserPromptSubmit and SessionStart hooks is extra context too. A hook that times
out (default 60 s), crashes or cannot start is reported as a notice and never ends the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auger.core.hooks.config import HookCommand, load_hooks
from auger.core.safety.redaction import default_redactor

CONTEXT_FROM_STDOUT = frozenset({"UserPromptSubmit", "SessionStart"})
_PERMISSION_RANK = {"allow": 1, "ask": 2, "deny": 3}
_OUTPUT_CAP = 1_000_000


@dataclass
class HookResult:
    """What the hooks of one event said, merged in order."""

    blocked: bool = False
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    updated_output: Any = None  # PostToolUse: what the model reads instead of the tool's output
    updated_prompt: str | None = None  # PreModel: the system prompt to send instead
    context: list[str] = field(default_factory=list)
    permission: str | None = None  # "allow" | "ask" | "deny" (PermissionRequest / PreToolUse)
    permission_reason: str = ""  # permissionDecisionReason
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
        if other.updated_output is not None:
            self.updated_output = other.updated_output  # the last hook's replacement wins
        if other.updated_prompt is not None:
            self.updated_prompt = other.updated_prompt
        self.context += other.context
        if _PERMISSION_RANK.get(other.permission or "", 0) > _PERMISSION_RANK.get(self.permission or "", 0):
            self.permission = other.permission  # deny > ask > allow, as Claude Code merges them
            self.permission_reason = other.permission_reason
        self.notices += other.notices
        self.ran += other.ran


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
        notices: Iterable[str] = (),
    ) -> None:
        self.hooks = list(hooks)
        self.project_root = str(project_root)
        self.cwd = str(cwd or project_root)
        root = self.project_root
        self.env = {**os.environ, "AUGER_PROJECT_DIR": root, "CLAUDE_PROJECT_DIR": root}
        self.notices = list(notices)  # load-time notices, shown once by the session

    @classmethod
    def from_settings(cls, settings: Any, *, trust_project: bool = False) -> HookRunner:
        hooks, notices = load_hooks(settings, trust_project=trust_project)
        return cls(hooks, project_root=settings.project_root, cwd=settings.cwd, notices=notices)

    def has(self, event: str) -> bool:
        return any(h.event == event for h in self.hooks)

    def matching(self, event: str, subjects: Sequence[str] = ()) -> list[HookCommand]:
        return [h for h in self.hooks if h.event == event and h.matches(subjects)]

    def _stdin_for(
        self, hook: HookCommand, event: str, payload: Mapping[str, Any], subjects: Sequence[str]
    ) -> bytes:
        """The event as this hook gets it: with Claude Code's tool name when it asked by that name."""
        name = hook.tool_name(subjects) if "tool_name" in payload else None
        data = {"hook_event_name": event, "cwd": self.cwd, "transcript_path": "", **payload}
        if name:
            data["tool_name"] = name
        return json.dumps(data, ensure_ascii=False, default=str).encode()

    async def run(self, event: str, payload: Mapping[str, Any], subjects: Sequence[str] = ()) -> HookResult:
        hooks = self.matching(event, subjects)
        result = HookResult()
        if not hooks:
            return result
        raws = await asyncio.gather(
            *(self._exec(h, self._stdin_for(h, event, payload, subjects)) for h in hooks)
        )
        for hook, raw in zip(hooks, raws, strict=True):
            result.merge(self._interpret(hook, raw))
        return result

    def run_sync(self, event: str, payload: Mapping[str, Any], subjects: Sequence[str] = ()) -> HookResult:
        result = HookResult()
        for hook in self.matching(event, subjects):
            stdin = self._stdin_for(hook, event, payload, subjects)
            result.merge(self._interpret(hook, self._exec_sync(hook, stdin)))
        return result

    def _spawn_kwargs(self) -> dict[str, Any]:
        pipes = dict.fromkeys(("stdin", "stdout", "stderr"), subprocess.PIPE)  # = asyncio.subprocess.PIPE
        return {**pipes, "cwd": self.project_root, "env": self.env, "start_new_session": True}

    async def _exec(self, hook: HookCommand, stdin: bytes) -> _Raw:
        try:
            proc = await asyncio.create_subprocess_exec("/bin/sh", "-c", hook.command, **self._spawn_kwargs())
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
            proc = subprocess.Popen(["/bin/sh", "-c", hook.command], **self._spawn_kwargs())
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
        red = default_redactor().text
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
    if permission:
        result.permission_reason = reason
    perm = _table(specific.get("decision"))
    behavior = str(perm.get("behavior") or "").lower()
    if permission == "deny" or behavior == "deny":
        result.block(reason or red(str(perm.get("message") or "")) or f"denied by {hook.label}")
        result.permission = "deny"
    elif permission == "ask" and result.permission != "deny":
        result.permission = "ask"
    elif permission == "allow" or behavior == "allow":
        result.permission = result.permission or "allow"
    if isinstance(specific.get("updatedSystemPrompt"), str) and hook.event == "PreModel":
        result.updated_prompt = specific["updatedSystemPrompt"]
    for key in ("updatedToolOutput", "updatedMCPToolOutput"):
        if specific.get(key) is not None and hook.event == "PostToolUse":
            result.updated_output = _redact_output(specific[key], red)
    for updated in (specific.get("updatedInput"), perm.get("updatedInput")):
        if isinstance(updated, dict):
            result.updated_input = {**(result.updated_input or {}), **updated}
    extra = specific.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        result.context.append(red(extra.strip()))


def _redact_output(value: Any, red: Any) -> Any:
    """A replacement tool output as the model will read it: text, or content blocks."""
    if isinstance(value, str):
        return red(value)
    if isinstance(value, list) and all(isinstance(b, dict) and b.get("type") for b in value):
        return [{**b, "text": red(str(b["text"]))} if "text" in b else b for b in value]
    return red(json.dumps(value, ensure_ascii=False, default=str))


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _decode(data: bytes | None) -> str:
    return (data or b"")[:_OUTPUT_CAP].decode("utf-8", errors="replace")


def _killpg(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)

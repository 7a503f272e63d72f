"""The session-level hooks of one conversation (Claude Code's SessionStart, UserPromptSubmit, Stop,
PermissionRequest, SessionEnd), run by the Session at fixed points of a turn:

* `start_turn` — SessionStart (first turn of a thread) and UserPromptSubmit; SessionStart context
  is a message before the prompt, UserPromptSubmit context is attached to the prompt's own
  message (as Claude Code sends it); a block ends the turn with the reason;
* `after_turn` — Stop hooks; a block continues the turn with the hook's reason (at most
  `MAX_STOP_ROUNDS` times, `stop_hook_active` tells the hook it is a continuation);
* `permission_request` — before asking a human: a PermissionRequest hook may allow or deny
  (matchers see Claude Code's tool names too: `Bash` for execute);
* `notify` — Notification hooks: before a human is asked to approve (`permission_prompt`), and
  when a turn has finished (`idle_prompt`);
* `end` — SessionEnd (on close and when switching threads).

Tool-call hooks (PreToolUse, PostToolUse, ...) run in the agent: `auger.core.middleware.tools.hooks`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.safety.claude_tools import claude_names

if TYPE_CHECKING:
    from auger.core.hooks.runner import HookResult, HookRunner

log = logging.getLogger("auger.safety")
MAX_STOP_ROUNDS = 3
HOOK_FLAG = "auger_hook"  # additional_kwargs marker on messages added by hooks
Put = Callable[[ev.Event], None]


def _block(event: str, texts: list[str]) -> str:
    return f'<hook-context event="{event}">\n' + "\n\n".join(texts) + "\n</hook-context>"


def hook_message(event: str, texts: list[str]) -> Any:
    from langchain_core.messages import HumanMessage

    return HumanMessage(content=_block(event, texts), additional_kwargs={HOOK_FLAG: event})


def with_context(message: Any, event: str, texts: list[str]) -> Any:
    """The prompt's own message with a hook's context attached (one user message, as Claude
    Code sends it; `additional_kwargs[HOOK_FLAG]` says which hook added to it)."""
    block = _block(event, texts)
    content = message.content
    if isinstance(content, str):
        content = f"{content}\n\n{block}"
    else:
        content = [*content, {"type": "text", "text": block}]
    kwargs = {**message.additional_kwargs, HOOK_FLAG: event}
    return message.model_copy(update={"content": content, "additional_kwargs": kwargs})


def _notices(result: HookResult, put: Put) -> None:
    for message, level in result.notices:
        put(ev.Notice(message, "warning" if level == "warning" else "info"))


class LifecycleHooks:
    """The hook state of one conversation: whether SessionStart ran for its thread, and why the
    thread was opened (startup | resume | clear)."""

    def __init__(self, runner: HookRunner) -> None:
        self.runner = runner
        self.started = False
        self.source = "startup"
        self.mode = "manual"  # the approval mode of the latest turn (hooks see it as permission_mode)
        self._stop_rounds = 0
        self._load_notices_shown = False

    def _payload(self, thread_id: str, mode: str, **extra: Any) -> dict[str, Any]:
        return {"session_id": thread_id, "permission_mode": mode, **extra}

    async def start_turn(self, thread_id: str, mode: str, message: Any, put: Put) -> list[Any] | None:
        """The messages to send for this prompt, or None when a UserPromptSubmit hook blocked it."""
        self._stop_rounds = 0
        self.mode = mode
        if not self._load_notices_shown:
            self._load_notices_shown = True
            for text in self.runner.notices:
                put(ev.Notice(text, "warning"))
        if not self.runner.hooks:
            return [message]
        extra: list[Any] = []
        if not self.started:
            self.started = True
            payload = self._payload(thread_id, mode, source=self.source)
            start = await self.runner.run("SessionStart", payload, [self.source])
            _notices(start, put)
            if start.context:
                extra.append(hook_message("SessionStart", start.context))
        prompt = message.content if isinstance(message.content, str) else str(message.content)
        submit = await self.runner.run("UserPromptSubmit", self._payload(thread_id, mode, prompt=prompt))
        _notices(submit, put)
        if submit.blocked:
            put(ev.Error(f"Prompt blocked by a UserPromptSubmit hook: {submit.reason}", "hook_blocked"))
            return None
        if submit.context:
            message = with_context(message, "UserPromptSubmit", submit.context)
        return [*extra, message]

    async def after_turn(self, thread_id: str, mode: str, put: Put) -> dict[str, Any] | None:
        """Stop hooks: a payload that continues the turn with the hook's reason, or None."""
        if not self.runner.has("Stop"):
            return None
        active = self._stop_rounds > 0
        result = await self.runner.run("Stop", self._payload(thread_id, mode, stop_hook_active=active))
        _notices(result, put)
        if not result.blocked:
            return None
        if self._stop_rounds >= MAX_STOP_ROUNDS:
            why = f"A Stop hook blocked stopping {MAX_STOP_ROUNDS} times; the turn ends anyway."
            put(ev.Notice(why, "warning"))
            return None
        self._stop_rounds += 1
        put(ev.Notice(f"A Stop hook asked to continue: {result.reason}"))
        return {"messages": [hook_message("Stop", [result.reason])]}

    async def permission_request(
        self, thread_id: str, mode: str, request: ev.ApprovalRequested, put: Put
    ) -> ev.ApprovalDecision | None:
        """A PermissionRequest hook's answer, or None when no hook decided."""
        if not self.runner.has("PermissionRequest"):
            return None
        payload = self._payload(
            thread_id, mode, tool_name=request.name, tool_input=request.args, tool_use_id=request.call_id
        )
        result = await self.runner.run(
            "PermissionRequest", payload, [request.name, *claude_names(request.name)]
        )
        _notices(result, put)
        if result.blocked or result.permission == "deny":
            return ev.ApprovalDecision(
                "reject", f"Denied by a PermissionRequest hook: {result.reason}".rstrip(": ")
            )
        if result.permission == "allow":
            return ev.ApprovalDecision("approve")
        return None

    async def notify(self, thread_id: str, mode: str, message: str, kind: str, put: Put) -> None:
        """Notification hooks (Claude Code's): `permission_prompt` before a human is asked,
        `idle_prompt` when a turn has finished. Never raises."""
        if not self.runner.has("Notification"):
            return
        payload = self._payload(thread_id, mode, message=message, notification_type=kind)
        try:
            _notices(await self.runner.run("Notification", payload, [kind]), put)
        except Exception:
            log.exception("Notification hooks failed")

    async def end(self, thread_id: str, reason: str) -> None:
        """SessionEnd hooks, once per started thread (never raises)."""
        if not self.started:
            return
        self.started = False
        try:
            result = await self.runner.run("SessionEnd", self._payload(thread_id, self.mode, reason=reason))
        except Exception:
            log.exception("SessionEnd hooks failed")
            return
        for message, _level in result.notices:
            log.warning("%s", message)

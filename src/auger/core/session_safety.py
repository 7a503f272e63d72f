"""The Session's safety side: session-level hooks, permission grants, redaction of what leaves.

`Session` owns one `SessionSafety` and calls it at fixed points of a turn:

* `sink(put)` — every event goes through a `StreamRedactor` before a front end sees it;
* `start_turn` — SessionStart (first turn of a thread) and UserPromptSubmit hooks; the prompt
  is redacted; SessionStart context is a message before the prompt, UserPromptSubmit context is
  attached to the prompt's own message; a block ends the turn with the reason;
* `after_turn` — Stop hooks; a block continues the turn with the hook's reason (at most
  `MAX_STOP_ROUNDS` times, `stop_hook_active` tells the hook it is a continuation);
* `decide_first` — before asking a human: a call an "always allow" of this turn now covers is
  approved, then PermissionRequest hooks may allow or deny it;
* `grant` — "always allow": the decision's rule (default: `rule_for_call`) is granted for the
  thread and, if asked, written to the user or project config (`add_rule`);
* `notify` — Notification hooks: before a human is asked to approve, and when a turn ends;
* `end_session` — SessionEnd hooks (on close and when switching threads).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.claude_tools import claude_names
from auger.core.permissions import PermissionEngine, rule_for_call
from auger.core.redact import StreamRedactor, configure

if TYPE_CHECKING:
    from auger.core.hooks import HookResult, HookRunner
    from auger.settings import Settings

log = logging.getLogger("auger.safety")
MAX_STOP_ROUNDS = 3
HOOK_FLAG = "auger_hook"  # additional_kwargs marker on messages added by hooks


def add_rule(settings: Settings, kind: str, rule: str, *, scope: str = "project") -> Path:
    """Append `rule` to `[permissions] kind` in the project (or user) config file, atomically,
    keeping every other key; returns the file written. Raises ConfigError on a bad rule or file."""
    import tomli_w

    from auger.config_cmd import _atomic_write
    from auger.core.permission_rules import parse_rule
    from auger.core.permissions import KINDS
    from auger.errors import ConfigError
    from auger.settings import project_config_path, read_toml, user_config_path

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
        _atomic_write(path, tomli_w.dumps(data))
    return path


def _hook_message(event: str, texts: list[str]) -> Any:
    from langchain_core.messages import HumanMessage

    body = "\n\n".join(texts)
    return HumanMessage(
        content=f'<hook-context event="{event}">\n{body}\n</hook-context>',
        additional_kwargs={HOOK_FLAG: event},
    )


def _with_context(message: Any, event: str, texts: list[str]) -> Any:
    """The prompt's own message with a hook's context attached (one user message, as Claude
    Code sends it; `additional_kwargs[HOOK_FLAG]` says which hook added to it)."""
    block = f'<hook-context event="{event}">\n' + "\n\n".join(texts) + "\n</hook-context>"
    content = message.content
    if isinstance(content, str):
        content = f"{content}\n\n{block}"
    else:
        content = [*content, {"type": "text", "text": block}]
    kwargs = {**message.additional_kwargs, HOOK_FLAG: event}
    return message.model_copy(update={"content": content, "additional_kwargs": kwargs})


class SessionSafety:
    def __init__(self, settings: Settings, hooks: HookRunner | None = None) -> None:
        self.settings = settings
        self.permissions = PermissionEngine.from_settings(settings)  # ConfigError on a bad rule
        self.redactor = configure(settings)
        self.hooks = hooks
        self.verdicts: dict[str, Any] = {}
        self.pre_tool: dict[str, Any] = {}  # AugerContext.pre_tool
        self.originals: dict[str, Any] = {}  # AugerContext.originals
        self.started = False  # SessionStart ran for this thread
        self.source = "startup"
        self._stop_rounds = 0
        self._load_notices_shown = False

    # -- events ----------------------------------------------------------------------------
    def sink(self, put: Callable[[Any], None]) -> tuple[Callable[[Any], None], Callable[[], None]]:
        """`put` behind a StreamRedactor, and the flush to call before the turn's last event."""
        stream = StreamRedactor(self.redactor)

        def redacted_put(event: Any) -> None:
            if event is None or not isinstance(event, ev.Event):
                put(event)
                return
            for out in stream.feed(event):
                put(out)

        def flush() -> None:
            for out in stream.flush():
                put(out)

        return redacted_put, flush

    def _notices(self, result: HookResult, put: Callable[[Any], None]) -> None:
        for message, level in result.notices:
            put(ev.Notice(message, "warning" if level == "warning" else "info"))

    def _payload(self, session: Any, **extra: Any) -> dict[str, Any]:
        return {"session_id": session.thread_id, "permission_mode": session.mode, **extra}

    # -- a turn ----------------------------------------------------------------------------
    async def start_turn(self, session: Any, message: Any, put: Callable[[Any], None]) -> list[Any] | None:
        """The messages to send for this prompt, or None when a UserPromptSubmit hook blocked it."""
        self.verdicts = {}
        self.pre_tool = {}
        self.originals = {}
        self._stop_rounds = 0
        message = self._redact_prompt(message, put)
        if self.hooks is None:
            return [message]
        if not self._load_notices_shown:
            self._load_notices_shown = True
            for text in self.hooks.notices:
                put(ev.Notice(text, "warning"))
        extra: list[Any] = []
        if not self.started:
            self.started = True
            start = await self.hooks.run(
                "SessionStart", self._payload(session, source=self.source), [self.source]
            )
            self._notices(start, put)
            if start.context:
                extra.append(_hook_message("SessionStart", start.context))
        prompt = message.content if isinstance(message.content, str) else str(message.content)
        submit = await self.hooks.run("UserPromptSubmit", self._payload(session, prompt=prompt))
        self._notices(submit, put)
        if submit.blocked:
            put(ev.Error(f"Prompt blocked by a UserPromptSubmit hook: {submit.reason}", "hook_blocked"))
            return None
        if submit.context:
            message = _with_context(message, "UserPromptSubmit", submit.context)
        return [*extra, message]

    def redact_prompt(self, prompt: str, put: Callable[[Any], None]) -> str:
        """The prompt with secret values replaced (and a Notice saying so)."""
        names, kinds = self.redactor.find(prompt), self.redactor.kinds(prompt)
        found = ([f"the value of {', '.join(f'${n}' for n in names)}"] if names else []) + kinds
        if found:
            put(
                ev.Notice(
                    f"Your message contained {' and '.join(found)}; it was replaced by a placeholder "
                    "before it was sent or saved.",
                    "warning",
                )
            )
        return self.redactor.text(prompt)

    def _redact_prompt(self, message: Any, put: Callable[[Any], None]) -> Any:
        """The message with secret values replaced (attached files may carry them too)."""
        text = message.content if isinstance(message.content, str) else str(message.content)
        if not self.redactor.find(text) and not self.redactor.kinds(text):
            return message
        put(ev.Notice("Secret values in the attached content were replaced by placeholders.", "warning"))
        return self.redactor.message(message)

    async def after_turn(self, session: Any, put: Callable[[Any], None]) -> dict[str, Any] | None:
        """Stop hooks: a payload that continues the turn with the hook's reason, or None."""
        if self.hooks is None or not self.hooks.has("Stop"):
            return None
        active = self._stop_rounds > 0
        result = await self.hooks.run("Stop", self._payload(session, stop_hook_active=active))
        self._notices(result, put)
        if not result.blocked:
            return None
        if self._stop_rounds >= MAX_STOP_ROUNDS:
            put(
                ev.Notice(
                    f"A Stop hook blocked stopping {MAX_STOP_ROUNDS} times; the turn ends anyway.", "warning"
                )
            )
            return None
        self._stop_rounds += 1
        put(ev.Notice(f"A Stop hook asked to continue: {result.reason}"))
        return {"messages": [_hook_message("Stop", [result.reason])]}

    # -- approvals -------------------------------------------------------------------------
    def mcp_identity(self, session: Any, name: str) -> tuple[str, str] | None:
        manager = getattr(session, "mcp", None)
        if manager is None:
            return None
        try:
            for tool in manager.tools():
                meta = tool.metadata or {}
                if tool.name == name and meta.get("mcp_server"):
                    return str(meta["mcp_server"]), str(meta["mcp_tool"])
        except Exception:
            log.exception("listing MCP tools failed")
        return None

    def suggested_rule(self, session: Any, name: str, args: dict[str, Any]) -> str:
        try:
            return rule_for_call(name, args, self.mcp_identity(session, name))
        except Exception:
            log.exception("rule_for_call failed")
            return name

    async def decide_first(
        self, session: Any, request: ev.ApprovalRequested, put: Callable[[Any], None]
    ) -> ev.ApprovalDecision | None:
        """A decision made without asking anyone, or None."""
        if session.always_allow:
            verdict = self.permissions.evaluate(
                request.name,
                request.args,
                mode="manual",
                gated=True,
                grants=sorted(session.always_allow),
                mcp=self.mcp_identity(session, request.name),
            )
            if verdict.action == "allow":
                return ev.ApprovalDecision("approve")
        if self.hooks is None or not self.hooks.has("PermissionRequest"):
            return None
        result = await self.hooks.run(
            "PermissionRequest",
            self._payload(
                session, tool_name=request.name, tool_input=request.args, tool_use_id=request.call_id
            ),
            [request.name, *claude_names(request.name)],
        )
        self._notices(result, put)
        if result.blocked or result.permission == "deny":
            return ev.ApprovalDecision(
                "reject", f"Denied by a PermissionRequest hook: {result.reason}".rstrip(": ")
            )
        if result.permission == "allow":
            return ev.ApprovalDecision("approve")
        return None

    def grant(
        self,
        session: Any,
        request: ev.ApprovalRequested,
        decision: ev.ApprovalDecision,
        put: Callable[[Any], None],
    ) -> None:
        rule = decision.rule or request.suggested_rule or request.name
        session.always_allow.add(rule)
        if not decision.persist:
            return
        try:
            path = add_rule(self.settings, "allow", rule, scope=decision.persist)
        except Exception as exc:
            put(ev.Notice(f'Could not save the rule "{rule}": {exc}', "warning"))
            return
        self.permissions.add("allow", rule)
        put(ev.Notice(f'Added allow rule "{rule}" to {path}.'))

    async def notify(self, session: Any, message: str, kind: str, put: Callable[[Any], None]) -> None:
        """Notification hooks (Claude Code's): `permission_prompt` before a human is asked,
        `idle_prompt` when a turn has finished. Never raises."""
        if self.hooks is None or not self.hooks.has("Notification"):
            return
        payload = self._payload(session, message=message, notification_type=kind)
        try:
            self._notices(await self.hooks.run("Notification", payload, [kind]), put)
        except Exception:
            log.exception("Notification hooks failed")

    # -- session end -----------------------------------------------------------------------
    async def end_session(self, session: Any, reason: str) -> None:
        if self.hooks is None or not self.started:
            return
        self.started = False
        try:
            result = await self.hooks.run("SessionEnd", self._payload(session, reason=reason))
        except Exception:
            log.exception("SessionEnd hooks failed")
            return
        for message, _level in result.notices:
            log.warning("%s", message)

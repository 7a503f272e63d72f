"""Another agent as a subagent: an `[acp_agents.NAME]` (any Agent Client Protocol agent — Gemini
CLI `--experimental-acp`, Claude Code's or Codex's ACP adapter, another `auger acp`) that the
`task` tool delegates to.

`acp_subagent(spec, root)` is a deepagents CompiledSubAgent whose runnable, per task: spawns the
command in the project, `initialize`, `session/new`, one `session/prompt` with the task, and
returns the agent's reply. While it runs:

* its stream becomes subagent events of the `task` call (text, tool calls and their results),
  sent on LangGraph's custom stream (`{"auger_event": "acp_subagent", ...}`, matched to the call
  by `auger.core.session.stream`);
* its `session/request_permission` goes through auger's safety: the rules and the approval mode
  (`PermissionEngine.evaluate`) first, then — when they say ask — auger's approvals
  (`AugerContext.approve`: the TUI's or editor's question, headless's policy);
* a missing command or an agent that crashes or fails is a clear error the `task` call returns.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from auger.core import events as ev

if TYPE_CHECKING:
    from acp.interfaces import Client

log = logging.getLogger("auger.acp_subagent")
KIND_TOOLS = {"execute": "execute", "edit": "edit_file", "delete": "delete", "move": "edit_file"}
_ids = itertools.count(1)


PLAN_REFUSAL = (
    "Error: the {name} agent is not used in plan mode: what another agent does without asking "
    "cannot be seen, so it cannot be kept read-only. Explore with your own read-only tools."
)


def _planning() -> bool:
    from langgraph.runtime import get_runtime

    from auger.core.safety.plan_mode import PLAN_MODE

    try:
        return getattr(getattr(get_runtime(), "context", None), "mode", None) == PLAN_MODE
    except RuntimeError:  # outside a graph run
        return False


class AcpSubagentError(Exception):
    """The ACP agent could not do the task (missing, crashed, refused the session)."""


def acp_subagent(spec: dict[str, Any], root: Path) -> dict[str, Any]:
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableLambda

    async def run(state: dict[str, Any]) -> dict[str, Any]:
        messages = state.get("messages") or []
        task = str(getattr(messages[-1], "content", "")) if messages else ""
        if _planning():
            return {"messages": [AIMessage(content=PLAN_REFUSAL.format(name=spec["name"]))]}
        try:
            reply = await AcpTask(spec, root, task).run()
        except AcpSubagentError as exc:
            reply = f"Error: the {spec['name']} agent ({spec['command']}) did not do the task: {exc}"
        return {"messages": [AIMessage(content=reply or "(no reply)")]}

    return {"name": spec["name"], "description": spec["description"], "runnable": RunnableLambda(run)}


async def _exit_status(proc: Any, wait: float = 2.0) -> int | None:
    """The exit status of an agent whose connection just failed, once it has exited (None if it
    is still running after `wait` seconds)."""
    import asyncio

    with contextlib.suppress(asyncio.TimeoutError, ProcessLookupError):
        await asyncio.wait_for(proc.wait(), wait)
    return cast("int | None", proc.returncode)


class AcpTask:
    """One task for one ACP agent process; also the ACP client the agent talks back to."""

    def __init__(self, spec: dict[str, Any], root: Path, task: str) -> None:
        self.spec, self.root, self.task = spec, root, task
        self.text: list[str] = []
        self.titles: dict[str, tuple[str, dict[str, Any]]] = {}  # ACP tool call id -> (name, args)
        self.prefix = f"{spec['name']}-{next(_ids)}-"
        from langgraph.config import get_stream_writer
        from langgraph.runtime import get_runtime

        self.writer: Any = None
        self.context: Any = None
        with contextlib.suppress(RuntimeError):  # outside a graph run: no stream, no approvals
            self.writer = get_stream_writer()
            self.context = getattr(get_runtime(), "context", None)

    async def run(self) -> str:
        import asyncio

        from acp import schema as s
        from acp.stdio import spawn_agent_process

        try:
            env = {**os.environ, **self.spec["env"]}  # its API keys are the user's environment's
            async with spawn_agent_process(
                cast("Client", self), self.spec["command"], *self.spec["args"], env=env, cwd=self.root
            ) as (conn, proc):
                self.proc = proc
                try:
                    await conn.initialize(protocol_version=1, client_capabilities=s.ClientCapabilities())
                    session = await conn.new_session(cwd=str(self.root), mcp_servers=[])
                    text: list[Any] = [s.TextContentBlock(type="text", text=self.task)]
                    done = await conn.prompt(session_id=session.session_id, prompt=text)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    code = await _exit_status(proc)  # the pipe closes before the exit is reaped
                    why = (
                        f"it exited with status {code}"
                        if code is not None
                        else str(exc) or type(exc).__name__
                    )
                    raise AcpSubagentError(why) from exc
        except (FileNotFoundError, PermissionError) as exc:
            raise AcpSubagentError(f"cannot run {self.spec['command']!r}: {exc.strerror or exc}") from exc
        except ConnectionError as exc:  # closing the pipes of an agent that died: not the turn's end
            code = getattr(getattr(self, "proc", None), "returncode", None)
            raise AcpSubagentError(f"it exited with status {code}" if code is not None else str(exc)) from exc
        reply = "".join(self.text).strip()
        if done.stop_reason not in ("end_turn", None):
            reply += f"\n\n(stopped: {done.stop_reason})"
        return reply

    # -- the ACP client side -------------------------------------------------------------------
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = getattr(update, "session_update", "")
        if kind == "agent_message_chunk" and getattr(update.content, "text", None):
            self.text.append(update.content.text)
            self._emit(ev.TextDelta(update.content.text))
        elif kind == "tool_call":
            name, args = tool_of(update)
            self.titles[update.tool_call_id] = (name, args)
            self._emit(ev.ToolCallStarted(self.prefix + update.tool_call_id, name, args))
        elif kind == "tool_call_update" and update.status in ("completed", "failed"):
            name, _ = self.titles.get(update.tool_call_id, (update.title or "tool", {}))
            call_id, output = self.prefix + update.tool_call_id, output_of(update)
            failed = update.status == "failed"
            self._emit(ev.ToolCallFinished(call_id, name, output, "error" if failed else "success"))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        from acp import schema as s

        allowed = await self._allowed(tool_call)
        wanted = ("allow_once", "allow_always") if allowed else ("reject_once", "reject_always")
        chosen = next((o for o in options if o.kind in wanted), None)
        if chosen is None:
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        return s.RequestPermissionResponse(
            outcome=s.AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )

    async def _allowed(self, tool_call: Any) -> bool:
        """auger's rules and mode first; an "ask" goes to auger's approvals."""
        ctx = self.context
        name, args = tool_of(tool_call)
        if ctx is None or ctx.permissions is None:
            return False
        verdict = ctx.permissions.evaluate(
            name, args, mode=ctx.mode, gated=True, grants=sorted(ctx.always_allow)
        )
        if verdict.action != "ask":
            return bool(verdict.action == "allow")
        approve = getattr(ctx, "approve", None)
        if approve is None:
            return False
        why = f"The {self.spec['name']} agent asks to {tool_call.title or name}. {verdict.reason}".strip()
        call = {"name": name, "args": args, "id": self.prefix + tool_call.tool_call_id, "description": why}
        decision = await approve(call)
        return bool(decision.get("type") == "approve")

    def _emit(self, event: ev.Event) -> None:
        data = {
            "auger_event": "acp_subagent",
            "subagent_type": self.spec["name"],
            "description": self.task,
            "event": event.to_dict(),
        }
        if self.writer is not None:
            with contextlib.suppress(Exception):  # a stream that is gone
                self.writer(data)


def tool_of(call: Any) -> tuple[str, dict[str, Any]]:
    """auger's (tool name, args) for an ACP tool call: exact for another auger (it sends its
    tool in `_meta`), by kind otherwise (execute -> execute, edit -> edit_file, ...)."""
    meta = (getattr(call, "field_meta", None) or {}).get("auger") or {}
    raw = getattr(call, "raw_input", None)
    args = dict(raw) if isinstance(raw, dict) else {}
    if meta.get("tool"):
        return str(meta["tool"]), args
    name = KIND_TOOLS.get(getattr(call, "kind", None) or "", getattr(call, "kind", None) or "acp_tool")
    if name == "execute" and "command" not in args:
        args["command"] = str(getattr(call, "title", "") or "")
    locations = getattr(call, "locations", None) or []
    if name in ("edit_file", "delete") and "file_path" not in args and locations:
        args["file_path"] = locations[0].path
    return name, args


def output_of(update: Any) -> str:
    parts = []
    for item in getattr(update, "content", None) or []:
        text = getattr(getattr(item, "content", None), "text", None)
        if text:
            parts.append(str(text))
        elif getattr(item, "type", "") == "diff":
            parts.append(f"edited {item.path}")
    return "\n".join(parts)

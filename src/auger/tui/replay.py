"""Show a saved conversation (resume, /threads, /fork): the newest messages as finished blocks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auger.tui.widgets.messages import AssistantMessage, Notice, UserMessage
from auger.tui.widgets.tool_row import ToolRow

if TYPE_CHECKING:
    from textual.widget import Widget

    from auger.tui.app import AugerApp

SKILL_KEY = "auger_skill"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content or "")


def blocks(messages: list[Any], root: Any, limit: int) -> list[Widget]:
    """Widgets for `messages` (duck-typed LangChain messages), at most `limit` of them."""
    out: list[Widget] = []
    rows: dict[str, ToolRow] = {}
    for msg in messages:
        kind = getattr(msg, "type", "")
        text = _text(getattr(msg, "content", "")).strip()
        if kind == "human":
            skill = (getattr(msg, "additional_kwargs", None) or {}).get(SKILL_KEY)
            if isinstance(skill, dict):  # a `/skill args` call: show what the user typed
                text = f"/{skill.get('name')} {skill.get('args') or ''}".rstrip()
            out.append(UserMessage(text))
        elif kind == "ai":
            if text:
                out.append(AssistantMessage(text, classes="assistant"))
            for call in getattr(msg, "tool_calls", None) or []:
                call_id, name = str(call.get("id") or ""), str(call.get("name"))
                row = ToolRow(call_id, name, dict(call.get("args") or {}), root, applied=True)
                rows[row.call_id] = row
                out.append(row)
        elif kind == "tool":
            done = rows.get(str(getattr(msg, "tool_call_id", "")))
            if done is not None:
                status = "error" if getattr(msg, "status", "success") == "error" else "success"
                done.finish(status, text, None)
    if len(out) > limit:
        note = Notice(f"{len(out) - limit} earlier blocks not shown (/export writes them all).")
        out = [note, *out[-limit:]]
    return out


async def replay(app: AugerApp, messages: list[Any]) -> None:
    widgets = blocks(messages, app.settings.project_root, app.transcript.budget)
    last = ""
    for msg in reversed(messages):
        if getattr(msg, "type", "") == "ai" and _text(getattr(msg, "content", "")).strip():
            last = _text(msg.content).strip()
            break
    if widgets:
        await app.transcript.add(*widgets)
    app.last_reply = last
    if messages:
        app.notice(f"Resumed: {sum(1 for m in messages if getattr(m, 'type', '') == 'human')} turns so far.")

"""A thread's messages as a readable transcript: plain text (for the terminal) or Markdown (to
share or save). Works on LangChain message objects by duck typing (`type`, `content`,
`tool_calls`, `name`), so it imports nothing heavy."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from auger.core.text import counted
from auger.core.thread_ops import content_text
from auger.core.threads import ThreadInfo, iso

TEXT_TOOL_LINES = 12
MARKDOWN_TOOL_LINES = 200


def _clip(text: str, lines: int) -> str:
    rows = text.rstrip("\n").splitlines()
    if len(rows) <= lines:
        return "\n".join(rows)
    return "\n".join([*rows[:lines], f"… ({counted(len(rows) - lines, 'more line')})"])


def _args(call: dict[str, Any]) -> str:
    return json.dumps(call.get("args") or {}, ensure_ascii=False, default=str)


def _header(info: ThreadInfo | None, thread_id: str, markdown: bool) -> list[str]:
    if info is None:
        return [f"# thread {thread_id}" if markdown else f"thread {thread_id}", ""]
    facts = [info.id, info.model or "?", info.cwd, f"updated {iso(info.updated_at)}"]
    if info.parent_id:
        facts.append(f"forked from {info.parent_id} at turn {info.fork_turn}")
    if markdown:
        return [f"# {info.title or 'Untitled'}", "", " · ".join(f"`{f}`" for f in facts), ""]
    return [info.title or "Untitled", " · ".join(facts), ""]


def render_text(messages: Sequence[Any], info: ThreadInfo | None = None, thread_id: str = "") -> str:
    out = _header(info, thread_id, markdown=False)
    for msg in messages:
        kind, text = getattr(msg, "type", ""), content_text(getattr(msg, "content", "")).rstrip()
        if kind == "human":
            out += ["> " + line for line in (text or " ").splitlines()] + [""]
        elif kind == "ai":
            if text:
                out += [text, ""]
            out += [f"  → {c.get('name')} {_args(c)}" for c in getattr(msg, "tool_calls", None) or []]
        elif kind == "tool":
            body = _clip(text, TEXT_TOOL_LINES).splitlines() or [""]
            out += [f"  ← {getattr(msg, 'name', None) or 'tool'}: {body[0]}", *("    " + b for b in body[1:])]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_markdown(messages: Sequence[Any], info: ThreadInfo | None = None, thread_id: str = "") -> str:
    out = _header(info, thread_id, markdown=True)
    for msg in messages:
        kind, text = getattr(msg, "type", ""), content_text(getattr(msg, "content", "")).rstrip()
        if kind == "human":
            out += ["## User", "", text, ""]
        elif kind == "ai":
            out += ["## Assistant", ""] + ([text, ""] if text else [])
            for call in getattr(msg, "tool_calls", None) or []:
                args = json.dumps(call.get("args") or {}, ensure_ascii=False, indent=2, default=str)
                out += [f"**Tool call** `{call.get('name')}`", "", "```json", args, "```", ""]
        elif kind == "tool":
            name = getattr(msg, "name", None) or "tool"
            out += [f"**Result** `{name}`", "", "````text", _clip(text, MARKDOWN_TOOL_LINES), "````", ""]
    return "\n".join(out).rstrip() + "\n"

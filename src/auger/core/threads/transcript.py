"""A thread's conversation as a readable transcript: plain text (for the terminal, `auger threads
show`) or Markdown (to share or save, `/export`). Written from the IR events of
`auger.core.threads.history.to_events`, the same events the TUI draws; imports nothing heavy.
Control characters show as pictures (`auger.core.text.visible`): a transcript cannot drive a terminal."""

from __future__ import annotations

import json
from collections.abc import Sequence

from auger.core import events as ev
from auger.core.text import counted, visible
from auger.core.threads.store import ThreadInfo, iso

TEXT_TOOL_LINES = 12
MARKDOWN_TOOL_LINES = 200


def _clip(text: str, lines: int) -> str:
    rows = text.rstrip("\n").splitlines()
    if len(rows) <= lines:
        return "\n".join(rows)
    return "\n".join([*rows[:lines], f"… ({counted(len(rows) - lines, 'more line')})"])


def _header(info: ThreadInfo | None, thread_id: str, markdown: bool) -> list[str]:
    if info is None:
        return [f"# thread {thread_id}" if markdown else f"thread {thread_id}", ""]
    facts = [info.id, info.model or "?", info.cwd, f"updated {iso(info.updated_at)}"]
    if info.parent_id:
        facts.append(f"forked from {info.parent_id} at turn {info.fork_turn}")
    if markdown:
        return [f"# {info.title or 'Untitled'}", "", " · ".join(f"`{f}`" for f in facts), ""]
    return [info.title or "Untitled", " · ".join(facts), ""]


def render_text(events: Sequence[ev.Event], info: ThreadInfo | None = None, thread_id: str = "") -> str:
    out = _header(info, thread_id, markdown=False)
    for event in events:
        if isinstance(event, ev.TurnStarted):
            out += ["> " + line for line in (event.prompt or " ").splitlines()] + [""]
        elif isinstance(event, ev.TextDelta):
            out += [event.text.rstrip(), ""]
        elif isinstance(event, ev.ToolCallStarted):
            out.append(f"  → {event.name} {json.dumps(event.args, ensure_ascii=False, default=str)}")
        elif isinstance(event, ev.ToolCallFinished):
            body = _clip(event.output, TEXT_TOOL_LINES).splitlines() or [""]
            out += [f"  ← {event.name}: {body[0]}", *("    " + b for b in body[1:]), ""]
    return visible("\n".join(out).rstrip() + "\n")


def render_markdown(events: Sequence[ev.Event], info: ThreadInfo | None = None, thread_id: str = "") -> str:
    out = _header(info, thread_id, markdown=True)
    speaker = ""
    for event in events:
        if isinstance(event, ev.TurnStarted):
            out += ["## User", "", event.prompt, ""]
            speaker = "user"
        elif isinstance(event, ev.TextDelta | ev.ToolCallStarted) and speaker != "assistant":
            out += ["## Assistant", ""]
            speaker = "assistant"
        if isinstance(event, ev.TextDelta):
            out += [event.text.rstrip(), ""]
        elif isinstance(event, ev.ToolCallStarted):
            args = json.dumps(event.args, ensure_ascii=False, indent=2, default=str)
            out += [f"**Tool call** `{event.name}`", "", "```json", args, "```", ""]
        elif isinstance(event, ev.ToolCallFinished):
            body = _clip(event.output, MARKDOWN_TOOL_LINES)
            out += [f"**Result** `{event.name}`", "", "````text", body, "````", ""]
    return visible("\n".join(out).rstrip() + "\n")

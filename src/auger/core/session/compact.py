"""Compaction on request (`/compact [instructions]`): summarise the thread so far into one message.

The thread keeps every message (history, `auger threads show` and search are unchanged); what the
model sees from the next call on is the summary followed by the messages after it. That view is
deepagents' own: its summarization middleware reads `_summarization_event` (`cutoff_index` = the
first state message kept verbatim, `summary_message` = what stands in for everything before), so a
manual compaction and the automatic one near the context limit stack the same way.

Unlike deepagents' `compact_conversation` tool, this runs between turns, on the user's word (no
eligibility threshold), with the model in use now (after `/model`, not the thread's first model),
and with the user's instructions for what to keep. PreCompact hooks run first (trigger "manual").
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.models.provider_errors import describe_error
from auger.core.operations import Compacted
from auger.core.threads.history import content_text
from auger.errors import ModelError, ProviderError, UsageError

if TYPE_CHECKING:
    from auger.core.session.session import Session

log = logging.getLogger("auger.compact")

EVENT_KEY = "_summarization_event"  # deepagents.middleware.summarization.SUMMARIZATION_EVENT_KEY
TOOL_OUTPUT_CHARS = 2_000  # per tool result in the text the summariser reads
TRANSCRIPT_CHARS = 400_000  # the newest part of the conversation, if it is longer than this
SUMMARY_PREFIX = "Here is a summary of the conversation to date:\n\n"

INSTRUCTIONS = """\
You are compacting a coding session between a user and an AI coding assistant so that the \
assistant can continue the work with only your summary as its memory of it. Write the summary \
for the assistant, in the second person where natural. Keep:
- the user's goals and every explicit request, constraint and preference, in their words when short;
- what was done: files created or changed (paths) and why, commands run and what they showed, \
decisions taken and approaches rejected;
- errors met and how they were resolved, or that they are still open;
- the current state of the work and the next steps that were planned or asked for.
Be specific (names, paths, numbers) and concise. Do not invent anything that is not in the \
conversation. Answer with the summary only."""


async def compact(session: Session, instructions: str | None = None) -> Compacted:
    """Summarise `session`'s thread with its current model (`compacted` False: nothing to yet)."""
    from langchain_core.messages import HumanMessage, SystemMessage

    values = await session.state()
    messages: list[Any] = list(values.get("messages") or [])
    event = values.get(EVENT_KEY)
    effective = effective_messages(messages, event)
    if len(effective) < 2 or not any(m.type == "ai" for m in effective):
        return Compacted(False)
    notices = await _pre_compact_hooks(session, instructions)
    request = INSTRUCTIONS + (f"\n\nThe user asks you to: {instructions.strip()}" if instructions else "")
    model = summary_model(session)
    try:
        reply = await model.ainvoke(
            [SystemMessage(request), HumanMessage("The conversation so far:\n\n" + transcript(effective))]
        )
    except Exception as exc:  # the provider's failure, in one line; the thread is unchanged
        log.exception("compaction failed")
        spec = session.model_spec or session.runtime.settings.model
        raise ProviderError(
            describe_error(exc, spec, session.runtime.settings) + " The conversation was not compacted."
        ) from exc
    summary = session.runtime.redactor.text(content_text(reply.content).strip())
    if not summary:
        raise UsageError("The model returned an empty summary; the conversation was not compacted.")
    summary_message = HumanMessage(SUMMARY_PREFIX + summary, additional_kwargs={"lc_source": "summarization"})
    before = session.context_tokens
    after = estimate_after(before, effective, summary_message)
    new_event = {
        "cutoff_index": len(messages),
        "summary_message": summary_message,
        "file_path": None,
        "created_at_index": len(messages),
    }
    await session.runtime.graph.aupdate_state(
        session.config(), {EVENT_KEY: new_event, "_context_tokens": after}
    )
    session.context_tokens = after
    return Compacted(True, len(effective), summary, before, after, notices)


def effective_messages(messages: list[Any], event: Any) -> list[Any]:
    """What the model sees now: after an earlier compaction, its summary and the messages since."""
    if not isinstance(event, dict) or "summary_message" not in event:
        return messages
    cutoff = event.get("cutoff_index")
    if not isinstance(cutoff, int):
        return messages
    return [event["summary_message"], *messages[cutoff:]]


def transcript(messages: list[Any]) -> str:
    """The conversation as plain text (tool calls and shortened tool output included), newest part
    kept when it is very long. Plain text works with every provider: no tool schemas needed."""
    parts = []
    for msg in messages:
        text = content_text(msg.content)
        if msg.type == "tool":
            if len(text) > TOOL_OUTPUT_CHARS:
                text = text[:TOOL_OUTPUT_CHARS] + f"\n… [{len(text) - TOOL_OUTPUT_CHARS} more characters]"
            parts.append(f"[tool result: {getattr(msg, 'name', None) or 'tool'}]\n{text}")
        elif msg.type == "ai":
            calls = [
                f"[tool call: {c.get('name')} {json.dumps(c.get('args'), ensure_ascii=False, default=str)}]"
                for c in getattr(msg, "tool_calls", None) or []
            ]
            parts.append("\n".join(["[assistant]", *([text] if text else []), *calls]))
        elif msg.type == "human":
            summary = (getattr(msg, "additional_kwargs", None) or {}).get("lc_source") == "summarization"
            parts.append(f"[{'summary of the earlier conversation' if summary else 'user'}]\n{text}")
    out = "\n\n".join(parts)
    return out if len(out) <= TRANSCRIPT_CHARS else "[… earlier part left out]\n" + out[-TRANSCRIPT_CHARS:]


def summary_model(session: Session) -> Any:
    """The chat model of the session's next turn (same spec and params as `/model` chose)."""
    from auger.core.agent.graph import model_factory

    settings = session.runtime.settings
    spec = session.model_spec or settings.model
    default = session.runtime.default_model
    if default is not None and (spec is None or spec == settings.model) and not session.model_params:
        return default
    if not spec:
        raise ModelError("No model configured.", hint="Pick one with /model.")
    return model_factory(settings)(spec, dict(session.model_params))


def estimate_after(before: int, effective: list[Any], summary_message: Any) -> int:
    """Context after compaction: the last reported size, minus the messages now summarised, plus
    the summary (the system prompt and tools stay). Replaced by the provider's count next turn."""
    from langchain_core.messages.utils import count_tokens_approximately

    removed = count_tokens_approximately(effective)
    added = count_tokens_approximately([summary_message])
    overhead = max(before - removed, 0) if before else 0
    return overhead + added


async def _pre_compact_hooks(session: Session, instructions: str | None) -> list[ev.Notice]:
    hooks = session.runtime.hooks
    if not hooks.has("PreCompact"):
        return []
    payload = {
        "session_id": session.thread_id,
        "trigger": "manual",
        "custom_instructions": instructions or "",
    }
    result = await hooks.run("PreCompact", payload, ["manual"])
    return [ev.Notice(text, "warning" if level == "warning" else "info") for text, level in result.notices]

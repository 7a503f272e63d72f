"""What a user prompt becomes in the thread, and the load warnings shown on the first turn.

`user_message(prompt, settings)` turns `/skill-name args` (a known skill) into the skill's
invocation message (its full instructions + the request, marked with `additional_kwargs
["auger_skill"]`); any other prompt is a plain HumanMessage. Used by `Session.send`, so the TUI,
headless (`auger -n "/commit fix typo"`) and the HTTP server all get skill calls the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.settings import Settings


def user_message(prompt: str, settings: Settings) -> tuple[Any, list[str]]:
    """(message, warnings): the message for `prompt`, and why a skill call fell back to plain text."""
    from langchain_core.messages import HumanMessage

    if prompt.lstrip().startswith("/"):
        from auger.core.catalog.skills import SkillError, invocation_message

        try:
            message = invocation_message(prompt, settings)
        except SkillError as exc:
            return HumanMessage(content=prompt), [str(exc)]
        if message is not None:
            return message, []
    return HumanMessage(content=prompt), []


def load_warnings(settings: Settings) -> list[str]:
    """Skills and subagent definitions that were skipped, memory files skipped or capped, and why
    (one line each)."""
    from auger.core.catalog.memory import memory_warnings
    from auger.core.catalog.skills import discover_skills
    from auger.core.catalog.subagents import discover_subagents

    return [
        *discover_skills(settings).warnings,
        *discover_subagents(settings).warnings,
        *memory_warnings(settings),
    ]

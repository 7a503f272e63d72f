"""SituationMiddleware: where the model is working, said late in the system prompt on each call.

A short block names the model this call goes to and its provider, today's date, the OS and the
shell commands run in, the approval mode, whether anybody can answer (headless: nobody will;
finish the task or say what blocks it) and whether the sandbox is on. It follows the todo list's
section and comes before skills and memory, after everything that never changes, so a prefix
cache keeps the stable start; it is built per call from the run context, so `/model` names the
new model on the next call.

deepagents appends the per-model prompt suffix of the model the graph was built with (its harness
profile) once, as its own block; this middleware drops that block and appends the suffix of the
model this call goes to, so a `/model` switch changes it too.
"""

from __future__ import annotations

import datetime
import os
import platform
from typing import Any

from langchain.agents.middleware import ModelRequest
from langchain_core.messages import SystemMessage

from auger.core.middleware.base import RequestShaper


def profile_suffix(model: Any, spec: str | None) -> str:
    """deepagents' per-model prompt suffix for `model` ("" when its harness profile has none)."""
    from deepagents.profiles.harness.harness_profiles import _harness_profile_for_model

    try:
        return _harness_profile_for_model(model, spec).system_prompt_suffix or ""
    except Exception:  # an unknown model has no profile: never a failed call
        return ""


def situation(spec: str, context: Any, sandbox: bool, subagent: bool = False) -> str:
    provider, _, name = spec.partition(":")
    mode = getattr(context, "mode", "manual")
    shell = "/bin/sh" if os.name == "posix" else os.environ.get("COMSPEC", "cmd.exe")
    if subagent:
        who = "Subagent: nobody answers questions here; your last message is the result the main agent reads."
    elif getattr(context, "unattended", False):
        who = "Headless: nobody will answer a question; finish the task or say what blocks it."
    else:
        who = "Interactive: the user can answer a question."
    return (
        f"## Situation\n- Model: {name or provider} (provider: {provider if name else 'unknown'}); "
        f"today: {datetime.date.today().isoformat()}; {platform.system()}, commands in {shell}; "
        f"approval mode: {mode}; sandbox: {'on' if sandbox else 'off'}.\n- {who}"
    )


class SituationMiddleware(RequestShaper):
    def __init__(
        self, default_spec: str | None, startup_suffix: str, sandbox: bool, pinned: str | None = None
    ) -> None:
        super().__init__()
        self._default = default_spec or ""
        self._startup = f"\n\n{startup_suffix}" if startup_suffix else None
        self._sandbox = sandbox
        self._pinned = pinned  # a subagent's block: its own model, else the main agent's

    def for_subagent(self, spec: str | None) -> SituationMiddleware:
        """The block for a subagent whose file pins model `spec` (None: it follows the main agent's)."""
        sub = SituationMiddleware(self._default, "", self._sandbox, pinned=spec or "")
        sub._startup = self._startup
        return sub

    def shape(self, request: ModelRequest) -> ModelRequest:
        context = getattr(request.runtime, "context", None)
        spec = self._pinned or getattr(context, "model_spec", None) or self._default
        blocks = [
            block
            for block in (request.system_message.content_blocks if request.system_message else [])
            if block.get("type") != "text" or block.get("text") != self._startup
        ]
        subagent = self._pinned is not None
        texts = [situation(spec, context, self._sandbox, subagent), profile_suffix(request.model, None)]
        blocks += [{"type": "text", "text": f"\n\n{text}"} for text in texts if text]
        return request.override(system_message=SystemMessage(content_blocks=blocks))  # type: ignore[arg-type]

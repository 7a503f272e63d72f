"""Capability flags per agent and per model (the `capabilities` operation, agentabi's idea): which
agents the user can reach with which tools, and what each model can take — tool calls, images,
reasoning, its context window. Model flags come from LangChain's model profiles (the partner
packages' models.dev data), read off a chat model built without a network call; a model no
profile knows (a local server's) has only its context window, the rest None — but for images,
which are always a yes or a no (`auger.core.models.images`: config, else the profile, else no)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from auger.core.operations import AgentCapabilities, Capabilities, ModelCapabilities

if TYPE_CHECKING:
    from auger.core.runtime import Runtime
    from auger.settings import Settings

log = logging.getLogger("auger.models")


def model_capabilities(settings: Settings, spec: str) -> ModelCapabilities:
    from auger.core.models.images import takes_images
    from auger.core.models.providers import build_chat_model, provider_of
    from auger.core.models.specs import parse_spec, window_of

    window = window_of(settings, spec)
    try:
        ms = parse_spec(spec, settings.providers)
        keys = provider_of(ms).key_envs
        model = build_chat_model(ms, env={k: "profile-only" for k in keys})  # never called
        profile: dict[str, Any] = dict(getattr(model, "profile", None) or {})
    except Exception:  # an unknown provider or a missing package: nothing known but the window
        log.debug("no profile for %s", spec, exc_info=True)
        profile = {}
    return ModelCapabilities(
        spec,
        window,
        profile.get("tool_calling"),
        takes_images(settings, spec, profile),
        profile.get("reasoning_output"),
    )


def capabilities(runtime: Runtime, current: str | None) -> Capabilities:
    from auger.core.agent.graph import agent_tool_names
    from auger.core.catalog.subagents import discover_subagents
    from auger.core.models.choices import model_choices

    settings = runtime.settings
    found = discover_subagents(settings)
    agents = [AgentCapabilities("auger", "main", current, agent_tool_names(runtime.graph, runtime.mcp))]
    agents.append(AgentCapabilities("general-purpose", "subagent", None, None))
    agents += [
        AgentCapabilities(a.name, "subagent", a.model, list(a.tools) if a.tools is not None else None)
        for a in found
    ]
    agents += [AgentCapabilities(str(a["name"]), "acp", None, None) for a in found.acp_agents]
    specs = [current] if current else []
    specs += [c.spec for c in model_choices(settings) if c.spec != current]
    return Capabilities(agents, [model_capabilities(settings, spec) for spec in specs])

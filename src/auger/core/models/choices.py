"""The models `/model` offers, computed where the agent runs (its config, its credentials): the
models of every configured provider, then well-known models of the built-in providers whose API
key is set."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from auger.core.models.providers import PROVIDERS
from auger.core.operations import ModelChoice

if TYPE_CHECKING:
    from auger.settings import Settings

WELL_KNOWN: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-5", "gpt-4.1", "gpt-4.1-mini", "o4-mini"),
    "anthropic": ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"),
    "google_genai": ("gemini-2.5-pro", "gemini-2.5-flash"),
}


def model_choices(settings: Settings) -> list[ModelChoice]:
    out: dict[str, ModelChoice] = {}
    if settings.model:
        out[settings.model] = ModelChoice(settings.model, "default")
    for name, provider in settings.providers.items():
        for model in provider.models:
            out.setdefault(f"{name}:{model}", ModelChoice(f"{name}:{model}", "config"))
    for name, known in WELL_KNOWN.items():
        if name not in settings.providers and any(os.environ.get(k) for k in PROVIDERS[name].key_envs):
            for model in known:
                out.setdefault(f"{name}:{model}", ModelChoice(f"{name}:{model}", "credentials"))
    return list(out.values())

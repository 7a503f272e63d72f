"""The models the `/model` picker offers: every configured provider's models, the built-in
providers whose API key is set, and the current model."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.settings import Settings

WELL_KNOWN: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-5", "gpt-4.1", "gpt-4.1-mini", "o4-mini"),
    "anthropic": ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"),
    "google_genai": ("gemini-2.5-pro", "gemini-2.5-flash"),
}


def available_models(settings: Settings, session: Any = None, env: Any = None) -> list[str]:
    from auger.core.models.specs import BUILTIN

    env = os.environ if env is None else env
    out: list[str] = []
    current = getattr(session, "model_spec", None) or settings.model
    if current:
        out.append(current)
    for name, provider in settings.providers.items():
        out.extend(f"{name}:{model}" for model in provider.models)
    for name, known in WELL_KNOWN.items():
        keys = BUILTIN[name].key_envs
        if name not in settings.providers and any(env.get(k) for k in keys):
            out.extend(f"{name}:{model}" for model in known)
    return list(dict.fromkeys(out))

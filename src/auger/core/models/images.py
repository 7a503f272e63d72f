"""Which models take images: the one answer the rest of auger asks (the model's profile that the
middleware reads, an MCP tool's image, an ACP prompt's image, the `capabilities` operation).

In order, the first that says:

1. `[models."PROVIDER:MODEL"] images = true|false` (or `[models.MODEL]`, the bare model name);
2. `[providers.NAME] images = true|false` (every model of a provider declared in config);
3. the model's known profile (`image_inputs`, LangChain's models.dev data for the built-in
   providers);
4. no: a model nothing is known of (a local server's) is sent no images, since an
   OpenAI-compatible text model refuses a request that holds one (and so would every later
   request of the thread).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.settings import Settings

PROFILE_KEY = "image_inputs"  # LangChain's model-profile field


def takes_images(settings: Settings, spec: str, profile: Mapping[str, Any]) -> bool:
    """Whether the model `spec` (whose LangChain profile is `profile`) takes images."""
    provider, _, name = spec.partition(":")
    models = settings.data.get("models")
    models = models if isinstance(models, Mapping) else {}
    for key in (spec, name):
        entry = models.get(key)
        if isinstance(entry, Mapping) and isinstance(entry.get("images"), bool):
            return bool(entry["images"])
    configured = settings.providers.get(provider)
    flag = configured.params.get("images") if configured else None
    return flag if isinstance(flag, bool) else bool(profile.get(PROFILE_KEY))


def model_takes_images(model: Any) -> bool:
    """Whether a built chat model takes images: its profile, as `auger.core.agent.graph`'s model
    factory stamps it with `takes_images` (a model built elsewhere: its own profile, else no)."""
    profile = getattr(model, "profile", None)
    return bool(profile.get(PROFILE_KEY)) if isinstance(profile, Mapping) else False

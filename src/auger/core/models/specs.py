"""Model specs (`provider:model`): resolving one against the configured and built-in providers
(`auger.core.models.providers`), and the context window auger assumes for it.

Any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenRouter) is declared in config as
`[providers.NAME]` with `base_url`, `api_key_env` and `models`, and is spoken to over chat
completions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from auger.core.models.providers import PROVIDERS
from auger.errors import ModelError

if TYPE_CHECKING:
    from auger.settings import ProviderSettings, Settings


# Context windows of well-known models (prefix match); configurable per provider/model.
_CONTEXT_WINDOWS: tuple[tuple[str, int], ...] = (
    ("claude", 200_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("gpt-4o", 128_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("gemini", 1_048_576),
)
DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class ModelSpec:
    """A resolved `provider:model` with everything needed to build the chat model."""

    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def context_window(self) -> int:
        configured = self.params.get("context_window")
        if isinstance(configured, int) and configured > 0:
            return configured
        for prefix, size in _CONTEXT_WINDOWS:
            if self.model.startswith(prefix):
                return size
        return DEFAULT_CONTEXT_WINDOW


def configured_window(override: Any, ms: ModelSpec | None) -> int | None:
    """The context window set in config: `override` (the top-level `context_window`), else the
    provider's `context_window`; None when neither is set."""
    for value in (override, ms.params.get("context_window") if ms else None):
        if isinstance(value, int) and value > 0:
            return value
    return None


def window_of(settings: Settings, spec: str | None) -> int:
    """The context window auger assumes for `spec` (0: no model or an unknown provider)."""
    if not spec:
        return 0
    try:
        ms: ModelSpec | None = parse_spec(spec, settings.providers)
    except ModelError:
        ms = None
    return configured_window(settings.get("context_window"), ms) or (ms.context_window if ms else 0)


def parse_spec(spec: str, providers: Mapping[str, ProviderSettings]) -> ModelSpec:
    """Resolve `provider:model` (or a bare model name, inferred like `init_chat_model`)."""
    spec = spec.strip()
    if not spec:
        raise ModelError("No model given.", hint="Use --model PROVIDER:MODEL, e.g. openai:gpt-4.1.")
    provider, sep, model = spec.partition(":")
    if not sep:
        provider, model = _infer_provider(spec, providers), spec
    if not model:
        raise ModelError(f"Model spec {spec!r} has no model name.", hint="Write it as PROVIDER:MODEL.")
    if provider in providers:
        cfg = providers[provider]
        params = {k: v for k, v in cfg.params.items() if k not in {"models"}}
        return ModelSpec(provider, model, cfg.base_url, cfg.api_key_env, params)
    if provider in PROVIDERS:
        return ModelSpec(provider, model)
    known = sorted({*PROVIDERS, *providers})
    raise ModelError(
        f"Unknown provider {provider!r} in model {spec!r}.",
        hint=f"Known providers: {', '.join(known)}. Declare an OpenAI-compatible one with "
        f"[providers.{provider}] base_url = ... in ~/.auger/config.toml.",
    )


def _infer_provider(name: str, providers: Mapping[str, ProviderSettings]) -> str:
    for pname, cfg in providers.items():
        if name in cfg.models:
            return pname
    for p in PROVIDERS.values():
        if name.lower().startswith(p.prefixes):  # no prefixes: never
            return p.name
    raise ModelError(
        f"Cannot tell which provider serves model {name!r}.",
        hint="Write it as PROVIDER:MODEL (e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, local:qwen3).",
    )

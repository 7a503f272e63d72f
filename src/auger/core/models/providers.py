"""The providers auger builds chat models for, as data: `PROVIDERS` maps a name to its pip package
and import name, the API-key variables (any one will do), the bare model-name prefixes that belong
to it, the params its chat model does not take, and how to build it. A provider declared in config
with a `base_url` is spoken to over chat completions (`OPENAI_COMPATIBLE`). Adding a provider is
one entry here.

Each builder imports its own package, inside the call: `build_chat_model` imports only the
package of the provider in use. Every model gets the provider's `request_timeout` (seconds
without a byte from the provider, `auger.core.models.provider_http`) where its client allows.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from auger.errors import ModelError
from auger.settings_schema import DEFAULT_REQUEST_TIMEOUT

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from auger.core.models.specs import ModelSpec

Timeout = tuple[str, float, str]  # (provider, seconds, the setting that says so)
Builder = Callable[["ModelSpec", dict[str, Any], Mapping[str, str], Timeout], "BaseChatModel"]


@dataclass(frozen=True)
class Provider:
    name: str
    package: str  # pip name
    module: str  # import name
    build: Builder
    key_envs: tuple[str, ...] = ()  # any one of these must be set (empty: no key needed)
    prefixes: tuple[str, ...] = ()  # bare model names starting with these belong here
    drops: tuple[str, ...] = ("headers", "reasoning_effort")  # params its chat model does not take
    extra: str = ""  # auger's pip extra that installs `package` (pyproject.toml), if it is optional


def _openai(ms: ModelSpec, params: dict[str, Any], env: Mapping[str, str], timeout: Timeout) -> BaseChatModel:
    """OpenAI or an OpenAI-compatible server, on auger's TimeoutClient."""
    from auger.core.models import openai_compat
    from auger.core.models.provider_http import TimeoutClient
    from auger.core.models.replies.openai_chunks import raw_chunks
    from auger.core.models.requests.openai_body import send_prebuilt_bodies

    compatible = ms.base_url is not None
    cls: Any = openai_compat.ChatOpenAICompatible if compatible else openai_compat.ChatOpenAIStreamed
    api_key = env.get(ms.api_key_env) if ms.api_key_env else None
    extra: dict[str, Any] = {}
    if compatible:
        extra["base_url"] = ms.base_url
        api_key = api_key or "not-needed"
    if headers := params.pop("headers", None):
        extra["default_headers"] = headers
    model = cls(
        model=ms.model,
        api_key=api_key,
        use_responses_api=False,
        stream_usage=True,
        max_retries=params.pop("max_retries", 2),
        timeout=timeout[1],
        http_async_client=TimeoutClient(*timeout),
        # langchain-openai's own 120 s limit between parsed chunks ignores SSE keep-alives: a
        # server busy with a long prompt would trip it; request_timeout covers silence instead.
        stream_chunk_timeout=None,
        **extra,
        **params,
    )
    # streamed chunks stay dicts (half the cost of a fast stream); bodies posted as built
    return send_prebuilt_bodies(raw_chunks(model))  # type: ignore[no-any-return]


def _anthropic(
    ms: ModelSpec, params: dict[str, Any], env: Mapping[str, str], timeout: Timeout
) -> BaseChatModel:
    from auger.core.models.anthropic_compat import ChatAnthropicTimed

    retries = params.pop("max_retries", 2)
    return ChatAnthropicTimed(model_name=ms.model, max_retries=retries, auger_timeout=timeout, **params)  # type: ignore[call-arg]


def _google(ms: ModelSpec, params: dict[str, Any], env: Mapping[str, str], timeout: Timeout) -> BaseChatModel:
    from langchain_google_genai import ChatGoogleGenerativeAI

    # not given request_timeout: google-genai sends its timeout as X-Server-Timeout, a deadline
    # for the whole reply on Google's side, which would cut long answers
    return ChatGoogleGenerativeAI(model=ms.model, **params)


def _ollama(ms: ModelSpec, params: dict[str, Any], env: Mapping[str, str], timeout: Timeout) -> BaseChatModel:
    from langchain_ollama import ChatOllama

    client_kwargs = {"timeout": timeout[1], **params.pop("client_kwargs", {})}
    return ChatOllama(model=ms.model, client_kwargs=client_kwargs, **params)


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "openai",
            "langchain-openai",
            "langchain_openai",
            _openai,
            ("OPENAI_API_KEY",),
            ("gpt-", "o1", "o3", "o4", "chatgpt", "codex-"),
            (),
        ),
        Provider(
            "anthropic",
            "langchain-anthropic",
            "langchain_anthropic",
            _anthropic,
            ("ANTHROPIC_API_KEY",),
            ("claude",),
        ),
        Provider(
            "google_genai",
            "langchain-google-genai",
            "langchain_google_genai",
            _google,
            ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
            ("gemini",),
            extra="google",
        ),
        Provider("ollama", "langchain-ollama", "langchain_ollama", _ollama, extra="ollama"),
    )
}
OPENAI_COMPATIBLE = Provider("openai-compatible", "langchain-openai", "langchain_openai", _openai, drops=())


def provider_of(ms: ModelSpec) -> Provider:
    return OPENAI_COMPATIBLE if ms.base_url is not None else PROVIDERS[ms.provider]


def check_credentials(ms: ModelSpec, env: Mapping[str, str] | None = None) -> None:
    """Raise ModelError naming what to set or install if the model cannot be built."""
    env = os.environ if env is None else env
    provider = provider_of(ms)
    _require_module(provider)
    if ms.base_url is not None and ms.api_key_env and not env.get(ms.api_key_env):
        raise ModelError(
            f"Provider {ms.provider!r} needs an API key: {ms.api_key_env} is not set.",
            hint=f"export {ms.api_key_env}=... (or remove api_key_env for a local server).",
        )
    if provider.key_envs and not any(env.get(k) for k in provider.key_envs):
        raise ModelError(
            f"Model {ms.spec} needs an API key: {' or '.join(provider.key_envs)} is not set.",
            hint=f"export {provider.key_envs[0]}=... or choose another model with --model.",
        )


def _require_module(provider: Provider) -> None:
    if importlib.util.find_spec(provider.module) is not None:
        return
    hint = f"pip install {provider.package}"
    if provider.extra:
        extra = provider.extra
        hint = (
            f'Install auger with its {extra} extra: pipx install "auger[{extra}]" (from a checkout: '
            f'pip install ".[{extra}]"), or into auger\'s environment: {hint}'
        )
    raise ModelError(f"The provider package {provider.package!r} is not installed.", hint=hint)


def resolve_request_timeout(
    ms: ModelSpec, params: dict[str, Any], default: float | None
) -> tuple[float, str]:
    """Seconds without a complete line before a request to `ms`'s provider is given up, and the setting that
    says so: `[providers.NAME] request_timeout` (popped from `params`), else the top-level one."""
    own = params.pop("request_timeout", None)
    legacy = params.pop("timeout", None)  # the client's own name for it, passed through before
    for value, key in ((own, "request_timeout"), (legacy, "timeout")):
        if _positive(value):
            return float(value), f"providers.{ms.provider}.{key}"
    return (float(default) if _positive(default) else DEFAULT_REQUEST_TIMEOUT), "request_timeout"


def _positive(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def build_chat_model(
    ms: ModelSpec,
    env: Mapping[str, str] | None = None,
    *,
    request_timeout: float | None = None,
    **overrides: Any,
) -> BaseChatModel:
    """Build the LangChain chat model for a spec; imports only that provider's package.
    `request_timeout` is the top-level setting (the provider's own wins)."""
    from auger.core.models.content_types import cache_block_types

    cache_block_types()
    check_credentials(ms, env)
    provider = provider_of(ms)
    params = {k: v for k, v in {**ms.params, **overrides}.items() if v is not None}
    for key in ("context_window", "images", *provider.drops):
        params.pop(key, None)
    timeout = (ms.provider, *resolve_request_timeout(ms, params, request_timeout))
    return provider.build(ms, params, os.environ if env is None else env, timeout)

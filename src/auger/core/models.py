"""Model specs (`provider:model`), providers and credentials.

Built-in providers: openai, anthropic, google_genai, ollama. Any OpenAI-compatible server
(vLLM, llama.cpp, LM Studio, OpenRouter) is declared in config as `[providers.NAME]` with
`base_url`, `api_key_env` and `models`, and is spoken to over chat completions.

Provider packages are imported only inside `build_chat_model`, for the provider in use.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

from auger._schema import DEFAULT_REQUEST_TIMEOUT
from auger.errors import ModelError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from auger.settings import ProviderSettings


@dataclass(frozen=True)
class BuiltinProvider:
    name: str
    package: str  # pip name
    module: str  # import name
    key_envs: tuple[str, ...] = ()  # any one of these must be set (empty: no key needed)
    prefixes: tuple[str, ...] = ()  # bare model names starting with these belong here
    extra: str = ""  # auger's pip extra that installs `package` (pyproject.toml), if it is optional


BUILTIN: dict[str, BuiltinProvider] = {
    p.name: p
    for p in (
        BuiltinProvider(
            "openai",
            "langchain-openai",
            "langchain_openai",
            ("OPENAI_API_KEY",),
            ("gpt-", "o1", "o3", "o4", "chatgpt", "codex-"),
        ),
        BuiltinProvider(
            "anthropic", "langchain-anthropic", "langchain_anthropic", ("ANTHROPIC_API_KEY",), ("claude",)
        ),
        BuiltinProvider(
            "google_genai",
            "langchain-google-genai",
            "langchain_google_genai",
            ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
            ("gemini",),
            "google",
        ),
        BuiltinProvider("ollama", "langchain-ollama", "langchain_ollama", (), (), "ollama"),
    )
}

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
    if provider in BUILTIN:
        return ModelSpec(provider, model)
    known = sorted({*BUILTIN, *providers})
    raise ModelError(
        f"Unknown provider {provider!r} in model {spec!r}.",
        hint=f"Known providers: {', '.join(known)}. Declare an OpenAI-compatible one with "
        f"[providers.{provider}] base_url = ... in ~/.auger/config.toml.",
    )


def _infer_provider(name: str, providers: Mapping[str, ProviderSettings]) -> str:
    for pname, cfg in providers.items():
        if name in cfg.models:
            return pname
    lower = name.lower()
    for p in BUILTIN.values():
        if lower.startswith(p.prefixes) if p.prefixes else False:
            return p.name
    raise ModelError(
        f"Cannot tell which provider serves model {name!r}.",
        hint="Write it as PROVIDER:MODEL (e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, local:qwen3).",
    )


def check_credentials(ms: ModelSpec, env: Mapping[str, str] | None = None) -> None:
    """Raise ModelError naming what to set or install if the model cannot be built."""
    env = os.environ if env is None else env
    if ms.base_url is not None:  # OpenAI-compatible, declared in config
        _require_module("langchain_openai", "langchain-openai")
        if ms.api_key_env and not env.get(ms.api_key_env):
            raise ModelError(
                f"Provider {ms.provider!r} needs an API key: {ms.api_key_env} is not set.",
                hint=f"export {ms.api_key_env}=... (or remove api_key_env for a local server).",
            )
        return
    bp = BUILTIN[ms.provider]
    _require_module(bp.module, bp.package, bp.extra)
    if bp.key_envs and not any(env.get(k) for k in bp.key_envs):
        raise ModelError(
            f"Model {ms.spec} needs an API key: {' or '.join(bp.key_envs)} is not set.",
            hint=f"export {bp.key_envs[0]}=... or choose another model with --model.",
        )


def _require_module(module: str, package: str, extra: str = "") -> None:
    if importlib.util.find_spec(module) is None:
        hint = f"pip install {package}"
        if extra:
            hint = (
                f'Install auger with its {extra} extra: pipx install "auger[{extra}]" (from a checkout: '
                f'pip install ".[{extra}]"), or into auger\'s environment: {hint}'
            )
        raise ModelError(f"The provider package {package!r} is not installed.", hint=hint)


def resolve_request_timeout(
    ms: ModelSpec, params: dict[str, Any], default: float | None
) -> tuple[float, str]:
    """Seconds without bytes before a request to `ms`'s provider is given up, and the setting that
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
    check_credentials(ms, env)
    env = os.environ if env is None else env
    params = {k: v for k, v in {**ms.params, **overrides}.items() if v is not None}
    params.pop("context_window", None)
    timeout = (ms.provider, *resolve_request_timeout(ms, params, request_timeout))
    if ms.base_url is not None or ms.provider == "openai":
        return _openai_model(ms, env, params, timeout)
    params.pop("headers", None)
    params.pop("reasoning_effort", None)
    if ms.provider == "anthropic":
        from auger.core.anthropic_compat import ChatAnthropicTimed

        retries = params.pop("max_retries", 2)
        return ChatAnthropicTimed(model_name=ms.model, max_retries=retries, auger_timeout=timeout, **params)  # type: ignore[call-arg]
    if ms.provider == "google_genai":
        from langchain_google_genai import ChatGoogleGenerativeAI

        # not given request_timeout: google-genai sends its timeout as X-Server-Timeout, a deadline
        # for the whole reply on Google's side, which would cut long answers
        return ChatGoogleGenerativeAI(model=ms.model, **params)
    from langchain_ollama import ChatOllama  # provider == "ollama"

    client_kwargs = {"timeout": timeout[1], **params.pop("client_kwargs", {})}
    return ChatOllama(model=ms.model, client_kwargs=client_kwargs, **params)


def _openai_model(
    ms: ModelSpec, env: Mapping[str, str], params: dict[str, Any], timeout: tuple[str, float, str]
) -> BaseChatModel:
    """OpenAI or an OpenAI-compatible server, on auger's TimeoutClient (auger.core.provider_http)."""
    from auger.core.provider_http import TimeoutClient

    cls: Any
    if ms.base_url is not None:
        from auger.core.openai_compat import ChatOpenAICompatible as cls
    else:
        from langchain_openai import ChatOpenAI as cls

    api_key = env.get(ms.api_key_env) if ms.api_key_env else None
    if ms.base_url is not None and not api_key:
        api_key = "not-needed"
    headers = params.pop("headers", None)
    extra: dict[str, Any] = {"default_headers": headers} if headers else {}
    if ms.base_url is not None:
        extra["base_url"] = ms.base_url
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
    from auger.core.openai_chunks import raw_chunks

    return raw_chunks(model)  # streamed chunks stay dicts: half the cost of a fast stream

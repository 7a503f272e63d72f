"""Model specs, provider inference, credentials, and lazy provider imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from auger.core.models.providers import build_chat_model, check_credentials
from auger.core.models.specs import DEFAULT_CONTEXT_WINDOW, configured_window, parse_spec
from auger.errors import ModelError
from auger.settings import ProviderSettings

LOCAL = {
    "local": ProviderSettings(
        "local", "http://127.0.0.1:9/v1", None, ["qwen3"], {"temperature": 0.2, "context_window": 32768}
    ),
    "keyed": ProviderSettings("keyed", "http://127.0.0.1:9/v1", "KEYED_KEY", [], {}),
}


@pytest.mark.parametrize(
    ("spec", "provider", "model"),
    [
        ("openai:gpt-4.1", "openai", "gpt-4.1"),
        ("gpt-4.1", "openai", "gpt-4.1"),
        ("o3-mini", "openai", "o3-mini"),
        ("claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
        ("gemini-2.5-pro", "google_genai", "gemini-2.5-pro"),
        ("ollama:llama3.1", "ollama", "llama3.1"),
        ("qwen3", "local", "qwen3"),  # a bare name listed by a configured provider
        ("local:anything", "local", "anything"),
    ],
)
def test_parse_spec(spec: str, provider: str, model: str) -> None:
    ms = parse_spec(spec, LOCAL)
    assert (ms.provider, ms.model) == (provider, model)


def test_configured_provider_carries_url_params_and_window() -> None:
    ms = parse_spec("local:qwen3", LOCAL)
    assert ms.base_url == "http://127.0.0.1:9/v1"
    assert ms.params["temperature"] == 0.2
    assert ms.context_window == 32768
    assert parse_spec("openai:gpt-4o", {}).context_window == 128_000
    assert parse_spec("local:x", {"local": LOCAL["keyed"]}).context_window == DEFAULT_CONTEXT_WINDOW
    # what config sets (the top-level override first) — the compaction point and the status bar
    assert configured_window(None, ms) == 32768 and configured_window(8000, ms) == 8000
    assert configured_window(None, parse_spec("openai:gpt-4o", {})) is None
    assert configured_window(0, None) is None and configured_window(4096, None) == 4096


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("nosuch:model", "Unknown provider 'nosuch'"),
        ("mystery-model", "PROVIDER:MODEL"),
        ("local:", "no model"),
    ],
)
def test_bad_specs_say_what_to_do(spec: str, needle: str) -> None:
    with pytest.raises(ModelError) as err:
        parse_spec(spec, LOCAL)
    assert needle in str(err.value)


def test_missing_keys_name_the_variable() -> None:
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        check_credentials(parse_spec("anthropic:claude-x", {}), env={})
    with pytest.raises(ModelError, match="KEYED_KEY"):
        check_credentials(parse_spec("keyed:m", LOCAL), env={})
    check_credentials(parse_spec("keyed:m", LOCAL), env={"KEYED_KEY": "k"})
    check_credentials(parse_spec("local:m", LOCAL), env={})  # local servers need no key


def test_missing_provider_package_says_what_to_install() -> None:
    with pytest.raises(ModelError) as caught:
        check_credentials(parse_spec("ollama:llama3", {}), env={})
    said = str(caught.value)
    assert "langchain-ollama" in said and "auger[ollama]" in said and 'pip install ".[ollama]"' in said


def test_openai_compatible_model_speaks_chat_completions() -> None:
    model = build_chat_model(parse_spec("local:qwen3", LOCAL), env={})
    assert type(model).__name__ == "ChatOpenAICompatible"
    assert model.use_responses_api is False  # type: ignore[attr-defined]
    assert str(model.openai_api_base) == "http://127.0.0.1:9/v1"  # type: ignore[attr-defined]


def test_only_the_used_provider_package_is_imported() -> None:
    code = (
        "import sys, json\n"
        "from auger.core.models.providers import build_chat_model\n"
        "from auger.core.models.specs import parse_spec\n"
        "from auger.settings import ProviderSettings\n"
        "p = {'local': ProviderSettings('local', 'http://127.0.0.1:9/v1', None, [], {})}\n"
        "build_chat_model(parse_spec('local:m', p), env={})\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    mods = set(json.loads(out.stdout))
    assert "langchain_openai" in mods
    assert not mods & {"langchain_anthropic", "anthropic", "langchain_google_genai", "langchain_ollama"}

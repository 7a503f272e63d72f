"""Startup and headless-turn benchmark.

    python bench/bench_startup.py [--runs N]

Prints median wall time and peak RSS of `auger --version`, `auger --help`, a headless one-tool
turn against the scripted OpenAI-compatible server (no artificial latency), and the floor: a bare
interpreter and importing the heavy packages alone. Targets: --version/--help ≤ 60 ms; headless
turn ≤ 1.3× the import floor; peak RSS ≤ 200 MB.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from _util import measure, row  # noqa: E402

from llm_server import ScriptedLLM  # noqa: E402

AUGER = str(Path(sys.executable).with_name("auger"))
FLOOR = (
    "import deepagents, langchain_openai, langgraph.checkpoint.sqlite.aio, aiosqlite; "
    "from deepagents.backends import LocalShellBackend"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    runs = ap.parse_args().runs
    tmp = Path(tempfile.mkdtemp(prefix="auger-bench-"))
    home, project = tmp / "home", tmp / "project"
    home.mkdir()
    project.mkdir()
    env = dict(os.environ, AUGER_HOME=str(home), HOME=str(tmp))
    one_tool = {"repeat": True, "when": {"last_user_contains": "bench"}}
    with ScriptedLLM(script=[]) as llm:
        (home / "config.toml").write_text(
            f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
            'models = ["scripted-model"]\n'
        )
        # each run: the model lists the folder (one tool call), then answers.
        for _ in range(runs + 1):
            llm.add({"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}, {"text": "done"})
        del one_tool
        results = [
            ("python -c pass (interpreter)", measure([sys.executable, "-c", "pass"], runs=runs), ""),
            ("import floor (heavy packages alone)", measure([sys.executable, "-c", FLOOR], runs=runs), ""),
            ("auger --version", measure([AUGER, "--version"], runs=runs, env=env), "target ≤ 60 ms"),
            ("auger --help", measure([AUGER, "--help"], runs=runs, env=env), "target ≤ 60 ms"),
            (
                "auger -n (one-tool turn)",
                measure(
                    [AUGER, "-n", "bench", "--mode", "yolo", "--no-mcp"], runs=runs, env=env, cwd=str(project)
                ),
                "target ≤ 1.3× floor, ≤ 200 MB",
            ),
        ]
    print(f"{'':<38} {'median wall':>11} {'peak RSS':>11}   (runs={runs})")
    for name, (wall, rss), note in results:
        print(row(name, wall, rss, note))
    floor = results[1][1][0]
    turn = results[4][1][0]
    print(f"\nheadless turn / import floor = {turn / floor:.2f}×")


if __name__ == "__main__":
    main()

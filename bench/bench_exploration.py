"""Context a scripted 20-call exploration of a real repository costs (issue 36, item 10).

    python bench/bench_exploration.py [--src DIR] [--dcode PATH]

The project is an installed package's source (httpx, from this venv) in a git repository, with a
`.venv/` that holds another package (rich) and is listed in `.gitignore`, as a real checkout
has. The scripted model (tests/llm_server.py) makes the same 20 tool calls a model exploring it
would (ls, glob, grep, read_file, a few commands), then answers. Printed: the characters (and
~tokens, chars/4) of the last request (the context the model ends with), the sum over all 21
requests (what a provider bills without a prompt cache) and the largest single tool result.

`--src DIR` runs the auger source in DIR (an older commit's `src`) for before/after figures.
`--dcode PATH` also runs Deep Agents Code (`dcode`, from PyPI `deepagents-code`, installed in a
venv of its own) on the same script against the same scripted server, for the comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from llm_server import ScriptedLLM  # noqa: E402

DCODE_FLAGS = ("--no-mcp", "--model-params", '{"use_responses_api": false}')  # chat completions
Path_ = Callable[[str], str]  # a project-relative path in the form the agent's tools take


def script(p: Path_) -> list[dict[str, Any]]:
    """The 20 calls, with paths as `p` writes them."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("ls", {"path": p("")}),
        ("glob", {"pattern": "**/*.py"}),
        ("grep", {"pattern": "class Client"}),
        ("read_file", {"file_path": p("httpx/_client.py"), "limit": 100}),
        ("grep", {"pattern": "def send", "output_mode": "content"}),
        ("read_file", {"file_path": p("httpx/_client.py"), "offset": 800, "limit": 120}),
        ("grep", {"pattern": "Timeout", "path": p("httpx")}),
        ("read_file", {"file_path": p("httpx/_config.py"), "limit": 150}),
        ("execute", {"command": "git log --oneline | head -5"}),
        ("execute", {"command": "ls -la"}),
        ("grep", {"pattern": "raise_for_status", "output_mode": "content"}),
        ("read_file", {"file_path": p("httpx/_models.py"), "limit": 200}),
        ("glob", {"pattern": "**/*test*"}),
        ("grep", {"pattern": "def request", "output_mode": "content"}),
        ("read_file", {"file_path": p("httpx/_api.py"), "limit": 120}),
        ("execute", {"command": "wc -l httpx/*.py"}),
        ("grep", {"pattern": "import", "path": p("httpx/__init__.py"), "output_mode": "content"}),
        ("read_file", {"file_path": p("httpx/__init__.py")}),
        ("ls", {"path": p("httpx")}),
        ("grep", {"pattern": "TODO", "output_mode": "content"}),
    ]
    steps: list[dict[str, Any]] = [{"tool_calls": [{"name": n, "args": a}]} for n, a in calls]
    return [*steps, {"text": "httpx: a client in _client.py, config in _config.py, models in _models.py."}]


def make_project(root: Path) -> None:
    site = Path(__import__("httpx").__file__).parent.parent
    root.mkdir()
    shutil.copytree(site / "httpx", root / "httpx", ignore=shutil.ignore_patterns("__pycache__"))
    venv = root / ".venv" / "lib" / "python3.11" / "site-packages"
    shutil.copytree(site / "rich", venv / "rich", ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".gitignore").write_text(".venv/\n__pycache__/\n")
    (root / "README.md").write_text("# httpx (a copy for the bench)\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "import"]):
        env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
        subprocess.run(
            ["git", "-C", str(root), *args],
            check=True,
            capture_output=True,
            env=env | {"GIT_COMMITTER_EMAIL": "b@x"},
        )


def figures(requests: list[dict[str, Any]]) -> dict[str, int]:
    def size(request: dict[str, Any]) -> int:
        return len(json.dumps(request["messages"])) + len(json.dumps(request.get("tools", [])))

    last = requests[-1]
    results = [len(str(m.get("content"))) for m in last["messages"] if m["role"] == "tool"]
    return {
        "requests": len(requests),
        "tool_results": len(results),
        "last_request_chars": size(last),
        "all_requests_chars": sum(map(size, requests)),
        "largest_result_chars": max(results, default=0),
    }


def run_auger(project: Path, src: str | None) -> dict[str, int]:
    with ScriptedLLM(script(lambda rel: "/" + rel)) as llm:
        tmp = project.parent
        home = tmp / "auger-home"
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(
            f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
            'models = ["scripted-model"]\n'
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AUGER_", "OPENAI_"))}
        env.update(AUGER_HOME=str(home), HOME=str(tmp))
        if src:
            env["PYTHONPATH"] = src
        cmd = [sys.executable, "-c", "import sys; from auger.cli import main; sys.exit(main())"]
        proc = subprocess.run(
            [*cmd, "-n", "Explore this project.", "--mode", "yolo"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise SystemExit(f"auger failed: {proc.stderr[-2000:]}")
        return figures(llm.requests)


def run_dcode(project: Path, dcode: str) -> dict[str, int]:
    with ScriptedLLM(script(lambda rel: str(project / rel))) as llm:
        tmp = project.parent
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
        env.update(
            HOME=str(tmp),
            OPENAI_API_KEY="sk-bench",
            OPENAI_BASE_URL=llm.base_url,
            OPENAI_API_BASE=llm.base_url,
        )
        proc = subprocess.run(
            [dcode, "-n", "Explore this project.", "-M", "openai:scripted-model", "-S", "all", *DCODE_FLAGS],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if len(llm.requests) < 2:
            raise SystemExit(
                f"dcode sent {len(llm.requests)} requests: {proc.stdout[-1500:]} {proc.stderr[-3000:]}"
            )
        return figures(llm.requests)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", help="run the auger source in this folder (before/after)")
    ap.add_argument("--dcode", help="the `dcode` executable of Deep Agents Code, for the comparison")
    args = ap.parse_args()
    rows: list[tuple[str, dict[str, int]]] = []
    for name in ["auger", *(["dcode"] if args.dcode else [])]:
        tmp = Path(tempfile.mkdtemp(prefix="auger-explore-"))
        make_project(tmp / "project")
        found = (
            run_auger(tmp / "project", args.src)
            if name == "auger"
            else run_dcode(tmp / "project", args.dcode)
        )
        rows.append((name, found))
        shutil.rmtree(tmp, ignore_errors=True)
    for name, f in rows:
        print(
            f"{name:6} {f['requests']} requests, {f['tool_results']} tool results: last request "
            f"{f['last_request_chars']:,} chars (~{f['last_request_chars'] // 4:,} tokens), all requests "
            f"{f['all_requests_chars']:,} chars (~{f['all_requests_chars'] // 4:,} tokens), largest result "
            f"{f['largest_result_chars']:,} chars"
        )


if __name__ == "__main__":
    main()

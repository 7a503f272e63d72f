"""Test harness for auger hosted on a LangGraph Server: the real `langgraph dev` (from
`langgraph-cli[inmem]`, the repo's langgraph.json) in a subprocess on a free port, in a temp project
with an AUGER_HOME whose config points at a scripted LLM server (tests/llm_server.py).

`hosted` is session-scoped (the server takes seconds to start): tests share one server and one
scripted LLM, so each test scripts replies keyed on its own prompt (`when: last_user_contains`)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import AugerEnv
from llm_server import ScriptedLLM

REPO = Path(__file__).resolve().parent.parent
LANGGRAPH = str(Path(sys.executable).with_name("langgraph"))
MCP_SERVER = REPO / "tests" / "mcp_servers" / "fastmcp_server.py"  # the hosted auger's MCP server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Hosted:
    """A running `langgraph dev` serving graph `auger`, and the auger user/project behind it."""

    proc: subprocess.Popen[bytes]
    url: str
    env: AugerEnv
    log: Path

    def script(self, prompt_key: str, *replies: dict[str, Any]) -> None:
        """Replies for the model calls of a turn whose prompt contains `prompt_key`, in order."""
        self.env.llm.add(*({**r, "when": {"last_user_contains": prompt_key}} for r in replies))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_langgraph(env: AugerEnv, log: Path, *, extra_env: dict[str, str] | None = None) -> Hosted:
    port = free_port()
    cmd = [LANGGRAPH, "dev", "--config", str(REPO / "langgraph.json"), "--no-browser", "--no-reload"]
    cmd += ["--host", "127.0.0.1", "--port", str(port)]
    server_env = {**env.env, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false"}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=env.project, env={**server_env, **(extra_env or {})}, stdout=out, stderr=out
        )
    hosted = Hosted(proc, f"http://127.0.0.1:{port}", env, log)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # another process's readiness: poll its health endpoint
        if proc.poll() is not None:
            break
        try:
            if httpx.get(f"{hosted.url}/ok", timeout=2).status_code == 200:
                return hosted
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    hosted.stop()
    raise AssertionError(f"langgraph dev did not start:\n{log.read_text(errors='replace')[-3000:]}")


def hosted_env(root: Path, llm: ScriptedLLM) -> AugerEnv:
    home, project = root / "home", root / "project"
    home.mkdir(parents=True)
    project.mkdir()
    (project / ".git").mkdir()  # the project root (so AUGER_WORKSPACE-less runs stay in it)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUGER_", "OPENAI_", "ANTHROPIC_"))}
    env["AUGER_HOME"] = str(home)
    env["HOME"] = str(root)
    ae = AugerEnv(home, project, llm, env)
    ae.write_config('[permissions]\ndeny = ["write_file(secret.env)"]\n')
    servers = {"calc": {"command": sys.executable, "args": [str(MCP_SERVER)]}}
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return ae


@pytest.fixture(scope="session")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosted]:
    root = tmp_path_factory.mktemp("langgraph")
    with ScriptedLLM(log_path=root / "llm_requests.jsonl") as llm:
        server = start_langgraph(hosted_env(root, llm), root / "langgraph.log")
        try:
            yield server
        finally:
            server.stop()

"""`auger acp` latency benchmark.

    python bench/bench_acp.py [--runs N]

1. `initialize`: spawn `auger acp`, send `initialize` at once, time until its response line is
   read. Paired with `auger --version` (interpreter + auger's CLI import, the floor) run right
   before each spawn, so machine load hits both alike; prints both medians and the median of
   the per-pair difference. Target: ≤ 150 ms after spawn.
2. First `agent_message_chunk` of a turn: with the Python ACP client, N turns in one session;
   for each, the client's arrival time of the first chunk minus the time the scripted model
   server sent its first token (`ScriptedLLM.script.first_tokens`). Target: ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from llm_server import ScriptedLLM  # noqa: E402

AUGER = str(Path(sys.executable).with_name("auger"))
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n'
)


def initialize_ms(env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [AUGER, "acp"],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INITIALIZE)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = (time.perf_counter() - t0) * 1000
    assert json.loads(line)["result"]["agentInfo"]["name"] == "auger", line
    proc.stdin.close()
    proc.wait(30)
    return elapsed


def version_ms(env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([AUGER, "--version"], env=env, check=True, capture_output=True)
    return (time.perf_counter() - t0) * 1000


async def first_chunk_ms(env: dict[str, str], cwd: Path, llm: ScriptedLLM, turns: int) -> list[float]:
    from acp import schema as s
    from acp.stdio import spawn_agent_process

    arrivals: list[float] = []
    waiting = {"on": False}

    class Client:
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            if waiting["on"] and update.session_update == "agent_message_chunk":
                arrivals.append(time.time())
                waiting["on"] = False

        async def request_permission(self, **kwargs: Any) -> Any:
            raise AssertionError("no tool calls in this bench")

    for _ in range(turns + 1):
        llm.add({"text": "The answer is forty-two, as it always was and always will be."})
    async with spawn_agent_process(Client(), AUGER, "acp", env=env, cwd=cwd) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
        text = [s.TextContentBlock(type="text", text="question")]
        for _ in range(turns + 1):  # the first turn warms up (model client, first graph run)
            waiting["on"] = True
            await conn.prompt(session_id=session.session_id, prompt=text)
    sent = llm.script.first_tokens
    return [(got - at) * 1000 for got, at in zip(arrivals[1:], sent[1:], strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    runs = ap.parse_args().runs
    tmp = Path(tempfile.mkdtemp(prefix="auger-bench-acp-"))
    home, project = tmp / "home", tmp / "project"
    home.mkdir()
    project.mkdir()
    env = dict(os.environ, AUGER_HOME=str(home), HOME=str(tmp))
    with ScriptedLLM(script=[]) as llm:
        (home / "config.toml").write_text(
            f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
            'models = ["scripted-model"]\n'
        )
        initialize_ms(env, project)  # warm the page cache
        pairs = [(version_ms(env), initialize_ms(env, project)) for _ in range(runs)]
        floor = statistics.median(p[0] for p in pairs)
        init = statistics.median(p[1] for p in pairs)
        extra = statistics.median(p[1] - p[0] for p in pairs)
        print(f"auger --version (floor, paired)        {floor:8.1f} ms")
        print(f"auger acp: initialize answered         {init:8.1f} ms  target ≤ 150 ms after spawn")
        print(f"  minus the paired floor (median)      {extra:8.1f} ms")
        lags = asyncio.run(first_chunk_ms(env, project, llm, runs))
        lags.sort()
        p90 = lags[min(len(lags) - 1, int(len(lags) * 0.9))]
        print(
            f"first agent_message_chunk after token  {statistics.median(lags):8.1f} ms  (p90 {p90:.1f} ms, "
            f"{len(lags)} turns)  target ≤ 50 ms"
        )


if __name__ == "__main__":
    main()

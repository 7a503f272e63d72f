"""One auger delegating to another hosted on a LangGraph Server: `[async_subagents.NAME]` with
`url` = the real `langgraph dev` serving auger's graph, `graph_id = "auger"`. The local auger
starts the task (deepagents' `start_async_task`), the hosted auger does the work, and a later
turn's `check_async_task` brings its answer back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from langgraph_sdk import get_client

from conftest import AUGER
from langgraph_harness import Hosted


def local_auger(hosted: Hosted, tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    """The real `auger -n` in a project of its own, its model the same scripted server."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    config = (
        'model = "local:scripted-model"\n[providers.local]\n'
        f'base_url = "{hosted.env.llm.base_url}"\nmodels = ["scripted-model"]\n'
        "[async_subagents.helper]\n"
        f'url = "{hosted.url}"\ngraph_id = "auger"\n'
        'description = "An auger on the team server: give it a self-contained task."\n'
    )
    (home / "config.toml").write_text(config)
    env = {**hosted.env.env, "AUGER_HOME": str(home), "HOME": str(tmp_path)}
    proc = subprocess.run(
        [AUGER, *args, "--output-format", "stream-json"],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def finished(events: list[dict[str, Any]], name: str) -> dict[str, Any]:
    [call] = [e for e in events if e["type"] == "tool_call_finished" and e["name"] == name]
    return call


async def test_an_auger_delegates_to_an_auger_on_a_langgraph_server(hosted: Hosted, tmp_path: Path) -> None:
    start = {"description": "survey the sky for the team", "subagent_type": "helper"}
    hosted.script(
        "delegate the survey",
        {"tool_calls": [{"name": "start_async_task", "args": start}]},
        {"text": "The helper is on it."},
    )
    hosted.script("survey the sky for the team", {"text": "Clear skies, reported by the hosted helper."})
    first = local_auger(hosted, tmp_path, "-n", "delegate the survey")
    launched = finished(first, "start_async_task")
    assert launched["status"] == "success", launched
    task_id = launched["output"].split("task_id:")[1].split()[0]
    assert first[-1]["text"] == "The helper is on it."

    client = get_client(url=hosted.url)  # the task is a thread of the hosted auger
    [run] = await client.runs.list(task_id)
    await client.runs.join(task_id, run["run_id"])
    state = await client.threads.get_state(task_id)
    assert state["values"]["messages"][-1]["content"] == "Clear skies, reported by the hosted helper."

    # the next local turn is told the task finished (deepagents adds a <task-notification> with
    # its result after the prompt); checking the task brings the hosted auger's answer back too
    hosted.script(
        "Clear skies, reported by the hosted helper.",
        {"tool_calls": [{"name": "check_async_task", "args": {"task_id": task_id}}]},
        {"text": "It found clear skies."},
    )
    second = local_auger(hosted, tmp_path, "-r", first[-1]["thread_id"], "-n", "what did the helper find")
    checked = finished(second, "check_async_task")
    assert "Clear skies, reported by the hosted helper." in checked["output"]
    assert second[-1]["text"] == "It found clear skies."

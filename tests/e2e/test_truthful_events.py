"""End-to-end: events say what really happened — failed and timed-out commands are errors (and fire
PostToolUseFailure), an approval names the call it is about, `--model` on `-r` is the model used,
a closed stdout ends the run quietly, and an internal error names the real log file."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import AUGER, AugerEnv
from serve_harness import Server, StreamingRun, start_server


def _finished(env: AugerEnv, proc: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    return {e["call_id"]: e for e in env.events(proc) if e["type"] == "tool_call_finished"}


def test_failing_and_timed_out_commands_are_errors_and_fire_post_tool_use_failure(
    auger_env: AugerEnv,
) -> None:
    seen = auger_env.home / "failures.jsonl"
    hook = {"type": "command", "command": f"cat >> {seen}; echo >> {seen}"}
    hooks = {"PostToolUseFailure": [{"matcher": "execute", "hooks": [hook]}]}
    (auger_env.home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    config = auger_env.home / "config.toml"
    config.write_text("shell_timeout = 1\n" + config.read_text())
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "id": "call_fail", "args": {"command": "echo half; exit 3"}}]},
        {"tool_calls": [{"name": "execute", "id": "call_slow", "args": {"command": "sleep 30"}}]},
        {"tool_calls": [{"name": "execute", "id": "call_ok", "args": {"command": "echo fine"}}]},
        {"text": "Two failed, one worked."},
    )
    proc = auger_env.run("-n", "run three commands", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    finished = _finished(auger_env, proc)
    assert finished["call_fail"]["status"] == "error" and "exit code 3" in finished["call_fail"]["output"]
    assert finished["call_slow"]["status"] == "error" and "timed out" in finished["call_slow"]["output"]
    assert finished["call_ok"]["status"] == "success"
    failures = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [f["tool_use_id"] for f in failures] == ["call_fail", "call_slow"]
    assert "exit code 3" in failures[0]["error"]
    tool_msgs = [m for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 3  # the model read all three results, the turn went on


@pytest.fixture
def manual_server(auger_env: AugerEnv) -> Iterator[Server]:
    srv = start_server(auger_env, "--mode", "manual")
    yield srv
    assert srv.stop() == 0


def test_approval_requested_carries_the_call_id_of_its_tool_call(manual_server: Server) -> None:
    manual_server.env.llm.add(
        {"tool_calls": [{"name": "execute", "id": "call_ls_1", "args": {"command": "ls"}}]},
        {"text": "Listed."},
    )
    tid = manual_server.new_thread()
    run = StreamingRun(manual_server, tid, "list the files")
    started = run.until("tool_call_started")
    asked = run.until("approval_requested")
    assert started["call_id"] == "call_ls_1"
    assert asked["call_id"] == started["call_id"] and asked["name"] == "execute"
    with manual_server.client() as c:
        body = {"request_id": asked["request_id"], "decision": "approve"}
        assert c.post(f"/threads/{tid}/approvals", json=body).status_code == 200
    finished = [e for e in run.rest() if e["type"] == "tool_call_finished"]
    assert [e["call_id"] for e in finished] == ["call_ls_1"]


def test_model_flag_on_resume_wins_over_the_thread_model_and_says_so(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "First."}, {"text": "Second."}, {"text": "Third."})
    first = auger_env.run("-n", "hello", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    tid = json.loads(first.stdout)["thread_id"]
    second = auger_env.run("-r", tid, "-n", "again", "--model", "local:other-model")
    assert second.returncode == 0, second.stderr
    assert "local:other-model" in second.stderr and "local:scripted-model" in second.stderr  # the notice
    third = auger_env.run("-r", tid, "-n", "and again")  # no flag: the thread's model (now the other)
    assert third.returncode == 0, third.stderr
    assert [r["model"] for r in auger_env.llm.requests] == ["scripted-model", "other-model", "other-model"]


def test_a_closed_stdout_ends_the_run_quietly(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "line one\n", "text_tokens": 5000, "rate": 500})  # a 10 s reply
    proc = subprocess.run(
        f"'{AUGER}' -n 'print a lot' | head -1; echo \"status=${{PIPESTATUS[0]}}\"",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        cwd=auger_env.project,
        env=auger_env.env,
        timeout=60,
    )
    assert proc.stdout.splitlines()[0] == "line one"
    assert proc.stderr == "", proc.stderr  # no traceback, no "Broken pipe", no internal error
    assert proc.stdout.splitlines()[-1] == "status=141"  # like a program stopped by SIGPIPE
    [thread] = json.loads(auger_env.run("threads", "list", "--json").stdout)
    shown = auger_env.run("threads", "show", thread["id"])
    assert "line one" in shown.stdout and "[interrupted]" in shown.stdout  # stopped early, work kept


def test_an_internal_error_names_the_log_file_under_auger_home(auger_env: AugerEnv, tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "boom_sandbox.py").write_text(
        "def factory(table, root):\n    raise RuntimeError('the sandbox plugin exploded')\n"
    )
    auger_env.write_config('[sandbox]\nenabled = true\nprovider = "boom_sandbox:factory"\n')
    auger_env.env["PYTHONPATH"] = str(plugins)
    proc = auger_env.run("-n", "hi")
    log = auger_env.home / "logs" / "auger.log"
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"auger: internal error: RuntimeError: the sandbox plugin exploded (details in {log})"
    ]
    assert "Traceback" in log.read_text() and "the sandbox plugin exploded" in log.read_text()

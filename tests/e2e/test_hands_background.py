"""Background commands as a model meets them (issue 36, item 3): `execute(background=true)`
answers at once with an id, `execute_output` gives what it printed since the last read and
whether it still runs, `execute_stop` ends it and what it started, and whatever is still running
ends with the session. A background command is a shell command for rules and approvals too. The
real `auger -n` against the scripted server; assertions are on the tool results the model got."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import AugerEnv

SERVER = "echo $$ > server.pid; echo listening on 8000; sleep 0.5; echo GET /; exec sleep 600"


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def results(env: AugerEnv) -> list[str]:
    return [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("where", ["local", "sandbox"])
def test_start_read_stop_and_the_session_ends_what_is_left(auger_env: AugerEnv, where: str) -> None:
    auger_env.llm.add(
        call("execute", command=SERVER, background=True),
        call("execute", command="sleep 1.5"),  # the model waits a moment
        call("execute_output", id="bg1"),
        call("execute_output", id="bg1"),
        call("execute", command="sleep 600 & echo $! > left.pid; wait", background=True),
        call("execute_stop", id="bg1"),
        call("execute_output", id="bg1"),
        call("execute_output", id="bg9"),
        {"text": "done"},
    )
    sandbox = ["--sandbox"] if where == "sandbox" else []
    started = time.monotonic()
    proc = auger_env.run("-n", "start the server", "--mode", "yolo", *sandbox)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 60  # nothing waited for the 600 s commands
    started_bg1, _, first, second, started_bg2, stopped, after, unknown = results(auger_env)
    assert (
        started_bg1.startswith("Started bg1 in the background:") and "execute_output(id='bg1')" in started_bg1
    )
    assert "listening on 8000\nGET /" in first and "[bg1 is still running:" in first
    assert second.startswith("(no new output)") and "still running" in second  # only what is new
    assert started_bg2.startswith("Started bg2")
    assert stopped.startswith("Stopped bg1:")
    assert "bg1 stopped" in after
    assert "no background command 'bg9' (this thread's: bg1, bg2)" in unknown
    if where == "local":  # (in the sandbox the pids are the sandbox's own)
        for name in ("server.pid", "left.pid"):
            pid = int((auger_env.project / name).read_text())
            deadline = time.monotonic() + 10
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)  # polling a process: nothing can notify us
            assert not _alive(pid), f"{name}: the command outlived the session"


def test_a_finished_background_command_reports_its_exit_code(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        call("execute", command="echo built; exit 3", background=True),
        call("execute", command="sleep 1"),
        call("execute_output", id="bg1"),
        {"text": "done"},
    )
    proc = auger_env.run("-n", "build", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert "built" in results(auger_env)[-1] and "[bg1 exited with code 3:" in results(auger_env)[-1]


def test_the_flag_is_offered_and_rules_and_approvals_apply(auger_env: AugerEnv) -> None:
    config = auger_env.project / ".auger" / "config.toml"
    config.parent.mkdir()
    config.write_text('[permissions]\ndeny = ["execute(rm *)"]\n')
    auger_env.llm.add(
        call("execute", command="rm -rf victim", background=True),
        call("execute", command="touch made", background=True),
        {"text": "done"},
    )
    (auger_env.project / "victim").mkdir()
    proc = auger_env.run("-n", "go", "--trust-project")  # manual mode: nobody answers an approval
    assert proc.returncode == 0, proc.stderr
    tools = {t["function"]["name"]: t["function"] for t in auger_env.llm.requests[0]["tools"]}
    assert "background" in tools["execute"]["parameters"]["properties"]
    assert {"execute_output", "execute_stop"} <= set(tools)
    denied, refused = results(auger_env)
    assert "execute(rm *)" in denied and (auger_env.project / "victim").is_dir()
    assert "Started" not in refused and not (auger_env.project / "made").exists()
    assert json.dumps(auger_env.llm.requests[-1]).count("Started bg") == 0
    assert os.listdir(auger_env.project / "victim") == []


def test_hooks_see_a_background_command_as_a_shell_command(auger_env: AugerEnv, tmp_path: Path) -> None:
    """A PreToolUse hook on `execute` judges a background start like any command: it can refuse
    it (the command never starts) and it is given the flag with the command."""
    guard = tmp_path / "guard.py"
    guard.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "open(sys.argv[1], 'a').write(json.dumps(data['tool_input']) + '\\n')\n"
        "if 'forbidden' in data['tool_input'].get('command', ''):\n"
        "    print('not in the background either', file=sys.stderr)\n"
        "    sys.exit(2)\n"
    )
    seen = tmp_path / "seen.jsonl"
    hook = {"type": "command", "command": f"{sys.executable} {guard} {seen}"}
    (auger_env.home / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "execute", "hooks": [hook]}]}})
    )
    auger_env.llm.add(
        call("execute", command="touch forbidden.txt", background=True),
        call("execute", command="touch allowed.txt", background=True),
        call("execute", command="sleep 1"),
        {"text": "done"},
    )
    proc = auger_env.run("-n", "go", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    refused, started, _ = results(auger_env)
    assert "not in the background either" in refused and not (auger_env.project / "forbidden.txt").exists()
    assert started.startswith("Started bg1") and (auger_env.project / "allowed.txt").exists()
    inputs = [json.loads(line) for line in seen.read_text().splitlines()]
    assert {"command": "touch allowed.txt", "background": True}.items() <= inputs[1].items()


def test_two_background_starts_in_one_reply_get_their_own_ids(auger_env: AugerEnv) -> None:
    both = [
        {"name": "execute", "args": {"command": f"echo job{i}; exec sleep 600", "background": True}}
        for i in (1, 2)
    ]
    auger_env.llm.add({"tool_calls": both}, call("execute", command="sleep 1"), {"text": "done"})
    proc = auger_env.run("-n", "start both", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    first, second, _ = results(auger_env)
    ids = {first.split()[1], second.split()[1]}
    assert ids == {"bg1", "bg2"}, (first, second)

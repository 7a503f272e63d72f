"""End-to-end: the flags users bring from other CLIs (`-p`, `-c`/`--continue`, `--yolo`) and the
help text that names the real forms."""

from __future__ import annotations

import json

from conftest import AugerEnv

RUN = {"tool_calls": [{"name": "execute", "args": {"command": "echo ran-without-asking"}}]}


def test_p_runs_headless_like_n(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "Printed answer."})
    proc = auger_env.run("-p", "say something")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Printed answer."
    assert "say something" in json.dumps(auger_env.llm.requests[-1]["messages"])


def test_continue_resumes_the_newest_thread_of_the_project(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "First answer."}, {"text": "Second answer."}, {"text": "Third answer."})
    first = auger_env.run("-p", "remember the word pelican", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    for flag in ("-c", "--continue"):
        again = auger_env.run(flag, "-p", f"what was the word ({flag})?", "--output-format", "json")
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["thread_id"] == json.loads(first.stdout)["thread_id"]
        seen = json.dumps(auger_env.llm.requests[-1]["messages"])
        assert "remember the word pelican" in seen and "First answer." in seen


def test_yolo_runs_a_shell_command_without_asking(auger_env: AugerEnv) -> None:
    auger_env.llm.add(RUN, {"text": "Done."})
    proc = auger_env.run("-p", "run it", "--mode", "manual", "--yolo", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    tools = [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert any("ran-without-asking" in t for t in tools), tools


def test_help_shows_the_peer_flags_and_the_real_thread_search(auger_env: AugerEnv) -> None:
    proc = auger_env.run("--help")
    assert proc.returncode == 0, proc.stderr
    for flag in ("-p [TEXT]", "-c, --continue", "--yolo"):
        assert flag in proc.stdout
    threads = next(line for line in proc.stdout.splitlines() if line.strip().startswith("threads "))
    assert "--search" in threads and "list" in threads

"""End-to-end: in headless yolo mode a shell command that writes into .git/ is refused (the "ask"
for a protected path has nobody to answer it) and the model reads why, while an ordinary command
in the same turn runs."""

from __future__ import annotations

from typing import Any

from conftest import AugerEnv


def call(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "execute", "args": {"command": command}}]}


def test_redirect_into_git_is_refused_in_headless_yolo(auger_env: AugerEnv) -> None:
    git = auger_env.project / ".git"
    (git / "hooks").mkdir(parents=True)
    (git / "config").write_text("[core]\n")
    auger_env.llm.add(
        call("echo evil > .git/config"),
        call("bash -c 'cd .git/hooks && printf x > pre-commit'"),
        call("echo normal > out.txt && cat out.txt 2>&1"),
        {"text": "Wrote out.txt; .git was not touched."},
    )
    proc = auger_env.run("-n", "do it", "--output-format", "stream-json", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr

    assert (git / "config").read_text() == "[core]\n"
    assert not (git / "hooks" / "pre-commit").exists()
    assert (auger_env.project / "out.txt").read_text() == "normal\n"

    events = auger_env.events(proc)
    done = [e for e in events if e["type"] == "tool_call_finished"]
    assert [d["status"] for d in done] == ["rejected", "rejected", "success"]
    assert "normal" in done[2]["output"]
    assert "protected path (.git/)" in done[0]["output"]

    tool_msgs = [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "protected path (.git/): it writes .git/config (redirect >)" in tool_msgs[0]
    assert "headless" in tool_msgs[0]
    assert "protected path (.git/): it writes .git/hooks/pre-commit (redirect >)" in tool_msgs[1]
    assert "normal" in tool_msgs[2]

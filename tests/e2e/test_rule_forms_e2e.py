"""End-to-end: a deny rule matches what a command does — `execute(rm -rf *)` refuses every
spelling of a recursive forced rm in the real `auger -n --mode yolo`, and the folder survives;
a command the rule does not describe still runs."""

from __future__ import annotations

from typing import Any

from conftest import AugerEnv


def run(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "execute", "args": {"command": command}}]}


def test_deny_rule_refuses_every_spelling_of_rm_rf(auger_env: AugerEnv) -> None:
    (auger_env.project / ".auger").mkdir()
    (auger_env.project / ".auger" / "config.toml").write_text(
        '[permissions]\ndeny = ["execute(rm -rf *)", "execute(git push --force *)"]\n'
    )
    build, scratch = auger_env.project / "build", auger_env.project / "scratch"
    (build / "deep").mkdir(parents=True)
    (build / "deep" / "keep.txt").write_text("keep")
    scratch.mkdir()
    spellings = [
        "rm -fr build",
        "rm -r -f build",
        "rm -Rf build",
        "rm --recursive --force build",
        "rm -rfv build",
        "/bin/rm -rf build",
        "command rm -rf build",
        "rm build -rf",
        "git push origin +main",
    ]
    auger_env.llm.add(*(run(c) for c in spellings), run("rm -r scratch"), {"text": "done"})
    proc = auger_env.run("-n", "clean up", "--output-format", "stream-json", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (build / "deep" / "keep.txt").read_text() == "keep"
    assert not scratch.exists()  # not forced: the rule does not describe it, yolo runs it
    done = [e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"]
    assert [d["status"] for d in done] == ["rejected"] * len(spellings) + ["success"]
    tool_msgs = [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert all('deny rule "execute(rm -rf *)"' in m for m in tool_msgs[:8])
    assert 'deny rule "execute(git push --force *)"' in tool_msgs[8]

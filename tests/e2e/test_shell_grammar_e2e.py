"""End-to-end: permission rules see the commands the shell will run (the bash grammar,
`auger.core.safety.shell_parser`) — in the real `auger -n` against the scripted model, an allow
rule does not let a command hidden in `$(( ))` or piped into a shell run, a deny rule on `rm`
catches it behind `time -p`, `setsid`, a here-string and `find -exec`, and a link made on the
line does not carry a write into AUGER_HOME. The victim files survive."""

from __future__ import annotations

from typing import Any

from conftest import AugerEnv

STREAM = ("--output-format", "stream-json")


def run(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "execute", "args": {"command": command}}]}


def project_config(env: AugerEnv, text: str) -> None:
    (env.project / ".auger").mkdir(exist_ok=True)
    (env.project / ".auger" / "config.toml").write_text(text)


def outcome(env: AugerEnv, proc: Any) -> tuple[list[str], list[str]]:
    """The statuses of the finished tool calls and the tool messages of the next model request."""
    done = [e["status"] for e in env.events(proc) if e["type"] == "tool_call_finished"]
    return done, [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


def test_an_allow_rule_does_not_run_what_hides_inside_or_behind_it(auger_env: AugerEnv) -> None:
    project_config(auger_env, '[permissions]\nallow = ["execute(echo *)"]\n')
    assert auger_env.run("trust").returncode == 0  # a project's allow rules apply once trusted
    victim = auger_env.project / "victim"
    victim.write_text("keep")
    hidden = ['echo "$(( 1 + $(rm -f victim; echo 1) ))"', "echo rm -f victim | bash"]
    auger_env.llm.add(*(run(c) for c in hidden), run('echo "sum=$(( 40 + 2 ))"'), {"text": "done"})
    proc = auger_env.run("-n", "add", *STREAM, "--mode", "manual")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep"
    statuses, messages = outcome(auger_env, proc)
    assert statuses == ["rejected", "rejected", "success"]
    assert all("mode 'manual' asks before execute" in m for m in messages[:2]), messages
    assert "sum=42" in messages[2]  # what the rule does describe still runs without asking


def test_a_deny_rule_sees_rm_behind_reserved_words_wrappers_and_here_strings(auger_env: AugerEnv) -> None:
    project_config(auger_env, '[permissions]\ndeny = ["execute(rm *)"]\n')
    victim = auger_env.project / "victim"
    victim.write_text("keep")
    spellings = [
        "time -p rm -f victim",
        "setsid rm -f victim",
        'bash <<< "rm -f victim"',
        "find . -name victim -exec rm {} \\;",
        "coproc rm -f victim",
    ]
    auger_env.llm.add(*(run(c) for c in spellings), {"text": "done"})
    proc = auger_env.run("-n", "clean", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep"
    statuses, messages = outcome(auger_env, proc)
    assert statuses == ["rejected"] * len(spellings)
    assert all('deny rule "execute(rm *)"' in m for m in messages), messages


def test_a_link_made_on_the_line_does_not_carry_a_write_into_auger_home(auger_env: AugerEnv) -> None:
    auger_env.llm.add(run("ln -s $AUGER_HOME x && echo evil > x/AGENTS.md"), {"text": "done"})
    proc = auger_env.run("-n", "link", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert not (auger_env.home / "AGENTS.md").exists()
    assert not (auger_env.project / "x").exists()
    statuses, messages = outcome(auger_env, proc)
    assert statuses == ["rejected"]
    assert "protected path" in messages[0] and "AGENTS.md" in messages[0], messages

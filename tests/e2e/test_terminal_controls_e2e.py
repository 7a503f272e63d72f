"""End-to-end: escape sequences and control characters in the model's text, a tool's result and
a tool call's name and arguments reach neither `auger -n`'s text output nor `auger threads show`
as bytes a terminal would obey; they show as control pictures (`␛`)."""

from __future__ import annotations

import json
import re
import subprocess

from conftest import AUGER, AugerEnv

HOSTILE = "title\x1b]0;pwned\x07 clear\x1b[2J clip\x1b]52;c;cm0gLXJmIH4=\x07 cr\rover csi\x9b31m red"
# what a terminal obeys: C0 controls but newline and tab, DEL, C1 (raw or as UTF-8)
OBEYED = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")


def _raw(env: AugerEnv, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`auger ARGS` with its output as the bytes a terminal would get (no newline translation)."""
    return subprocess.run(
        [AUGER, *args], capture_output=True, cwd=env.project, env=env.env, timeout=60, check=False
    )


def test_model_and_tool_text_never_drive_the_terminal(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": f"printf '%s\\n' '{HOSTILE}'"}}]},
        {"tool_calls": [{"name": "\x1b]0;evil\x07tool", "args": {"x": HOSTILE}}]},
        {"text": f"Here: {HOSTILE}\nbye"},
    )
    proc = _raw(auger_env, "-n", "go", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    tool_result = next(m for m in auger_env.llm.requests[1]["messages"] if m["role"] == "tool")
    assert "\x1b]0;pwned\x07" in str(tool_result["content"])  # the model still reads what the tool said
    listed = json.loads(auger_env.run("threads", "list", "--json").stdout)
    show = _raw(auger_env, "threads", "show", listed[0]["id"])
    assert show.returncode == 0, show.stderr
    found = _raw(auger_env, "threads", "list", "--search", "pwned")
    assert b"pwned" in found.stdout, found
    outputs = {
        "-n": proc.stdout,
        "-n stderr": proc.stderr,
        "threads show": show.stdout,
        "search": found.stdout,
    }
    for name, data in outputs.items():
        assert not OBEYED.findall(data), (name, OBEYED.findall(data))
    said = "title␛]0;pwned␇ clear␛[2J clip␛]52;c;cm0gLXJmIH4=␇ cr␍over csi␛[31m red"
    assert said in proc.stdout.decode()
    assert said in show.stdout.decode() and "␛]0;evil␇tool" in show.stdout.decode()

"""Bounded memory on every input, end to end: a command that never stops printing (`yes`) and a
2 GB file read by `read_file` leave auger's peak memory small; the model gets the head and tail of
the output, how much was cut and the file that holds it, which `read_file` and `grep` then open."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import AUGER, AugerEnv

MAX_RSS_KB = 200 * 1024
# Runs `auger`, then prints the peak resident memory (kB) of it and the processes it waited for.
PEAK = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, check=False); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def _run_peak(auger_env: AugerEnv, *args: str) -> tuple[dict[str, object], int]:
    """`auger -n ... --output-format json`: its result and its peak memory in kB."""
    cmd = [sys.executable, "-c", PEAK, AUGER, "-n", *args, "--mode", "yolo", "--output-format", "json"]
    out = subprocess.run(
        cmd, capture_output=True, text=True, cwd=auger_env.project, env=auger_env.env, timeout=120
    )
    *lines, peak = out.stdout.strip().splitlines()
    return json.loads(lines[-1]), int(peak)


def _tool_messages(auger_env: AugerEnv) -> list[str]:
    return [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize("where", ["local", "sandbox"])
def test_yes_until_the_timeout_keeps_memory_small_and_shows_head_tail_and_the_spill(
    auger_env: AugerEnv,
    where: str,
) -> None:
    config = auger_env.home / "config.toml"
    config.write_text("shell_output_bytes = 4000\n" + config.read_text())  # top level, before [providers]
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "echo first; yes", "timeout": 4}}]},
        {"text": "done"},
    )
    result, peak = _run_peak(auger_env, "print forever", *(["--sandbox"] if where == "sandbox" else []))
    assert peak < MAX_RSS_KB, f"auger peaked at {peak} kB"
    [message] = _tool_messages(auger_env)
    head, cut, tail = re.split(r"\n\n\.\.\. \[(.*?)\] \.\.\.\n\n", message)
    assert head.startswith("first\ny\ny\n") and len(head) <= 2000  # the head: what was printed first
    assert tail.startswith("y\ny\n")  # the tail: what was printed last, then the timeout
    assert "Error: Command timed out after 4 seconds and was killed." in tail
    spill = re.fullmatch(
        r"(\d+) bytes cut; the first (\d+) bytes of the output are at (/~artifacts/\S+\.log)", cut
    )
    assert spill, cut
    assert int(spill[1]) > 100_000_000 and int(spill[2]) == 10 * 1024 * 1024  # gigabytes printed, 10 MB kept

    auger_env.llm.add(
        {"tool_calls": [{"name": "read_file", "args": {"file_path": spill[3], "offset": 0, "limit": 3}}]},
        {
            "tool_calls": [
                {"name": "grep", "args": {"pattern": "first", "path": spill[3], "output_mode": "content"}}
            ]
        },
        {"text": "read it"},
    )
    again = auger_env.run("-r", str(result["thread_id"]), "-n", "read the output", "--mode", "yolo")
    assert again.returncode == 0, again.stderr
    read, grep = _tool_messages(auger_env)[-2:]
    assert "first" in read and read.count("y") == 2, read
    assert "1:first" in grep.replace(" ", ""), grep


@pytest.mark.parametrize("where", ["local", "sandbox"])
def test_read_file_of_a_2_gb_file_reads_only_its_page(auger_env: AugerEnv, where: str) -> None:
    with (auger_env.project / "big.log").open("wb") as f:
        f.write(b"line one\nline two\n")
        f.truncate(2 * 1024**3)  # sparse: 2 GB of NUL bytes after the two lines, no disk used
    auger_env.llm.add(
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "/big.log", "offset": 0, "limit": 5}}]},
        {"text": "read it"},
    )
    _, peak = _run_peak(auger_env, "read big.log", *(["--sandbox"] if where == "sandbox" else []))
    assert peak < MAX_RSS_KB, f"auger peaked at {peak} kB"
    [message] = _tool_messages(auger_env)
    assert "line one" in message and "line two" in message
    assert "line cut at 5000 chars" in message
    assert len(message) < 30_000

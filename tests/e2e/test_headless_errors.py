"""Bad input → one clear line on stderr, the right exit code, no traceback, the thread intact."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess

import pytest

from conftest import AUGER, AugerEnv


def assert_clean_error(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    err = proc.stderr.strip().splitlines()
    assert err, "expected a message on stderr"
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def test_malformed_config_names_file_and_line(auger_env: AugerEnv) -> None:
    (auger_env.home / "config.toml").write_text('model = "x"\nmode = = "yolo"\n')
    proc = auger_env.run("-n", "hi")
    assert_clean_error(proc, 2, "config.toml", "line 2")


def test_unknown_setting_warns_with_suggestion(auger_env: AugerEnv) -> None:
    auger_env.write_config(extra="")
    cfg = auger_env.home / "config.toml"
    cfg.write_text("modle = 'x'\n" + cfg.read_text())
    auger_env.llm.add({"text": "ok"})
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "modle" in proc.stderr and "model" in proc.stderr


def test_unknown_provider(auger_env: AugerEnv) -> None:
    proc = auger_env.run("-n", "hi", "--model", "nosuch:thing")
    assert_clean_error(proc, 2, "nosuch")


def test_missing_api_key_says_what_to_set(auger_env: AugerEnv) -> None:
    proc = auger_env.run("-n", "hi", "--model", "openai:gpt-4.1")
    assert_clean_error(proc, 2, "OPENAI_API_KEY")
    extra = '[providers.keyed]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "KEYED_API_KEY"\n'
    auger_env.write_config(extra=extra)
    proc = auger_env.run("-n", "hi", "--model", "keyed:m")
    assert_clean_error(proc, 2, "KEYED_API_KEY")


def test_missing_provider_package_names_the_extra(auger_env: AugerEnv) -> None:
    proc = auger_env.run("-n", "hi", "--model", "ollama:llama3")  # langchain-ollama: not in the test venv
    assert_clean_error(proc, 2, "langchain-ollama", "auger[ollama]")


def test_bad_mode_and_max_turns_zero_are_usage_errors(auger_env: AugerEnv) -> None:
    assert_clean_error(auger_env.run("-n", "hi", "--max-turns", "0"), 2, "--max-turns")
    assert_clean_error(auger_env.run("-n", "hi", "--mode", "fast"), 2, "--mode")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_connection_refused(auger_env: AugerEnv) -> None:
    port = _free_port()
    extra = f'[providers.dead]\nbase_url = "http://127.0.0.1:{port}/v1"\nmax_retries = 0\n'
    auger_env.write_config(extra=extra)
    proc = auger_env.run("-n", "hi", "--model", "dead:m", "--output-format", "json")
    assert_clean_error(proc, 1, f"127.0.0.1:{port}")
    result = json.loads(proc.stdout)
    assert result["reason"] == "error"
    # the thread started and holds the prompt
    db = sqlite3.connect(auger_env.home / "threads.db")
    assert db.execute(
        "select count(*) from checkpoints where thread_id=?", (result["thread_id"],)
    ).fetchone()[0]


@pytest.mark.parametrize(
    ("response", "needle"),
    [
        ({"error": 401, "message": "bad key"}, "401"),
        ({"error": 429, "message": "slow down"}, "429"),
        ({"error": 500, "message": "boom"}, "500"),
        ({"garbage": True}, "not valid"),
    ],
)
def test_provider_failures_are_one_line(
    auger_env: AugerEnv, response: dict[str, object], needle: str
) -> None:
    cfg = auger_env.home / "config.toml"
    cfg.write_text(cfg.read_text() + "max_retries = 0\n")
    auger_env.llm.add(response)
    proc = auger_env.run("-n", "hi")
    assert_clean_error(proc, 1, needle)
    assert len(proc.stderr.strip().splitlines()) == 1


def test_unwritable_auger_home(auger_env: AugerEnv) -> None:
    blocker = auger_env.project / "not-a-dir"
    blocker.write_text("x")
    env = dict(auger_env.env, AUGER_HOME=str(blocker / "home"))
    proc = subprocess.run(
        [AUGER, "-n", "hi", "--model", "local:scripted-model"],
        capture_output=True,
        text=True,
        env=env,
        cwd=auger_env.project,
        input="",
        timeout=60,
    )
    assert_clean_error(proc, 2, str(blocker))


def test_turn_limit_exits_3(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"repeat": True, "tool_calls": [{"name": "ls", "args": {"path": "/"}}]})
    proc = auger_env.run("-n", "loop forever", "--max-turns", "3", "--output-format", "stream-json")
    assert proc.returncode == 3, proc.stderr
    events = auger_env.events(proc)
    assert events[-1]["type"] == "turn_ended" and events[-1]["reason"] == "turn_limit"
    assert len(auger_env.llm.requests) == 3
    assert "limit" in events[-1]["text"]


def test_timeout_exits_124_and_keeps_thread(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"hang": True})
    # --timeout counts from the process start: leave a loaded machine time to reach the model
    # (20 s was not enough at load 6-8: the model was never asked)
    proc = auger_env.run("-n", "hang please", "--timeout", "45", "--output-format", "json")
    assert_clean_error(proc, 124, "Timed out")
    assert auger_env.llm.requests  # the model was asked: the turn started
    result = json.loads(proc.stdout)
    assert result["reason"] == "timeout"
    db = sqlite3.connect(auger_env.home / "threads.db")
    assert db.execute(
        "select count(*) from checkpoints where thread_id=?", (result["thread_id"],)
    ).fetchone()[0]


def test_ctrl_c_exits_cleanly_with_130(auger_env: AugerEnv) -> None:
    import signal
    import time

    auger_env.llm.add({"hang": True})
    proc = subprocess.Popen(
        [AUGER, "-n", "wait", "--output-format", "stream-json"],
        cwd=auger_env.project,
        env=auger_env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not auger_env.llm.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert json.loads(out.splitlines()[-1])["reason"] == "cancelled"

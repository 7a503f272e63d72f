"""End-to-end: credentials inside values — a password in a URL, `Authorization: Bearer`,
`X-Api-Key:`, the password of a `DATABASE_URL` variable printed alone — are redacted before
anything is stored: not in threads.db (WAL included), the log, stream-json, or what the model is
sent; a tool still runs with what the model wrote."""

from __future__ import annotations

import json
from typing import Any

from conftest import AugerEnv

ADMIN_PW = "Adm1nPassw0rd-e2e"
DB_PW = "Sup3rS3cretPw-e2e"
BEARER = "tok_live_0123456789abcdefE2E"
API_KEY = "key_0123456789abcdefE2E"
GH_TOKEN = "ghp_E2E0123456789abcdefghijklmnopqrstuv"
COMPOSE_PW = "app-dev-pass-e2e"
PRINT_PASSWORD = "import os, urllib.parse as u; print(u.urlparse(os.environ['DATABASE_URL']).password)"
ALL = (ADMIN_PW, DB_PW, BEARER, API_KEY, GH_TOKEN, COMPOSE_PW)


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def test_credentials_in_outputs_never_reach_the_db_log_or_stream(auger_env: AugerEnv) -> None:
    auger_env.env["DATABASE_URL"] = f"postgres://app:{DB_PW}@db.internal:5432/app"  # not secret by name
    compose = f"services:\n  web:\n    environment:\n      DATABASE_URL: postgres://app:{COMPOSE_PW}@db/app\n"
    auger_env.llm.add(
        call("execute", command=f"echo 'connect postgres://admin:{ADMIN_PW}@db.internal/app'"),
        call("execute", command=f"printf 'Authorization: Bearer {BEARER}\\nX-Api-Key: {API_KEY}\\n'"),
        call("execute", command=f"python3 -c {PRINT_PASSWORD!r}"),
        call("write_file", file_path="/compose.yml", content=compose),
        call("read_file", file_path="/compose.yml"),
        {"text": f"Push with https://deploy:{GH_TOKEN}@github.com/me/app.git when ready."},
    )
    prompt = f"deploy; the registry is https://ci:{GH_TOKEN}@registry.example.com"
    proc = auger_env.run("-n", prompt, "--output-format", "stream-json", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "compose.yml").read_text() == compose  # the tool ran as the model wrote
    events = auger_env.events(proc)
    outputs = [e["output"] for e in events if e["type"] == "tool_call_finished"]
    assert "postgres://admin:[redacted]@db.internal/app" in outputs[0]
    assert "Authorization: Bearer [redacted]" in outputs[1] and "X-Api-Key: [redacted]" in outputs[1]
    assert "[redacted:$DATABASE_URL]" in outputs[2]
    assert "postgres://app:[redacted]@db/app" in outputs[4]
    text = "".join(e.get("text", "") for e in events if e["type"] == "text_delta")
    assert "https://deploy:[redacted]@github.com/me/app.git" in text
    assert any(e["type"] == "notice" and "a password in a URL" in e["message"] for e in events)

    thread_id = events[-1]["thread_id"]
    show = auger_env.run("threads", "show", thread_id)
    places: dict[str, bytes] = {
        "stdout": proc.stdout.encode(),
        "stderr": proc.stderr.encode(),
        "transcript": (show.stdout + show.stderr).encode(),
        "model requests": json.dumps(auger_env.llm.requests).encode(),
    }
    for path in auger_env.home.rglob("*"):
        if path.is_file():
            places[str(path.relative_to(auger_env.home))] = path.read_bytes()
    db = b"".join(data for name, data in places.items() if name.startswith("threads.db"))
    assert b"postgres://admin:[redacted]@db.internal" in db  # the outputs are stored, redacted
    assert any(name.startswith("logs") for name in places)
    for name, data in places.items():
        for value in ALL:
            assert value.encode() not in data, f"{value[:10]}… leaked into {name}"

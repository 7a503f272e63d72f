"""`auger doctor` (and `/doctor`): one row per check with the fix, exit 1 when one fails — the
model's key, whether its server answers, config warnings, MCP servers, trust, the sandbox."""

from __future__ import annotations

from conftest import AugerEnv


def test_a_working_setup_is_all_ok(auger_env: AugerEnv) -> None:
    proc = auger_env.run("doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok    model      local:scripted-model: credentials present" in proc.stdout
    assert f"ok    provider   {auger_env.llm.base_url}/models answers" in proc.stdout


def test_each_problem_is_named_with_its_fix(auger_env: AugerEnv) -> None:
    auger_env.write_config(
        '[providers.remote]\nbase_url = "http://127.0.0.1:9"\napi_key_env = "DOCTOR_TEST_KEY"\n'
        '[mcp.servers.gone]\ncommand = "no-such-mcp-server-binary"\n',
        model="remote:big-model",
    )
    (auger_env.project / ".auger").mkdir()
    (auger_env.project / ".auger" / "config.toml").write_text('mode = "yolo"\nmax_turns = "many"\n')
    proc = auger_env.run("doctor")
    assert proc.returncode == 1
    out = proc.stdout
    assert (
        "fail  model      remote:big-model: Provider 'remote' needs an API key: DOCTOR_TEST_KEY is not set."
        in out
    )
    assert "fix: export DOCTOR_TEST_KEY=..." in out
    assert "fail  mcp gone   no-such-mcp-server-binary is not on PATH" in out
    assert "warn  config" in out and ".auger/config.toml" in out


def test_a_server_that_does_not_answer(auger_env: AugerEnv) -> None:
    auger_env.write_config('[providers.down]\nbase_url = "http://127.0.0.1:9/v1"\n', model="down:m")
    proc = auger_env.run("doctor")
    assert proc.returncode == 1
    assert "fail  provider   http://127.0.0.1:9/v1/models: no answer (ConnectError)" in proc.stdout
    assert "fix: Start the server, or check base_url and the network." in proc.stdout

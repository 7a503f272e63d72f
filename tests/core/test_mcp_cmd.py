"""`auger mcp add|remove|get`, like `claude mcp ...`: entries written where the scope says, other
keys kept, bad input refused with one line; `get` starts the server and reports it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_mcp import FAST, make_project

from auger.cli import mcp as mcp_cmd


def servers(path: Path) -> dict[str, object]:
    return dict(json.loads(path.read_text())["mcpServers"])


def test_add_get_remove_a_stdio_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, root, env = make_project(tmp_path)
    user_file = home / "mcp.json"
    user_file.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "comment": "mine"}))
    user_file.chmod(0o640)
    argv = ["add", "-e", "TOKEN=abc", "calc", "--", sys.executable, FAST, "--name", "calc"]
    assert mcp_cmd.run(argv, cwd=root, env=env) == 0
    assert f"Added MCP server 'calc' to {user_file}." in capsys.readouterr().out
    data = json.loads(user_file.read_text())
    assert data["comment"] == "mine" and data["mcpServers"]["other"] == {"command": "x"}
    assert data["mcpServers"]["calc"] == {
        "command": sys.executable,
        "args": [FAST, "--name", "calc"],
        "env": {"TOKEN": "abc"},
    }
    assert user_file.stat().st_mode & 0o777 == 0o640  # an existing file keeps its mode

    assert mcp_cmd.run(["get", "calc", "--json"], cwd=root, env=env) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["status"] == "connected" and "mcp__calc__add" in info["tools"]
    assert info["source"] == str(user_file) and info["env"] == ["TOKEN"]  # names, never values
    assert mcp_cmd.run(["get", "calc"], cwd=root, env=env) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("calc  connected") and "abc" not in shown

    assert mcp_cmd.run(["add", "calc", "other-command"], cwd=root, env=env) == 2
    assert "already exists" in capsys.readouterr().err
    assert mcp_cmd.run(["remove", "calc"], cwd=root, env=env) == 0
    assert set(servers(user_file)) == {"other"}
    assert mcp_cmd.run(["remove", "calc"], cwd=root, env=env) == 2
    assert "no MCP server named 'calc'" in capsys.readouterr().err


def test_add_an_http_server_to_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, root, env = make_project(tmp_path)
    argv = [
        "add",
        "-s",
        "project",
        "-t",
        "http",
        "-H",
        "Authorization: Bearer ${TOKEN}",
        "api",
        "https://x/mcp",
    ]
    assert mcp_cmd.run(argv, cwd=root, env=env) == 0
    assert "The project is not trusted: `auger trust`" in capsys.readouterr().out
    assert (root / ".mcp.json").stat().st_mode & 0o777 == 0o600  # a new file: headers hold secrets
    assert servers(root / ".mcp.json") == {
        "api": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
    }
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"api": {"command": "y"}}}))
    assert mcp_cmd.run(["remove", "api"], cwd=root, env=env) == 2
    assert "--scope" in capsys.readouterr().err
    assert mcp_cmd.run(["remove", "-s", "project", "api"], cwd=root, env=env) == 0
    assert servers(root / ".mcp.json") == {} and set(servers(home / "mcp.json")) == {"api"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["add", "-e", "NOEQUALS", "s", "cmd"], "bad --env 'NOEQUALS': expected KEY=VALUE"),
        (["add", "-t", "http", "s", "https://x", "extra"], "takes a URL only"),
        (["get", "nothing"], "no MCP server named 'nothing'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    _home, root, env = make_project(tmp_path)
    assert mcp_cmd.run(argv, cwd=root, env=env) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_broken_file_is_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, root, env = make_project(tmp_path)
    (home / "mcp.json").write_text('{"mcpServers": {,}}')
    assert mcp_cmd.run(["add", "s", "cmd"], cwd=root, env=env) == 2
    assert f"{home / 'mcp.json'}:1:" in capsys.readouterr().err
    assert (home / "mcp.json").read_text() == '{"mcpServers": {,}}'

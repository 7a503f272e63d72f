"""`auger config show|set|path`."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from auger.cli import config as config_cmd
from auger.settings import load_settings
from auger.settings_schema import KEYS


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "auger-home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return {"AUGER_HOME": str(home)}


def run(argv: list[str], project: Path, env: dict[str, str]) -> int:
    return config_cmd.run(argv, cwd=project, env=env)


def user_toml(home: Path) -> dict[str, Any]:
    return tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))


def write_user(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- show -------------------------------------------------------------------------------------


def test_show_lists_every_key_with_value_and_source(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_user(home, 'model = "local:qwen"\n')
    assert run(["show"], project, env) == 0
    out = capsys.readouterr().out
    lines = {line.split(" = ")[0]: line for line in out.splitlines()}
    for key in KEYS:
        if "*" not in key.name:
            assert key.name in lines
    assert lines["model"].startswith('model = "local:qwen"')
    assert lines["model"].endswith(f"# user ({path})")
    assert lines["mode"].endswith("# default")
    assert lines["timeout"].startswith("timeout = null")


def test_show_json_shape(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_user(home, '[providers.local]\nbase_url = "http://127.0.0.1:8000/v1"\nmodels = ["q"]\nmodle = 1\n')
    assert run(["show", "--json"], project, env | {"AUGER_MODE": "yolo"}) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"settings", "files", "warnings"}
    assert doc["files"] == {
        "user": str(home / "config.toml"),
        "project": str(project.resolve() / ".auger" / "config.toml"),
    }
    settings = doc["settings"]
    assert settings["mode"] == {"value": "yolo", "source": "env AUGER_MODE"}
    assert settings["max_turns"] == {"value": 50, "source": "default"}
    assert settings["providers.local.base_url"]["value"] == "http://127.0.0.1:8000/v1"
    assert settings["providers.local.models"]["value"] == ["q"]
    assert all(set(v) == {"value", "source"} for v in settings.values())
    assert {k.name for k in KEYS if "*" not in k.name} <= set(settings)
    assert len(doc["warnings"]) == 1
    assert list(settings)[:2] == ["model", "mode"]  # schema order


def test_show_never_prints_secrets(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_user(
        home,
        '[providers.local]\napi_key_env = "LOCAL_API_KEY"\napi_key = "sk-raw-S3CR3T"\n'
        'headers = { Authorization = "Bearer sk-header-S3CR3T" }\nmax_tokens = 100\n'
        '[mcp.servers.gh]\ncommand = "gh-mcp"\nenv = { GITHUB_TOKEN = "ghp-env-S3CR3T" }\n',
    )
    for argv in (["show"], ["show", "--json"]):
        assert run(argv, project, env | {"LOCAL_API_KEY": "sk-env-value"}) == 0
        out = capsys.readouterr().out
        assert "S3CR3T" not in out
        assert "sk-env-value" not in out
        assert "LOCAL_API_KEY" in out
        assert "gh-mcp" in out
        assert "100" in out  # max_tokens is not a secret


def test_show_prints_warnings_to_stderr(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_user(home, "modle = 1\n")
    assert run(["show"], project, env) == 0
    err = capsys.readouterr().err
    assert 'unknown setting "modle"' in err
    assert 'did you mean "model"' in err


def test_show_reports_config_errors_on_one_line(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_user(home, "mode = \n")
    assert run(["show"], project, env) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"auger: {path}: invalid TOML at line 1")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_path_prints_both_files(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["path"], project, env) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"user: {home / 'config.toml'}",
        f"project: {project.resolve() / '.auger' / 'config.toml'}",
    ]


def test_usage(project: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--help"], project, env) == 0
    assert "usage" in capsys.readouterr().out
    for argv in (["bogus"], ["set", "model"], ["show", "--yaml"]):
        assert run(argv, project, env) == 2
        err = capsys.readouterr().err
        assert err.startswith("auger: bad arguments") and err.count("\n") == 1


# --- set --------------------------------------------------------------------------------------


def test_set_creates_home_and_writes_typed_values(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "deep" / "er" / "home"
    env = {"AUGER_HOME": str(home)}
    cases = [
        (["set", "model", "local:qwen3-coder"], ("model",), "local:qwen3-coder"),
        (["set", "max_turns", "7"], ("max_turns",), 7),
        (["set", "shell", "false"], ("shell",), False),
        (["set", "timeout", "2.5"], ("timeout",), 2.5),
        (["set", "mcp.call_timeout", "30"], ("mcp", "call_timeout"), 30.0),
        (
            ["set", "permissions.allow", "read_file, execute(ls*)"],
            ("permissions", "allow"),
            ["read_file", "execute(ls*)"],
        ),
        (["set", "permissions.deny", '["execute(rm*)"]'], ("permissions", "deny"), ["execute(rm*)"]),
        (
            ["set", "providers.local.base_url", "http://127.0.0.1:8000/v1"],
            ("providers", "local", "base_url"),
            "http://127.0.0.1:8000/v1",
        ),
        (["set", "providers.local.models", "a,b"], ("providers", "local", "models"), ["a", "b"]),
        (["set", "providers.local.top_p", "0.9"], ("providers", "local", "top_p"), 0.9),
        (["set", "mcp.servers.time.command", "uvx"], ("mcp", "servers", "time", "command"), "uvx"),
    ]
    for argv, parts, expected in cases:
        assert run(argv, project, env) == 0, capsys.readouterr().err
        node: Any = user_toml(home)
        for part in parts:
            node = node[part]
        assert node == expected and type(node) is type(expected), argv
    out = capsys.readouterr().out
    assert f'set model = "local:qwen3-coder" in {home / "config.toml"}' in out
    s = load_settings(cwd=project, env=env)
    assert s.model == "local:qwen3-coder"
    assert s.sources["max_turns"] == f"user ({home / 'config.toml'})"
    assert s.providers["local"].models == ["a", "b"]
    assert s.warnings == []


def test_set_keeps_every_other_key(project: Path, env: dict[str, str], home: Path) -> None:
    write_user(
        home,
        "# my comment\n"
        'mode = "auto-edit"\n'
        "[providers.local]\n"
        'base_url = "http://h/v1"\n'
        'headers = { X = "1" }\n'
        "[mcp.servers.time]\n"
        'command = "uvx"\n'
        'args = ["mcp-server-time"]\n'
        "[hooks]\n"
        'on_start = [{ command = "echo" }]\n'
        "[permissions]\n"
        'allow = ["a"]\n',
    )
    before = user_toml(home)
    assert run(["set", "providers.local.temperature", "0.3"], project, env) == 0
    after = user_toml(home)
    before["providers"]["local"]["temperature"] = 0.3
    assert after == before


def test_set_none_removes_a_nullable_key(project: Path, env: dict[str, str], home: Path) -> None:
    write_user(home, 'model = "x:y"\ntimeout = 5.0\n')
    assert run(["set", "timeout", "none"], project, env) == 0
    assert user_toml(home) == {"model": "x:y"}


def test_set_unknown_key_suggests_and_exits_2(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_user(home, 'mode = "yolo"\n')
    assert run(["set", "modle", "x"], project, env) == 2
    err = capsys.readouterr().err
    assert err.startswith('auger: unknown setting "modle" (did you mean "model"?)')
    assert err.count("\n") == 1
    assert run(["set", "sandbox.enabeld", "true"], project, env) == 2
    assert 'did you mean "sandbox.enabled"' in capsys.readouterr().err
    assert run(["set", "providers.local", "x"], project, env) == 2
    assert "is a table" in capsys.readouterr().err
    assert path.read_text() == 'mode = "yolo"\n'


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["set", "mode", "fast"], 'mode = "fast" is not one of manual, auto-edit, yolo'),
        (["set", "max_turns", "0"], "max_turns = 0 must be greater than 0"),
        (["set", "shell", "perhaps"], 'shell = "perhaps" is not true or false'),
        (["set", "permissions.allow", "[1, 2]"], "permissions.allow = [1, 2] is not a list of strings"),
        (["set", "providers.local.headers", "nope"], 'providers.local.headers = "nope" is not a table'),
    ],
)
def test_set_bad_value_exits_2(
    project: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str], argv: list[str], problem: str
) -> None:
    assert run(argv, project, env) == 2
    assert problem in capsys.readouterr().err
    assert not (Path(env["AUGER_HOME"]) / "config.toml").exists()


def test_set_refuses_to_overwrite_a_malformed_file(
    project: Path, env: dict[str, str], home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_user(home, "mode = [\n")
    assert run(["set", "model", "a:b"], project, env) == 2
    assert "invalid TOML" in capsys.readouterr().err
    assert path.read_text() == "mode = [\n"


def test_set_leaves_no_temp_files(project: Path, env: dict[str, str], home: Path) -> None:
    for value in ("a:b", "c:d", "e:f"):
        assert run(["set", "model", value], project, env) == 0
    assert os.listdir(home) == ["config.toml"]
    assert user_toml(home) == {"model": "e:f"}


def test_failed_write_keeps_the_old_file(
    project: Path,
    env: dict[str, str],
    home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = write_user(home, 'model = "old:one"\nmax_turns = 3\n')
    os.chmod(path, 0o640)

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(config_cmd.os, "replace", broken_replace)
    assert run(["set", "model", "new:one"], project, env) == 2
    assert f"cannot write {path}: No space left on device" in capsys.readouterr().err
    assert path.read_text() == 'model = "old:one"\nmax_turns = 3\n'
    assert os.listdir(home) == ["config.toml"]
    monkeypatch.undo()
    assert run(["set", "model", "new:one"], project, env) == 0
    assert path.stat().st_mode & 0o777 == 0o640  # permissions of the old file are kept


def test_unwritable_home_names_the_folder(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "regular-file"
    blocker.write_text("not a folder")
    home = blocker / "auger"  # root ignores chmod, but nothing can be created under a regular file
    assert run(["set", "model", "a:b"], project, {"AUGER_HOME": str(home)}) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"auger: cannot write to {home}")
    assert err.count("\n") == 1
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize(("umask", "expected"), [(0o077, 0o600), (0o022, 0o644)])
def test_a_new_config_file_follows_the_umask(
    project: Path, env: dict[str, str], home: Path, umask: int, expected: int
) -> None:
    """A user with umask 077 gets a config.toml only they can read (it was 0644 whatever the
    umask); a secrets file (`new_mode=0o600`) stays 0600 under a lax umask."""
    from auger.settings import write_atomic

    old = os.umask(umask)
    try:
        assert run(["set", "model", "new:one"], project, env) == 0
        write_atomic(home / "token.json", "{}", new_mode=0o600)
    finally:
        os.umask(old)
    assert (home / "config.toml").stat().st_mode & 0o777 == expected
    assert (home / "token.json").stat().st_mode & 0o777 == 0o600
    assert sorted(os.listdir(home)) == ["config.toml", "token.json"]  # no temporary file left

"""Settings: schema, layering, sources, validation and the example config."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from auger.errors import ConfigError
from auger.settings import Settings, load_settings
from auger.settings_schema import KEYS, find_key, free_prefix

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "auger-home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return {"AUGER_HOME": str(home)}


def user_file(home: Path, text: str) -> Path:
    path = home / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def project_file(root: Path, text: str) -> Path:
    return user_file(root / ".auger", text)


def load(project: Path, env: dict[str, str], **kw: Any) -> Settings:
    """Settings of a project the user trusts (what an untrusted one may set: tests/core/test_trust.py)."""
    kw.setdefault("trust_project", True)
    return load_settings(cwd=project / "src", env=env, **kw)


# --- defaults and layering --------------------------------------------------------------------


def test_defaults_when_no_files(project: Path, env: dict[str, str], home: Path) -> None:
    s = load(project, env)
    assert (s.model, s.mode, s.shell, s.max_turns, s.timeout, s.shell_timeout) == (
        None,
        "manual",
        True,
        50,
        None,
        120,
    )
    assert s.providers == {}
    assert s.home == home
    assert s.project_root == project.resolve()
    assert s.cwd == (project / "src").resolve()
    assert s.warnings == []
    assert all(s.sources[k.name] == "default" for k in KEYS if "*" not in k.name)
    # sections other modules own are present with their defaults
    assert s.data["mcp"] == {"call_timeout": 60.0, "servers": {}}
    assert s.data["sandbox"] == {
        "enabled": False,
        "network": False,
        "provider": "bubblewrap",
        "hide": [],
        "expose": [],
    }
    assert s.data["permissions"] == {"allow": [], "ask": [], "deny": []}
    assert s.get("tui.prune_after") == 400
    assert s.get("context_window") is None
    assert s.get("no.such.key", "fallback") == "fallback"


def test_layer_order_defaults_user_project_env_flags(project: Path, env: dict[str, str], home: Path) -> None:
    user = user_file(
        home,
        'model = "u:m"\nmode = "auto-edit"\nmax_turns = 10\nshell_timeout = 30\n[tui]\ntheme = "nord"\n',
    )
    proj = project_file(project, 'model = "p:m"\nmax_turns = 20\nshell_timeout = 40\n')
    env |= {"AUGER_MODEL": "e:m", "AUGER_MAX_TURNS": "30"}
    s = load(project, env, flags={"model": "f:m", "mode": None})

    assert s.model == "f:m"
    assert s.max_turns == 30
    assert s.shell_timeout == 40
    assert s.mode == "auto-edit"
    assert s.get("tui.theme") == "nord"
    assert s.shell is True
    assert s.sources["model"] == "flag --model"
    assert s.sources["max_turns"] == "env AUGER_MAX_TURNS"
    assert s.sources["shell_timeout"] == f"project ({proj})"
    assert s.sources["mode"] == f"user ({user})"
    assert s.sources["tui.theme"] == f"user ({user})"
    assert s.sources["shell"] == "default"


def test_each_layer_beats_the_one_below(project: Path, env: dict[str, str], home: Path) -> None:
    assert load(project, env).model is None
    user_file(home, 'model = "user:m"\n')
    assert load(project, env).model == "user:m"
    project_file(project, 'model = "project:m"\n')
    assert load(project, env).model == "project:m"
    assert load(project, env | {"AUGER_MODEL": "env:m"}).model == "env:m"
    assert load(project, env | {"AUGER_MODEL": "env:m"}, flags={"model": "flag:m"}).model == "flag:m"


def test_tables_merge_key_by_key(project: Path, env: dict[str, str], home: Path) -> None:
    user = user_file(
        home,
        '[sandbox]\nenabled = true\n[providers.local]\nbase_url = "http://127.0.0.1:8000/v1"\n'
        'models = ["qwen"]\nheaders = { A = "1" }\n',
    )
    proj = project_file(
        project, '[sandbox]\nnetwork = true\n[providers.local]\ntemperature = 0\nheaders = { B = "2" }\n'
    )
    s = load(project, env)
    assert s.data["sandbox"] == {
        "enabled": True,
        "network": True,
        "provider": "bubblewrap",
        "hide": [],
        "expose": [],
    }
    assert s.sources["sandbox.enabled"] == f"user ({user})"
    assert s.sources["sandbox.network"] == f"project ({proj})"
    local = s.providers["local"]
    assert local.name == "local"
    assert local.base_url == "http://127.0.0.1:8000/v1"
    assert local.api_key_env is None
    assert local.models == ["qwen"]
    assert local.params == {"temperature": 0.0, "headers": {"A": "1", "B": "2"}}
    assert isinstance(local.params["temperature"], float)
    assert s.sources["providers.local.headers"] == f"user ({user}) + project ({proj})"


def test_permission_lists_are_concatenated_user_then_project(
    project: Path, env: dict[str, str], home: Path
) -> None:
    user = user_file(home, '[permissions]\nallow = ["execute(ls*)", "read_file"]\nask = ["x"]\n')
    proj = project_file(project, '[permissions]\nallow = ["execute(make*)"]\ndeny = ["execute(rm*)"]\n')
    s = load(project, env, flags={"permissions.deny": ["execute(curl*)"]})
    assert s.data["permissions"]["allow"] == ["execute(ls*)", "read_file", "execute(make*)"]
    assert s.data["permissions"]["ask"] == ["x"]
    assert s.data["permissions"]["deny"] == ["execute(rm*)", "execute(curl*)"]
    assert s.sources["permissions.allow"] == f"user ({user}) + project ({proj})"
    assert s.sources["permissions.ask"] == f"user ({user})"
    assert s.sources["permissions.deny"] == f"project ({proj}) + flag --permissions-deny"


def test_other_lists_are_replaced(project: Path, env: dict[str, str], home: Path) -> None:
    user_file(home, '[providers.local]\nmodels = ["a", "b"]\n')
    project_file(project, '[providers.local]\nmodels = ["c"]\n')
    assert load(project, env).providers["local"].models == ["c"]


def test_free_form_sections_are_kept(project: Path, env: dict[str, str], home: Path) -> None:
    user_file(
        home,
        '[mcp.servers.time]\ncommand = "uvx"\nargs = ["mcp-server-time"]\n'
        '[hooks]\npre_tool = [{ command = "echo hi" }]\n'
        '[async_subagents.research]\nurl = "http://h:2024"\ngraph_id = "g"\n',
    )
    s = load(project, env)
    assert s.warnings == []
    assert s.data["mcp"]["servers"]["time"] == {"command": "uvx", "args": ["mcp-server-time"]}
    assert s.data["hooks"] == {"pre_tool": [{"command": "echo hi"}]}
    assert s.data["async_subagents"]["research"] == {"url": "http://h:2024", "graph_id": "g"}
    assert "mcp.servers.time" in s.sources


def test_project_file_equal_to_user_file_is_read_once(project: Path) -> None:
    home = project / ".auger"
    user_file(home, '[permissions]\nallow = ["a"]\n')
    s = load_settings(cwd=project, env={"AUGER_HOME": str(home)})
    assert s.data["permissions"]["allow"] == ["a"]
    assert s.sources["permissions.allow"].startswith("user (")


# --- environment and flags --------------------------------------------------------------------


def test_env_values_are_parsed_to_the_key_type(project: Path, env: dict[str, str]) -> None:
    env |= {
        "AUGER_MODE": "yolo",
        "AUGER_SHELL": "no",
        "AUGER_TIMEOUT": "2.5",
        "AUGER_SHELL_TIMEOUT": "9",
        "AUGER_CONTEXT_WINDOW": "32000",
        "AUGER_SANDBOX": "true",
        "AUGER_MAX_TURNS": "",  # empty = unset
    }
    s = load(project, env)
    assert (s.mode, s.shell, s.timeout, s.shell_timeout) == ("yolo", False, 2.5, 9)
    assert s.get("context_window") == 32000
    assert s.get("sandbox.enabled") is True
    assert s.max_turns == 50
    assert s.sources["shell"] == "env AUGER_SHELL"
    assert s.sources["max_turns"] == "default"


@pytest.mark.parametrize(
    ("var", "value", "problem"),
    [
        ("AUGER_MAX_TURNS", "lots", "is not a whole number"),
        ("AUGER_MAX_TURNS", "0", "must be greater than 0"),
        ("AUGER_MODE", "fast", "is not one of manual, auto-edit, yolo"),
        ("AUGER_SHELL", "maybe", "is not true or false"),
        ("AUGER_TIMEOUT", "soon", "is not a number"),
    ],
)
def test_bad_env_value_names_the_variable(
    project: Path, env: dict[str, str], var: str, value: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        load(project, env | {var: value})
    assert f"environment variable {var}" in str(exc.value)
    assert problem in str(exc.value)
    assert exc.value.exit_code == 2


def test_flags_override_and_are_validated(project: Path, env: dict[str, str]) -> None:
    s = load(project, env, flags={"mode": "yolo", "shell": False, "max_turns": "7", "timeout": None})
    assert (s.mode, s.shell, s.max_turns, s.timeout) == ("yolo", False, 7, None)
    assert s.sources["shell"] == "flag --no-shell"
    assert s.sources["max_turns"] == "flag --max-turns"
    assert s.sources["timeout"] == "default"
    with pytest.raises(
        ConfigError, match=r'flag --mode: mode = "fast" is not one of manual, auto-edit, yolo'
    ):
        load(project, env, flags={"mode": "fast"})
    with pytest.raises(ConfigError, match=r'unknown setting "modle" \(did you mean "model"\?\)'):
        load(project, env, flags={"modle": "x"})


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('model = "a"\nmode = \nshell = true\n', "line 2, column 8: Invalid value."),
        ('model = "a"\nmode = "manual', "line 2 (end of file): Unterminated string."),
        ("[sandbox]\n[sandbox]\n", "line 2, column 9: Cannot declare"),
    ],
)
def test_malformed_toml_names_file_and_line(
    project: Path, env: dict[str, str], home: Path, text: str, where: str
) -> None:
    path = user_file(home, text)  # a project's broken file is a warning (tests/core/test_trust.py)
    with pytest.raises(ConfigError) as exc:
        load(project, env)
    msg = str(exc.value)
    assert msg.startswith(f"{path}: invalid TOML at {where}")
    assert "\n" not in msg
    assert exc.value.exit_code == 2


def test_bad_enum_names_file_key_and_allowed_values(project: Path, env: dict[str, str], home: Path) -> None:
    path = user_file(home, 'mode = "fast"\n')
    with pytest.raises(ConfigError) as exc:
        load(project, env)
    assert str(exc.value).startswith(f'{path}: mode = "fast" is not one of manual, auto-edit, yolo')


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('max_turns = "ten"', 'max_turns = "ten" is not a whole number'),
        ("max_turns = true", "max_turns = true is not a whole number"),
        ("max_turns = 0", "max_turns = 0 must be greater than 0"),
        ('shell = "yes"', 'shell = "yes" is not true or false'),
        ("timeout = -1", "timeout = -1 must be greater than 0"),
        ('[permissions]\nallow = "x"', 'permissions.allow = "x" is not a list of strings'),
        ("[permissions]\nallow = [1]", "permissions.allow = [1] is not a list of strings"),
        ("[providers.local]\nheaders = 3", "providers.local.headers = 3 is not a table"),
        ("sandbox = true", "sandbox = true must be a table"),
        ("[mcp]\ncall_timeout = 0", "mcp.call_timeout = 0 must be greater than 0"),
    ],
)
def test_wrong_types_are_config_errors(
    project: Path, env: dict[str, str], home: Path, text: str, fragment: str
) -> None:
    path = user_file(home, text + "\n")
    with pytest.raises(ConfigError) as exc:
        load(project, env)
    assert str(exc.value).startswith(f"{path}: {fragment}")


def test_int_is_accepted_for_float_keys(project: Path, env: dict[str, str]) -> None:
    project_file(project, "timeout = 5\n")
    s = load(project, env)
    assert s.timeout == 5.0
    assert isinstance(s.timeout, float)


def test_unreadable_file_is_named(project: Path, env: dict[str, str], home: Path) -> None:
    (home / "config.toml").mkdir(parents=True)  # a folder where the file should be (root ignores chmod)
    with pytest.raises(ConfigError, match=re.escape(f"cannot read {home / 'config.toml'}")):
        load(project, env)


def test_non_utf8_file_is_named(project: Path, env: dict[str, str], home: Path) -> None:
    path = home / "config.toml"
    path.parent.mkdir()
    path.write_bytes(b'model = "\xff"\n')
    with pytest.raises(ConfigError, match=re.escape(f"{path}: not UTF-8")):
        load(project, env)


def test_home_under_a_regular_file_reads_as_empty(project: Path, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    s = load(project, {"AUGER_HOME": str(tmp_path / "plain" / "home")})
    assert s.mode == "manual"


def test_unknown_keys_warn_with_suggestions(project: Path, env: dict[str, str], home: Path) -> None:
    user = user_file(home, 'modle = "x"\nzzz_qqq = 1\n')
    proj = project_file(
        project,
        '[sandbox]\nenabeld = true\n[permisions]\nallow = []\n[providers.local]\nbase_ur = "http://x"\n',
    )
    s = load(project, env)
    assert s.warnings == [
        f'unknown setting "modle" in {user} (did you mean "model"?)',
        f'unknown setting "zzz_qqq" in {user}',
        f'unknown setting "sandbox.enabeld" in {proj} (did you mean "sandbox.enabled"?)',
        f'unknown setting "permisions" in {proj} (did you mean "permissions"?)',
        f'unknown setting "providers.local.base_ur" in {proj} (did you mean "providers.local.base_url"?);'
        " passing it to the model as is",
    ]
    assert s.model is None
    assert s.get("sandbox.enabled") is False


def test_extra_provider_params_pass_through_without_warning(project: Path, env: dict[str, str]) -> None:
    project_file(project, '[providers.vllm]\nbase_url = "http://h/v1"\ntop_p = 0.9\nseed = 1\n')
    s = load(project, env)
    assert s.warnings == []
    assert s.providers["vllm"].params == {"top_p": 0.9, "seed": 1}


# --- schema and example file ------------------------------------------------------------------

_SETTING_LINE = re.compile(r"^# ?(\[[\w.\"-]+\]|[A-Za-z_][\w-]*\s*=\s.*)$")


def _uncommented_example() -> str:
    out = []
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        m = _SETTING_LINE.match(line)
        if m:
            out.append(m.group(1))
    return "\n".join(out) + "\n"


def _dotted_paths(table: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name, value in table.items():
        parts = (*prefix, name)
        found.append(parts)
        if isinstance(value, dict) and find_key(parts) is None:
            found.extend(_dotted_paths(value, parts))
    return found


def test_example_file_is_all_comments() -> None:
    assert tomllib.loads(EXAMPLE.read_text(encoding="utf-8")) == {}


def test_example_documents_every_schema_key() -> None:
    data = tomllib.loads(_uncommented_example())
    covered = {find_key(p) for p in _dotted_paths(data)}
    missing = [k.name for k in KEYS if k not in covered]
    assert missing == []
    for key in KEYS:
        assert key.doc and key.doc[0].isupper(), key.name
        assert key.env is None or key.env in EXAMPLE.read_text(encoding="utf-8")


def test_example_defaults_match_schema() -> None:
    data = tomllib.loads(_uncommented_example())
    for key in KEYS:
        if "*" in key.name or key.default in (None, [], {}):
            continue
        node: Any = data
        for part in key.parts:
            node = node[part]
        assert node == key.default, key.name


def test_uncommented_example_loads_without_warnings(project: Path, env: dict[str, str], home: Path) -> None:
    user_file(home, _uncommented_example())
    s = load(project, env)
    assert s.warnings == []
    local = s.providers["local"]
    assert local.base_url == "http://127.0.0.1:8000/v1"
    assert local.api_key_env == "LOCAL_API_KEY"
    assert "qwen3-coder" in local.models
    assert s.model == "local:qwen3-coder"
    assert free_prefix(("mcp", "servers", "time", "command")) is not None


def test_settings_module_imports_nothing_heavy() -> None:
    code = (
        "import sys, auger.settings, auger.cli.config\n"
        "heavy = [m for m in ('tomli_w', 'langchain', 'langgraph', 'deepagents', 'textual', 'httpx')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

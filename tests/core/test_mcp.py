"""MCP: config loading, trust, and McpManager against real servers in subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from auger.cli import mcp as mcp_cmd
from auger.core.mcp.config import McpServerConfig, TrustStore, load_mcp_servers, servers_from_settings
from auger.core.mcp.manager import McpManager
from auger.errors import ConfigError

HERE = Path(__file__).resolve().parent.parent / "mcp_servers"
FAST = str(HERE / "fastmcp_server.py")
CRASH = str(HERE / "crashing_server.py")
REPO = Path(__file__).resolve().parents[2]


def fast(name: str, *args: str, **kw: Any) -> McpServerConfig:
    return McpServerConfig(name, "stdio", command=sys.executable, args=(FAST, *args), **kw)


def crashing(name: str, *args: str) -> McpServerConfig:
    return McpServerConfig(name, "stdio", command=sys.executable, args=(CRASH, *args))


def time_server(name: str = "time") -> McpServerConfig:
    script = shutil.which("mcp-server-time") or str(Path(sys.executable).parent / "mcp-server-time")
    return McpServerConfig(name, "stdio", command=script, args=("--local-timezone", "UTC"))


@asynccontextmanager
async def running(servers: list[McpServerConfig], tmp_path: Path, **kw: Any) -> AsyncIterator[McpManager]:
    manager = McpManager(servers, tmp_path / "logs", **kw)
    try:
        await manager.start()
        yield manager
    finally:
        await manager.aclose()


def by_name(manager: McpManager) -> dict[str, Any]:
    return {t.name: t for t in manager.tools()}


def status_of(manager: McpManager, name: str) -> dict[str, Any]:
    return next(s for s in manager.status() if s["name"] == name)


async def call(tool: Any, **args: Any) -> Any:
    """Invoke like the agent does (a tool call), so errors come back as a ToolMessage."""
    return await tool.ainvoke({"name": tool.name, "args": args, "id": "call-1", "type": "tool_call"})


def text(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[tuple[str, str]]:
    """A FastMCP server over streamable HTTP and another over SSE, as separate processes."""
    ports = free_port(), free_port()
    procs = [
        subprocess.Popen([sys.executable, FAST, "--http", str(ports[0])], stderr=subprocess.DEVNULL),
        subprocess.Popen([sys.executable, FAST, "--sse", str(ports[1])], stderr=subprocess.DEVNULL),
    ]
    try:
        for port in ports:
            deadline = time.monotonic() + 15
            while True:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                assert time.monotonic() < deadline, f"test server on port {port} did not come up"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{ports[0]}/mcp", f"http://127.0.0.1:{ports[1]}/sse"
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


# --- McpManager against real servers ----------------------------------------------------------


async def test_stdio_connect_and_warm_call(tmp_path: Path) -> None:
    async with running([fast("calc")], tmp_path) as manager:
        assert status_of(manager, "calc")["status"] == "connected"
        tools = by_name(manager)
        assert {f"mcp__calc__{t}" for t in ("add", "echo", "slow", "getenv", "pid")} <= set(tools)
        assert text(await call(tools["mcp__calc__add"], a=2, b=3)) == "5"
        times = []
        for i in range(20):
            start = time.perf_counter()
            result = await call(tools["mcp__calc__add"], a=i, b=1)
            times.append(time.perf_counter() - start)
            assert text(result) == str(i + 1)
        print(f"\nwarm stdio MCP round-trip: median {statistics.median(times) * 1000:.1f} ms")


async def test_stderr_goes_to_log_file_not_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    async with running([fast("quiet")], tmp_path) as manager:
        assert status_of(manager, "quiet")["status"] == "connected"
    log = tmp_path / "logs" / "mcp-quiet.log"
    assert "fastmcp_server auger-test starting" in log.read_text()
    assert "fastmcp_server" not in capfd.readouterr().err


async def test_streamable_http_and_sse(tmp_path: Path, http_server: tuple[str, str]) -> None:
    http_url, sse_url = http_server
    servers = [
        McpServerConfig("web", "http", url=http_url, headers={"X-Test": "1"}),
        McpServerConfig("stream", "sse", url=sse_url),
    ]
    async with running(servers, tmp_path) as manager:
        assert [s["status"] for s in manager.status()] == ["connected", "connected"]
        tools = by_name(manager)
        assert text(await call(tools["mcp__web__add"], a=40, b=2)) == "42"
        assert text(await call(tools["mcp__stream__echo"], text="over sse")) == "over sse"


async def test_http_server_going_away(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, FAST, "--http", str(port)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        server = McpServerConfig("remote", "http", url=f"http://127.0.0.1:{port}/mcp")
        async with running([server], tmp_path, call_timeout=20) as manager:
            add = by_name(manager)["mcp__remote__add"]
            assert text(await call(add, a=1, b=1)) == "2"
            proc.kill()
            proc.wait(10)
            start = time.perf_counter()
            result = await call(add, a=1, b=1)
            assert time.perf_counter() - start < 10  # not the 20 s call timeout
            assert result.status == "error" and "remote" in text(result)
            assert status_of(manager, "remote")["status"] == "failed"
    finally:
        proc.kill()
        proc.wait(10)


async def test_reference_time_server(tmp_path: Path) -> None:
    async with running([time_server()], tmp_path) as manager:
        assert status_of(manager, "time")["status"] == "connected", manager.status()
        tools = by_name(manager)
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(tools)
        result = json.loads(text(await call(tools["mcp__time__get_current_time"], timezone="UTC")))
        assert result["timezone"] == "UTC"


async def test_names_are_server_and_tool_whatever_else_is_configured(tmp_path: Path) -> None:
    async with running([fast("one")], tmp_path) as alone:
        names_alone = set(by_name(alone))
    async with running([fast("one"), fast("two"), time_server()], tmp_path) as manager:
        names = set(by_name(manager))
        assert {"mcp__one__add", "mcp__two__add", "mcp__one__echo", "mcp__two__echo"} <= names
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= names
        assert names_alone <= names  # a second server with the same tools renamed nothing
        assert not {"add", "one__add", "get_current_time"} & names
        assert text(await call(by_name(manager)["mcp__two__echo"], text="hi")) == "hi"


def test_long_and_odd_names_stay_unique_and_valid() -> None:
    from auger.core.mcp.names import prompt_command, tool_name

    assert tool_name("my.server", "do it") == "mcp__my_server__do_it"
    long_a, long_b = tool_name("s" * 40, "t" * 40 + "a"), tool_name("s" * 40, "t" * 40 + "b")
    assert len(long_a) == 64 and len(long_b) == 64 and long_a != long_b
    assert long_a == tool_name("s" * 40, "t" * 40 + "a")  # the same every run
    assert prompt_command("docs", "summarise") == "mcp__docs__summarise"


async def test_read_only_tools(tmp_path: Path) -> None:
    servers = [fast("hinted"), replace(crashing("flagged"), read_only=True)]
    async with running(servers, tmp_path) as manager:
        read_only = {t.name for t in manager.tools() if t.metadata and t.metadata.get("read_only")}
        assert {
            "mcp__hinted__getenv",
            "mcp__hinted__pid",
            "mcp__flagged__pid",
            "mcp__flagged__ok",
        } <= read_only
        assert not {"mcp__hinted__add", "mcp__hinted__echo", "mcp__hinted__slow"} & read_only
        assert by_name(manager)["mcp__hinted__getenv"].metadata["mcp_server"] == "hinted"


async def test_disabled_server_is_not_started(tmp_path: Path) -> None:
    async with running([fast("on"), fast("off", disabled=True)], tmp_path) as manager:
        assert status_of(manager, "off")["status"] == "disabled"
        assert status_of(manager, "on")["status"] == "connected"
    assert not (tmp_path / "logs" / "mcp-off.log").exists()


async def test_failed_start_reports_and_others_work(tmp_path: Path) -> None:
    servers = [
        crashing("broken", "--fail-at-startup"),
        McpServerConfig("ghost", "stdio", command="no-such-mcp-server-xyz"),
        fast("good"),
    ]
    async with running(servers, tmp_path) as manager:
        broken, ghost = status_of(manager, "broken"), status_of(manager, "ghost")
        assert broken["status"] == "failed" and "missing API token" in broken["error"]
        assert ghost["status"] == "failed" and "command not found" in ghost["error"]
        assert text(await call(by_name(manager)["mcp__good__add"], a=1, b=1)) == "2"
        notices = manager.drain_notices()
        assert any("broken" in n for n in notices) and any("ghost" in n for n in notices)


async def test_startup_hang_times_out(tmp_path: Path) -> None:
    async with running([crashing("stuck", "--hang-at-startup")], tmp_path, startup_timeout=1.0) as manager:
        stuck = status_of(manager, "stuck")
        assert stuck["status"] == "failed" and "1s" in stuck["error"]


async def test_crash_mid_call_then_restart(tmp_path: Path) -> None:
    notices: list[str] = []
    async with running([crashing("fragile"), fast("steady")], tmp_path, on_notice=notices.append) as manager:
        tools = by_name(manager)
        old_pid = int(text(await call(tools["mcp__fragile__pid"])))
        result = await call(tools["mcp__fragile__crash"])
        assert result.status == "error" and "failed while running 'crash'" in text(result)
        assert "crashing now" in text(result)  # the server's last stderr line
        assert status_of(manager, "fragile")["status"] == "failed"
        assert any("fragile" in n and "exited" in n for n in notices)
        again = await call(tools["mcp__fragile__ok"])
        assert again.status == "error" and "not available" in text(again)
        assert text(await call(tools["mcp__steady__add"], a=1, b=2)) == "3"  # the other server is fine

        await manager.restart("fragile")
        assert status_of(manager, "fragile")["status"] == "connected"
        assert (
            text(await call(tools["mcp__fragile__ok"])) == "ok"
        )  # the tool object from before the restart works
        assert wait_gone(old_pid)


async def test_hanging_call_times_out(tmp_path: Path) -> None:
    async with running([fast("sleepy")], tmp_path, call_timeout=0.5) as manager:
        tools = by_name(manager)
        start = time.perf_counter()
        result = await call(tools["mcp__sleepy__slow"], seconds=30)
        assert time.perf_counter() - start < 5
        assert result.status == "error" and "timed out after 0.5s" in text(result)
        assert any("timed out" in n for n in manager.drain_notices())
        assert text(await call(tools["mcp__sleepy__echo"], text="still here")) == "still here"


async def test_no_processes_left_after_aclose(tmp_path: Path) -> None:
    manager = McpManager([fast("a"), fast("b"), crashing("c")], tmp_path / "logs")
    await manager.start()
    tools = by_name(manager)
    pids = [int(text(await call(tools[name]))) for name in ("mcp__a__pid", "mcp__b__pid", "mcp__c__pid")]
    assert all(pid_alive(pid) for pid in pids)
    await manager.aclose()
    assert all(wait_gone(pid, 1.0) for pid in pids)


async def test_env_expansion_reaches_the_server(tmp_path: Path) -> None:
    (tmp_path / "servers.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "envy": {
                        "command": "${PY}",
                        "args": [FAST, "--name", "${NAME:-fallback}"],
                        "env": {"GREETING": "hello ${WHO}", "OTHER": "${UNSET_THING:-dflt}"},
                    }
                }
            }
        )
    )
    env = {"PY": sys.executable, "WHO": "world"}
    servers = load_mcp_servers(
        home=tmp_path / "home", project_root=tmp_path, extra=[tmp_path / "servers.json"], env=env
    )
    assert servers[0].args[-1] == "fallback" and servers[0].command == sys.executable
    async with running(servers, tmp_path) as manager:
        tools = by_name(manager)
        assert text(await call(tools["mcp__envy__getenv"], name="GREETING")) == "hello world"
        assert text(await call(tools["mcp__envy__getenv"], name="OTHER")) == "dflt"


async def test_unset_variable_fails_only_that_server(tmp_path: Path) -> None:
    raw = {
        "mcpServers": {"needs": {"url": "https://example.invalid/mcp", "headers": {"A": "Bearer ${TOKEN}"}}}
    }
    (tmp_path / "s.json").write_text(json.dumps(raw))
    servers = load_mcp_servers(home=tmp_path, project_root=tmp_path, extra=[tmp_path / "s.json"], env={})
    async with running([*servers, fast("fine")], tmp_path) as manager:
        needs = status_of(manager, "needs")
        assert needs["status"] == "failed" and "TOKEN" in needs["error"]
        assert status_of(manager, "fine")["status"] == "connected"


# --- configuration ----------------------------------------------------------------------------


def write_json(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_precedence_user_config_project_flag(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    write_json(home / "mcp.json", {"s": {"command": "user"}, "u": {"command": "user-only"}})
    write_json(root / ".mcp.json", {"s": {"command": "project"}, "p": {"command": "project-only"}})
    flag = write_json(tmp_path / "extra.json", {"s": {"url": "http://flag/mcp", "type": "sse"}})
    toml = {"s": {"command": "toml"}, "t": {"command": "toml-only"}}
    untrusted = {
        s.name: s for s in load_mcp_servers(home=home, project_root=root, config_servers=toml, env={})
    }
    assert untrusted["s"].from_project and untrusted["s"].command is None  # only its name was read
    servers = {
        s.name: s
        for s in load_mcp_servers(
            home=home, project_root=root, config_servers=toml, env={}, trust_project=True
        )
    }
    assert servers["s"].command == "project" and servers["s"].from_project
    assert (servers["u"].command, servers["t"].command, servers["p"].command) == (
        "user-only",
        "toml-only",
        "project-only",
    )
    servers = {
        s.name: s
        for s in load_mcp_servers(home=home, project_root=root, config_servers=toml, extra=[flag], env={})
    }
    assert servers["s"].transport == "sse" and servers["s"].url == "http://flag/mcp"
    assert servers["s"].source == str(flag) and not servers["s"].from_project
    no_project = load_mcp_servers(home=home, project_root=tmp_path / "none", config_servers=toml, env={})
    assert {s.name: s.command for s in no_project}["s"] == "toml"


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text('{\n  "mcpServers": {\n    "x": {"command": "a",}\n  }\n}\n')
    with pytest.raises(ConfigError) as info:
        load_mcp_servers(home=tmp_path / "h", project_root=tmp_path, env={})
    assert f"{tmp_path / '.mcp.json'}:3:" in str(info.value)


def test_entry_without_command_or_url_names_server(tmp_path: Path) -> None:
    write_json(tmp_path / "h" / "mcp.json", {"empty": {"args": ["x"]}, "off": {"disabled": True}})
    with pytest.raises(ConfigError, match="'empty'"):
        load_mcp_servers(home=tmp_path / "h", project_root=tmp_path, env={})


def test_fields_types_and_flags(tmp_path: Path) -> None:
    servers = {
        "a": {"command": "x", "args": ["1"], "cwd": "sub", "readOnly": True},
        "b": {"url": "http://h/mcp", "type": "streamable_http", "read_only": True},
        "c": {"url": "http://h/mcp"},
        "d": {"command": "y", "disabled": True},
    }
    path = write_json(tmp_path / "cfg" / "m.json", servers)
    got = {s.name: s for s in load_mcp_servers(home=tmp_path, project_root=tmp_path, extra=[path], env={})}
    assert got["a"].transport == "stdio" and got["a"].read_only and got["a"].cwd == str(path.parent / "sub")
    assert got["b"].transport == "http" and got["b"].read_only
    assert got["c"].transport == "http" and not got["c"].read_only
    assert got["d"].disabled
    with pytest.raises(ConfigError, match="unknown type"):
        load_mcp_servers(
            home=tmp_path, project_root=tmp_path, extra=['{"mcpServers":{"z":{"url":"u","type":"ws"}}}']
        )


def test_trust_store(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    write_json(root / ".mcp.json", {"p": {"command": "x"}})
    store = TrustStore(home)
    assert not store.is_trusted(root)
    assert not load_mcp_servers(home=home, project_root=root, env={})[0].trusted
    assert load_mcp_servers(home=home, project_root=root, env={}, trust_project=True)[0].trusted
    assert not store.is_trusted(root)  # --trust-project-mcp is for one run only
    store.trust(root)
    assert store.is_trusted(root) and load_mcp_servers(home=home, project_root=root, env={})[0].trusted
    saved = json.loads((home / "trust.json").read_text())["projects"]
    assert list(saved) == [str(root.resolve())]  # one decision per project path (auger.trust)
    write_json(root / ".mcp.json", {"p": {"command": "something-else"}})
    assert store.is_trusted(root)
    user = write_json(home / "mcp.json", {"mine": {"command": "y"}})
    assert user.exists() and load_mcp_servers(home=home, project_root=root, env={})[0].trusted  # user's own


async def test_untrusted_project_server_not_started_until_trusted(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    write_json(root / ".mcp.json", {"proj": {"command": sys.executable, "args": [FAST]}})
    servers = load_mcp_servers(home=home, project_root=root, env={})
    manager = McpManager(servers, tmp_path / "logs")
    try:
        await manager.start()
        proj = status_of(manager, "proj")
        assert proj["status"] == "untrusted" and "--trust-project" in proj["error"]
        assert manager.tools() == []
        await manager.trust_project(TrustStore(home))
        assert status_of(manager, "proj")["status"] == "connected"
        assert TrustStore(home).is_trusted(root)
    finally:
        await manager.aclose()


def make_project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    home, root = tmp_path / "home", tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    env = {**os.environ, "AUGER_HOME": str(home), "PY": sys.executable}
    env.pop("AUGER_MODEL", None)
    return home, root, env


def test_project_config_toml_servers_need_trust(tmp_path: Path) -> None:
    from auger.settings import load_settings

    home, root, env = make_project(tmp_path)
    (home / "config.toml").write_text('[mcp.servers.mine]\ncommand = "mine"\n')
    (root / ".auger").mkdir()
    (root / ".auger" / "config.toml").write_text('[mcp.servers.theirs]\ncommand = "theirs"\n')
    got = {s.name: s for s in servers_from_settings(load_settings(cwd=root, env=env), env=env)}
    assert got["mine"].trusted and not got["mine"].from_project
    assert got["theirs"].from_project and not got["theirs"].trusted
    TrustStore(home).trust(root)
    got = {s.name: s for s in servers_from_settings(load_settings(cwd=root, env=env), env=env)}
    assert got["theirs"].trusted


# --- `auger mcp list` -------------------------------------------------------------------------


def test_mcp_list_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, root, env = make_project(tmp_path)
    write_json(home / "mcp.json", {"calc": {"command": "${PY}", "args": [FAST]}})
    write_json(root / ".mcp.json", {"proj": {"command": "${PY}", "args": [FAST]}})
    extra = write_json(tmp_path / "x.json", {"off": {"command": "z", "disabled": True}})
    (home / "config.toml").write_text(
        f'[mcp.servers.broken]\ncommand = "{sys.executable}"\nargs = ["{CRASH}", "--fail-at-startup"]\n'
    )
    assert mcp_cmd.run(["list", "--json", "--mcp-config", str(extra)], cwd=root, env=env) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert all(set(row) == {"name", "status", "tools", "error", "source"} for row in rows.values())
    assert rows["calc"]["status"] == "connected" and "mcp__calc__add" in rows["calc"]["tools"]
    assert rows["calc"]["source"] == str(home / "mcp.json")
    assert rows["proj"]["status"] == "untrusted" and rows["proj"]["tools"] == []
    assert rows["off"]["status"] == "disabled"
    assert rows["broken"]["status"] == "failed" and "missing API token" in rows["broken"]["error"]

    assert mcp_cmd.run(["list", "--json", "--trust-project-mcp"], cwd=root, env=env) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["proj"]["status"] == "connected"

    assert mcp_cmd.run(["list"], cwd=root, env=env) == 0
    assert "calc" in capsys.readouterr().out

    (root / ".mcp.json").write_text("{oops")  # a broken file is a warning; the rest is listed
    assert mcp_cmd.run(["list"], cwd=root, env=env) == 0
    out, err = capsys.readouterr()
    assert ".mcp.json:1:" in err and "calc" in out


def test_installed_auger_mcp_list(tmp_path: Path) -> None:
    exe = shutil.which("auger") or str(Path(sys.executable).parent / "auger")
    home, root, env = make_project(tmp_path)
    write_json(home / "mcp.json", {"calc": {"command": "${PY}", "args": [FAST]}})
    done = subprocess.run(
        [exe, "mcp", "list", "--json"], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["status"] == "connected"
    assert done.stderr == ""


def test_a_server_with_unset_variables_names_them_in_the_right_number() -> None:
    from auger.core.mcp.config import parse_server

    def error(*names: str) -> str | None:
        raw = {"command": "srv", "env": {n: f"${{{n}}}" for n in names}}
        return parse_server("s", raw, source="mcp.json", env={}).error

    assert error("ONE_TOKEN") == "environment variable ONE_TOKEN not set (used by MCP server 's' in mcp.json)"
    assert error("B_KEY", "A_KEY", "B_KEY") == (
        "environment variables A_KEY, B_KEY not set (used by MCP server 's' in mcp.json)"
    )

"""make_backend: which deepagents backend a configuration selects."""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from deepagents.backends import FilesystemBackend, LocalShellBackend
from deepagents.backends.protocol import SandboxBackendProtocol

from auger.core.backends.factory import make_backend
from auger.core.backends.local_shell import LocalShell
from auger.core.backends.sandbox import BubblewrapSandbox
from auger.errors import ConfigError


def _settings(
    root: Path, *, shell: bool = True, timeout: int = 77, sandbox: dict[str, Any] | None = None
) -> Any:
    """A stand-in for auger.settings.Settings with just the attributes make_backend reads."""
    data = {"sandbox": sandbox} if sandbox is not None else {}
    return SimpleNamespace(
        shell=shell, shell_timeout=timeout, project_root=root, home=root / "auger-home", data=data
    )


def test_default_is_local_shell_rooted_at_the_project(tmp_path: Path) -> None:
    backend = make_backend(_settings(tmp_path))
    assert type(backend) is LocalShell and isinstance(backend, LocalShellBackend)
    assert backend.cwd == tmp_path.resolve()
    assert backend.virtual_mode is True
    assert backend._default_timeout == 77
    (tmp_path / "x.txt").write_text("hi\n")
    assert backend.read("/x.txt").file_data == {"content": "     1\thi\n", "encoding": "utf-8"}
    assert backend.execute("cat x.txt").output.strip() == "hi"


def test_local_shell_inherits_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUGER_BACKEND_PROBE", "seen")
    backend = make_backend(_settings(tmp_path))
    assert isinstance(backend, LocalShellBackend)
    assert backend.execute("echo $AUGER_BACKEND_PROBE").output.strip() == "seen"


def test_shell_off_gives_a_filesystem_backend_without_execute(tmp_path: Path) -> None:
    backend = make_backend(_settings(tmp_path, shell=False))
    assert isinstance(backend, FilesystemBackend)
    assert not isinstance(backend, SandboxBackendProtocol)
    assert backend.cwd == tmp_path.resolve()
    assert backend.virtual_mode is True


def test_sandbox_disabled_table_is_ignored(tmp_path: Path) -> None:
    settings = _settings(tmp_path, sandbox={"enabled": False, "provider": "no_such_module_xyz:make"})
    assert type(make_backend(settings)) is LocalShell  # the provider is never imported


@pytest.mark.parametrize("network", [False, True])
def test_sandbox_enabled_gives_bubblewrap(tmp_path: Path, network: bool) -> None:
    settings = _settings(tmp_path, timeout=33, sandbox={"enabled": True, "network": network})
    backend = make_backend(settings)
    assert isinstance(backend, BubblewrapSandbox)
    assert backend.network is network
    assert backend.root == str(tmp_path.resolve())
    assert backend._timeout == 33
    assert backend.execute("touch /etc/auger-backend-test").exit_code != 0
    backend.close()


def test_sandbox_wins_over_shell_off(tmp_path: Path) -> None:
    backend = make_backend(
        _settings(tmp_path, shell=False, sandbox={"enabled": True, "provider": "bubblewrap"})
    )
    assert isinstance(backend, BubblewrapSandbox)
    backend.close()


def test_sandbox_without_bwrap_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ConfigError, match=r"bubblewrap \(bwrap\) is not installed"):
        make_backend(_settings(tmp_path, sandbox={"enabled": True}))


def test_remote_provider_factory_gets_table_and_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "site"
    pkg.mkdir()
    (pkg / "fake_remote_sandbox.py").write_text(
        textwrap.dedent(
            """
            CALLS = []

            class Remote:
                def execute(self, command, *, timeout=None):
                    return command

            def make(table, root):
                CALLS.append((table, root))
                return Remote()
            """
        )
    )
    monkeypatch.syspath_prepend(str(pkg))
    table = {"enabled": True, "provider": "fake_remote_sandbox:make", "region": "eu"}
    backend = make_backend(_settings(tmp_path, sandbox=table))
    import fake_remote_sandbox  # type: ignore[import-not-found]

    assert type(backend).__name__ == "Remote"
    calls = fake_remote_sandbox.CALLS
    assert calls == [(table, tmp_path)]


def test_missing_provider_module_names_it_and_what_to_install(tmp_path: Path) -> None:
    settings = _settings(tmp_path, sandbox={"enabled": True, "provider": "langchain_nosuch_sbx.remote:make"})
    with pytest.raises(ConfigError) as err:
        make_backend(settings)
    message = str(err.value)
    assert "langchain_nosuch_sbx.remote" in message
    assert "pip install langchain-nosuch-sbx" in message


@pytest.mark.parametrize(
    ("provider", "needle"),
    [
        ("docker", "neither 'bubblewrap' nor 'module.path:factory'"),
        ("os:", "neither"),
        ("os:no_such_factory", "has no callable 'no_such_factory'"),
        ("os:sep", "has no callable 'sep'"),  # exists but is a string
    ],
)
def test_bad_provider_spec_is_a_config_error(tmp_path: Path, provider: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        make_backend(_settings(tmp_path, sandbox={"enabled": True, "provider": provider}))


def test_provider_returning_a_non_sandbox_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a sandbox backend"):
        make_backend(_settings(tmp_path, sandbox={"enabled": True, "provider": "builtins:slice"}))

"""The sandbox hides secrets by default (`auger.core.backends.sandbox_hide`), against a real `bwrap`.

The user's home lives under /var/tmp here, not /tmp: the sandbox's private /tmp would hide a
home under /tmp anyway, and these tests must see what the hiding itself does."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.core.backends.bwrap import check_bwrap
from auger.core.backends.factory import make_backend
from auger.core.backends.sandbox import BubblewrapSandbox
from auger.core.backends.sandbox_hide import DEFAULT_HIDE, BwrapHide
from auger.settings import load_settings

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- hunter2"


@pytest.fixture(scope="module", autouse=True)
def _bwrap_works() -> None:
    check_bwrap()  # fails loudly: these tests must never be skipped


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="auger-hide-", dir="/var/tmp")).resolve()
    monkeypatch.setenv("HOME", str(folder))
    for rel, text in [
        (".ssh/id_rsa", SECRET),
        (".ssh/known_hosts", "github.com ssh-ed25519 AAAA"),
        (".aws/credentials", "aws_secret_access_key = hunter2"),
        (".config/gh/hosts.yml", "oauth_token: gho_hunter2"),
        (".netrc", "machine x password hunter2"),
        (".auger/threads.db", "THREADS-DB-CONTENT"),
        (".auger/config.toml", 'model = "x"\n'),
        (".gitconfig", "[user]\nname = me\n"),
    ]:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def sandbox_for(project: Path, home: Path, config: str = "") -> BubblewrapSandbox:
    (home / ".auger" / "config.toml").write_text(f"[sandbox]\nenabled = true\n{config}")
    settings = load_settings(cwd=project, env={"HOME": str(home), "AUGER_HOME": str(home / ".auger")})
    box = make_backend(settings)
    assert isinstance(box, BubblewrapSandbox)
    return box


def run(box: BubblewrapSandbox, command: str) -> tuple[int, str]:
    out = box.execute(command)
    return out.exit_code, out.output


def test_credentials_and_auger_home_are_hidden_and_the_project_works(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    box = sandbox_for(project, home)
    for command in [
        "cat ~/.ssh/id_rsa",
        "cat ~/.aws/credentials",
        "cat ~/.config/gh/hosts.yml",
        "cat ~/.netrc",
        "cat ~/.auger/threads.db",
        "cat ~/.auger/config.toml",
    ]:
        code, output = run(box, command)
        assert code != 0 and "hunter2" not in output and "THREADS-DB" not in output, (command, output)
    assert run(box, "ls -A ~/.ssh ~/.auger") == (0, f"{home}/.auger:\n\n{home}/.ssh:\n")
    assert run(box, "echo x > ~/.ssh/planted")[0] != 0  # the empty folder is read-only too
    assert run(box, "cat ~/.gitconfig")[1] == "[user]\nname = me\n"  # not a secret
    assert run(box, "echo built > out.txt && cat out.txt && python3 -c 'print(2 + 3)'") == (0, "built\n5\n")
    assert (project / "out.txt").read_text() == "built\n"
    assert not (home / ".ssh" / "planted").exists()
    assert (home / ".ssh" / "id_rsa").read_text() == SECRET  # the host file is untouched
    box.close()


def test_expose_and_hide_are_configurable(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text("DB_PASSWORD=hunter2\n")
    (project / "main.py").write_text("print('ok')\n")
    box = sandbox_for(project, home, 'expose = ["~/.ssh/known_hosts", "~/.aws"]\nhide = [".env"]\n')
    assert run(box, "cat ~/.ssh/known_hosts") == (0, "github.com ssh-ed25519 AAAA")
    assert run(box, "cat ~/.ssh/id_rsa")[0] != 0
    assert run(box, "cat ~/.aws/credentials") == (0, "aws_secret_access_key = hunter2")
    code, output = run(box, "cat .env")
    assert code != 0 and "hunter2" not in output
    assert run(box, "python3 main.py && echo more >> main.py") == (0, "ok\n")
    assert box.read("/.env").error is not None  # the sandbox's file tools see the same
    assert "print('ok')" in (box.read("/main.py").file_data or {}).get("content", "")
    box.close()


def test_a_project_config_cannot_expose_secrets(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "cloned"
    (project / ".auger").mkdir(parents=True)
    (project / ".auger" / "config.toml").write_text('[sandbox]\nexpose = ["~/.ssh"]\n')
    (home / ".auger" / "config.toml").write_text("[sandbox]\nenabled = true\n")
    settings = load_settings(cwd=project, env={"HOME": str(home), "AUGER_HOME": str(home / ".auger")})
    assert settings.data["sandbox"]["expose"] == []
    assert any("sandbox.expose is ignored in a project's config" in w for w in settings.warnings)
    box = make_backend(settings)
    assert isinstance(box, BubblewrapSandbox)
    assert run(box, "cat ~/.ssh/id_rsa")[0] != 0
    box.close()


def test_project_in_the_home_folder_hides_what_lies_inside_it(home: Path) -> None:
    """Running auger in $HOME: the project bind covers ~/.ssh, the hiding goes over it."""
    box = sandbox_for(home, home)
    code, output = run(box, "cat .ssh/id_rsa; cat .auger/threads.db")
    assert code != 0 and "hunter2" not in output and "THREADS-DB" not in output
    assert run(box, "echo x > notes.txt && cat notes.txt") == (0, "x\n")
    assert (home / "notes.txt").read_text() == "x\n"
    box.close()


def test_project_inside_a_hidden_folder_stays_visible(home: Path) -> None:
    """Working on a skill in ~/.auger/skills: the project is visible and writable, the rest of
    AUGER_HOME is not."""
    project = home / ".auger" / "skills" / "mine"
    project.mkdir(parents=True)
    (project / "SKILL.md").write_text("---\nname: mine\n---\n")
    box = sandbox_for(project, home)
    assert run(box, "cat SKILL.md && echo more >> SKILL.md") == (0, "---\nname: mine\n---\n")
    assert run(box, "cat ~/.auger/threads.db")[0] != 0
    box.close()


def test_hide_arguments(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / ".secrets").mkdir(parents=True)
    (tmp_path / "token").write_text("t")
    hide = BwrapHide.build(
        [
            str(tmp_path),
            str(root / ".secrets"),
            str(tmp_path / "token"),
            str(tmp_path / "missing"),
            str(root),
        ],
        [],
        str(root),
        visible=[str(tmp_path)],
    )
    assert hide.before == ["--perms", "0555", "--tmpfs", str(tmp_path)]  # holds the project: first
    assert hide.after == [
        *("--perms", "0555", "--tmpfs", str(root / ".secrets")),
        *("--ro-bind", "/dev/null", str(tmp_path / "token")),
        *("--remount-ro", str(tmp_path), "--remount-ro", str(root / ".secrets")),
    ]
    assert "~/.ssh" in DEFAULT_HIDE and "~/.aws" in DEFAULT_HIDE and "~/.netrc" in DEFAULT_HIDE

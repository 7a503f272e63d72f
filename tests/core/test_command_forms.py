"""Rules match what a command does, not only how it is spelled (`auger.core.safety.command_forms` read
by `auger.core.safety.rules`): every spelling of a recursive forced rm is denied by
`execute(rm -rf *)`, a force push by `execute(git push --force *)`, and an allow rule allows its
own command in any spelling but never one with more options."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auger.core.safety.command_forms import Shape, shape
from auger.core.safety.permissions import PermissionEngine


def denied(rule: str, command: str, tmp_path: Path) -> bool:
    return PermissionEngine(deny=[rule], root=tmp_path).denial("execute", {"command": command}) is not None


def allowed(rule: str, command: str, tmp_path: Path) -> bool:
    verdict = PermissionEngine(allow=[rule], root=tmp_path).evaluate(
        "execute", {"command": command}, mode="manual", gated=True
    )
    return verdict.action == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "rm -fr build",
        "rm -r -f build",
        "rm -Rf build",
        "rm -R -f build",
        "rm --recursive --force build",
        "rm --force --recursive build",
        "rm -rfv build",
        "rm -v -r -f build",
        "rm build -rf",
        "rm -r build -f",
        "rm -rf --no-preserve-root /",
        "/bin/rm -rf build",
        "/usr/bin/rm -fr build",
        "command rm -rf build",
        "sudo rm -r -f build",
        "\\rm -rf build",
        "'rm' -rf build",
        "cd src && rm -fr ../build",
        "bash -c 'rm --recursive -f build'",
        "echo $(rm -Rf build)",
        "xargs rm -rf < list",
        "rm -rf -- -odd-name",
        "rm -rf",
        "eval rm -fr build",
        "eval 'rm -r -f build' && echo done",
    ],
)
def test_every_spelling_of_rm_rf_is_denied(command: str, tmp_path: Path) -> None:
    assert denied("execute(rm -rf *)", command, tmp_path), command


@pytest.mark.parametrize(
    "command",
    [
        "rm -r build",  # not forced
        "rm -f build",  # not recursive
        "rm build",
        "rm -i -r build",
        "rmdir build",
        "echo rm -rf build",
        "git rm -rf build",  # git's rm is another command
        "rm -- -rf",  # `-rf` is a file name after `--`
        'eval "$CMD"',  # what a variable holds is not known (docs/SAFETY.md: the sandbox covers it)
        "python3 -c 'import shutil; shutil.rmtree(\"build\")'",
    ],
)
def test_other_commands_are_not(command: str, tmp_path: Path) -> None:
    assert not denied("execute(rm -rf *)", command, tmp_path), command


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("execute(git push --force *)", "git push -f origin main", True),
        ("execute(git push --force *)", "git push origin main --force", True),
        ("execute(git push --force *)", "git push origin +main", True),
        ("execute(git push --force *)", "git -C repo push -fu origin main", True),
        ("execute(git push --force *)", "git -c core.x=y push --force", True),
        ("execute(git push -f:*)", "git push --force", True),
        ("execute(git push --force *)", "git push origin main", False),
        ("execute(git push --force *)", "git push --force-with-lease origin main", False),
        ("execute(git push --force-with-lease *)", "git push origin --force-with-lease", True),
        ("execute(git push --delete *)", "git push -d origin old", True),
        ("execute(git reset --hard *)", "git reset HEAD~3 --hard", True),
        ("execute(git reset --hard *)", "git -C sub reset -q --hard", True),
        ("execute(git reset --hard *)", "git reset --soft HEAD~1", False),
        ("execute(git clean -fdx *)", "git clean -xdf", True),
        ("execute(git clean -fdx *)", "git clean --force -d -x -e keep", True),
        ("execute(git clean -fdx *)", "git clean -fd", False),
        ("execute(git branch -D *)", "git branch --delete --force topic", True),
        ("execute(git branch -D *)", "git branch -df topic", True),
        ("execute(git branch -D *)", "git branch -d topic", False),
        ("execute(git checkout -f *)", "git checkout --force main", True),
        ("execute(chmod -R *)", "chmod --recursive 777 /", True),
        ("execute(chmod -R *)", "chmod -vR u+w src", True),
        ("execute(chmod -R *)", "chmod -w file", False),  # a mode, not an option
        ("execute(chown -R *)", "chown --recursive me: /", True),
        ("execute(rm -rf /)", "rm -fr /", True),
        ("execute(rm -rf /)", "rm -fr /tmp", False),  # the arguments still count
        ("execute(rm -rf /*)", "rm -fr /home", True),
    ],
)
def test_destructive_git_and_chmod_by_what_they_do(
    rule: str, command: str, expected: bool, tmp_path: Path
) -> None:
    assert denied(rule, command, tmp_path) is expected, (rule, command)


def test_allow_rules_take_any_spelling_but_no_more_options(tmp_path: Path) -> None:
    rule = "execute(rm -rf build)"
    for command in ["rm -fr build", "rm -r -f build", "rm --recursive --force build", "rm build -Rf"]:
        assert allowed(rule, command, tmp_path), command
    for command in [
        "rm -rfv build",
        "rm -rf build other",
        "/tmp/x/rm -rf build",
        "rm -rf --no-preserve-root build",
    ]:
        assert not allowed(rule, command, tmp_path), command
    # git's own options before the subcommand are never dropped for an allow (`-c` runs commands)
    assert allowed("execute(git push *)", "git push origin main", tmp_path)
    assert not allowed("execute(git push origin *)", "git push --force origin main", tmp_path)
    assert not allowed("execute(git push *)", "git -c core.sshCommand=evil push", tmp_path)


def test_shape_is_the_canonical_form() -> None:
    assert shape(["rm", "-fRv", "a", "--", "-b"]) == Shape(
        ("rm",), frozenset({"-f", "-r", "-v"}), ("a", "-b")
    )
    assert shape(["git", "-C", "d", "push", "-oci.skip", "origin", "+main"]) == Shape(
        ("git", "push"), frozenset({"-o ci.skip", "-f"}), ("origin", "main"), ("-C d",)
    )
    assert shape(["git", "push", "--push-option=x", "--push-option", "y"]) == Shape(
        ("git", "push"), frozenset({"-o x", "-o y"}), ()
    )
    assert shape(["rm", "-rf", "x"]) == shape(["rm", "--force", "x", "--recursive"])
    assert shape(["git", "status"]) is None and shape(["ls", "-la"]) is None and shape([]) is None


_recursive = st.sampled_from(["-r", "-R", "--recursive"])
_force = st.sampled_from(["-f", "--force"])
_other = st.lists(st.sampled_from(["-v", "--verbose", "-d", "--dir", "--one-file-system"]), max_size=2)
_lead = st.sampled_from(["", "/bin/", "/usr/bin/"])
_wrapper = st.sampled_from(["", "command ", "sudo ", "env A=1 ", "timeout 5 ", "nice -n 5 "])


@st.composite
def rm_commands(draw: st.DrawFn) -> tuple[str, bool]:
    """An rm with -r in some spelling, maybe -f, other options, shuffled (options may follow
    the argument), short ones maybe merged into one cluster, behind a path or a wrapper."""
    forced = draw(st.booleans())
    flags = [draw(_recursive), *([draw(_force)] if forced else []), *draw(_other)]
    flags = draw(st.permutations(flags))
    shorts = [f for f in flags if len(f) == 2]
    if draw(st.booleans()) and len(shorts) > 1:  # -r -f -> -rf (in the drawn order)
        flags = ["-" + "".join(f[1] for f in shorts), *(f for f in flags if len(f) != 2)]
    words = draw(st.permutations([*flags, "target"]))
    return f"{draw(_wrapper)}{draw(_lead)}rm {' '.join(words)}", forced


@settings(max_examples=300, deadline=None)
@given(rm_commands())
def test_any_recursive_forced_rm_is_denied_and_only_that(case: tuple[str, bool]) -> None:
    command, forced = case
    engine = PermissionEngine(deny=["execute(rm -rf *)"], root="/tmp/auger-prop-root")
    assert (engine.denial("execute", {"command": command}) is not None) is forced, command

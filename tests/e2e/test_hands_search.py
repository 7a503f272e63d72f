"""grep, glob and ls as the model meets them (issue 36, point 4): grep takes a regex, skips what the
project ignores (.git, .venv, node_modules, a .gitignore'd build folder) and binary files, shows
context lines and filters by file type; every listing is capped with a "N more" note that says to
narrow it; a missing path is an error naming it. On the host and in the bubblewrap sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import AugerEnv

WHERE = pytest.mark.parametrize("where", ["local", "sandbox"])


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def tool_messages(env: AugerEnv, *calls: dict[str, Any], where: str) -> list[str]:
    """What the model was told after making `calls`, one after another."""
    env.llm.add(*calls, {"text": "done"})
    proc = env.run("-n", "search", "--mode", "yolo", *(["--sandbox"] if where == "sandbox" else []))
    assert proc.returncode == 0, proc.stderr
    return [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


def make_repo(env: AugerEnv) -> None:
    root = env.project
    for folder in ("src", ".git", ".venv/lib", "node_modules/pkg", "build"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("build/\n")
    (root / "src/app.py").write_text("import os\n\ndef alpha(x):\n    return x\n\ndef beta():\n    pass\n")
    (root / "src/app.js").write_text("function alpha(x) { return x }\n")
    for noise in (".git/config", ".venv/lib/site.py", "node_modules/pkg/index.js", "build/out.py"):
        (root / noise).write_text("def alpha(x): noise\n")
    (root / "src/blob.bin").write_bytes(b"def alpha(x)\0\x01\x02" * 100)


@WHERE
def test_grep_takes_a_regex_and_skips_what_the_project_ignores(auger_env: AugerEnv, where: str) -> None:
    make_repo(auger_env)
    found, either, with_context, typed, bad, no_type = tool_messages(
        auger_env,
        call("grep", pattern=r"def \w+\(", output_mode="content"),
        call("grep", pattern="alpha|beta"),
        call("grep", pattern=r"^def beta", output_mode="content", context=1),
        call("grep", pattern="alpha", type="js", output_mode="content"),
        call("grep", pattern="alpha("),
        call("grep", pattern="alpha", type="python3"),
        where=where,
    )
    assert found.splitlines() == ["/src/app.py:", "  3: def alpha(x):", "  6: def beta():"], found
    assert either.splitlines() == ["/src/app.js", "/src/app.py"], either
    assert with_context.splitlines() == ["/src/app.py:", "  5- ", "  6: def beta():", "  7-     pass"], (
        with_context
    )
    assert typed.splitlines() == ["/src/app.js:", "  1: function alpha(x) { return x }"], typed
    assert "'alpha(' is not a valid regex" in bad and "unclosed group" in bad, bad
    assert "unrecognized file type: python3" in no_type and "a glob: `*.ext`" in no_type, no_type


@WHERE
def test_a_missing_path_is_an_error_naming_it(auger_env: AugerEnv, where: str) -> None:
    messages = tool_messages(
        auger_env,
        call("grep", pattern="x", path="/no/such"),
        call("glob", pattern="*.py", path="/no/such"),
        call("ls", path="/no/such"),
        where=where,
    )
    for message in messages:
        assert message.startswith("Error") and "/no/such" in message, message
        assert "No matches found" not in message and "No files found" not in message


@WHERE
def test_listings_and_matches_over_three_thousand_files_are_capped(auger_env: AugerEnv, where: str) -> None:
    many = auger_env.project / "many"
    many.mkdir()
    for i in range(3000):
        (many / f"file_{i:04}.txt").write_text(f"needle {i}\n")
    listed, globbed, files, content = tool_messages(
        auger_env,
        call("ls", path="/many"),
        call("glob", pattern="*.txt"),
        call("grep", pattern="needle"),
        call("grep", pattern="needle", output_mode="content"),
        where=where,
    )
    for message in (listed, globbed):
        assert len(message.encode()) < 30_000, len(message.encode())
        assert "… 2500 more not shown;" in message, message[-400:]
    assert "narrow the pattern or the path" in globbed and "list a subfolder" in listed
    for message in (files, content):
        assert len(message.encode()) < 25_000, len(message.encode())
        assert message.count("file_") <= 300
        assert "more matches not listed" in message and "narrow the pattern, path, glob or type" in message
    assert "2000 more matches not listed" in files and "700 more lines not shown" in files, files[-300:]


@pytest.mark.parametrize("kind", ["general-purpose", "explorer"])
def test_a_subagents_grep_takes_the_same_arguments(auger_env: AugerEnv, kind: str) -> None:
    make_repo(auger_env)
    task = {"name": "task", "args": {"description": "find alpha", "subagent_type": kind}}
    grep = call("grep", pattern=r"alpha\(", type="js", context=1, output_mode="content")
    auger_env.llm.add({"tool_calls": [task]}, grep, {"text": "in app.js"}, {"text": "done"})
    proc = auger_env.run("-n", "search", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    sub = auger_env.llm.requests[2]  # the subagent's second model call: its grep answered
    schema = next(t["function"]["parameters"] for t in sub["tools"] if t["function"]["name"] == "grep")
    assert {"type", "context"} <= set(schema["properties"]), schema
    [answer] = [str(m["content"]) for m in sub["messages"] if m["role"] == "tool"]
    assert answer.splitlines() == ["/src/app.js:", "  1: function alpha(x) { return x }"], answer

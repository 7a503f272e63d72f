"""Hooks with real shell scripts: what they read on stdin, blocking, modifying, context,
crashes and timeouts as notices, and project hooks that wait for trust."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from auger.core.hooks.config import HookCommand, load_hooks, parse_hooks, trust_project_hooks
from auger.core.hooks.runner import HookRunner
from auger.settings import load_settings


def script(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


def runner(tmp_path: Path, *hooks: HookCommand) -> HookRunner:
    return HookRunner(hooks, project_root=tmp_path, cwd=tmp_path)


async def test_stdin_json_and_environment(tmp_path: Path) -> None:
    out = tmp_path / "seen.json"
    cmd = script(tmp_path, "dump.sh", f'cat > {out}\necho "$AUGER_PROJECT_DIR" > {out}.dir\n')
    r = runner(tmp_path, HookCommand("PreToolUse", cmd, "execute"))
    result = await r.run(
        "PreToolUse",
        {"session_id": "t1", "tool_name": "execute", "tool_input": {"command": "ls"}},
        ["execute"],
    )
    assert result.ran == 1 and not result.blocked
    seen = json.loads(out.read_text())
    assert seen["hook_event_name"] == "PreToolUse" and seen["session_id"] == "t1"
    assert seen["tool_input"] == {"command": "ls"} and seen["cwd"] == str(tmp_path)
    assert Path(f"{out}.dir").read_text().strip() == str(tmp_path)


async def test_matchers_are_full_regexes_on_tool_names(tmp_path: Path) -> None:
    r = runner(
        tmp_path,
        HookCommand("PreToolUse", "exit 2", "write_file|edit_file"),
        HookCommand("PreToolUse", "true", "*"),
    )
    assert len(r.matching("PreToolUse", ["edit_file"])) == 2
    assert len(r.matching("PreToolUse", ["write_files"])) == 1
    assert len(r.matching("PreToolUse", ["execute"])) == 1


async def test_matchers_written_for_any_mcp_tool_name_match(tmp_path: Path) -> None:
    """An MCP tool is `mcp__time__get_time`; matchers naming it `time:get_time`, or as auger
    named it before (`get_time`, `time__get_time`), still match it."""
    from langchain_core.tools import StructuredTool

    from auger.core.middleware.tools.hooks import tool_subjects

    def get_time() -> str:
        """The time."""
        return "noon"

    tool = StructuredTool.from_function(
        get_time, name="mcp__time__get_time", metadata={"mcp_server": "time", "mcp_tool": "get_time"}
    )
    subjects = tool_subjects(tool.name, tool)
    for matcher in ("mcp__time__.*", "time:get_time", "get_time", "time__get_time"):
        assert runner(tmp_path, HookCommand("PreToolUse", "true", matcher)).matching("PreToolUse", subjects)
    assert not runner(tmp_path, HookCommand("PreToolUse", "true", "get_date")).matching(
        "PreToolUse", subjects
    )


async def test_exit_2_blocks_with_stderr_and_json_block(tmp_path: Path) -> None:
    block = script(tmp_path, "block.sh", 'echo "no rm -rf here" >&2\nexit 2\n')
    r = runner(tmp_path, HookCommand("PreToolUse", block))
    result = await r.run("PreToolUse", {})
    assert result.blocked and result.reason == "no rm -rf here"
    r = runner(
        tmp_path, HookCommand("PreToolUse", """echo '{"decision": "block", "reason": "policy says no"}'""")
    )
    result = await r.run("PreToolUse", {})
    assert result.blocked and result.reason == "policy says no"
    specific = {"permissionDecision": "deny", "permissionDecisionReason": "nope"}
    deny = json.dumps({"hookSpecificOutput": specific})
    r = runner(tmp_path, HookCommand("PreToolUse", f"echo '{deny}'"))
    result = await r.run("PreToolUse", {})
    assert result.blocked and result.reason == "nope" and result.permission == "deny"


async def test_updated_input_and_additional_context(tmp_path: Path) -> None:
    rewrite = script(
        tmp_path,
        "rewrite.sh",
        """\
        python3 -c '
        import json, sys
        data = json.load(sys.stdin)
        cmd = data["tool_input"]["command"]
        print(json.dumps({"hookSpecificOutput": {"updatedInput": {"command": cmd + " --dry-run"}},
                          "additionalContext": "dry run forced"}))
        '
        """,
    )
    r = runner(tmp_path, HookCommand("PreToolUse", rewrite))
    result = r.run_sync("PreToolUse", {"tool_input": {"command": "make"}})
    assert result.updated_input == {"command": "make --dry-run"}
    assert result.context == ["dry run forced"]
    plain = runner(tmp_path, HookCommand("UserPromptSubmit", "echo 'branch: main'"))
    assert (await plain.run("UserPromptSubmit", {"prompt": "hi"})).context == ["branch: main"]


async def test_crash_timeout_and_missing_program_are_notices(tmp_path: Path) -> None:
    r = runner(
        tmp_path,
        HookCommand("Stop", "echo boom >&2; exit 3"),
        HookCommand("Stop", "sleep 30", timeout=0.5),
        HookCommand("Stop", "/nonexistent/hook"),
        HookCommand("Stop", "echo '{not json'"),
    )
    result = await r.run("Stop", {})
    assert not result.blocked and result.ran == 4
    text = "\n".join(m for m, _ in result.notices)
    assert "failed (exit 3): boom" in text
    assert "timed out after 0.5 s" in text
    assert "exit 127" in text
    assert "invalid JSON" in text
    assert all(level == "warning" for _, level in result.notices)


def test_parse_problems_are_reported() -> None:
    hooks, problems = parse_hooks(
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "x", "hooks": [{"type": "prompt", "prompt": "?"}, {"command": "true"}]}
                ],
                "Nope": [],
            }
        },
        "test",
    )
    assert [h.command for h in hooks] == ["true"]
    assert any("Nope" in p for p in problems) and any("prompt" in p for p in problems)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-5", "0", '"30"'])
def test_a_hook_timeout_that_is_no_finite_positive_number_is_the_default(text: str) -> None:
    hook_json = '{"command": "true", "timeout": ' + text + "}"
    data = json.loads('{"hooks": {"Stop": [{"hooks": [' + hook_json + "]}]}}")
    [hook], _ = parse_hooks(data, "test")
    assert hook.timeout == 60.0


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    home, root = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    (root / ".git").mkdir(parents=True)
    (root / ".auger").mkdir()
    return home, root, {"AUGER_HOME": str(home)}


def test_project_hooks_wait_for_trust(project: tuple[Path, Path, dict[str, str]]) -> None:
    home, root, env = project
    (home / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "user"}]}]}})
    )
    (root / ".auger" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "project"}]}]}})
    )
    (root / ".auger" / "config.toml").write_text(
        '[[hooks.Stop]]\nhooks = [{ type = "command", command = "toml" }]\n'
    )
    settings = load_settings(cwd=root, env=env)
    hooks, notices = load_hooks(settings)
    assert [h.command for h in hooks] == ["user"]
    assert any("not run" in n and "--trust-project" in n for n in notices)
    hooks, _ = load_hooks(settings, trust_project=True)
    assert [h.command for h in hooks] == ["user", "project", "toml"]
    trust_project_hooks(settings)
    hooks, notices = load_hooks(settings)
    assert [h.command for h in hooks] == ["user", "project", "toml"] and notices == []
    (root / ".auger" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "changed"}]}]}})
    )
    hooks, notices = load_hooks(settings)
    assert [h.command for h in hooks] == ["user", "changed", "toml"]  # trust is per project path


def test_bad_hooks_file_is_a_notice_not_a_crash(project: tuple[Path, Path, dict[str, str]]) -> None:
    home, root, env = project
    (home / "hooks.json").write_text("{oops")
    hooks, notices = load_hooks(load_settings(cwd=root, env=env))
    assert hooks == [] and any("invalid JSON" in n for n in notices)


async def test_pre_compact_model_runs_the_hooks_of_the_run_then_asks_its_model(tmp_path: Path) -> None:
    """The summariser auger gives deepagents' summarization (its public `summarizer` slot):
    PreCompact hooks from the run context of the graph step, then the wrapped model's answer."""
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    from auger.core.agent.context import AugerContext
    from auger.core.middleware.model.pre_compact import PreCompactModel, summarization
    from scripted_model import ScriptedChatModel

    marker = tmp_path / "precompact.json"
    hooks = runner(tmp_path, HookCommand("PreCompact", f"cat > {marker}", "auto"))
    model = PreCompactModel(inner=ScriptedChatModel(script=["the summary"]))

    class State(TypedDict):
        out: str

    async def node(state: State) -> dict[str, str]:
        return {"out": str((await model.ainvoke("summarise this")).content)}

    graph = StateGraph(State, context_schema=AugerContext)
    graph.add_node("n", node)
    graph.add_edge(START, "n")
    graph.add_edge("n", END)
    result = await graph.compile().ainvoke({"out": ""}, context=AugerContext(thread_id="t9", hooks=hooks))
    assert result["out"] == "the summary"
    seen = json.loads(marker.read_text())
    assert (
        seen["hook_event_name"] == "PreCompact" and seen["trigger"] == "auto" and seen["session_id"] == "t9"
    )
    assert (
        await model.ainvoke("outside a run")
    ).content == "(script exhausted)"  # no run: no hooks, no error
    assert (
        summarization(ScriptedChatModel(script=[]), None).name == "SummarizationMiddleware"
    )  # the SDK's slot


async def test_middleware_runs_the_same_hooks_in_sync_and_async_graphs(tmp_path: Path) -> None:
    """HooksMiddleware's sync and async hooks are one sequence: a `task` call gets SubagentStart,
    PreToolUse, PostToolUse (its context appended to the result) and SubagentStop; a blocked call
    is not run; a model reply's tool call takes a PreToolUse hook's `updatedInput`."""
    from types import SimpleNamespace

    from langchain_core.messages import AIMessage, ToolMessage
    from langgraph.prebuilt.tool_node import ToolCallRequest

    from auger.core.agent.context import AugerContext
    from auger.core.middleware.tools.hooks import HooksMiddleware

    log = tmp_path / "log"
    updated = json.dumps({"hookSpecificOutput": {"updatedInput": {"content": "hooked"}}})
    ctx = AugerContext(
        hooks=runner(
            tmp_path,
            *(HookCommand(e, f"echo {e} >> {log}") for e in ("SubagentStart", "PreToolUse", "SubagentStop")),
            HookCommand("PostToolUse", """echo '{"additionalContext": "checked"}'"""),
            HookCommand("PreToolUse", "echo no >&2; exit 2", "execute"),
            HookCommand("PreToolUse", f"echo '{updated}'", "write_file"),
        )
    )
    runtime = SimpleNamespace(context=ctx, stream_writer=None)
    args = {"subagent_type": "general-purpose", "description": "d", "command": "ls"}
    ran: list[str] = []

    def tool(request: ToolCallRequest) -> ToolMessage:
        ran.append(request.tool_call["name"])
        return ToolMessage("done", tool_call_id=request.tool_call["id"], name=request.tool_call["name"])

    async def atool(request: ToolCallRequest) -> ToolMessage:
        return tool(request)

    def calls(name: str) -> ToolCallRequest:
        return ToolCallRequest({"name": name, "args": args, "id": name}, None, {}, runtime)  # type: ignore[arg-type]

    reply = AIMessage("", tool_calls=[{"name": "write_file", "args": {"content": "mine"}, "id": "w1"}])
    model_call = SimpleNamespace(tools=[], state={}, runtime=runtime)
    middleware = HooksMiddleware()
    sync = [middleware.wrap_tool_call(calls(n), tool) for n in ("task", "execute")]
    sync_reply = middleware.wrap_model_call(model_call, lambda _: reply)
    sync_log, _ = log.read_text(), log.unlink()
    ctx.pre_tool.clear()
    done = [await middleware.awrap_tool_call(calls(n), atool) for n in ("task", "execute")]

    async def model(_: object) -> AIMessage:
        return reply

    async_reply = await middleware.awrap_model_call(model_call, model)
    for results, log_text, new_reply in ((sync, sync_log, sync_reply), (done, log.read_text(), async_reply)):
        assert log_text.split() == ["SubagentStart", "PreToolUse", "SubagentStop", "PreToolUse", "PreToolUse"]
        assert [m.content for m in results] == [
            "done\n\nchecked",
            "Blocked by a PreToolUse hook, the tool was not run: no",
        ]
        assert new_reply.tool_calls[0]["args"] == {"content": "hooked"} and "w1" in ctx.pre_tool
    assert ran == ["task", "task"]

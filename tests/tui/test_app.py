"""The app as a whole: first run without a model, resume, pruning, and the import budget."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest_tui import Tui, ready, replies, tui, turn, wait_for  # noqa: F401

from auger.tui.screens.first_run import FirstRunScreen
from auger.tui.widgets.messages import AssistantMessage, Notice, UserMessage
from auger.tui.widgets.tool_row import ToolRow
from auger.tui.widgets.transcript import PrunedNote

HEAVY = ("langchain", "langchain_core", "langgraph", "deepagents", "openai", "anthropic")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_tui_modules_import_no_agent_stack() -> None:
    code = (
        "import auger.tui, auger.tui.app, auger.tui.turn, auger.tui.prompt.inputs, auger.tui.replay\n"
        "from auger.tui import make_app\nfrom auger.tui.commands import load_commands\nload_commands()\n"
        "import auger.tui.screens.model_picker, auger.tui.screens.thread_picker, auger.cli.frontends"
    )
    heavy = {m for m in _modules_after(code) if m.split(".")[0] in HEAVY}
    assert heavy == set()


async def test_first_run_without_a_model_explains_and_saves_one(tui: Tui) -> None:
    (tui.env.home / "config.toml").write_text("")
    tui.llm.add({"text": "connected"})
    app = tui.app()
    async with app.run_test(size=(100, 50)) as pilot:
        assert isinstance(app.screen, FirstRunScreen)
        guide = app.screen.query_one("Markdown").source  # type: ignore[attr-defined]
        for hint in ("ANTHROPIC_API_KEY", "auger config set model", "OpenAI-compatible local server"):
            assert hint in guide
        assert app.session is None and not tui.llm.requests
        await pilot.press(*"nowhere:model", "enter")
        assert "Unknown provider" in str(app.screen.query_one("#first-run-error").render())
        app.screen.query_one("#spec").value = ""  # type: ignore[attr-defined]
        await pilot.press(*"local:scripted-model", "tab", *tui.llm.base_url, "enter")
        await ready(pilot)
        assert not isinstance(app.screen, FirstRunScreen)
        assert app.status.model == "local:scripted-model"
        await turn(pilot, "hello")
        assert replies(app) == ["connected"]
    saved = (tui.env.home / "config.toml").read_text()
    assert 'model = "local:scripted-model"' in saved and tui.llm.base_url in saved


async def test_first_run_ctrl_q_quits_without_saving(tui: Tui) -> None:
    (tui.env.home / "config.toml").write_text("")
    app = tui.app()
    async with app.run_test(size=(100, 50)) as pilot:
        assert isinstance(app.screen, FirstRunScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.return_code == 0 and app.session is None
    assert (tui.env.home / "config.toml").read_text() == ""


async def test_first_run_enter_rereads_a_model_configured_from_another_shell(tui: Tui) -> None:
    config = tui.env.home / "config.toml"
    configured = config.read_text()  # the scripted server as model and provider
    config.write_text("")
    tui.llm.add({"text": "found it"})
    app = tui.app()
    async with app.run_test(size=(100, 50)) as pilot:
        assert isinstance(app.screen, FirstRunScreen)
        await pilot.press("enter")
        assert "Still no model configured" in str(app.screen.query_one("#first-run-error").render())
        config.write_text(configured)  # `auger config set model ...` in another terminal
        await pilot.press("enter")
        await ready(pilot)
        assert not isinstance(app.screen, FirstRunScreen)
        await turn(pilot, "hello")
        assert replies(app) == ["found it"]


def _headless(tui: Tui, *args: str) -> str:
    proc = tui.env.run(*args, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["thread_id"])


async def test_r_without_an_id_resumes_the_thread_last_used_here(tui: Tui) -> None:
    tui.llm.add({"text": "older"}, {"text": "newer"}, {"text": "back in the older one"})
    older = _headless(tui, "-n", "first thread")
    newer = _headless(tui, "-n", "second thread")
    app = tui.app(thread_id=older)  # opened and quit without a turn: it was used last
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        assert app.session.thread_id == older  # type: ignore[union-attr]
    assert newer != older
    assert _headless(tui, "-r", "-n", "again") == older
    assert "first thread" in str(tui.llm.requests[-1]["messages"])


async def test_resume_shows_the_saved_conversation(tui: Tui) -> None:
    tui.llm.add(
        {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
        {"text": "Listed the **files**."},
        {"text": "second session"},
    )
    first = tui.app(mode="yolo")
    async with first.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "list files")
        thread = first.session.thread_id  # type: ignore[union-attr]
    resumed = tui.app(thread_id=thread)
    async with resumed.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await resumed.workers.wait_for_complete()
        assert resumed.session.thread_id == thread  # type: ignore[union-attr]
        assert [m.text for m in resumed.transcript.query(UserMessage)] == ["list files"]
        assert [r.tool_name for r in resumed.transcript.query(ToolRow)] == ["ls"]
        assert resumed.transcript.query_one(ToolRow).status == "success"
        assert replies(resumed) == ["Listed the **files**."]
        assert resumed.facts.last_reply == "Listed the **files**."
        shown = [str(n.render()) for n in resumed.transcript.query(Notice)]
        assert shown == [f"Resumed thread {thread[:8]}: 1 turn so far."]  # one notice, "1 turn"
        await turn(pilot, "again")
        assert "list files" in str(tui.llm.requests[-1]["messages"])
    assert resumed.resume_hint() == f"auger -r {thread}"


async def test_old_blocks_are_pruned_past_the_budget(tui: Tui) -> None:
    (tui.env.home / "config.toml").write_text(
        (tui.env.home / "config.toml").read_text() + "\n[tui]\nprune_after = 12\n"
    )
    for i in range(15):
        tui.llm.add({"text": f"answer {i}"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        for i in range(15):
            await turn(pilot, f"question {i}")
        blocks = app.transcript.blocks()
        assert len(blocks) <= 12
        assert app.transcript.query(PrunedNote)
        assert replies(app)[-1] == "answer 14"
        assert app.transcript.query(AssistantMessage).last().text == "answer 14"
        history = await app.session.history()  # type: ignore[union-attr]
        assert len([e for e in history if e.type == "turn_started"]) == 15  # the thread keeps everything
        await wait_for(pilot, lambda: not app.busy)


async def test_a_status_refresh_that_lands_after_the_app_closed_does_nothing(tui: Tui) -> None:
    """A refresh queued while the app ran (an MCP server still connecting re-reads the catalogue
    every second) can fire as the app closes, with no screen left: it must not raise."""
    tui.llm.add({"text": "hello"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "hi")
    app.refresh_status()
    await app.refresh_thread()

"""Pilot tests for the slash commands, each through the real Session and scripted server."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest_tui import Tui, ready, replies, send_nowait, submit, tui, turn, wait_for, write_skill  # noqa: F401
from textual.widgets import Input

from auger.tui.commands import REGISTRY, load_commands
from auger.tui.screens.model_picker import ModelPicker
from auger.tui.screens.thread_picker import ThreadPicker
from auger.tui.widgets.messages import InfoBlock, Notice, UserMessage


def notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.render()) for n in app.transcript.query(Notice)]


def info(app) -> str:  # type: ignore[no-untyped-def]
    return app.transcript.query(InfoBlock).last().source


def shown(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The last info block as it is on screen, line by line."""
    return app.transcript.query(InfoBlock).last().plain_lines


async def test_help_lists_every_registered_command(tui: Tui) -> None:
    load_commands()
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/help")
        lines = shown(app)
        assert lines[0].split() == ["Command", "│", "What", "it", "does"]  # a header row
        for cmd in REGISTRY.all():  # one row each, `|` in `/mode [manual|auto-edit|yolo|plan]` included
            row = next(line for line in lines if line.startswith(cmd.usage + " "))
            assert "│ " + cmd.help[:20] in row
        text = "\n".join(lines)
        assert "/clear" in text and "Shift+Enter" in text and "Key" in text
        expected = {"help", "model", "threads", "new", "rename", "fork", "skills", "agents", "memory"}
        expected |= {"tools", "mcp", "tokens", "compact", "mode", "export", "copy", "quit", "editor"}
        assert expected <= {c.name for c in REGISTRY.all()}


async def test_unknown_command_suggests_the_nearest(tui: Tui) -> None:
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/modle gpt")
        assert notices(app)[-1] == "Unknown command /modle. Did you mean /model?"
        assert not tui.llm.requests  # nothing was sent to the model


async def test_model_switch_applies_to_the_next_turn_of_the_same_thread(tui: Tui) -> None:
    tui.llm.add({"text": "from the first model"}, {"text": "from the other model"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "one")
        thread = app.session.thread_id  # type: ignore[union-attr]
        await turn(pilot, "/model local:other-model")
        assert app.status.model == "local:other-model"
        await turn(pilot, "two")
        assert [r["model"] for r in tui.llm.requests] == ["scripted-model", "other-model"]
        assert app.session.thread_id == thread  # type: ignore[union-attr]
        assert "one" in str(tui.llm.requests[-1]["messages"])  # same conversation
        assert replies(app) == ["from the first model", "from the other model"]


async def test_model_picker_filters_and_switches(tui: Tui) -> None:
    tui.llm.add({"text": "picked"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/model")
        assert isinstance(app.screen, ModelPicker)
        assert app.screen.values[:2] == ["local:scripted-model", "local:other-model"]
        await pilot.press(*"other")
        assert app.screen.values == ["local:other-model"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.status.model == "local:other-model")
        assert not isinstance(app.screen, ModelPicker)
        await turn(pilot, "go")
        assert tui.llm.requests[-1]["model"] == "other-model"


async def test_unknown_provider_is_refused_with_a_hint(tui: Tui) -> None:
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/model nowhere:thing")
        assert "Unknown provider 'nowhere'" in notices(app)[-1]
        assert app.status.model == "local:scripted-model"


async def test_mode_command_and_shift_tab_cycle(tui: Tui) -> None:
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/mode yolo")
        assert app.settings.mode == "yolo" and app.status.mode == "yolo"
        await pilot.press("shift+tab")  # manual -> auto-edit -> yolo -> plan -> manual
        assert app.settings.mode == "plan" and app.status.mode == "plan"
        await pilot.press("shift+tab")
        assert app.settings.mode == "manual"
        await pilot.press("shift+tab")
        assert app.status.mode == "auto-edit"


async def test_mode_without_an_argument_shows_the_mode_and_changes_nothing(tui: Tui) -> None:
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/mode")
        assert app.settings.mode == "manual" and app.status.mode == "manual"
        assert notices(app)[-1].startswith("Approval mode: manual (ask before")
        assert "/mode auto-edit" in notices(app)[-1]


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
async def test_threads_picker_resumes_a_thread(
    tui: Tui, database: str, request: pytest.FixtureRequest
) -> None:
    if database == "postgres":  # database_url: the TUI works unchanged on PostgreSQL
        tui.env.env["AUGER_DATABASE_URL"] = request.getfixturevalue("pg_url")
    tui.llm.add({"text": "about apples"}, {"text": "about pears"}, {"text": "back to apples"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "tell me about apples")
        first = app.session.thread_id  # type: ignore[union-attr]
        await turn(pilot, "/new")
        assert not app.transcript.query(UserMessage)
        await turn(pilot, "tell me about pears")
        second = app.session.thread_id  # type: ignore[union-attr]
        assert second != first
        await turn(pilot, "/threads")
        picker = app.screen
        assert isinstance(picker, ThreadPicker)
        assert picker.values == [second, first] and picker.selected == second
        await pilot.press(*"apples")
        assert picker.values == [first]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.thread_id == first)  # type: ignore[union-attr]
        await app.workers.wait_for_complete()
        assert [m.text for m in app.transcript.query(UserMessage)] == ["tell me about apples"]
        assert replies(app) == ["about apples"]
        assert notices(app) == [f"Resumed thread {first[:8]}: 1 turn so far."]  # one notice, not two
        await turn(pilot, "and more?")
        sent = str(tui.llm.requests[-1]["messages"])
        assert "tell me about apples" in sent and "pears" not in sent
    assert (tui.env.home / "threads.db").exists() == (database == "sqlite")


async def test_thread_picker_renames_and_deletes(tui: Tui) -> None:
    tui.llm.add({"text": "a"}, {"text": "b"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "old thread")
        old = app.session.thread_id  # type: ignore[union-attr]
        await turn(pilot, "/new")
        await turn(pilot, "current thread")
        await turn(pilot, "/threads")
        picker = app.screen
        assert isinstance(picker, ThreadPicker)
        await pilot.press("down")
        assert picker.selected == old
        await pilot.press("ctrl+e", "escape")  # Esc ends the renaming, not the picker
        box = picker.query_one("#picker-rename", Input)
        assert app.screen is picker and not box.has_focus and not picker.has_class("-renaming")
        await pilot.press("ctrl+e")
        assert box.has_focus and box.value == "old thread"
        box.value = ""
        await pilot.press(*"renamed one", "enter")
        assert app.session is not None

        async def titles() -> dict[str, str]:
            return {t.id: t.title for t in await app.session.list_threads()}  # type: ignore[union-attr]

        assert (await titles())[old] == "renamed one"
        picker.option_list.highlighted = picker.values.index(old)
        await pilot.press("ctrl+d")
        assert old in await titles()  # the first press only asks
        await pilot.press("ctrl+d")
        assert old not in await titles() and old not in picker.values
        await pilot.press("escape")
        assert not isinstance(app.screen, ThreadPicker)


async def test_rename_and_fork(tui: Tui) -> None:
    tui.llm.add({"text": "original answer"}, {"text": "in the fork"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "start here")
        original = app.session.thread_id  # type: ignore[union-attr]
        await turn(pilot, "/rename  My   work ")
        assert app.status.title == "My work"
        await turn(pilot, "/fork")
        fork = app.session.thread_id  # type: ignore[union-attr]
        assert fork != original
        info = await app.session.thread_info()  # type: ignore[union-attr]
        assert info is not None and info.parent_id == original
        assert replies(app) == ["original answer"]  # the fork carries the conversation
        said = f"Forked thread {original[:8]} into {fork[:8]}; you are now in the fork: 1 turn so far."
        assert notices(app)[-1] == said and not any(n.startswith("Resumed") for n in notices(app))
        await turn(pilot, "continue")
        assert "start here" in str(tui.llm.requests[-1]["messages"])


async def test_skill_is_completed_and_invoked(tui: Tui) -> None:
    write_skill(tui.env.project, "greet", "Greet someone warmly", "Say hello warmly to the person named.")
    tui.llm.add({"text": "Hello, Bob!"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        app.prompt.focus()
        await pilot.press("/", "g", "r")
        menu = app.prompt.menu
        assert menu.is_open and menu.current is not None
        assert [c.value for c in menu.current.items] == ["/greet "]
        await pilot.press("tab")
        assert app.prompt.text == "/greet "
        await pilot.press(*"Bob")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        assert "Say hello warmly to the person named." in tui.last_user_text()
        assert "Bob" in tui.last_user_text()
        assert [m.text for m in app.transcript.query(UserMessage)] == ["/greet Bob"]
        await turn(pilot, "/skills")
        assert "`/greet`" in info(app) and "Greet someone warmly" in info(app)


LONG_SKILL = (
    "Review the staged changes for bugs, missing tests and unclear names, then write a short report "
    "grouped by file with the most important finding first and a suggested fix for each one"
)


async def test_skill_descriptions_use_the_width_available(tui: Tui) -> None:
    write_skill(tui.env.project, "review", LONG_SKILL, "Review the diff.")
    app = tui.app()
    async with app.run_test(size=(240, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/skills")
        row = next(line for line in shown(app) if "/review" in line)
        assert LONG_SKILL in row  # whole, on one line: the terminal is wide enough
        await turn(pilot, "/help")
        assert any(LONG_SKILL in line for line in shown(app))
    narrow = tui.app()
    async with narrow.run_test(size=(80, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/skills")
        words = " ".join(shown(narrow)).split()
        assert "…" not in words and set(LONG_SKILL.split()) <= set(words)  # wrapped, not cut


async def test_info_commands(tui: Tui) -> None:
    (tui.env.project / "AGENTS.md").write_text("Use tabs.\n")
    app = tui.app()
    async with app.run_test(size=(100, 50)) as pilot:
        await ready(pilot)
        await turn(pilot, "/tools")
        assert "`write_file`" in info(app) and "`execute`" in info(app)
        await turn(pilot, "/agents")
        assert "`general-purpose`" in info(app)
        assert shown(app)[0].split() == ["Subagent", "│", "Source", "│", "Model", "│", "Description"]
        await turn(pilot, "/memory")
        assert str(tui.env.project / "AGENTS.md") in info(app) and "loaded" in info(app)
        await turn(pilot, "/mcp")
        assert "No MCP servers" in info(app)
        await turn(pilot, "/tokens")
        assert "Context" in info(app) and "128k" in info(app)
        assert shown(app)[0].split() == ["Tokens", "│", "Used"]
        await turn(pilot, "/compact")
        assert notices(app)[-1] == "Nothing to compact yet."


async def test_tools_lists_what_the_model_is_offered_in_the_current_mode(tui: Tui) -> None:
    for mode in ("manual", "plan"):
        app = tui.app(mode=mode)
        async with app.run_test(size=(100, 50)) as pilot:
            await ready(pilot)
            await turn(pilot, "/tools")
            shown_tools = info(app)
        assert "`read_file`" in shown_tools and "`grep`" in shown_tools
        if mode == "plan":
            assert "`present_plan`" in shown_tools and "plan mode" in shown_tools
            assert "`write_file`" not in shown_tools and "`execute`" not in shown_tools
        else:
            assert "`present_plan`" not in shown_tools
            assert "`write_file`" in shown_tools and "`execute`" in shown_tools


async def test_tools_says_how_to_add_web_search_until_an_engine_is_set(tui: Tui) -> None:
    for engine in ("", '\n[web_search]\nprovider = "searxng"\nurl = "http://127.0.0.1:9"\n'):
        tui.env.write_config(engine)
        app = tui.app()
        async with app.run_test(size=(100, 50)) as pilot:
            await ready(pilot)
            await turn(pilot, "/tools")
            shown_tools = info(app)
        assert "`fetch_url`" in shown_tools
        if engine:
            assert "`web_search`" in shown_tools and "No `web_search`" not in shown_tools
        else:
            assert 'No `web_search`: to add it, set `[web_search] provider = "searxng"`' in shown_tools


async def test_compact_shows_the_summary_and_the_next_turn_uses_it(tui: Tui) -> None:
    tui.llm.add(
        {"text": "The build uses hatch.", "prompt_tokens": 5000},
        {"text": "- The user asked about the build; it uses **hatch**."},
        {"text": "ok"},
    )
    app = tui.app()
    async with app.run_test(size=(100, 50)) as pilot:
        await ready(pilot)
        await turn(pilot, "how is this built?")
        await turn(pilot, "/compact keep the tool names")
        assert "keep the tool names" in str(tui.llm.requests[-1]["messages"][0]["content"])
        shown = info(app)
        assert shown.startswith("**Compacted** 2 messages: context 5k → ~") and "it uses **hatch**" in shown
        await turn(pilot, "and the tests?")
        assert tui.last_user_text() == "and the tests?"
        first = tui.llm.requests[-1]["messages"][1]["content"]
        assert "it uses **hatch**" in str(first) and "how is this built?" not in str(tui.llm.requests[-1])


async def test_export_and_copy(tui: Tui) -> None:
    tui.llm.add({"text": "The **answer** is 42."})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/copy")
        assert notices(app)[-1] == "Nothing to copy yet."
        await turn(pilot, "what is the answer?")
        await turn(pilot, "/copy")
        assert app.clipboard == "The **answer** is 42."
        await turn(pilot, "/export out.md")
        text = (tui.here / "out.md").read_text()  # the front end writes it where it runs
        assert "## User" in text and "what is the answer?" in text and "The **answer** is 42." in text


async def test_editor_command_fills_the_prompt(tui: Tui, tmp_path: Path) -> None:
    script = tmp_path / "fake-editor"
    script.write_text('#!/bin/sh\nprintf "written in the editor\\nsecond line" > "$1"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    os.environ["EDITOR"] = str(script)
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "/editor")
        await wait_for(pilot, lambda: app.prompt.text == "written in the editor\nsecond line")
        app.prompt.load_text("")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: app.prompt.text == "written in the editor\nsecond line")


async def test_quit_prints_how_to_resume(tui: Tui) -> None:
    tui.llm.add({"text": "bye"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "hello")
        thread = app.session.thread_id  # type: ignore[union-attr]
        await submit(pilot, "/quit")
        await wait_for(pilot, lambda: app._exit_renderables is not None or not app.is_running)
    assert app.return_code == 0
    assert app.resume_hint() == f"auger -r {thread}"


async def test_a_picker_opened_during_a_turn_does_not_disturb_it(tui: Tui) -> None:
    tui.llm.add({"text": "Long answer. ", "text_tokens": 600, "rate": 300})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        send_nowait(app, "write a lot")
        await wait_for(pilot, lambda: replies(app))
        send_nowait(app, "/model")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        await wait_for(pilot, lambda: not app.busy, timeout=30)  # the turn ends under the picker
        await pilot.press("escape")
        assert not isinstance(app.screen, ModelPicker)
        assert replies(app)[0].startswith("Long answer.") and len(replies(app)[0]) > 600 * 4
        assert not [n for n in app.transcript.query(Notice) if n.has_class("-error")]
        assert app.status.context_tokens > 0


async def test_custom_command_is_completed_and_invoked(tui: Tui) -> None:
    folder = tui.env.project / ".claude" / "commands" / "git"
    folder.mkdir(parents=True)
    (folder / "summary.md").write_text(
        "---\ndescription: Summarise recent work\nargument-hint: [days]\n---\n"
        "Summarise the last $1 days of work.\n"
    )
    tui.llm.add({"text": "Busy week."})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        app.prompt.focus()
        await pilot.press(*"/git:")
        menu = app.prompt.menu
        assert menu.is_open and menu.current is not None
        assert [c.value for c in menu.current.items] == ["/git:summary "]
        await pilot.press("tab", *"7", "enter")
        await app.workers.wait_for_complete()
        assert tui.last_user_text() == "Summarise the last 7 days of work."
        assert [m.text for m in app.transcript.query(UserMessage)] == ["/git:summary 7"]


async def test_resume_opens_the_thread_picker(tui: Tui) -> None:
    """`/resume`, the word Claude Code and Codex users type, is the thread picker (not `/rename`)."""
    tui.llm.add({"text": "about apples"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "tell me about apples")
        await turn(pilot, "/resume")
        assert isinstance(app.screen, ThreadPicker)
        assert app.screen.values == [app.session.thread_id]  # type: ignore[union-attr]

"""Pilot tests for the input: newlines, history, Ctrl+R, @path, !command, queueing, quitting."""

from __future__ import annotations

import asyncio
from typing import Any

from conftest_tui import Tui, ready, replies, send_nowait, submit, tui, turn, wait_for, write_skill  # noqa: F401

from auger.cli.agents import LocalOptions, local
from auger.core import events as ev
from auger.errors import AugerError
from auger.tui.screens.history_search import HistorySearch
from auger.tui.widgets.messages import ShellBlock, UserMessage
from conftest_llm import typed


async def test_enter_sends_shift_enter_and_ctrl_j_add_lines(tui: Tui) -> None:
    tui.llm.add({"text": "ok"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        app.prompt.focus()
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert app.prompt.text == "a\nb\nc"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        assert app.prompt.text == ""
        assert tui.last_user_text() == "a\nb\nc"


async def test_history_walks_with_up_down_and_persists(tui: Tui) -> None:
    tui.llm.add({"text": "1"}, {"text": "2"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "first prompt")
        await turn(pilot, "second\nprompt")
        app.prompt.load_text("draft")
        await pilot.press("up")
        assert app.prompt.text == "second\nprompt"
        await pilot.press("up")  # the cursor is on the last line of a 2-line entry: up moves inside it
        await pilot.press("up")
        assert app.prompt.text == "first prompt"
        await pilot.press("down")
        assert app.prompt.text == "second\nprompt"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"
    again = tui.app()
    async with again.run_test(size=(100, 40)) as pilot:
        again.prompt.focus()
        await pilot.press("up")
        assert again.prompt.text == "second\nprompt"
        await pilot.press("ctrl+r")
        assert isinstance(again.screen, HistorySearch)
        await pilot.press(*"first")
        assert again.screen.values == ["first prompt"]
        await pilot.press("enter")
        assert again.prompt.text == "first prompt"


async def test_at_path_completes_fuzzily_and_inlines_the_file(tui: Tui) -> None:
    """The agent's project files (over --connect the server's: `tui.env.project`) are offered and
    the one named is inlined by the agent; the thread keeps what was typed."""
    src = tui.env.project / "src" / "auger_demo"
    src.mkdir(parents=True)
    (src / "parser.py").write_text("def parse():\n    return 'PARSED'\n")
    (src / "printer.py").write_text("print('x')\n")
    tui.llm.add({"text": "read it"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        app.prompt.focus()
        await pilot.press(*"explain @prsr")
        menu = app.prompt.menu
        assert menu.is_open and menu.current is not None
        assert menu.current.items[0].value == "@src/auger_demo/parser.py "
        await pilot.press("tab")
        assert app.prompt.text == "explain @src/auger_demo/parser.py "
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        sent = tui.last_user_text()
        assert sent.startswith("explain @src/auger_demo/parser.py")
        assert '<file path="src/auger_demo/parser.py">' in sent and "return 'PARSED'" in sent
        shown = app.transcript.query_one(UserMessage)
        assert shown.text == "explain @src/auger_demo/parser.py " and shown.has_class("-with-files")
        assert shown.tooltip == "Inlined: src/auger_demo/parser.py"
        assert app.session is not None
        saved = [e.prompt for e in await app.session.history() if isinstance(e, ev.TurnStarted)]
        assert saved == ["explain @src/auger_demo/parser.py "]  # as typed, not the inlined file


async def test_bang_runs_a_shell_command_and_feeds_the_next_prompt(tui: Tui) -> None:
    tui.llm.add({"text": "I see the output."})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "!echo shell-said-this; exit 4")
        block = app.transcript.query_one(ShellBlock)
        assert block.has_class("-failed")
        assert "shell-said-this" in str(block.query_one(".shell-output").render())
        assert "[exit code 4]" in str(block.query_one(".shell-output").render())
        assert not tui.llm.requests  # nothing sent yet
        await turn(pilot, "what happened?")
        sent = tui.last_user_text()
        assert "I ran `echo shell-said-this; exit 4`" in sent and "(exit code 4)" in sent
        assert sent.rstrip().endswith("what happened?")


async def test_prompts_typed_during_a_turn_are_queued_in_order(tui: Tui) -> None:
    tui.llm.add({"text_tokens": 300, "rate": 150}, {"text": "second answer"}, {"text": "third answer"})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "first")
        await wait_for(pilot, lambda: replies(app))  # streaming has begun
        # typed while the reply streams (Pilot.press would wait for the stream to go idle)
        send_nowait(app, "second")
        send_nowait(app, "third")
        await wait_for(pilot, lambda: len(app.transcript.query(UserMessage)) == 3)
        assert app.busy
        queued = [m for m in app.transcript.query(UserMessage) if m.has_class("-queued")]
        assert [m.text for m in queued] == ["second", "third"]
        assert app.prompt.text == ""  # the input is free while the turn runs
        await wait_for(pilot, lambda: len(replies(app)) == 3 and not app.busy)
        await app.workers.wait_for_complete()
        users = [
            [typed(m["content"]) for m in r["messages"] if m["role"] == "user"][-1] for r in tui.llm.requests
        ]
        assert users == ["first", "second", "third"]
        assert not [m for m in app.transcript.query(UserMessage) if m.has_class("-queued")]


async def test_a_prompt_typed_before_the_agent_is_ready_is_sent_when_it_is(tui: Tui) -> None:
    gate = asyncio.Event()
    real = local(LocalOptions(use_mcp=False))

    async def slow_factory(settings: Any, thread_id: str | None) -> Any:
        await gate.wait()
        return await real(settings, thread_id)

    tui.llm.add({"text": "ready now"})
    app = tui.app(factory=slow_factory)
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.session is None
        assert app.status.activity == "starting"
        await submit(pilot, "early bird")
        assert [m.has_class("-queued") for m in app.transcript.query(UserMessage)] == [True]
        assert not tui.llm.requests
        gate.set()
        await wait_for(pilot, lambda: replies(app) == ["ready now"] and not app.busy)
        assert tui.last_user_text() == "early bird"


async def test_slash_names_go_to_the_agent_when_its_catalogue_could_not_be_read(tui: Tui) -> None:
    """The agent is up but reading its skills failed (a remote agent that did not answer, say):
    `/name` must not wait for a catalogue that never comes, and hold every later prompt behind it
    (typed during startup, it looped in the queue and froze the app). The agent, which expands
    skills itself, gets it."""
    gate = asyncio.Event()
    real = local(LocalOptions(use_mcp=False))

    async def no_catalogue() -> Any:
        raise AugerError("the agent did not answer")

    async def factory(settings: Any, thread_id: str | None) -> Any:
        await gate.wait()
        session = await real(settings, thread_id)
        session.catalogue = no_catalogue
        return session

    write_skill(tui.here, "greet", "Say hello to someone", "Say hello to $ARGUMENTS.")
    tui.llm.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    app = tui.app(factory=factory)
    async with app.run_test(size=(100, 40)) as pilot:
        await submit(pilot, "/no-such-name now")  # typed while the agent starts: it waits
        assert not tui.llm.requests
        gate.set()
        await wait_for(pilot, lambda: replies(app) == ["one"] and not app.busy)
        assert app.facts.catalogue is None
        assert tui.last_user_text() == "/no-such-name now"
        await turn(pilot, "/greet Ada")
        assert "Say hello to Ada." in tui.last_user_text()  # the skill, expanded by the agent
        await turn(pilot, "hello")
        assert replies(app) == ["one", "two", "three"]
        assert tui.last_user_text() == "hello"


async def test_ctrl_c_twice_quits_and_ctrl_d_on_empty_input_quits(tui: Tui) -> None:
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        app.prompt.load_text("some text")
        await pilot.press("ctrl+c")
        assert app.is_running and app.prompt.text == ""  # the first press clears and warns
        assert str(app.status.render()).startswith("Press Ctrl+C again to quit.")
        await pilot.pause()
        assert not app.status.region.overlaps(app.prompt.region)
        assert not app.screen.query("Toast")  # no toast on top of the prompt's border
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0
    other = tui.app()
    async with other.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        other.prompt.load_text("x")
        await pilot.press("ctrl+d")  # not empty: deletes forward, does not quit
        assert other.is_running
        other.prompt.load_text("")
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: not other.is_running)
    assert other.resume_hint() is None  # nothing was said: nothing to resume


async def test_enter_right_after_the_last_character_accepts_the_completion_for_the_whole_text(
    tui: Tui,
) -> None:
    """The menu is updated by a message; Enter handled before it arrives must not complete the
    text the menu saw ("/hel" + "p" became "/helpp")."""
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        app.prompt.set_text("/hel")
        await pilot.pause()
        menu = app.prompt.menu
        assert menu is not None and menu.is_open
        app.prompt.insert("p")  # no pause: the menu has not seen it
        app.prompt.action_submit()
        assert app.prompt.text == ""  # sent as "/help", not completed into "/helpp"
        await pilot.pause()


async def test_moving_in_the_menu_survives_accepting(tui: Tui) -> None:
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        app.prompt.focus()
        await pilot.press(*"/t")
        menu = app.prompt.menu
        assert menu is not None and menu.is_open and menu.current is not None
        assert len(menu.current.items) > 1
        await pilot.press("down")
        second = menu.current.items[1].value
        await pilot.press("tab")
        assert app.prompt.text == second


def test_history_search_is_newest_first_unique_and_stops_at_its_limit() -> None:
    from auger.tui.prompt.history import PromptHistory

    lowered: list[str] = []

    class Counted(str):  # counts the entries the search reads
        def lower(self) -> str:
            lowered.append(self)
            return str.lower(self)

    history = PromptHistory(None)
    history._entries = [Counted(t) for t in ["Fix parser", "fix lexer", "Fix parser", "docs", "fix tests"]]
    assert history.search("FIX") == ["fix tests", "Fix parser", "fix lexer"]
    lowered.clear()
    assert history.search("fix", limit=2) == ["fix tests", "Fix parser"]
    assert len(lowered) == 3  # the two newest found after three entries: the rest is not read

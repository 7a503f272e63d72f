"""Slash commands run without the app: a `CommandContext` on a real local Session (the scripted
server behind it), its screen side plain lists — what the commands wrote, said, showed and asked."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest_tui import write_skill

from auger.core.port import MODES
from auger.core.session.session import Session
from auger.errors import UsageError
from auger.tui.commands import REGISTRY, load_commands, parse
from auger.tui.commands.context import CommandContext
from auger.tui.facts import Facts
from auger.tui.screens.model_picker import ModelPicker
from auger.tui.screens.thread_picker import ThreadPicker
from auger.tui.state import TuiState
from conftest import AugerEnv
from session_helpers import drive, open_session

Then = Callable[[Any], Awaitable[None]] | None


@dataclass
class Screenless:
    """The screen a command talks to, as lists; `answers` are what `ask` returns, in order."""

    session: Session
    facts: Facts = field(default_factory=Facts)
    state: TuiState[Any] = field(default_factory=TuiState)
    notes: list[tuple[str, str]] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    shown: list[tuple[Any, Then]] = field(default_factory=list)
    asked: list[Any] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    redraws: list[str | None] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    prompt: str = ""
    copied: list[str] = field(default_factory=list)
    statuses: int = 0  # status-line redraws
    reads: int = 0  # thread and catalogue reads through the port

    def context(self) -> CommandContext:
        return CommandContext(
            port=self.session,
            settings=self.session.runtime.settings,
            state=self.state,
            facts=self.facts,
            notify=self.notify,
            write=self.write,
            show=self.show,
            ask=self.ask,
            background=self.background,
            redraw=self.redraw,
            refresh=self.refresh,
            status=self.status,
            set_prompt=self.set_prompt,
            copy=self.copied.append,
            edit=self.nothing,
            exit=self.nothing,
        )

    async def run(self, text: str) -> None:
        parsed = parse(text)
        assert parsed is not None
        name, arg = parsed
        cmd = REGISTRY.get(name)
        assert cmd is not None
        await cmd.handler(self.context(), arg)
        await asyncio.gather(*self.tasks)
        self.tasks.clear()

    @property
    def last_note(self) -> tuple[str, str]:
        return self.notes[-1]

    def notify(self, text: str, level: str = "info") -> None:
        self.notes.append((text, level))

    async def write(self, markdown: str) -> None:
        self.written.append(markdown)

    async def show(self, screen: Any, then: Then = None) -> None:
        self.shown.append((screen, then))

    async def ask(self, screen: Any) -> Any:
        self.asked.append(screen)
        return self.answers.pop(0)

    def background(self, steps: Coroutine[Any, Any, None]) -> None:
        self.tasks.append(asyncio.ensure_future(steps))

    async def redraw(self, lead: str | None) -> None:
        self.redraws.append(lead)

    async def refresh(self) -> None:
        self.reads += 2
        self.facts.thread = await self.session.thread_info()
        self.facts.catalogue = await self.session.catalogue()

    def status(self) -> None:
        self.statuses += 1

    def set_prompt(self, text: str) -> None:
        self.prompt = text

    async def nothing(self) -> None:
        pass


@pytest.fixture
async def screenless(auger_env: AugerEnv) -> Any:
    load_commands()
    write_skill(auger_env.project, "greet", "Say hello to someone", "Say hello to $ARGUMENTS.")
    session = await open_session(auger_env)
    screen = Screenless(session)
    screen.state.booted()  # the agent is up: the app is idle
    try:
        yield screen
    finally:
        await session.aclose()


async def test_mode_model_tokens_and_help_run_on_a_real_session(screenless: Screenless) -> None:
    s = screenless
    await s.run("/mode")
    assert s.last_note[0].startswith("Approval mode: manual (ask before file edits and shell commands).")
    await s.run("/mode yolo")
    assert s.session.runtime.settings.mode == "yolo"
    assert (s.reads, s.statuses) == (0, 1)  # the status line is redrawn; nothing is read again
    assert s.last_note == ("Approval mode: yolo (never ask).", "info")
    with pytest.raises(UsageError, match="Unknown approval mode 'bogus'"):
        await s.run("/mode bogus")

    await s.run("/model local:other-model")
    assert s.session.model_spec == "local:other-model"
    assert s.last_note == ("Model: local:other-model (for the next turn of this thread).", "info")
    await s.run("/model")
    picker, then = s.shown[-1]
    assert isinstance(picker, ModelPicker) and then is not None
    assert picker.current == "local:other-model"
    assert {"local:scripted-model", "local:other-model"} <= set(picker.models)
    assert s.facts.model_choices == picker.models  # what `/model <Tab>` completes
    await then("local:scripted-model")
    assert s.session.model_spec == "local:scripted-model"

    await s.run("/tokens")
    assert "`local:scripted-model`" in s.written[-1]
    assert "| This session | 0 in, 0 out |" in s.written[-1]

    await s.run("/help")
    rows = s.written[-1].splitlines()
    assert "| `/tokens` | Context use: tokens in the window and this session's usage |" in rows
    assert "| `/greet [args]` | skill: Say hello to someone |" in rows  # from the agent's catalogue
    assert s.facts.catalogue is not None  # /help read it from the agent


async def test_thread_and_rewind_commands_run_on_a_real_session(
    screenless: Screenless, auger_env: AugerEnv
) -> None:
    s = screenless
    await s.run("/rewind")
    assert s.last_note == ("No turns yet: nothing to rewind.", "warning")
    await s.run("/copy")
    assert s.last_note == ("Nothing to copy yet.", "warning")

    auger_env.llm.add({"text": "hi there"})
    await drive(s.session, "hello", [])
    first = s.session.thread_id
    with pytest.raises(UsageError, match=r"from 1 \(this thread has 1 turn\), not '3'"):
        await s.run("/rewind 3")
    await s.run("/undo")
    assert s.last_note == ("Turn 1 changed no files: nothing to undo (/rewind goes further back).", "warning")
    await s.run("/diff")
    assert s.last_note == ("This thread changed no files: no diff to show.", "warning")
    reads = s.reads
    await s.run("/rename  A   greeting ")
    assert s.facts.thread is not None and s.facts.thread.title == "A greeting"
    assert s.reads == reads  # the renamed thread came back from the rename itself
    assert s.last_note == ("Thread renamed: A greeting", "info")

    await s.run("/new")
    assert s.session.thread_id != first and s.redraws == [None]
    assert s.last_note == ("New thread.", "info")
    await s.run("/threads")
    picker, then = s.shown[-1]
    assert isinstance(picker, ThreadPicker) and picker.port is s.session and then is not None
    await then(first)
    assert s.session.thread_id == first and s.redraws[-1] == "Resumed thread {id}"

    s.answers = ["conversation"]  # the turn changed no files: conversation is the one choice
    await s.run("/rewind 1")
    assert [a.title_text for a in s.asked] == ["Rewind to before turn 1: hello"]
    assert s.redraws[-1] == "" and s.prompt == "hello"  # the rewound prompt, to send again
    assert await s.session.turns() == []
    assert s.last_note == ("Rewound to before turn 1 — conversation: 0 turns left.", "info")


def test_mode_usage_in_help_names_every_mode_it_takes() -> None:
    """`/help` shows `/mode [...]`: every mode `/mode NAME` accepts, plan included."""
    load_commands()
    usage = next(c.usage for c in REGISTRY.all() if c.name == "mode")
    assert usage == "/mode [" + "|".join(MODES) + "]"

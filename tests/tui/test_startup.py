"""What `auger` does before and around the first paint: the parser fast path, the collector paused
until the first paint, the log's secret filter loaded on first use, and the transcript's
render caches released out of view. (Speed is measured by bench/bench_tui.py, not here.)"""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest_tui import Tui, ready, tui  # noqa: F401
from textual.geometry import Region

from auger.cli import command as cli
from auger.logsetup import setup_logging
from auger.tui import gcpolicy
from auger.tui.widgets.messages import UserMessage


@pytest.fixture
def gc_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gcpolicy.end_startup()
    if was:
        gc.enable()


def test_a_bare_auger_gets_the_parser_defaults_without_the_parser() -> None:
    assert vars(cli.parse_args([])) == vars(cli.build_parser().parse_args([]))
    first, second = cli.parse_args([]), cli.parse_args([])
    assert first.mcp_config is not second.mcp_config  # no list shared between calls


def test_startup_pause_is_idempotent_and_leaves_a_disabled_collector_alone(gc_restored: None) -> None:
    gcpolicy.pause_startup()
    assert not gc.isenabled()
    gcpolicy.pause_startup()
    gcpolicy.end_startup()
    assert gc.isenabled()
    gc.disable()  # someone else's choice: not ours to undo
    gcpolicy.pause_startup()
    gcpolicy.end_startup()
    assert not gc.isenabled()


@pytest.mark.parametrize("argv", [["--max-turns", "0"], ["-n", "task", "--timeout", "-1"]])
def test_the_collector_is_back_on_when_auger_stops_before_the_tui(
    gc_restored: None, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli._guarded_main(argv, pause_gc=True) == 2
    assert gc.isenabled()
    assert capsys.readouterr().err.startswith("auger: ")


def test_the_collector_is_back_on_after_version(gc_restored: None) -> None:
    with pytest.raises(SystemExit):
        cli._guarded_main(["--version"], pause_gc=True)
    assert gc.isenabled()


async def test_the_app_turns_the_collector_back_on_after_the_first_paint(tui: Tui, gc_restored: None) -> None:
    gcpolicy.pause_startup()
    app = tui.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert gc.isenabled()
        await ready(pilot)


def test_log_records_are_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("MY_API_KEY", secret)
    import auger.core.safety.redaction as redact

    monkeypatch.setattr(redact, "_default", redact.Redactor())  # read the environment afresh
    monkeypatch.setattr(redact, "_default_ready", False)
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        path = setup_logging(tmp_path)
        logging.getLogger("auger.test").warning("calling with %s", secret)
        for handler in root.handlers:
            handler.flush()
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
    assert path is not None
    text = path.read_text()
    assert "calling with" in text and secret not in text and "[redacted:$MY_API_KEY]" in text


def _text(widget: UserMessage) -> str:
    width, height = widget.size
    return "".join(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))


async def test_blocks_out_of_view_release_their_rendered_lines_and_render_again(tui: Tui) -> None:
    app = tui.app()
    async with app.run_test(size=(80, 20)) as pilot:
        await ready(pilot)
        for i in range(40):
            await app.transcript.add(UserMessage(f"block number {i}"))
        await pilot.pause()
        first, last = app.transcript.blocks()[0], app.transcript.blocks()[-1]
        assert isinstance(first, UserMessage) and isinstance(last, UserMessage)
        assert "block number 0" in _text(first)  # rendered (it was on screen once)
        assert app.transcript.release_offscreen() > 0
        assert not first._render_cache.lines  # released...
        assert last._render_cache.lines  # ...but not what is on screen
        assert app.transcript.release_offscreen() == 0  # nothing left to release
        app.transcript.scroll_home(animate=False)
        await pilot.pause()
        assert "block number 0" in _text(first)  # ...and drawn again when scrolled back


def test_nothing_of_the_agent_stack_is_imported_before_the_app_runs(tmp_path: Path) -> None:
    """`auger` up to `App.run()` (the first paint follows): no agent stack, no pydantic."""
    import json
    import os
    import subprocess
    import sys

    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text('model = "local:m"\n[providers.local]\nbase_url = "http://x/v1"\n')
    code = (
        "import sys, json\n"
        "import textual.app\n"
        "def run(self, *a, **k):\n"
        "    print(json.dumps(sorted(sys.modules)))\n"
        "    return 0\n"
        "textual.app.App.run = run\n"
        "sys.stdin.isatty = sys.stdout.isatty = lambda: True\n"
        "from auger.cli import command as cli\n"
        "cli._main([])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUGER_", "OPENAI_"))}
    env.update(AUGER_HOME=str(home), HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, check=True
    )
    modules = set(json.loads(out.stdout.strip().splitlines()[0]))
    heavy = ("langchain", "langchain_core", "langgraph", "langgraph_sdk", "langgraph_api", "deepagents")
    heavy += ("pydantic", "openai", "anthropic")
    assert {m for m in modules if m.split(".")[0] in heavy} == set()
    assert "auger.tui.app" in modules  # (the probe did reach the app)
    assert not {m for m in modules if m.startswith("auger.core")}  # not even the stdlib-only parts


class _FakeGc:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> object:
        if name in ("get_threshold",):
            return lambda: (700, 10, 10)
        if name in ("isenabled",):
            return lambda: True
        return lambda *a: self.calls.append(name)


class _Timer:
    def __init__(self, log: list[float]) -> None:
        self.log = log

    def stop(self) -> None:
        self.log.append(-1.0)


def test_a_collection_runs_after_every_turn_and_a_full_one_waits_for_a_pause(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake, timers, hooks = _FakeGc(), [], []
    monkeypatch.setattr(gcpolicy, "gc", fake)
    monkeypatch.setattr(gcpolicy, "trim_heap", lambda: fake.calls.append("trim"))

    def schedule(delay: float, callback: object) -> _Timer:
        timers.append(delay)
        return _Timer(timers)

    policy = gcpolicy.GcPolicy(schedule, before_collect=lambda: hooks.append(1))
    policy.start()
    fake.calls.clear()
    policy.turn_ended()  # nothing due: collect what is new, now
    assert fake.calls == ["collect", "freeze", "trim"] and timers == [] and hooks == [1]
    fake.calls.clear()
    policy.pruned()
    policy.turn_ended()  # a full one is due: the young one now, the full one after a pause
    assert "unfreeze" not in fake.calls and timers == [gcpolicy.IDLE_DELAY]
    policy.turn_started()  # the user did not pause
    policy.turn_ended()
    assert "unfreeze" not in fake.calls
    fake.calls.clear()
    policy.turn_started()
    policy.turn_ended()  # ...but not longer than MAX_SKIPPED turns
    assert fake.calls == ["unfreeze", "collect", "freeze", "trim"]
    fake.calls.clear()
    policy.turn_ended()
    assert fake.calls == ["collect", "freeze", "trim"]


def test_clearing_the_transcript_schedules_a_full_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    """After `/clear` the widgets it removed are frozen: only a full collection gives their memory
    back, and it runs at the user's next pause, not turns later."""
    fake, timers = _FakeGc(), []
    callbacks: list[object] = []
    monkeypatch.setattr(gcpolicy, "gc", fake)
    monkeypatch.setattr(gcpolicy, "trim_heap", lambda: fake.calls.append("trim"))

    def schedule(delay: float, callback: object) -> _Timer:
        timers.append(delay)
        callbacks.append(callback)
        return _Timer(timers)

    policy = gcpolicy.GcPolicy(schedule)
    policy.cleared()  # before the agent is up: nothing of ours to collect
    assert timers == []
    policy.start()
    fake.calls.clear()
    policy.cleared()
    assert timers == [gcpolicy.IDLE_DELAY] and fake.calls == []
    callbacks[-1]()  # the pause came
    assert fake.calls == ["unfreeze", "collect", "freeze", "trim"]

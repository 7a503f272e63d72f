"""The TUI's state machine (auger.tui.state), without Textual: its phases, transitions, the
questions of a turn and the queue of inputs."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from auger.tui.state import ACTIVITY, ALLOWED, Phase, TuiState


def recorded() -> tuple[TuiState[str], list[tuple[Phase, Phase]]]:
    changes: list[tuple[Phase, Phase]] = []
    return TuiState(lambda old, new: changes.append((old, new))), changes


def test_a_session_from_boot_through_a_turn_with_two_approvals_and_a_cancel() -> None:
    state, changes = recorded()
    assert state.phase is Phase.BOOTING and not state.ready and not state.busy
    state.booted()
    assert state.ready and not state.busy
    state.turn_started()
    assert state.busy and not state.ready
    state.ask_opened()  # two tool calls of one step ask at once
    state.ask_opened()
    assert state.phase is Phase.WAITING and state.asking == 2
    state.ask_closed()
    assert state.phase is Phase.WAITING  # one is still open
    state.ask_closed()
    assert state.phase is Phase.TURN
    state.cancel()
    state.ask_opened()  # asked while winding down: the turn is still stopping
    assert state.phase is Phase.CANCELLING and state.busy
    state.turn_ended()
    assert state.ready and state.asking == 0
    assert changes == [
        (Phase.BOOTING, Phase.IDLE),
        (Phase.IDLE, Phase.TURN),
        (Phase.TURN, Phase.WAITING),
        (Phase.WAITING, Phase.TURN),
        (Phase.TURN, Phase.CANCELLING),
        (Phase.CANCELLING, Phase.IDLE),
    ]
    spinner = [ACTIVITY[new] for _, new in changes]
    assert spinner == ["", "working", "waiting for you", "working", "stopping", ""]


def test_first_run_setup_boot_failure_and_compaction() -> None:
    state, changes = recorded()
    state.configure()
    state.boot()
    state.boot_failed("no credentials for local:scripted-model")
    assert state.phase is Phase.FAILED and state.error == "no credentials for local:scripted-model"
    assert not state.ready and not state.busy
    other, _ = recorded()
    other.booted()
    other.compacting()
    assert ACTIVITY[other.phase] == "compacting" and not other.ready and not other.busy
    other.compacted()
    assert other.ready
    assert changes == [
        (Phase.BOOTING, Phase.SETUP),
        (Phase.SETUP, Phase.BOOTING),
        (Phase.BOOTING, Phase.FAILED),
    ]


def test_inputs_queue_until_idle_and_drain_in_order() -> None:
    state, _ = recorded()
    state.enqueue("first prompt", "shown-1")
    state.enqueue("/tokens")
    assert state.must_wait() and len(state.queue) == 2
    assert state.next_input() is None  # still booting
    state.booted()
    assert state.must_wait()  # idle, but earlier inputs go first
    first = state.next_input()
    assert first is not None and (first.text, first.shown) == ("first prompt", "shown-1")
    state.turn_started()
    assert state.next_input() is None  # the turn runs: /tokens waits for it
    state.turn_ended()
    second = state.next_input()
    assert second is not None and (second.text, second.shown) == ("/tokens", None)
    assert state.next_input() is None and not state.must_wait()


def test_an_illegal_transition_is_logged_and_made(caplog: pytest.LogCaptureFixture) -> None:
    state, changes = recorded()
    with caplog.at_level(logging.ERROR, logger="auger.tui"):
        state.turn_started()  # a turn before the agent is up: a bug in the app
    assert state.phase is Phase.TURN and changes == [(Phase.BOOTING, Phase.TURN)]
    assert "booting -> turn is not a transition of the table" in caplog.text
    caplog.clear()
    state.turn_ended()
    assert caplog.text == ""


def test_the_table_names_every_phase_and_only_phases() -> None:
    assert set(ALLOWED) == set(Phase) == set(ACTIVITY)
    assert all(targets <= set(Phase) for targets in ALLOWED.values())
    reachable = {Phase.BOOTING} | {p for targets in ALLOWED.values() for p in targets}
    assert reachable == set(Phase)


def test_state_facts_and_commands_import_without_textual() -> None:
    code = (
        "import sys\n"
        "import auger.tui.state, auger.tui.facts, auger.tui.commands.context\n"
        "from auger.tui.commands import load_commands\n"
        "load_commands()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stderr

"""Secret redaction: which variables count, text/values/messages/events, secrets split across
streamed deltas, and log records."""

from __future__ import annotations

import logging
from pathlib import Path

from langchain_core.messages import AIMessage, ToolMessage

from auger.core import events as ev
from auger.core.safety.redaction import Redactor, SecretFilter, StreamRedactor, secrets_in_env

SECRET = "sk-test-0123456789abcdef"


def test_secret_names_and_short_values() -> None:
    env = {
        "MY_API_KEY": SECRET,
        "GH_TOKEN": "ghp_abcdefgh1234",
        "PATH": "/usr/bin",
        "DB_PASSWORD": "short",
        "X": "y" * 20,
    }
    found = secrets_in_env(env)
    assert set(found) == {"MY_API_KEY", "GH_TOKEN", "DB_PASSWORD"}  # not PATH, not X
    red = Redactor(found)
    assert red.text(f"key={SECRET} pw=short") == "key=[redacted:$MY_API_KEY] pw=short"  # < 8 chars kept
    assert red.find(f"a {SECRET} b ghp_abcdefgh1234") == ["GH_TOKEN", "MY_API_KEY"]


def test_values_messages_and_events() -> None:
    red = Redactor({"MY_API_KEY": SECRET})
    assert red.value({"a": [SECRET, 1, (SECRET,)]}) == {
        "a": ["[redacted:$MY_API_KEY]", 1, ("[redacted:$MY_API_KEY]",)]
    }
    msg = AIMessage(
        content=f"it is {SECRET}",
        tool_calls=[{"name": "execute", "args": {"command": f"echo {SECRET}"}, "id": "c1"}],
        id="m1",
    )
    out = red.message(msg)
    assert SECRET not in str(out.content) and SECRET not in str(out.tool_calls) and out.id == "m1"
    tool = red.message(ToolMessage(content=[{"type": "text", "text": SECRET}], tool_call_id="c1"))
    assert SECRET not in str(tool.content)
    event = red.event(ev.ToolCallFinished("c1", "execute", f"out {SECRET}"))
    assert event.output == "out [redacted:$MY_API_KEY]"


def test_stream_redactor_catches_a_secret_split_across_deltas() -> None:
    red = StreamRedactor(Redactor({"MY_API_KEY": SECRET}))
    text = f"The key is {SECRET}, done."
    out: list[ev.Event] = []
    for i in range(0, len(text), 5):
        out += red.feed(ev.TextDelta(text[i : i + 5]))
    out += red.feed(ev.Usage(1, 1, 2))
    joined = "".join(e.text for e in out if isinstance(e, ev.TextDelta))
    assert joined == "The key is [redacted:$MY_API_KEY], done."
    assert isinstance(out[-1], ev.Usage)  # held text is released before the next event
    plain = StreamRedactor(Redactor({}))
    delta = ev.TextDelta("x ")  # ends at a word boundary, holds no credential: passes at once
    assert plain.feed(delta) == [delta]
    assert plain.feed(ev.TextDelta("postgres:/")) == []  # a word that may still become a URL waits
    assert [e.text for e in plain.feed(ev.TextDelta("/me:pw@db "))] == ["postgres://me:[redacted]@db "]


def test_log_filter_redacts_messages_args_and_tracebacks(tmp_path: Path) -> None:
    log_file = tmp_path / "x.log"
    handler = logging.FileHandler(log_file)
    handler.addFilter(SecretFilter(Redactor({"MY_API_KEY": SECRET})))
    logger = logging.getLogger("auger.test.redact")
    logger.addHandler(handler)
    try:
        logger.warning("calling with %s", SECRET)
        try:
            raise RuntimeError(f"bad key {SECRET}")
        except RuntimeError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        handler.close()
    text = log_file.read_text()
    assert SECRET not in text and text.count("[redacted:$MY_API_KEY]") == 2

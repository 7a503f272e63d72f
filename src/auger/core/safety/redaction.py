"""Secret redaction: secrets never leave auger's process in the thread DB, logs, exported
transcripts or stream-json output.

Two kinds of secret:

* a known value (8+ characters): of an environment variable whose name contains KEY, TOKEN,
  SECRET, PASSWORD, PASSWD or CREDENTIAL, or that a provider names as its `api_key_env`, and a
  credential inside any variable's value (the password of `DATABASE_URL=postgres://u:PW@h`).
  It is replaced by `[redacted:$NAME]`;
* a credential recognised by its shape in any text (`auger.core.safety.credentials`): a password or
  token in a URL, an `Authorization:`/`X-Api-Key:` header value, a bearer token, a secret in a
  query string, a token with a known prefix. Its secret part is replaced by `[redacted]`.

Where it is applied:

* tool outputs and model replies before they enter the graph state (`RedactionMiddleware`; a
  tool still runs with the arguments the model wrote), and the user's prompt before it is sent
  (`Session`);
* every event before a front end sees it (`Session`, with `StreamRedactor` holding back the
  tail of streamed text so a secret split across chunks is still caught);
* log records (`SecretFilter`, installed by `auger.logsetup`), hook output, compaction summaries.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from auger.core.safety import credentials
from auger.core.text import map_event, map_strings

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MIN_SECRET_LEN = 8


def placeholder(name: str) -> str:
    return f"[redacted:${name}]"


class Redactor:
    """Replaces known secret values and credentials (`auger.core.safety.credentials`) in text and in
    nested JSON-like values."""

    def __init__(self, secrets: Mapping[str, str] | Iterable[tuple[str, str]] | None = None) -> None:
        self._secrets: dict[str, str] = {}  # value -> env var name
        self._pattern: re.Pattern[str] | None = None
        self.add(secrets or {})

    def add(self, secrets: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        """Add `{NAME: value}` secrets (or (NAME, value) pairs; short values are ignored)."""
        pairs = secrets.items() if isinstance(secrets, Mapping) else secrets
        for name, value in pairs:
            if value and len(value) >= MIN_SECRET_LEN and value not in self._secrets:
                self._secrets[value] = name
        values = sorted(self._secrets, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(v) for v in values)) if values else None

    @property
    def longest(self) -> int:
        return max((len(v) for v in self._secrets), default=0)

    def text(self, text: str) -> str:
        if not text:
            return text
        if self._pattern is not None:
            text = self._pattern.sub(lambda m: placeholder(self._secrets[m.group(0)]), text)
        return credentials.redact(text)

    def find(self, text: str) -> list[str]:
        """The names of the known secrets that occur in `text`."""
        if self._pattern is None:
            return []
        return sorted({self._secrets[m.group(0)] for m in self._pattern.finditer(text)})

    def kinds(self, text: str) -> list[str]:
        """What credentials `text` holds by their shape ("a password in a URL", ...)."""
        return credentials.kinds_in(text)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the secrets of `text` are, each with its context (for holding back a stream)."""
        found = [m.span() for m in self._pattern.finditer(text)] if self._pattern is not None else []
        return found + [(m.start, m.end) for m in credentials.matches(text)]

    def value(self, value: Any) -> Any:
        """`value` with every string inside it redacted (dicts, lists and tuples are copied)."""
        return map_strings(value, self.text)

    def message(self, msg: Any) -> Any:
        """A LangChain message with its content, tool-call args and artifact (an MCP result's
        `structured_content`) redacted; same id."""
        update: dict[str, Any] = {}
        for field in ("content", "artifact"):
            old = getattr(msg, field, None)
            if (new := self.value(old)) != old:
                update[field] = new
        calls = getattr(msg, "tool_calls", None)
        if calls:
            new_calls = [{**c, "args": self.value(c.get("args") or {})} for c in calls]
            if new_calls != calls:
                update["tool_calls"] = new_calls
        return msg.model_copy(update=update) if update else msg

    def event(self, event: Any) -> Any:
        """An IR event (frozen dataclass) with its wire fields redacted."""
        return map_event(event, self.text)


def secrets_in_env(env: Mapping[str, str]) -> dict[str, str]:
    """`{NAME: value}` of the secret-looking variables in `env`."""
    return {k: v for k, v in env.items() if SECRET_NAME.search(k) and v}


def credentials_in_env(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(NAME, credential) for the credentials inside any variable's value (`DATABASE_URL`'s password)."""
    return [(k, secret) for k, v in env.items() if v for secret in credentials.secrets_in(v)]


_default = Redactor()
_default_ready = False


def default_redactor() -> Redactor:
    """The process-wide redactor (from `os.environ` on first use; `configure` adds provider keys)."""
    global _default_ready
    if not _default_ready:
        _default.add(secrets_in_env(os.environ))
        _default.add(credentials_in_env(os.environ))
        _default_ready = True
    return _default


def configure(settings: Any) -> Redactor:
    """Make sure the variables `settings` names as API keys are redacted too; return the redactor."""
    redactor = default_redactor()
    names = [p.api_key_env for p in getattr(settings, "providers", {}).values() if p.api_key_env]
    redactor.add({n: os.environ.get(n, "") for n in names})
    return redactor


class StreamRedactor:
    """Redacts events in order; streamed text is held back while its tail may still become a
    secret — up to one known secret's length, the last word (a URL may go on), the last three
    words after a credential hint (`Authorization: Bearer` then the token) — and released with
    the next other event."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._held: dict[tuple[type, Any], tuple[Any, str]] = {}  # (type, parent) -> (last event, raw)

    def feed(self, event: Any) -> list[Any]:
        if type(event).__name__ in ("TextDelta", "ReasoningDelta"):
            return self._delta(event)
        return [*self.flush(), self.redactor.event(event)]

    def _delta(self, event: Any) -> list[Any]:
        key = (type(event), getattr(event, "parent_id", None))
        out = [e for k in list(self._held) if k != key for e in self._release(k)]
        _, raw = self._held.pop(key, (event, ""))
        raw += event.text
        cut = min(_word_start(raw, len(raw) - (self.redactor.longest - 1)), _open_tail(raw))
        for start, end in sorted(self.redactor.spans(raw)):
            if start < cut and (cut < end or end == len(raw)):  # one up to the end may go on
                cut = start
        if cut:
            out.append(dataclasses.replace(event, text=self.redactor.text(raw[:cut])))
        if raw[cut:]:
            self._held[key] = (event, raw[cut:])
        return out

    def _release(self, key: tuple[type, Any]) -> list[Any]:
        event, raw = self._held.pop(key)
        return [dataclasses.replace(event, text=self.redactor.text(raw))] if raw else []

    def flush(self) -> list[Any]:
        return [e for k in list(self._held) for e in self._release(k)]


_WORD_START = re.compile(r"(?:^|(?<=\s))\S")
_HOLD_CAP = 2048  # a "word" longer than this is released anyway


def _word_start(raw: str, at: int) -> int:
    """Where the word holding `at` starts (a held tail is whole words: a shape's context stays in it)."""
    if at <= 0:
        return 0
    base = max(at - _HOLD_CAP, 0)
    return max(raw.rfind(c, base, at) for c in " \t\n") + 1 or base


def _open_tail(raw: str) -> int:
    """Where the part of `raw` that may still grow into a credential starts: the last word, unless
    it ends in whitespace (a URL or token is one word), or from a header hint among the last three
    words whose value has not come yet."""
    base = max(len(raw) - _HOLD_CAP, 0)
    starts = [base + m.start() for m in _WORD_START.finditer(raw[base:])] or [base]
    cut = len(raw) if raw[-1:].isspace() else starts[-1]
    hints = list(credentials.HEADER_HINT.finditer(raw, starts[-3:][0]))
    if hints:
        hint = hints[0].start()
        if not any(m.secret_end > hint for m in credentials.matches(raw)):
            cut = min(cut, max(s for s in starts if s <= hint))
    return cut


class SecretFilter(logging.Filter):
    """Rewrites a log record's message (and traceback text) with secrets redacted."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self._redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        redactor = self._redactor or default_redactor()
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: leave it to the handler's own error path
            return True
        record.msg, record.args = redactor.text(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redactor.text(record.exc_text)
        if record.stack_info:
            record.stack_info = redactor.text(record.stack_info)
        return True

"""Text that can travel: to a provider (JSON over UTF-8), into the thread DB, onto a terminal.

Python strings can hold lone surrogates — bytes that were not UTF-8 decoded with
`surrogateescape` (file names, `sys.argv`, stdin under a C locale) or `\\ud800` escapes in some
JSON. They cannot be encoded as UTF-8, so one of them in a prompt or a tool result makes every
later provider request of the thread fail. `clean_text` replaces each with U+FFFD.

Text from a model, a tool or an MCP server must not drive a terminal (retitle it, clear it, write
the clipboard with OSC 52): `visible` shows each control character as its Unicode control picture
(`␛`, `␇`), one cell like the character and never mistaken for typed text (as caret `^[` can be).
Every sink that writes such text to a terminal applies it; stored text and JSON keep it as it came.
Standard library only.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections.abc import Callable
from typing import Any, TypeVar

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (the same object when there is none)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def clean_content(content: Any) -> Any:
    """A message content (a string or a list of blocks) with clean text; the same object when clean."""
    if isinstance(content, str):
        return clean_text(content)
    if not isinstance(content, list):
        return content
    out = [clean_block(block) for block in content]
    return out if any(map(operator.is_not, out, content)) else content


def clean_block(block: Any) -> Any:
    if isinstance(block, str):
        return clean_text(block)
    if isinstance(block, dict) and isinstance(block.get("text"), str):
        text = clean_text(block["text"])
        return block if text is block["text"] else {**block, "text": text}
    return block


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 but \\n and \\t, DEL, C1
_Event = TypeVar("_Event")


def _picture(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟
    return "\u2421" if code == 0x7F else "\u241b" + chr(code - 0x40)  # ␡; C1 as ␛ and its 7-bit twin


def visible(text: str) -> str:
    """`text` that cannot drive a terminal: newline and tab kept, a CRLF line end a newline, every
    other control character its control picture (ESC `␛`, BEL `␇`, a bare CR `␍`, DEL `␡`), and
    an 8-bit C1 control `␛` with its 7-bit twin (CSI `\\x9b` is `␛[`)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_picture, text.replace("\r\n", "\n"))


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """`value` with `fn` applied to every string inside it (dicts, lists and tuples are copied)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(map_strings(v, fn) for v in value)
    return value


def map_event(event: _Event, fn: Callable[[str], str]) -> _Event:
    """An IR event (a frozen dataclass) with `fn` applied to the strings of its wire fields."""
    changes = {}
    for f in dataclasses.fields(event):  # type: ignore[arg-type]
        if f.metadata.get("wire", True):
            old = getattr(event, f.name)
            if (new := map_strings(old, fn)) != old:
                changes[f.name] = new
    return dataclasses.replace(event, **changes) if changes else event  # type: ignore[type-var]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun in the number it needs: "1 turn", "2 turns", "0 files", "1 entry"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def size_text(n: int, unit: str = "bytes") -> str:
    """`n` bytes as "512 bytes" (`unit`: the word under 1 KB), "1.2 KB" or "3.4 MB"."""
    if n < 1024:
        return f"{n} {unit}"
    return f"{n / 1024:.1f} KB" if n < 1024**2 else f"{n / 1024**2:.1f} MB"

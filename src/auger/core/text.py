"""Text that can travel: to a provider (JSON over UTF-8), into the thread DB, onto a terminal.

Python strings can hold lone surrogates — bytes that were not UTF-8 decoded with
`surrogateescape` (file names, `sys.argv`, stdin under a C locale) or `\\ud800` escapes in some
JSON. They cannot be encoded as UTF-8, so one of them in a prompt or a tool result makes every
later provider request of the thread fail. `clean_text` replaces each with U+FFFD.
Standard library only.
"""

from __future__ import annotations

import operator
import re
from typing import Any

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


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun in the number it needs: "1 turn", "2 turns", "0 files", "1 entry"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def size_text(n: int, unit: str = "bytes") -> str:
    """`n` bytes as "512 bytes" (`unit`: the word under 1 KB), "1.2 KB" or "3.4 MB"."""
    if n < 1024:
        return f"{n} {unit}"
    return f"{n / 1024:.1f} KB" if n < 1024**2 else f"{n / 1024**2:.1f} MB"

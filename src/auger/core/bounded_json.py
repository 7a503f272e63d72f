"""JSON from a peer — a request body of `auger serve`, a line on `auger acp`'s stdin — with its
nesting bounded before it is parsed. Python's parser recurses once per level: 100,000 `[` raise
RecursionError (a 500, an agent that stops reading) where a client mistake should be a
ValueError the front end answers (400, JSON-RPC's parse error). Standard library only: the ACP
handshake path imports it.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 100  # arrays and objects inside each other; what auger reads is a handful deep
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class TooDeep(ValueError):
    """The JSON nests deeper than MAX_DEPTH."""


def check_depth(raw: bytes) -> None:
    """TooDeep when `raw`'s arrays and objects nest deeper than MAX_DEPTH (brackets in strings
    do not count); stops at the first level too many."""
    depth = 0
    for byte in _STRINGS.sub(b"", raw).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        if depth > MAX_DEPTH:
            raise TooDeep(f"arrays and objects nest more than {MAX_DEPTH} levels deep (the limit)")


def loads(raw: bytes) -> Any:
    """`json.loads(raw)` after `check_depth`: any fault is a ValueError."""
    check_depth(raw)
    return json.loads(raw)

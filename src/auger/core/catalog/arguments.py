"""`$ARGUMENTS` and `$1` … `$9` in custom commands and skills, as Claude Code expands them.

`$ARGUMENTS` is everything typed after the command name; `$1` … `$9` are its words split like a
shell would (quotes group words; a line that does not split, such as an unclosed quote, falls
back to splitting on spaces); a missing position is empty. `$$` is not special. A body that uses
none of these gets the arguments appended by its caller (`uses_arguments` tells it).
"""

from __future__ import annotations

import re
import shlex

_PLACEHOLDER = re.compile(r"\$(ARGUMENTS\b|[1-9](?![0-9]))")


def positional(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def uses_arguments(text: str) -> bool:
    return _PLACEHOLDER.search(text) is not None


def expand_arguments(text: str, args: str) -> str:
    """`text` with `$ARGUMENTS` and `$1` … `$9` replaced from `args`."""
    words = positional(args)

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return args
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    return _PLACEHOLDER.sub(value, text)

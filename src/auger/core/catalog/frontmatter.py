"""Markdown files with YAML frontmatter (SKILL.md, agents/NAME.md): read, split, validate names;
the `Catalog` of what was read from them, and `/name args` invocations of its entries.

`read_frontmatter(path)` returns `(metadata, body)` or raises `FrontmatterError` with a reason a
user can act on ("no frontmatter", "invalid YAML at line 3", "not UTF-8", ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

MAX_FILE_BYTES = 1_000_000
MAX_NAME = 64
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_INVOCATION = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s+(.*))?\Z", re.DOTALL)


class FrontmatterError(ValueError):
    """Why a definition file was skipped."""


T = TypeVar("T")


@dataclass
class Catalog(Generic[T]):
    """The usable definitions of one kind (skills, commands, subagents) by name, sorted, and why
    others were skipped."""

    items: dict[str, T] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items.values())

    def __len__(self) -> int:
        return len(self.items)

    def get(self, name: str) -> T | None:
        return self.items.get(name)

    def invocation(self, prompt: str) -> tuple[T, str] | None:
        """(item, args) when `prompt` is `/name args` for an item here, else None."""
        match = _INVOCATION.match(prompt.strip())
        item = self.get(match.group(1)) if match else None
        if match is None or item is None:
            return None
        return item, (match.group(2) or "").strip()


def split(text: str) -> tuple[dict[str, Any], str]:
    import yaml

    match = _FRONTMATTER.match(text)
    if not match:
        raise FrontmatterError("no YAML frontmatter (the file must start with a '---' block)")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # a safe loader, libyaml's when it is built
    try:
        data = yaml.load(match.group(1), Loader=loader)
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"invalid YAML in the frontmatter{_where(exc)}") from None
    if not isinstance(data, dict):
        raise FrontmatterError("the frontmatter is not a mapping of keys to values")
    return data, text[match.end() :]


def _where(exc: Any) -> str:
    """ " at line N: problem" with file line numbers (the frontmatter starts on line 2); an unclosed
    `[`, `{` or quote is reported where it was opened."""
    mark, opened = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if opened is not None and mark is not None and opened.line != mark.line:
        return f" at line {opened.line + 2}: {getattr(exc, 'context', None) or 'opened here'}, {problem}"
    return f" at line {mark.line + 2}: {problem}" if mark is not None else f": {problem}"


def read_text(path: Path) -> str:
    """A definition file's text; FrontmatterError when it is unreadable, too large or not UTF-8."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise FrontmatterError(f"too large ({size} bytes, limit {MAX_FILE_BYTES})")
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise FrontmatterError(f"unreadable: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise FrontmatterError("not UTF-8 text") from None


def read_frontmatter(path: Path) -> tuple[dict[str, Any], str]:
    return split(read_text(path))


def name_problem(name: str) -> str | None:
    """Why `name` is not a valid skill/agent name (lowercase letters, digits, single hyphens)."""
    if not name:
        return "'name' is missing"
    if len(name) > MAX_NAME:
        return f"name {name!r} is longer than {MAX_NAME} characters"
    if not _NAME.match(name):
        return f"name {name!r} must be lowercase letters, digits and single hyphens"
    return None


def text_field(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value.strip() if isinstance(value, str) else ""


def name_list(value: Any) -> list[str] | None:
    """A list of names from a YAML list or a comma/space separated string (None if absent)."""
    if value is None:
        return None
    items = value if isinstance(value, list) else re.split(r"[\s,]+", str(value))
    return [str(i).strip() for i in items if str(i).strip()]


def allowed_tools(data: dict[str, Any]) -> tuple[str, ...]:
    """The `allowed-tools` of a skill or command, each checked as a permission rule."""
    from auger.core.safety.claude_tools import split_tool_list
    from auger.core.safety.rules import RuleError, parse_rule

    tools = tuple(split_tool_list(data.get("allowed-tools") or data.get("allowed_tools")))
    for tool in tools:
        try:
            parse_rule(tool)
        except RuleError as exc:
            raise FrontmatterError(f"allowed-tools: {exc.message}") from None
    return tools

"""What the completion menu offers for the text being typed: slash commands, skills, custom
commands, MCP prompts, a command's arguments, or `@path`s from the project's file index."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from auger.tui.commands import REGISTRY
from auger.tui.prompt.files import mention_at

if TYPE_CHECKING:
    from collections.abc import Callable

    from auger.tui.facts import Facts
    from auger.tui.prompt.files import FileIndex

MAX_ITEMS = 12


@dataclass(frozen=True)
class Completion:
    value: str  # the text that replaces the typed token
    label: str = ""  # shown (defaults to value)
    help: str = ""


@dataclass(frozen=True)
class CompletionSet:
    start: int  # offset in the input text of the token being completed
    end: int
    items: list[Completion]


def _commands(facts: Facts, prefix: str) -> list[Completion]:
    out: list[Completion] = []
    for typed, cmd in REGISTRY.matching(prefix):
        required = bool(cmd.args) and not cmd.args.startswith("[")
        label = f"/{typed} {cmd.args}".rstrip()
        out.append(Completion(f"/{typed}" + (" " if required else ""), label, cmd.help))
    for kind, name, hint, description in facts.invocable():  # (skill names are lowercase)
        if name.lower().startswith(prefix.lower()) and REGISTRY.get(name) is None:
            out.append(Completion(f"/{name} ", f"/{name} {hint}".rstrip(), f"{kind}: {description}"))
    for server in (facts.catalogue.mcp or []) if facts.catalogue else []:
        for usage in server.prompts:
            command = usage.split(" ", 1)[0]
            if command[1:].startswith(prefix):
                out.append(Completion(f"{command} ", usage, f"MCP prompt of {server.name}"))
    return out[:MAX_ITEMS]


def completions(facts: Facts, files: Callable[[], FileIndex], text: str, cursor: int) -> CompletionSet | None:
    before = text[:cursor]
    if before.startswith("/") and "\n" not in before:
        head, space, rest = before[1:].partition(" ")
        if not space:
            end = len(head) + 1
            return CompletionSet(0, end, _commands(facts, head))
        cmd = REGISTRY.get(head)
        if cmd is not None and cmd.complete is not None:
            start = len(head) + 2
            items = [c for c in cmd.complete(facts, rest) if c.value != rest][:MAX_ITEMS]
            return CompletionSet(start, len(text), items)
        return None
    found = mention_at(text, cursor)
    if found is None:
        return None
    start, partial = found
    items = [Completion(f"@{path} ", f"@{path}") for path in files().match(partial, MAX_ITEMS)]
    return CompletionSet(start, cursor, items)

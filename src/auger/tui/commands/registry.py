"""The one slash-command registry: name, aliases, argument hint, help, handler and argument
completer. `/help`, the completion menu and dispatch all read it."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auger.tui.commands.context import CommandContext
    from auger.tui.facts import Facts
    from auger.tui.prompt.completer import Completion

Handler = Callable[["CommandContext", str], Awaitable[None]]
ArgCompleter = Callable[["Facts", str], list["Completion"]]


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    args: str = ""  # e.g. "[spec]"
    complete: ArgCompleter | None = None
    needs_session: bool = True  # wait for the agent before running
    idle_only: bool = False  # refuse while a turn runs

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


class Registry:
    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._names: dict[str, str] = {}  # name or alias -> name

    def command(
        self,
        name: str,
        help: str,
        *,
        aliases: tuple[str, ...] = (),
        args: str = "",
        complete: ArgCompleter | None = None,
        needs_session: bool = True,
        idle_only: bool = False,
    ) -> Callable[[Handler], Handler]:
        """Decorator: register `handler` as `/name`."""

        def register(handler: Handler) -> Handler:
            cmd = Command(name, help, handler, aliases, args, complete, needs_session, idle_only)
            for key in (name, *aliases):
                if key in self._names:
                    raise ValueError(f"slash command /{key} registered twice")
                self._names[key] = name
            self._commands[name] = cmd
            return handler

        return register

    def get(self, name: str) -> Command | None:
        real = self._names.get(name.lower())
        return self._commands[real] if real else None

    def all(self) -> list[Command]:
        return sorted(self._commands.values(), key=lambda c: c.name)

    def matching(self, prefix: str) -> list[tuple[str, Command]]:
        """(name or alias typed, command) for every key starting with `prefix`, names first."""
        prefix = prefix.lower()
        out = [(c.name, c) for c in self.all() if c.name.startswith(prefix)]
        seen = {c.name for _, c in out}
        for alias, real in sorted(self._names.items()):
            if alias != real and alias.startswith(prefix) and real not in seen:
                out.append((alias, self._commands[real]))
        return out

    def suggest(self, name: str, extra: list[str] | None = None) -> str | None:
        typed = name.lower()
        names = [*self._names, *(extra or [])]
        close = difflib.get_close_matches(typed, names, n=5, cutoff=0.5)
        if close:  # prefer the same letters in another order (a transposed typo)
            return max(close, key=lambda c: _closeness(typed, c))
        starts = [n for n in names if n.startswith(name.lower()[:2])] if len(name) >= 2 else []
        return starts[0] if starts else None


def _closeness(typed: str, real: str) -> float:
    bonus = 0.5 if sorted(typed) == sorted(real) else 0.0
    return difflib.SequenceMatcher(None, typed, real).ratio() + bonus


def parse(text: str) -> tuple[str, str] | None:
    """`/name args` -> (name, args); None when `text` is not a slash command (e.g. a path)."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    if not head or "/" in head:
        return None
    return head, rest.strip()


REGISTRY = Registry()
command = REGISTRY.command

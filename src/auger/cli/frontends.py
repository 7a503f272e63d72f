"""`auger` picks where the agent runs (local | remote) and which front end talks to it (tui |
headless) once, from its arguments, in `run` below; every pair works."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.core.port import SessionFactory
    from auger.settings import Settings


def tui(settings: Settings, args: Any, factory: SessionFactory) -> int:
    """The TUI; afterwards, how to resume the thread."""
    import contextlib

    from auger.errors import UsageError
    from auger.tui import make_app
    from auger.tui.hangup import writes_survive_hangup

    if not sys.stdout.isatty():
        raise UsageError("The TUI needs a terminal.", hint='Use auger -n "task" for a headless run.')
    local = not args.connect  # over --connect the server's config, its trust, count
    app = make_app(
        settings,
        factory,
        thread_id=args.resume or None,
        first_run=local,
        project_wants=_wants if local else None,
    )
    with writes_survive_hangup():
        code = app.run()
    hint = app.resume_hint()
    if app.exit_transcript:  # `[tui] scrollback_on_exit`: the conversation stays in the terminal
        with contextlib.suppress(OSError):
            print(app.exit_transcript + "\n", flush=True)
    if hint:
        where = f"auger --connect {args.connect} " if args.connect else "auger "
        with contextlib.suppress(OSError):  # the terminal is gone (SIGHUP): nobody to tell
            print(f"Resume this conversation with: {hint.replace('auger ', where, 1)}", flush=True)
    return int(code or 0)


def _wants(settings: Settings) -> list[str]:
    from auger.cli.trust import project_wants

    return project_wants(settings)


def headless(settings: Settings, args: Any, factory: SessionFactory) -> int:
    import asyncio

    from auger.cli.command import STARTED
    from auger.headless import run_headless

    prompt = read_prompt(args)
    return asyncio.run(
        run_headless(
            settings,
            prompt,
            factory,
            output_format=args.output_format,
            resume=args.resume or None,
            started=STARTED,
        )
    )


def run(settings: Settings, args: Any) -> int:
    from auger.cli import agents

    unattended = args.non_interactive is not None or (not sys.stdin.isatty() and not args.connect)
    if unattended:
        end_startup()
    if args.connect:
        factory = agents.remote(args.connect, args.token)
    else:
        if args.resume is not None:  # -r: newest thread of this project; -r ID: a prefix
            from auger.core.threads.store import resolve_thread

            args.resume = resolve_thread(settings, args.resume or None)
        factory = agents.local(agents.options_from_args(args, headless=unattended))
    return (headless if unattended else tui)(settings, args, factory)


def read_prompt(args: Any) -> str:
    from auger.errors import UsageError

    text = args.non_interactive or ""
    if not sys.stdin.isatty():
        piped = sys.stdin.buffer.read().decode("utf-8", errors="replace")  # not UTF-8: U+FFFD, no error
        text = f"{text}\n\n{piped}".strip() if text else piped.strip()
    if not text.strip():
        raise UsageError("No task given.", hint='Use auger -n "your task" or pipe it on stdin.')
    return text


def end_startup() -> None:
    """The garbage collector back on (it is off until the TUI's first paint, `auger.tui.gcpolicy`)."""
    module = sys.modules.get("auger.tui.gcpolicy")
    if module is not None:
        module.end_startup()

"""`auger threads rewind ID --to N` and `auger threads diff ID [--turn N]` (see `auger.core.rewind`).

Rewind restores what the agent changed in the project's files from user turn N on (`--files`),
cuts the conversation back to before turn N (`--conversation`), or both (the default): files
first — a refusal (a file changed by hand since, the snapshots missing) leaves files and
conversation as they were. Exit codes: 0 done, 2 usage (no such turn) or files changed by hand
(use --force), 1 snapshots missing or damaged, or the thread busy in another auger — a rewind
holds the thread's writer lease (`auger.core.threads.lease`), so no turn starts meanwhile.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from auger.core.rewind.options import RewindOptions
from auger.core.threads.lease import ThreadBusyError, hostname
from auger.core.threads.store import ThreadStore

if TYPE_CHECKING:
    from auger.core.rewind.ops import FilesRewind


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    rewind = sub.add_parser(
        "rewind", help="undo the agent's file changes and/or the conversation from turn N on"
    )
    rewind.add_argument("id")
    rewind.add_argument(
        "--to", metavar="N", type=int, required=True, help="go back to just before user turn N"
    )
    what = rewind.add_mutually_exclusive_group()
    what.add_argument("--files", action="store_true", help="only the files (keep the conversation)")
    what.add_argument("--conversation", action="store_true", help="only the conversation (keep the files)")
    rewind.add_argument("--force", action="store_true", help="also overwrite files changed by hand since")
    rewind.add_argument("--dry-run", action="store_true", help="only list what would change")
    diff = sub.add_parser("diff", help="the agent's file changes as a unified diff")
    diff.add_argument("id")
    diff.add_argument("--turn", metavar="N", type=int, help="only user turn N (default: the whole thread)")


def _options(root: Path) -> RewindOptions:
    """The [rewind] settings of the thread's project (not of the folder the command runs in)."""
    from auger.settings import load_settings

    return RewindOptions.from_settings(load_settings(cwd=root))


def rewind(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    from auger.core.rewind import ops

    thread_id = store.resolve(args.id)
    home = store.path.parent
    with _holding(store, thread_id):
        turns = ops.check_turn(store.path, thread_id, args.to)
        if not args.conversation:
            done = ops.rewind_files(
                home, store.path, thread_id, args.to, _options, force=args.force, dry_run=args.dry_run
            )
            _print_files(done)
        if not args.files:
            _conversation(store, thread_id, args.to, turns, dry_run=args.dry_run)
    return 0


@contextmanager
def _holding(store: ThreadStore, thread_id: str) -> Iterator[None]:
    """The thread's writer lease for the rewind: refused while another auger runs a turn on it."""
    owner = f"{hostname()}:{os.getpid()}:rewind"
    busy = store.claim_lease(thread_id, owner)
    if busy is not None:
        raise ThreadBusyError(
            f"Thread {thread_id} is busy in another auger ({busy.describe()}); nothing was changed.",
            hint="Rewind it when its turn is over.",
        )
    try:
        yield
    finally:
        store.release_lease(thread_id, owner)


def diff(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    from auger.core.rewind import ops

    thread_id = store.resolve(args.id)
    text = ops.thread_diff(store.path.parent, store.path, thread_id, args.turn, _options)
    if text:
        sys.stdout.write(text)
    else:
        where = f" in turn {args.turn}" if args.turn is not None else ""
        print(f"No file changes recorded{where} of thread {thread_id[:12]}.", file=sys.stderr)
    return 0


def _print_files(done: FilesRewind) -> None:
    if not done.steps:
        print(f"Files: nothing to undo from turn {done.turn} on.")
        return
    verb = "Would change" if done.dry_run else "Changed"
    print(f"{verb} {len(done.steps)} file(s) back to before turn {done.turn}:")
    for step in done.steps:
        print(
            f"  {step.verb:<9} {step.path}"
            + ("  (your changes overwritten)" if step.path in done.forced else "")
        )


def _conversation(store: ThreadStore, thread_id: str, to: int, turns: int, *, dry_run: bool) -> None:
    import asyncio

    from auger.core.threads.index import truncate_thread

    span = f"turn {to}" if to == turns else f"turns {to}-{turns}"
    if dry_run:
        print(f"Would remove user {span} from the conversation.")
        return
    asyncio.run(truncate_thread(store, thread_id, to - 1))
    print(f"Removed user {span} from the conversation ({to - 1} left).")

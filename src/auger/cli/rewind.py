"""`auger threads rewind ID --to N` and `auger threads diff ID [--turn N]` (see `auger.core.rewind`).

Rewind restores what the agent changed in the project's files from user turn N on (`--files`),
cuts the conversation back to before turn N (`--conversation`), or both (the default): files
first — a refusal (a file changed by hand since, the snapshots missing) leaves files and
conversation as they were. Exit codes: 0 done, 2 usage (no such turn) or files changed by hand
(use --force), 1 snapshots missing or damaged, or the thread busy in another auger — a rewind
holds the thread's writer lease (`auger.core.rewind.thread_rewind`), so no turn starts meanwhile.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from auger.core.text import counted

if TYPE_CHECKING:
    from auger.core.rewind.thread_rewind import Rewound
    from auger.core.threads.store import ThreadStore


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


def rewind(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    import asyncio

    from auger.core.rewind.thread_rewind import rewind_thread

    done = asyncio.run(
        rewind_thread(
            store,
            args.id,
            args.to,
            files=not args.conversation,
            conversation=not args.files,
            force=args.force,
            dry_run=args.dry_run,
        )
    )
    _print(done)
    return 0


def diff(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    from auger.core.rewind.ops import thread_diff

    text = thread_diff(store, args.id, args.turn)
    if text:
        sys.stdout.write(text)
    else:
        where = f" in turn {args.turn}" if args.turn is not None else ""
        print(f"No file changes recorded{where} of thread {args.id[:12]}.", file=sys.stderr)
    return 0


def _print(done: Rewound) -> None:
    if done.files is not None:
        _print_files(done)
    if done.removed_turns is not None:
        span = f"turn {done.turn}" if done.turn == done.turns else f"turns {done.turn}-{done.turns}"
        if done.dry_run:
            print(f"Would remove user {span} from the conversation.")
        else:
            print(f"Removed user {span} from the conversation ({done.left} left).")


def _print_files(done: Rewound) -> None:
    if not done.files:
        print(f"Files: nothing to undo from turn {done.turn} on.")
        return
    verb = "Would change" if done.dry_run else "Changed"
    print(f"{verb} {counted(len(done.files), 'file')} back to before turn {done.turn}:")
    for step in done.files:
        print(f"  {step.verb:<9} {step.path}" + ("  (your changes overwritten)" if step.forced else ""))

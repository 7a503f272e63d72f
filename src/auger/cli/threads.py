"""`auger threads list|show|rename|delete|fork|prune|rewind|diff`.

`list`, `rename`, `delete`, `prune` and `diff` touch SQLite only (no LangGraph import), so they
start fast; `show`, `fork` and `rewind` read the conversation through LangGraph. Thread ids may be
given as any unique prefix. `rewind` and `diff` live in `auger.cli.rewind`; `delete` and `prune`
also drop the snapshots no thread references any more (`auger.core.rewind.housekeeping`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from auger import paths
from auger.cli import rewind as rewind_cmd
from auger.core.backends.mounts import artifacts_dir
from auger.core.rewind.records import sizes as snapshot_sizes
from auger.core.text import counted, size_text, visible
from auger.core.threads.backend import ThreadDatabase, database_at
from auger.core.threads.lease import ThreadBusyError
from auger.core.threads.store import ThreadInfo, ThreadStore, parse_age
from auger.errors import AugerError, ConfigError

if TYPE_CHECKING:
    from auger.core.rewind.housekeeping import Swept

DEFAULT_LIMIT = 50


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="auger threads", description="Saved conversations (threads).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    ls = sub.add_parser("list", help="this project's threads, newest first")
    where = ls.add_mutually_exclusive_group()
    where.add_argument("--all", action="store_true", help="threads of every project")
    where.add_argument("--cwd", metavar="DIR", help="threads of the project holding DIR")
    ls.add_argument("--search", metavar="TEXT", help="only threads whose messages contain every word")
    ls.add_argument("--limit", metavar="N", type=int, default=DEFAULT_LIMIT, help="at most N (0: no limit)")
    ls.add_argument("--json", action="store_true", help="a JSON array of thread objects")
    show = sub.add_parser("show", help="print a thread's transcript")
    show.add_argument("id")
    show.add_argument("--markdown", action="store_true", help="Markdown instead of plain text")
    rename = sub.add_parser("rename", help="give a thread a title")
    rename.add_argument("id")
    rename.add_argument("title", nargs="+")
    delete = sub.add_parser(
        "delete", help="delete a thread: its checkpoints, search index and offloaded files"
    )
    delete.add_argument("id")
    fork = sub.add_parser("fork", help="copy a thread's history (up to user turn N) into a new thread")
    fork.add_argument("id")
    fork.add_argument("--at", metavar="N", type=int, help="keep user turns 1..N (default: all)")
    prune = sub.add_parser("prune", help="delete threads not used for a while (every project)")
    prune.add_argument("--older-than", metavar="AGE", required=True, help="e.g. 30d, 12h, 2w")
    prune.add_argument("--dry-run", action="store_true", help="only list what would be deleted")
    rewind_cmd.add_parsers(sub)
    return p


def run(argv: list[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run `auger threads ...`; returns the exit code. AugerError -> one line on stderr."""
    parser = _parser()
    try:
        args = parser.parse_args(argv or ["list"])
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed
        return int(exc.code or 0)
    env = os.environ if env is None else env
    cwd = (cwd or Path.cwd()).resolve()
    try:
        db = _database(env, cwd)
        if args.command == "list" and not db.postgres and not db.path.exists():
            return _print_list([], args, {}, all_projects=bool(args.all))
        with ThreadStore.connect(db) as store:
            if "id" in args:  # a thread id or any unique prefix of one
                args.id = store.resolve(args.id)
            return COMMANDS[args.command](store, args, cwd)
    except AugerError as err:
        print(f"auger: {err}", file=sys.stderr)
        return err.exit_code
    except BrokenPipeError:  # `auger threads list | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _database(env: Mapping[str, str], cwd: Path) -> ThreadDatabase:
    """The thread database: AUGER_DATABASE_URL, else `database_url` of the user's config (read
    without loading every setting), else the SQLite file in AUGER_HOME."""
    home = paths.auger_home(env)
    url = env.get("AUGER_DATABASE_URL", "").strip()
    if not url:
        from auger.settings import read_toml, user_config_path

        value = (read_toml(user_config_path(home)) or {}).get("database_url")
        if value is not None and not isinstance(value, str):
            raise ConfigError(
                f"{user_config_path(home)}: database_url must be a string (got {value!r}).",
                hint='Write e.g. database_url = "postgresql://auger@db.example:5432/auger".',
            )
        url = value or ""
    return database_at(home, url)


def _highlighted(snippet: str) -> str:
    """Search hits in bold on a terminal; plain words in a pipe; control characters as pictures."""
    from auger.core.threads.search import snippet_parts

    bold = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    on, off = ("\x1b[1m", "\x1b[22m") if bold else ("", "")
    return "".join(f"{on}{visible(t)}{off}" if hit else visible(t) for t, hit in snippet_parts(snippet))


def _list(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    root = None if args.all else str(paths.project_root(Path(args.cwd).expanduser() if args.cwd else cwd))
    limit = None if args.limit <= 0 else args.limit
    threads = store.list(root=root, search=args.search, limit=limit)
    with store.records() as db:
        sizes = snapshot_sizes(db, [t.id for t in threads])
    return _print_list(threads, args, sizes, all_projects=root is None)


def _print_list(
    threads: list[ThreadInfo],
    args: argparse.Namespace,
    sizes: dict[str, int],  # thread id -> bytes of its snapshots
    *,
    all_projects: bool,
) -> int:
    if args.json:
        rows = [{**t.to_dict(), "snapshot_bytes": sizes.get(t.id, 0)} for t in threads]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not threads:
        what = "matching threads" if args.search else "threads"
        where = "" if all_projects else " in this project (try --all)"
        print(f"No {what}{where}.")
        return 0
    for t in threads:
        fork = f"  (fork of {t.parent_id[:8]} @{t.fork_turn})" if t.parent_id else ""
        snap = f"  [{size_text(sizes[t.id], 'B')} snapshots]" if sizes.get(t.id) else ""
        msgs = "msg " if t.message_count == 1 else "msgs"
        title, when = visible(t.title or "Untitled"), datetime.fromtimestamp(t.updated_at)  # local time
        print(f"{t.id[:12]}  {when:%Y-%m-%d %H:%M}  {t.message_count:>4} {msgs}  {title}{fork}{snap}")
        if all_projects:
            print(f"{'':14}{t.cwd}")
        if t.snippet is not None:
            print(f"{'':14}… {_highlighted(t.snippet)}")
    return 0


def _show(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    import asyncio

    from auger.core.threads.history import read_history, to_events
    from auger.core.threads.transcript import render_markdown, render_text

    events = to_events(asyncio.run(read_history(store.database, args.id)), args.id)
    render = render_markdown if args.markdown else render_text
    sys.stdout.write(render(events, store.get(args.id), args.id))
    return 0


def _rename(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    store.rename(args.id, " ".join(args.title))
    print(f"Renamed {args.id[:12]}.")
    return 0


def _delete(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    holder = store.lease_holder(args.id)
    if holder is not None:
        raise ThreadBusyError(
            f"Thread {args.id} is busy in another auger ({holder.describe()}).",
            hint="Delete it when its turn is over.",
        )
    info = store.get(args.id)
    files = store.delete(args.id)
    print(f"Deleted thread {args.id}" + (f" ({info.title})." if info and info.title else "."))
    if files:
        print(f"Deleted {counted(files, 'offloaded tool result / history file')} of it.")
    _sweep_snapshots(store)  # its snapshots, unless a fork shares them
    return 0


def _fork(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    import asyncio

    from auger.core.threads.index import fork_thread

    print(asyncio.run(fork_thread(store, args.id, args.at)))
    return 0


def _prune(store: ThreadStore, args: argparse.Namespace, cwd: Path) -> int:
    age = parse_age(args.older_than)
    ids = store.prune(age, dry_run=args.dry_run)
    files = _prune_artifacts(artifacts_dir(store.home), time.time() - age, dry_run=args.dry_run)
    verb = "Would delete" if args.dry_run else "Deleted"
    print(f"{verb} {counted(len(ids), 'thread')} not used for {args.older_than}.")
    if args.dry_run and ids:
        print("\n".join(f"  {thread_id}" for thread_id in ids))
    if files:
        print(f"{verb} {counted(files, 'offloaded tool result / history file')} older than that.")
    if not args.dry_run:
        swept = _sweep_snapshots(store)
        if swept.objects or swept.stores:
            objects, stores = counted(swept.objects, "snapshot object"), counted(swept.stores, "store")
            print(f"Removed {objects}, {stores} no thread uses.")
        try:
            before, after = store.vacuum()
        except AugerError as err:  # the threads are deleted; only giving the space back failed
            print(f"auger: {err}", file=sys.stderr)
            return 1
        print(f"Compacted {store.location}: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB.")
    return 0


def _sweep_snapshots(store: ThreadStore) -> Swept:
    from auger.core.rewind import housekeeping

    with store.records() as db:
        return housekeeping.collect(store.home, db)


def _prune_artifacts(folder: Path, cutoff: float, *, dry_run: bool) -> int:
    """Files deepagents offloaded (large tool results, summarised history) not touched since `cutoff`."""
    old = [p for p in folder.rglob("*") if p.is_file() and p.stat().st_mtime < cutoff]  # no folder: none
    if not dry_run:
        for path in old:
            path.unlink(missing_ok=True)
    return len(old)


COMMANDS = {
    "list": _list,
    "show": _show,
    "rename": _rename,
    "delete": _delete,
    "fork": _fork,
    "prune": _prune,
    "rewind": rewind_cmd.rewind,
    "diff": rewind_cmd.diff,
}

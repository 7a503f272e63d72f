"""Snapshot housekeeping: drop what no thread references (`threads delete`, `threads prune`).

Deleting a thread removes its turn records with it (`ThreadStore.delete`); this then sweeps each
project store: it keeps the snapshots some remaining record names and the one its stat cache
describes (the files as they are, which the next snapshot builds on), and deletes every other
file version. A store no thread references any more is removed whole. It runs under the store's
exclusive lock, so no snapshot or rewind is reading or writing meanwhile.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from auger.core.rewind import records, trees
from auger.core.rewind.gitindex import index_path
from auger.core.rewind.objects import ObjectStore, store_lock
from auger.core.rewind.options import snapshots_dir
from auger.errors import RewindError

log = logging.getLogger("auger.rewind")


@dataclass(frozen=True)
class Swept:
    objects: int = 0  # file versions and folder listings deleted
    stores: int = 0  # whole project stores removed


def collect(home: Path, db: records.Db) -> Swept:
    """Sweep every project store under `$AUGER_HOME/snapshots/` (`db`: the thread database's
    records, `ThreadStore.records()`)."""
    folder = snapshots_dir(home)
    if not folder.is_dir():
        return Swept()
    live = records.roots(db)
    objects = stores = 0
    for path in sorted(folder.glob("*.db")):
        with store_lock(path, exclusive=True):
            try:
                with ObjectStore.open(path, "", create=False) as store:
                    root = store.root()
                    if root in live:
                        objects += _sweep(store, records.referenced_trees(db, root))
                        continue
            except RewindError as exc:  # a damaged store is left for the user to look at
                log.warning("snapshot store not swept: %s", exc)
                continue
            for gone in (*(Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm")), index_path(path)):
                gone.unlink(missing_ok=True)
            stores += 1
    return Swept(objects, stores)


def _sweep(store: ObjectStore, keep: set[str]) -> int:
    cache = store.stat_cache().tree
    reachable: set[str] = set()
    pending = [t for t in (*keep, cache) if t]
    while pending:
        tree_id = pending.pop()
        if tree_id in reachable:
            continue
        reachable.add(tree_id)
        try:
            entries = trees.decode(store.tree(tree_id))
        except RewindError:
            continue  # a missing tree keeps nothing
        for entry in entries.values():
            if entry.mode == trees.TREE:
                pending.append(entry.id)
            else:
                reachable.add(entry.id)
    with store.transaction() as cur:
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS keep (id TEXT PRIMARY KEY)")
        cur.execute("DELETE FROM temp.keep")
        cur.executemany("INSERT OR IGNORE INTO temp.keep VALUES (?)", ((i,) for i in reachable))
        cur.execute("DELETE FROM objects WHERE id NOT IN (SELECT id FROM temp.keep)")
        removed = cur.rowcount
    store.conn.execute("PRAGMA incremental_vacuum")
    return max(removed, 0)

"""Build a thread database at scale for bench_threads.py: 10,000 threads, ~200,000 messages.

    python bench/gen_threads_db.py OUT_DIR [--threads 10000] [--per-thread 20] [--big 2000]

OUT_DIR gets `home/` (AUGER_HOME: threads.db, config.toml), `projects/p00..p49` and `bench.json`.

Everything is in the real formats, written fast:

* Two threads are made by real auger Sessions (deepagents graph, AsyncSqliteSaver, the turn hooks)
  against the scripted OpenAI-compatible server: a template of `--per-thread` messages (5 turns
  with a tool call each) and one long thread of `--big` messages (turns with 8 tool calls each).
* The other threads are the template's LangGraph rows (`checkpoints`, `writes`) copied verbatim
  under new thread ids with SQL `INSERT ... SELECT`, so every one of them resumes like a real one.
* Their `auger_threads` rows and searchable message text (`auger_messages` -> FTS5 through the
  triggers) are synthetic: titles and message text drawn from a Zipf-weighted vocabulary, spread
  over 50 projects and 90 days. One rare word (RARE_WORD) sits in the tool output of 3 threads.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from auger.core.events import TurnEnded  # noqa: E402
from auger.core.port import TurnOptions, headless_policy  # noqa: E402
from auger.core.runtime import open_session  # noqa: E402
from auger.core.session.session import Session  # noqa: E402
from auger.settings import Settings, load_settings  # noqa: E402
from llm_server import ScriptedLLM  # noqa: E402

PROJECTS = 50
RARE_WORD = "xylophonic"
COMMON_WORD = "function"  # one of the most frequent words of the vocabulary
_SYLLABLE_TEXT = "ka lo mi ra te sun dor vel pin gra tho ex ul be fi zon mar qui sel tra"
_ENGLISH_TEXT = (
    "function the file test error return value class import module python config path data list "
    "string number update build run check install fix bug parser token line output input default "
    "option user thread model agent tool result read write shell command project folder branch"
)
_SYLLABLES = _SYLLABLE_TEXT.split()
_ENGLISH = _ENGLISH_TEXT.split()


def vocabulary(rng: random.Random, size: int = 20_000) -> tuple[list[str], list[float]]:
    words = list(_ENGLISH)
    while len(words) < size:
        words.append("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    cum, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / rank
        cum.append(total)
    return words, cum


def _settings(home: Path, project: Path, llm: ScriptedLLM) -> Settings:
    (home / "config.toml").write_text(
        f'model = "local:scripted-model"\n[providers.local]\nbase_url = "{llm.base_url}"\n'
        'models = ["scripted-model"]\n'
    )
    return load_settings(cwd=project, env={"AUGER_HOME": str(home)}, flags={"mode": "yolo"})


async def _turn(session: Session, prompt: str) -> None:
    async for event in session.send(prompt, TurnOptions("yolo", approval=headless_policy)):
        if isinstance(event, TurnEnded) and event.reason != "done":
            raise RuntimeError(f"turn ended with {event.reason}")


async def real_thread(settings: Settings, llm: ScriptedLLM, messages: int, calls_per_turn: int) -> str:
    """A thread of about `messages` messages made by real turns (each: prompt, tool calls, reply)."""
    per_turn = 3 + calls_per_turn if calls_per_turn else 2
    turns = max(1, round(messages / per_turn))
    session = await open_session(settings)
    try:
        for t in range(turns):
            calls = [
                {"name": "ls", "args": {"path": "/"}}
                if i % 2
                else {"name": "read_file", "args": {"file_path": "/README.md"}}
                for i in range(calls_per_turn)
            ]
            if calls:
                llm.add({"tool_calls": calls})
            llm.add(
                {"text": f"Turn {t} done: looked at the project layout and the README, nothing to change."}
            )
            await _turn(session, f"turn {t}: look at the project and summarise what you find")
        return session.thread_id
    finally:
        await session.aclose()


def copy_template(db: sqlite3.Connection, template: str, ids: list[str]) -> None:
    db.execute("CREATE TEMP TABLE IF NOT EXISTS new_ids (id TEXT PRIMARY KEY)")
    for start in range(0, len(ids), 1000):
        batch = ids[start : start + 1000]
        db.execute("DELETE FROM new_ids")
        db.executemany("INSERT INTO new_ids VALUES (?)", [(i,) for i in batch])
        db.execute(
            "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,"
            " checkpoint, metadata) SELECT n.id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id,"
            " c.type, c.checkpoint, c.metadata FROM new_ids n CROSS JOIN checkpoints c WHERE c.thread_id = ?",
            (template,),
        )
        db.execute(
            "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel,"
            " type, value) SELECT n.id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.task_path, w.idx,"
            " w.channel, w.type, w.value FROM new_ids n CROSS JOIN writes w WHERE w.thread_id = ?",
            (template,),
        )
        db.commit()


def index_rows(db: sqlite3.Connection, ids: list[str], roots: list[str], per_thread: int, seed: int) -> None:
    rng = random.Random(seed)
    words, cum = vocabulary(rng)
    rare = set(rng.sample(range(len(ids)), 3))

    def text(n: int) -> str:
        return " ".join(rng.choices(words, cum_weights=cum, k=n))

    now = time.time()
    roles = ["user", "assistant", "tool", "assistant"]
    for start in range(0, len(ids), 1000):
        threads, messages = [], []
        for i in range(start, min(start + 1000, len(ids))):
            created = now - rng.uniform(0, 90 * 86400)
            updated = min(now, created + rng.uniform(0, 3 * 86400))
            title = text(rng.randint(3, 9))
            threads.append(
                (
                    ids[i],
                    title,
                    roots[i % len(roots)],
                    roots[i % len(roots)],
                    "main",
                    "local:scripted-model",
                    created,
                    updated,
                    per_thread,
                )
            )
            for m in range(per_thread):
                role = roles[m % 4]
                body = text({"user": 12, "assistant": 30, "tool": 80}[role])
                if role == "tool" and i in rare and m == 2:
                    body += f" {RARE_WORD}"
                messages.append((ids[i], role, created + m, body))
        db.executemany(
            "INSERT INTO auger_threads (id, title, cwd, root, git_branch, model, created_at, updated_at,"
            " message_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            threads,
        )
        db.executemany(
            "INSERT INTO auger_messages (thread_key, role, at, text)"
            " SELECT key, ?, ?, ? FROM auger_threads WHERE id = ?",
            [(role, at, body, tid) for tid, role, at, body in messages],
        )
        db.commit()


async def generate(out: Path, n_threads: int, per_thread: int, big: int, seed: int = 7) -> dict[str, Any]:
    home, projects = out / "home", out / "projects"
    home.mkdir(parents=True, exist_ok=True)
    roots = []
    for p in range(PROJECTS):
        folder = projects / f"p{p:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "README.md").write_text(
            f"# project {p}\n\nA small project used by the threads benchmark.\n"
        )
        roots.append(str(folder.resolve()))
    t0 = time.perf_counter()
    with ScriptedLLM() as llm:
        settings = _settings(home, Path(roots[0]), llm)
        template = await real_thread(settings, llm, per_thread, calls_per_turn=1)
        big_id = await real_thread(settings, llm, big, calls_per_turn=8)
    t1 = time.perf_counter()
    db = sqlite3.connect(home / "threads.db", timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    rng = random.Random(seed)
    ids = [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(n_threads - 2)]
    copy_template(db, template, ids)
    t2 = time.perf_counter()
    index_rows(db, ids, roots, per_thread, seed)
    t3 = time.perf_counter()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    counts = {
        "threads": db.execute("SELECT count(*) FROM auger_threads").fetchone()[0],
        "messages": db.execute("SELECT coalesce(sum(message_count), 0) FROM auger_threads").fetchone()[0],
        "checkpoints": db.execute("SELECT count(*) FROM checkpoints").fetchone()[0],
        "writes": db.execute("SELECT count(*) FROM writes").fetchone()[0],
        "indexed_messages": db.execute("SELECT count(*) FROM auger_messages").fetchone()[0],
    }
    db.close()
    info = {
        "home": str(home),
        "projects": roots,
        "big_thread": big_id,
        "template_thread": template,
        "rare_word": RARE_WORD,
        "common_word": COMMON_WORD,
        "counts": counts,
        "db_bytes": (home / "threads.db").stat().st_size,
        "seconds": {"real_turns": t1 - t0, "copy_checkpoints": t2 - t1, "index_rows": t3 - t2},
    }
    (out / "bench.json").write_text(json.dumps(info, indent=2))
    return info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--threads", type=int, default=10_000)
    ap.add_argument("--per-thread", type=int, default=20)
    ap.add_argument("--big", type=int, default=2_000)
    args = ap.parse_args()
    if (args.out / "home" / "threads.db").exists():
        sys.exit(f"{args.out} already holds a thread database; remove it first")
    info = asyncio.run(generate(args.out, args.threads, args.per_thread, args.big))
    print(json.dumps(info["counts"]), f"{info['db_bytes'] / 1e6:.0f} MB", json.dumps(info["seconds"]))


if __name__ == "__main__":
    main()

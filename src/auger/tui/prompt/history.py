"""Prompt history: every prompt sent, persisted in `$AUGER_HOME/prompt_history.jsonl`.

Up/Down walk it from the newest; Ctrl+R searches it. Duplicates of the previous entry are not
stored twice; the file is trimmed when it grows past `MAX_ENTRIES`.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

MAX_ENTRIES = 2000
FILE_NAME = "prompt_history.jsonl"
log = logging.getLogger("auger.tui")


class PromptHistory:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: list[str] | None = None  # read on first use, not on the paint path
        self._index: int | None = None  # position while walking; None = not walking
        self._draft = ""

    @property
    def entries(self) -> list[str]:
        if self._entries is None:
            self._entries = self._load()
        return self._entries

    def _load(self) -> list[str]:
        if self.path is None or not self.path.exists():
            return []
        out: list[str] = []
        try:
            for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    text = json.loads(line).get("text")
                except (ValueError, AttributeError):
                    continue
                if isinstance(text, str) and text:
                    out.append(text)
        except OSError as exc:
            log.warning("cannot read prompt history %s: %s", self.path, exc)
        return out[-MAX_ENTRIES:]

    def add(self, text: str) -> None:
        self.reset()
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
            if len(self.entries) > MAX_ENTRIES * 1.5:
                self._rewrite()
        except OSError as exc:
            log.warning("cannot write prompt history %s: %s", self.path, exc)

    def _rewrite(self) -> None:
        assert self.path is not None
        self._entries = self.entries[-MAX_ENTRIES:]
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in self.entries))
        tmp.replace(self.path)

    # -- walking ---------------------------------------------------------------------------
    def reset(self) -> None:
        self._index, self._draft = None, ""

    @property
    def walking(self) -> bool:
        return self._index is not None

    def older(self, current: str) -> str | None:
        """The previous entry (remembering `current` as the draft when the walk starts)."""
        if not self.entries:
            return None
        if self._index is None:
            self._draft, self._index = current, len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def newer(self) -> str | None:
        """The next entry, the draft when walking past the newest, None when not walking."""
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            draft = self._draft
            self.reset()
            return draft
        return self.entries[self._index]

    def search(self, query: str, limit: int = 200) -> list[str]:
        """Newest first, unique, containing every word of `query` (case-insensitive)."""
        words = query.lower().split()
        found: dict[str, None] = {}  # an ordered set
        for text in reversed(self.entries):
            if len(found) == limit:  # (not a scan of every entry on each key typed)
                break
            if all(w in text.lower() for w in words):
                found[text] = None
        return list(found)

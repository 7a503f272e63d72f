"""Split a streamed Markdown reply into segments of bounded size.

Textual's `Markdown.append` re-parses from the start of the last block, so one huge block makes
every append slower than the last. A reply is therefore rendered as a run of Markdown widgets
("segments"): a new one starts at a blank line once the current one is past `soft` characters;
a code fence longer than `hard` is closed and reopened; a paragraph longer than `hard` with no
line break is cut at a space. Pure logic, no Textual.
"""

from __future__ import annotations

SOFT = 2_000
HARD = 6_000
FENCES = ("```", "~~~")

Op = tuple[str, str]  # ("text", s): append s to the current segment; ("split", ""): start a new one


class Splitter:
    def __init__(self, soft: int = SOFT, hard: int = HARD) -> None:
        self.soft, self.hard = soft, hard
        self.size = 0  # characters in the current segment
        self.line = ""  # the current, unfinished line
        self.fence: str | None = None  # the opening line of the fence we are in

    def feed(self, text: str) -> list[Op]:
        ops: list[Op] = []
        pending: list[str] = []

        def flush() -> None:
            if pending:
                ops.append(("text", "".join(pending)))
                pending.clear()

        for piece in text.splitlines(keepends=True):
            if not piece.endswith("\n"):
                cut = self._long_line_cut(piece)
                if cut is not None:
                    pending.append(piece[:cut])
                    flush()
                    ops.append(("split", ""))
                    self.size, self.line = 0, ""
                    piece = piece[cut:]
                pending.append(piece)
                self.size += len(piece)
                self.line += piece
                continue
            line = self.line + piece
            pending.append(piece)
            self.size += len(piece)
            self.line = ""
            split_ops = self._after_line(line)
            if split_ops:
                flush()
                ops.extend(split_ops)
        flush()
        return ops

    def _long_line_cut(self, piece: str) -> int | None:
        """Where to cut an unfinished line that has grown past `hard` (after a space), if anywhere."""
        if self.fence is not None or len(self.line) + len(piece) < self.hard or self.size < self.hard:
            return None
        space = piece.rfind(" ")
        return space + 1 if space >= 0 else None

    def _after_line(self, line: str) -> list[Op]:
        stripped = line.strip()
        if self.fence is None:
            if stripped.startswith(FENCES):
                self.fence = stripped
                return []
            if not stripped and self.size >= self.soft:
                self.size = 0
                return [("split", "")]
            return []
        if stripped.startswith(self.fence[:3]) and stripped.strip("`~") == "":
            self.fence = None
            return []
        if self.size >= self.hard:
            marker = self.fence[:3]
            self.size = len(self.fence) + 1
            return [("text", marker + "\n"), ("split", ""), ("text", self.fence + "\n")]
        return []

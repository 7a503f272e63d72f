"""Cut a streamed markdown reply into finished blocks, so only the open one is parsed again.

markdown-it's block parse (no inline rules: ~4× cheaper than a full parse) of the *open* text
says where its top-level blocks start. Every top-level block but the last is finished: what
follows cannot change it (the one exception, a link reference definition that comes after the
links using it, is accepted). The last block is split too where that is safe, so that one long
block does not make every flush slower than the last:

* a list: its items but the last are finished (each part still parses as a list: an ordered
  one restarts at its own number);
* an unclosed code fence past `FENCE_LINES` lines: the lines so far are closed off as a fence of
  their own, and the rest reopens with the same info string.

A `Chunk` so cut off is `joined` to the one before it (the renderer puts no blank line between).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import pairwise

from markdown_it import MarkdownIt

FENCE_LINES = 40
LISTS = ("bullet_list_open", "ordered_list_open")


@dataclass(frozen=True)
class Chunk:
    source: str
    joined: bool = False  # the second part of the block before it (no gap between them)


@cache
def block_parser() -> MarkdownIt:
    """The reply's dialect (CommonMark + tables + strikethrough, HTML allowed) for blocks only."""
    return MarkdownIt("gfm-like", {"linkify": False}).disable(["inline", "text_join"])


class BlockSplitter:
    def __init__(self, fence_lines: int = FENCE_LINES) -> None:
        self.fence_lines = fence_lines
        self.open = ""  # the text not cut off yet: the open block (and a partial line)
        self.joined = False  # the open text continues the block of the last chunk

    def feed(self, text: str) -> list[Chunk]:
        """Add `text`; return the blocks it finished (one block parse of the open text)."""
        self.open += text
        if "\n" not in text:
            return []
        end = self.open.rfind("\n") + 1
        lines = self.open[:end].splitlines(keepends=True)
        tokens = block_parser().parse(self.open[:end])
        top = [t for t in tokens if t.level == 0 and t.nesting >= 0 and t.map]
        if not top:
            return []
        starts = [t.map[0] for t in top]  # type: ignore[index]
        chunks = [self._take(lines[a:b], joined=False) for a, b in pairwise([0, *starts[1:]])]
        last, rest = top[-1], lines[starts[-1] :]
        if last.type in LISTS:
            items = [t.map[0] for t in tokens if t.type == "list_item_open" and t.level == 1 and t.map]
            if len(items) >= 2:
                chunks.append(self._take(lines[starts[-1] : items[-1]], joined=True))
        elif last.type == "fence":
            chunk = self._cut_fence(rest, last.markup, last.info)
            if chunk is not None:
                chunks.append(chunk)
        return chunks

    def close(self) -> list[Chunk]:
        """The end of the reply: everything left, as one last chunk."""
        rest, self.open = self.open, ""
        joined, self.joined = self.joined, False
        return [Chunk(rest, joined)] if rest.strip() else []

    def _take(self, lines: list[str], *, joined: bool) -> Chunk:
        """Cut `lines` (the start of the open text) off as a chunk; `joined`: what stays open
        continues its block."""
        head = "".join(lines)
        chunk = Chunk(head, self.joined)
        self.open = self.open[len(head) :]
        self.joined = joined
        return chunk

    def _cut_fence(self, lines: list[str], markup: str, info: str) -> Chunk | None:
        """`lines`: an open fence (its opening line first), cut when it is long."""
        body = lines[1:]
        closed = any(line.strip().startswith(markup) and not line.strip().strip(markup[0]) for line in body)
        if closed or len(body) < self.fence_lines:
            return None
        opening = lines[0]
        indent = opening[: len(opening) - len(opening.lstrip())]
        head = "".join(lines)
        chunk = Chunk(head + f"{indent}{markup}\n", self.joined)
        self.open = f"{indent}{markup}{info}\n" + self.open[len(head) :]
        self.joined = True
        return chunk

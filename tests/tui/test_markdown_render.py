"""The markdown renderer and block splitter (auger.tui.markdown), on real READMEs and changelogs
(bench/corpus, see SOURCES.md) and on the text a coding assistant must never lose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it.token import Token

from auger.tui.markdown.blocks import BlockSplitter, Chunk
from auger.tui.markdown.render import parser, render_markdown

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"
FILES = sorted(p.name for p in CORPUS.glob("*.md") if p.name != "SOURCES.md")
WORD = re.compile(r"[A-Za-z0-9_]{2,}")


def plain(lines: list) -> str:  # type: ignore[type-arg]
    return "\n".join(line.plain for line in lines)


def missing_words(words: set[str], lines: list) -> list[str]:  # type: ignore[type-arg]
    """Words not in the rendered text (read without whitespace: code and HTML lines too long
    for the width fold, anywhere in a word)."""
    text = "".join(plain(lines).split())
    return sorted(word for word in words if word not in text)


def shown_words(tokens: list[Token]) -> set[str]:
    """Every word markdown-it says is text to show (not link targets or image sources)."""
    words: set[str] = set()
    for token in tokens:
        if token.type in ("fence", "code_block", "html_block"):
            words.update(WORD.findall(token.content))
        for child in token.children or []:
            if child.type in ("text", "code_inline", "html_inline"):
                words.update(WORD.findall(child.content))
    return words


def split(text: str, step: int) -> list[Chunk]:
    splitter = BlockSplitter()
    chunks: list[Chunk] = []
    for i in range(0, len(text), step):
        chunks += splitter.feed(text[i : i + step])
    return chunks + splitter.close()


def test_generics_html_entities_and_pipes_survive() -> None:
    source = (
        "Use `List<int>` or Vec<T>; <b>bold</b> stays as typed & so does a < b > c.\n\n"
        "| Type | Example |\n|---|---|\n| union | `int \\| str` |\n| generic | Map<K, V> &amp; more |\n\n"
        '<div align="center">\n  <img src="logo.png" alt="logo">\n</div>\n'
    )
    text = plain(render_markdown(source, 80))
    for expected in (
        "List<int>",
        "Vec<T>",
        "<b>bold</b>",
        "& so does a < b > c",
        "int | str",
        "Map<K, V> & more",
    ):
        assert expected in text
    assert '<div align="center">' in text and '<img src="logo.png" alt="logo">' in text


def test_a_wide_table_keeps_every_column_at_width_60() -> None:
    headers = ["Property", "Type", "Default", "Required", "Description", "Since"]
    row = ["timeout", "number", "0", "no", "How long to wait before the request is aborted, in ms", "0.1"]
    source = f"| {' | '.join(headers)} |\n|{'---|' * 6}\n| {' | '.join(row)} |\n"
    lines = render_markdown(source, 60)
    assert max(line.cell_length for line in lines) <= 60
    text = plain(lines)
    for word in [*headers, "timeout", "aborted", "0.1"]:
        assert word in text
    assert "│" in lines[0].plain  # still a grid: the header row has its separators


def test_a_table_too_wide_for_a_grid_becomes_records() -> None:
    headers = [f"Column{i}" for i in range(12)]
    source = f"| {' | '.join(headers)} |\n|{'---|' * 12}\n| {' | '.join(f'value{i}' for i in range(12))} |\n"
    text = plain(render_markdown(source, 40))
    for i in range(12):
        assert f"Column{i}: value{i}" in text


def test_code_keeps_indentation_and_lists_wrap_under_their_marker() -> None:
    source = "```python\ndef f():\n    if x:\n        return 1\n```\n\n- " + "word " * 30 + "\n"
    lines = [line.plain for line in render_markdown(source, 40)]
    assert "        return 1" in lines[2]
    bullet = [line for line in lines if line.startswith("•")]
    assert len(bullet) == 1
    after = lines[lines.index(bullet[0]) + 1]
    assert after.startswith("  word")  # the continuation hangs under the text, not the bullet


@pytest.mark.parametrize("name", FILES)
def test_real_markdown_loses_no_text(name: str) -> None:
    source = (CORPUS / name).read_text(encoding="utf-8")
    words = shown_words(parser().parse(source))
    for width in (60, 120):
        lines = render_markdown(source, width)
        assert max(line.cell_length for line in lines) <= width
        missing = missing_words(words, lines)
        assert not missing, f"{name} at width {width} lost {missing[:20]}"


@pytest.mark.parametrize("name", FILES)
def test_streamed_in_pieces_the_blocks_are_the_same_text(name: str) -> None:
    source = (CORPUS / name).read_text(encoding="utf-8")
    chunks = split(source, 997)  # (a prime: cuts land anywhere, mid-line and mid-word)
    assert len(chunks) > 20
    rebuilt = "".join(chunk.source for chunk in chunks)
    # identical but for the fences closed and reopened where a long one was cut
    assert rebuilt == source or re.sub(r"\n(```|~~~)[^\n]*\n(```|~~~)[^\n]*\n", "\n", rebuilt) == source
    lines = [line for chunk in chunks for line in render_markdown(chunk.source, 100)]
    assert not missing_words(shown_words(parser().parse(source)), lines)


def test_only_the_open_block_stays_open() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("# Title\n\nFirst para") == []
    assert [c.source for c in splitter.feed("graph.\n\n- one\n")] == ["# Title\n\n", "First paragraph.\n\n"]
    assert splitter.feed("- two\n") == [Chunk("- one\n", False)]  # list items but the last are done
    assert splitter.open == "- two\n" and splitter.joined
    assert splitter.close() == [Chunk("- two\n", True)]


def test_a_long_open_fence_is_cut_and_reopened() -> None:
    splitter = BlockSplitter(fence_lines=5)
    chunks = splitter.feed("```python\n" + "".join(f"x = {i}\n" for i in range(8)))
    assert chunks == [Chunk("```python\n" + "".join(f"x = {i}\n" for i in range(8)) + "```\n", False)]
    assert splitter.open == "```python\n" and splitter.joined
    assert [c.joined for c in splitter.feed("y = 1\n```\n\nafter\n")] == [True]

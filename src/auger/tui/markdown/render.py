"""Markdown source -> lines of `Content` no wider than a width (markdown-it-py parses).

Blocks are separated by one blank line (none between the items of a tight list). Code keeps
its indentation and is highlighted (`textual.highlight`); lines too long for the width fold.
Raw HTML blocks are shown as the text they are. Styles are component-class names (`.md--*`)
that `auger.tui.widgets.markdown_view.MarkdownLines` declares and its CSS colours.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from textual.content import Content

from auger.tui.markdown.inline import inline_content
from auger.tui.markdown.tables import render_table

BULLETS = ("•", "◦", "▪")
QUOTE_BAR = "▎ "
MIN_WIDTH = 8
LISTS = ("bullet_list", "ordered_list")

Lines = list[Content]


@cache
def parser() -> MarkdownIt:
    """CommonMark + tables + strikethrough, HTML allowed (and shown as text); no linkify (it
    doubles the parse time; terminals find URLs themselves)."""
    return MarkdownIt("gfm-like", {"linkify": False})


def render_markdown(source: str, width: int) -> Lines:
    """`source` as lines of at most `width` cells (narrower widths are treated as `MIN_WIDTH`)."""
    root = SyntaxTreeNode(parser().parse(source))
    return _blocks(root.children, max(MIN_WIDTH, width), tight=False)


def _blocks(nodes: list[SyntaxTreeNode], width: int, *, tight: bool, depth: int = 0) -> Lines:
    """`nodes`, a blank line between them unless `tight`; `depth`: a list among them is that deep."""
    lines: Lines = []
    for node in nodes:
        rendered = _list(node, width, depth) if node.type in LISTS else _block(node, width)
        if not rendered:
            continue
        if lines and not tight:
            lines.append(Content(""))
        lines += rendered
    return lines


def _block(node: SyntaxTreeNode, width: int) -> Lines:
    render = RENDERERS.get(node.type)
    if render is not None:
        return render(node, width)
    if node.children:  # a container we do not know: its blocks
        return _blocks(node.children, width, tight=False)
    return _wrap(Content(node.content), width)


def _wrap(content: Content, width: int) -> Lines:
    return content.wrap(width) if content.plain else [content]


def _paragraph(node: SyntaxTreeNode, width: int) -> Lines:
    return _wrap(inline_content(node), width)


def _heading(node: SyntaxTreeNode, width: int) -> Lines:
    level = int(node.tag[1:]) if node.tag[1:].isdigit() else 1
    return _wrap(inline_content(node, f".md--h{min(level, 6)}"), width)


def _list(node: SyntaxTreeNode, width: int, depth: int) -> Lines:
    ordered = node.type == "ordered_list"
    start = int(node.attrs.get("start", 1) or 1) if ordered else 1
    markers = [
        f"{start + i}." if ordered else BULLETS[depth % len(BULLETS)] for i in range(len(node.children))
    ]
    marker_width = max((len(m) for m in markers), default=1) + 1
    tight = all(
        child.hidden for item in node.children for child in item.children if child.type == "paragraph"
    )
    lines: Lines = []
    for marker, item in zip(markers, node.children, strict=True):
        body = _blocks(item.children, max(MIN_WIDTH, width - marker_width), tight=tight, depth=depth + 1)
        if lines and not tight:
            lines.append(Content(""))
        for y, line in enumerate(body or [Content("")]):
            prefix = Content.styled(marker.rjust(marker_width - 1) + " ", ".md--bullet") if y == 0 else None
            lines.append((prefix or Content(" " * marker_width)) + line)
    return lines


def _quote(node: SyntaxTreeNode, width: int) -> Lines:
    bar = Content.styled(QUOTE_BAR, ".md--quote-bar")
    body = _blocks(node.children, max(MIN_WIDTH, width - len(QUOTE_BAR)), tight=False)
    return [bar + line.stylize_before(".md--quote") for line in body]


def _code(node: SyntaxTreeNode, width: int) -> Lines:
    from textual.highlight import highlight  # pygments: on first use

    code = node.content.rstrip("\n")
    language = (node.info or "").split()[0] if node.type == "fence" and node.info else ""
    content = highlight(code, language=language or "text") if code else Content("")
    inner = max(1, width - 2)
    lines: Lines = []
    for line in content.split(allow_blank=True):
        for part in line.expand_tabs(4).fold(inner) if line.cell_length > inner else [line]:
            padded = Content(" ") + part.pad_right(inner - part.cell_length) + Content(" ")
            lines.append(padded.stylize_before(".md--code-block"))
    return lines


def _html(node: SyntaxTreeNode, width: int) -> Lines:
    lines: Lines = []
    for line in node.content.rstrip("\n").splitlines():
        text = Content.styled(line.expandtabs(4), ".md--html")
        lines += text.fold(width) if text.cell_length > width else [text]
    return lines


def _rule(node: SyntaxTreeNode, width: int) -> Lines:
    return [Content.styled("─" * width, ".md--hr")]


RENDERERS: dict[str, Callable[[SyntaxTreeNode, int], Lines]] = {
    "paragraph": _paragraph,
    "heading": _heading,
    "blockquote": _quote,
    "fence": _code,
    "code_block": _code,
    "html_block": _html,
    "hr": _rule,
    "table": render_table,
}

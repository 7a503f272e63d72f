"""Inline markdown (a block's one markdown-it `inline` token) as `Content`.

Styles are component-class names (".md--code" ...) that the widget resolves from its CSS.
Raw inline HTML is kept as the text it is (`List<int>`, `Vec<T>`, `<b>` are shown, never
dropped); entities are decoded by markdown-it as usual (`&amp;` shows as `&`).
"""

from __future__ import annotations

from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode
from textual.content import Content, Span
from textual.style import Style

STYLE_OF = {"em_open": ".md--em", "strong_open": ".md--strong", "s_open": ".md--s"}
TEXT_OF = {"text": "", "html_inline": "", "softbreak": " ", "hardbreak": "\n"}  # "": its own text


def link_style(href: str) -> Style:
    """A link: clicking it runs the widget's `link` action."""
    return Style.from_meta({"@click": f"link({href!r})"})


def inline_content(node: SyntaxTreeNode, base: str = "") -> Content:
    """The text of block `node`'s inline token with its spans (bold, code, links ...), `base` over it."""
    token = node.children[0].token if node.children else None
    parts: list[str] = []
    spans: list[Span] = []
    stack: list[tuple[int, str | Style]] = []
    position = 0

    def add(text: str, style: str | Style = "") -> None:
        nonlocal position
        if style and text:
            spans.append(Span(position, position + len(text), style))
        parts.append(text)
        position += len(text)

    for child in (token.children or []) if token is not None else []:
        kind = child.type
        if kind in TEXT_OF:
            add(TEXT_OF[kind] or child.content)
        elif kind == "code_inline":
            add(child.content, ".md--code")
        elif kind in STYLE_OF:
            stack.append((position, STYLE_OF[kind]))
        elif kind == "link_open":
            stack.append((position, link_style(str(child.attrs.get("href", "")))))
            stack.append((position, ".md--link"))
        elif kind.endswith("_close"):
            _close(stack, spans, position, 2 if kind == "link_close" else 1)
        elif kind == "image":
            add(_image_text(child), ".md--link")
        else:  # anything else a plugin might add: its text, not nothing
            add(child.content)
    content = Content("".join(parts), spans)
    return content.stylize_before(base) if base else content


def _image_text(token: Token) -> str:
    alt = "".join(child.content for child in token.children or []) or str(token.attrs.get("alt", ""))
    return f"[image: {alt}]" if alt else "[image]"


def _close(stack: list[tuple[int, str | Style]], spans: list[Span], end: int, count: int) -> None:
    for _ in range(count):
        if stack:
            start, style = stack.pop()
            if end > start:
                spans.append(Span(start, end, style))

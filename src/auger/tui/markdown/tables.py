"""Markdown tables laid out for a width: every column is kept.

Columns get their natural width when the table fits; otherwise the widest columns give up
cells (down to `MIN_COLUMN`, or their natural width if smaller) and their text wraps. When even
that does not fit, each row is shown as a record: one `header: value` line per column.
"""

from __future__ import annotations

from markdown_it.tree import SyntaxTreeNode
from textual.content import Content

from auger.tui.markdown.inline import inline_content

SEPARATOR = " │ "
MIN_COLUMN = 6


def _cells(row: SyntaxTreeNode, base: str) -> list[tuple[Content, str]]:
    out: list[tuple[Content, str]] = []
    for cell in row.children:
        align = str(cell.attrs.get("style", "")).removeprefix("text-align:") or "left"
        out.append((inline_content(cell, base), align))
    return out


def table_rows(node: SyntaxTreeNode) -> tuple[list[tuple[Content, str]], list[list[tuple[Content, str]]]]:
    """(header cells, body rows), each cell as (content, alignment)."""
    header: list[tuple[Content, str]] = []
    body: list[list[tuple[Content, str]]] = []
    for part in node.children:
        for row in part.children:
            if part.type == "thead":
                header = _cells(row, ".md--table-header")
            else:
                body.append(_cells(row, ""))
    return header, body


def column_widths(natural: list[int], available: int) -> list[int] | None:
    """Widths that fit `available` cells, or None when the columns cannot fit."""
    widths = list(natural)
    floors = [min(n, MIN_COLUMN) for n in natural]
    excess = sum(widths) - available
    while excess > 0:
        column = max(range(len(widths)), key=lambda i: widths[i] - floors[i])
        room = widths[column] - floors[column]
        if room <= 0:
            return None
        second = sorted((w - f for w, f in zip(widths, floors, strict=True)), reverse=True)[1:2]
        step = min(excess, max(1, room - (second[0] if second else 0)))
        widths[column] -= step
        excess -= step
    return widths


def _justify(line: Content, width: int, align: str) -> Content:
    room = max(0, width - line.cell_length)
    if align == "right":
        return line.pad_left(room)
    if align == "center":  # (not Content.center: Textual 8's pads the right by too much)
        return line.pad(room // 2, room - room // 2)
    return line.pad_right(room)


def _grid_row(cells: list[tuple[Content, str]], widths: list[int]) -> list[Content]:
    wrapped = [
        cell.wrap(width) if cell.plain else [Content("")]
        for (cell, _), width in zip(cells, widths, strict=True)
    ]
    height = max(len(lines) for lines in wrapped)
    out: list[Content] = []
    separator = Content.styled(SEPARATOR, ".md--table-border")
    for y in range(height):
        row = [
            _justify(lines[y] if y < len(lines) else Content(""), width, align)
            for lines, width, (_, align) in zip(wrapped, widths, cells, strict=True)
        ]
        out.append(separator.join(row))
    return out


def render_table(node: SyntaxTreeNode, width: int) -> list[Content]:
    header, body = table_rows(node)
    columns = max(len(header), *(len(row) for row in body)) if body else len(header)
    blank = (Content(""), "left")
    header = header + [blank] * (columns - len(header))
    body = [row + [blank] * (columns - len(row)) for row in body]
    natural = [max(1, *(row[i][0].cell_length for row in [header, *body])) for i in range(columns)]
    widths = column_widths(natural, width - len(SEPARATOR) * (columns - 1))
    if widths is None:
        return _records(header, body, width)
    rule = Content.styled("─┼─".join("─" * w for w in widths), ".md--table-border")
    lines = [*_grid_row(header, widths), rule]
    for row in body:
        lines += _grid_row(row, widths)
    return lines


def _records(
    header: list[tuple[Content, str]], body: list[list[tuple[Content, str]]], width: int
) -> list[Content]:
    """Too narrow for a grid: each row as `header: value` lines, rows divided by a rule."""
    rule = Content.styled("─" * width, ".md--table-border")
    lines: list[Content] = []
    for index, row in enumerate(body or [[(Content(""), "left")] * len(header)]):
        if index:
            lines.append(rule)
        for (name, _), (value, _) in zip(header, row, strict=True):
            lines += Content.assemble(name, ": ", value).wrap(width)
    return lines

"""Markdown for the transcript: markdown-it-py parses, auger renders to pre-wrapped lines.

* `blocks.BlockSplitter` cuts a streamed reply into finished blocks (markdown-it's block parse of
  the open part only), so only the last, open block is ever parsed again;
* `render.render_markdown` turns one block's source into lines of `Content` for a width
  (headings, lists, quotes, code with highlighting, tables that wrap, raw HTML shown as text);
* `auger.tui.widgets.markdown_view` shows those lines (Textual's line API, text selection).

No widgets here: the renderer takes its styles as data.
"""

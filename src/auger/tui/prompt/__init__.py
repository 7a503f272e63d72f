"""The prompt box's helpers (no widgets here).

* `inputs` — what happens to a submitted input: a slash command, a `!shell` command or a prompt;
* `completer` — what the completion menu offers for the text being typed;
* `files` — `@path` completion: the agent's files (through the port), matched fuzzily;
* `history` — every prompt sent, persisted for Up/Down and Ctrl+R;
* `editor` — Ctrl+G / `/editor`: the prompt edited in $VISUAL / $EDITOR.

Nothing is imported with the package itself.
"""

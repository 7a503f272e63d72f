"""LangGraph's side of a thread: the checkpointer and what auger does to its rows.

* `checkpointer` — `open_saver(db)`: the SQLite checkpointer on the thread file (or PostgreSQL's);
  `sqlite_saver` — LangGraph's SQLite saver with short channel versions;
* `message_serde` — the serializer that decodes and encodes each stored message once per process;
* `rows` — LangGraph's `checkpoints`/`writes` rows as plain SQL (copy, fork chains, delete);
* `collapse` — a finished turn's intermediate checkpoints dropped.

Nothing is imported with the package itself.
"""

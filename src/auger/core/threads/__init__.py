"""Saved conversations: the SQLite thread store, its schema, search, checkpoints, history and transcripts."""

"""Middleware around the model call itself: which model, what the wire takes, hooks,
compaction, turn limits, the state a resumed thread needs."""

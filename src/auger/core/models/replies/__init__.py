"""How a model's reply comes back.

* `openai_chunks` — streamed chat-completion chunks kept as the dicts they arrive as;
  `merged_stream` — a streamed reply merged as its chunks arrive;
* `complete_reply` — a reply that did not finish is never acted on (`watch`, `ensure_complete`);
* `loop_share` — a call that hands the event loop back by time while it parses a sent-ahead
  stream, and gives way to a key on its way to the screen (`KeysFirst`).

Nothing is imported with the package itself.
"""

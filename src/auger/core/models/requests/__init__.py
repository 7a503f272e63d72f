"""What a model call sends, built once per message instead of on every call.

* `message_memo` — `MessageMemo`, a per-message result kept from one call to the next (middleware
  that rewrites each message of a request uses it too); `identity_pass` — the C-level passes that
  find where a list holds the same objects as the last one.
* `message_dicts` — each message's chat-completions dict; `body_json` — the request's JSON bytes
  from each message's kept encoding; `openai_body` — that body posted as built, without the openai
  SDK re-walking it; `tool_schemas` — a tool set's schemas converted once.

Nothing is imported with the package itself.
"""

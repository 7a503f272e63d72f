"""A chat request's JSON bytes, each message encoded once, not again on every model call.

The openai SDK encodes the whole request body on every call (`openapi_dumps`: compact
separators, `ensure_ascii=False`, no NaN): at turn 300 of a thread (1,200 messages) ~2 ms a
call, the biggest part of a step that still grew with the thread once the SDK's re-validation
was gone (auger.core.models.requests.openai_body). JSON is compositional — an object's encoding is its
keys' and values' encodings joined with `:` and `,` — so `BodyJson.encode` joins the encodings
of the body's values, and of each message dict of its `messages` list, with the same encoder:
the same bytes as `openapi_dumps(body)` (tests/core/test_body_json.py compares them).

A message dict is known by identity: MessageDictMemo (auger.core.models.requests.message_dicts) hands
the same dict objects to one request after another and nothing changes them after the payload
is built (auger posts the body as built). So they are kept in a MessageMemo
(auger.core.models.requests.message_memo): the places where a request holds the last one's dict are
found in one C-level pass; only the other dicts are looked up, and only the ones not met
before are encoded. A dict built afresh (the system prompt, a rewritten message)
is a new object, so it is encoded anew.
"""

from __future__ import annotations

from typing import Any

from openai._utils._json import openapi_dumps

from auger.core.models.requests.message_memo import MessageMemo


class BodyJson:
    def __init__(self) -> None:
        self.encoded = 0  # message dicts encoded so far (what the tests count)
        self._parts = MessageMemo(self._encode)  # each message dict's JSON, by identity

    def encode(self, body: dict[str, Any]) -> bytes:
        """`openapi_dumps(body)`, a `messages` list's dicts encoded only when not met before."""
        fields = []
        for key, value in body.items():
            if key == "messages" and isinstance(value, list):
                encoded = b"[" + b",".join(self._parts.map(value)) + b"]"
            else:
                encoded = openapi_dumps(value)
            fields.append(openapi_dumps(key) + b":" + encoded)
        return b"{" + b",".join(fields) + b"}"

    def _encode(self, message: Any) -> bytes:
        self.encoded += 1
        return openapi_dumps(message)

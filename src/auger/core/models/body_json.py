"""A chat request's JSON bytes, each message encoded once, not again on every model call.

The openai SDK encodes the whole request body on every call (`openapi_dumps`: compact
separators, `ensure_ascii=False`, no NaN): at turn 300 of a thread (1,200 messages) ~2 ms a
call, the biggest part of a step that still grew with the thread once the SDK's re-validation
was gone (auger.core.models.openai_body). JSON is compositional — an object's encoding is its
keys' and values' encodings joined with `:` and `,` — so `BodyJson.encode` joins the encodings
of the body's values, and of each message dict of its `messages` list, with the same encoder:
the same bytes as `openapi_dumps(body)` (tests/core/test_body_json.py compares them).

A message dict is known by identity: MessageDictMemo (auger.core.models.message_dicts) hands
the same dict objects to one request after another and nothing changes them after the payload
is built (auger posts the body as built). As there, the places where a request holds the last
one's dict are found in one C-level pass; only the other dicts are looked up, and only the
ones not met before are encoded. A dict built afresh (the system prompt, a rewritten message)
is a new object, so it is encoded anew.
"""

from __future__ import annotations

from typing import Any

from openai._utils._json import openapi_dumps

from auger.core.models.identity_pass import changed_places


class BodyJson:
    def __init__(self) -> None:
        self.encoded = 0  # message dicts encoded so far (what the tests count)
        self._dicts: list[Any] = []  # the last request's message dicts and their encodings
        self._parts: list[bytes] = []
        self._kept: dict[int, tuple[Any, bytes]] = {}  # by id(dict)

    def encode(self, body: dict[str, Any]) -> bytes:
        """`openapi_dumps(body)`, a `messages` list's dicts encoded only when not met before."""
        fields = []
        for key, value in body.items():
            if key == "messages" and isinstance(value, list):
                encoded = b"[" + b",".join(self._messages(value)) + b"]"
            else:
                encoded = openapi_dumps(value)
            fields.append(openapi_dumps(key) + b":" + encoded)
        return b"{" + b",".join(fields) + b"}"

    def _messages(self, dicts: list[Any]) -> list[bytes]:
        same, look = changed_places(self._dicts, dicts)
        parts: list[Any] = self._parts[: len(same)] + [None] * (len(dicts) - len(same))
        for i in look:
            hit = self._kept.get(id(dicts[i]))
            if hit is None or hit[0] is not dicts[i]:
                hit = (dicts[i], openapi_dumps(dicts[i]))
                self.encoded += 1
                self._kept[id(dicts[i])] = hit
            parts[i] = hit[1]
        if len(self._kept) > 2 * len(dicts) + 64:  # forget what left the requests
            self._kept = {id(d): self._kept[id(d)] for d in dicts if id(d) in self._kept}
        self._dicts, self._parts = list(dicts), parts
        return parts

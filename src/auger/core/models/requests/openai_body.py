"""Send the chat-completions body langchain-openai built, without the openai SDK re-walking it.

`AsyncCompletions.create` passes every request body through `async_maybe_transform`, which walks
the whole body against the SDK's TypedDict annotations, message by message and block by block,
to rename aliased keys and format dates and files — none of which exist in chat-completions
request parameters. On a long thread that walk was the biggest cost of a step (8 ms at 40
messages, 90 ms at 600; `json.dumps` of the same body: 0.4 ms), growing with the history.

`PrebuiltBodyCompletions.create` posts the body as given, its keys in the SDK's order: the same
path, headers, options, retries, auth and stream class as the SDK's `create`, so the bytes on
the wire are unchanged
(tests/core/test_openai_body.py compares them). A call the transform could change — one with
`response_format` (a pydantic class becomes a JSON schema there), a parameter left as the SDK's
`omit`/`not_given`, or a non-list iterable of messages — goes through the SDK's own `create`.
The body goes out as the bytes the SDK would encode it to, each message's JSON kept from one
request to the next (auger.core.models.requests.body_json); with `extra_body` (which the SDK merges into
the body) it is handed over as a dict for the SDK to encode.
Imported only with an OpenAI or OpenAI-compatible model.
"""

from __future__ import annotations

import inspect
from typing import Any

from openai import AsyncStream, NotGiven, Omit, not_given
from openai._base_client import make_request_options
from openai.resources.chat.completions import AsyncCompletions
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from auger.core.models.requests.body_json import BodyJson

_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")
_order: dict[str, int] = {}


async def _sdk_key_order() -> dict[str, int]:
    """The order the SDK's `create` writes the body's keys in (its own dict literal), learnt once
    by running it with every parameter set and a `_post` that only keeps the body."""
    if not _order:
        kept: dict[str, Any] = {}

        async def keep(path: str, *, body: dict[str, Any], **_: Any) -> None:
            kept.update(body)

        probe = AsyncCompletions.__new__(AsyncCompletions)
        probe._post = keep  # type: ignore[method-assign,assignment]
        names = inspect.signature(AsyncCompletions.create).parameters
        params = {name: None for name in names if name not in ("self", *_OPTIONS)}
        create: Any = AsyncCompletions.create
        await create(probe, **{**params, "messages": [], "model": "m", "stream": True})
        _order.update({key: i for i, key in enumerate(kept)})
    return _order


def _plain(body: dict[str, Any]) -> bool:
    """Whether the SDK's transform would send `body` unchanged."""
    if "response_format" in body or not isinstance(body.get("messages"), list):
        return False
    return not any(isinstance(value, Omit | NotGiven) for value in body.values())


class PrebuiltBodyCompletions(AsyncCompletions):
    def __init__(self, client: Any) -> None:
        super().__init__(client)
        self.body_json = BodyJson()  # shared by the model's per-call copies, as this object is

    async def create(self, **params: Any) -> Any:  # type: ignore[override]
        options = {key: params.pop(key) for key in _OPTIONS if key in params}
        if not _plain(params):
            return await super().create(**params, **options)
        stream = bool(params.get("stream"))
        order = await _sdk_key_order()
        body = dict(sorted(params.items(), key=lambda item: order.get(item[0], len(order))))
        encoded = (
            {"body": body}
            if options.get("extra_body") is not None
            else {"content": self.body_json.encode(body)}
        )
        return await self._post(
            "/chat/completions",
            **encoded,
            options=make_request_options(
                extra_headers=options.get("extra_headers"),
                extra_query=options.get("extra_query"),
                extra_body=options.get("extra_body"),
                timeout=options.get("timeout", not_given),
                security={"bearer_auth": True},
            ),
            cast_to=ChatCompletion,
            stream=stream,
            stream_cls=AsyncStream[ChatCompletionChunk],
        )


def send_prebuilt_bodies(model: Any) -> Any:
    """`model` (a langchain-openai ChatOpenAI) posting its async chat bodies as built."""
    root = getattr(model, "root_async_client", None)
    if root is not None:
        model.async_client = PrebuiltBodyCompletions(root)
    return model

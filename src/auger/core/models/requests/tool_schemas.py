"""Tool schemas converted once per tool set, not on every model call.

langchain's agent loop calls `model.bind_tools(tools, ...)` before every model call, and the
provider classes convert each tool to its wire schema there (`convert_to_openai_tool`: the
pydantic JSON schema of its arguments, `$ref`s resolved) — ~10 tools, 1-2 ms of every step,
to produce the same dicts as the step before. `CachedToolBinding` (a mixin before the provider's
chat model class) keeps what `bind_tools` bound for a tool set and its options, and binds the same
arguments again when the same tools (the same objects) come back with the same options.

The cache is shared by the copies of a model (`model_copy`, as `complete_reply.watch` makes one
per call): pydantic copies private attributes shallowly, so they all hold the one dict. An entry
holds its tools, so an id is never reused for another tool while its entry lives; at most `SIZE`
tool sets are kept (MCP servers coming and going, plan mode's narrower set, subagents' sets).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableBinding
from pydantic import PrivateAttr

SIZE = 16  # tool sets kept per model (and its copies)


class CachedToolBinding(BaseChatModel):
    """Mixin: `bind_tools` converts a tool set's schemas once, then re-binds the converted ones."""

    # key -> (the tools, the arguments `bind_tools` bound for them)
    _bound_tools: dict[tuple[Any, ...], tuple[list[Any], dict[str, Any]]] = PrivateAttr(default_factory=dict)

    def bind_tools(self, tools: Sequence[Any], **options: Any) -> Any:
        key = (tuple(map(id, tools)), repr(sorted(options.items())))
        hit = self._bound_tools.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], tools, strict=True)):
            return self.bind(**hit[1])
        bound = super().bind_tools(tools, **options)
        if isinstance(bound, RunnableBinding) and bound.bound is self and not bound.config:
            if len(self._bound_tools) >= SIZE:
                self._bound_tools.pop(next(iter(self._bound_tools)))
            self._bound_tools[key] = (list(tools), dict(bound.kwargs))
        return bound

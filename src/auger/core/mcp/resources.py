"""MCP resources: `@SERVER:URI` in a prompt attaches the resource (Claude Code's form, e.g.
`@docs:file:///guide.md`), and two read-only tools let the model find and read resources itself:
`list_mcp_resources` (optionally for one server) and `read_mcp_resource(server, uri)`.

A mention is only a mention when SERVER is a configured server, so `@alice:example` in prose or
an email address is left alone. Text contents are given as they are; an image as an image block
(a model that takes no images gets one line naming it instead: `auger.core.middleware.model.image_inputs`);
another binary one as one line naming its type and size (a model cannot read bytes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):(\S+)")
RESOURCE_KEY = "auger_mcp_resources"  # additional_kwargs marker: [{server, uri}] attached
LIST_TOOL, READ_TOOL = "list_mcp_resources", "read_mcp_resource"
_TRAILING = ".,;:!?)]}'\""


def mentions(text: str, servers: Iterable[str]) -> list[tuple[str, str]]:
    """(server, uri) for each `@server:uri` naming one of `servers`, in order, without repeats."""
    known, out = set(servers), []
    for match in MENTION.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(_TRAILING)
        if server in known and uri and (server, uri) not in out:
            out.append((server, uri))
    return out


def is_image(item: Any) -> bool:
    """Whether a resource content (or an MCP content block) is an image given as base64."""
    data = getattr(item, "blob", None) or getattr(item, "data", None)
    return bool(data) and str(getattr(item, "mimeType", None) or "").startswith("image/")


def image_block(item: Any) -> dict[str, Any]:
    """An MCP image (a resource's blob, a prompt's image content) as a LangChain image block."""
    data = getattr(item, "blob", None) or getattr(item, "data", "")
    return {"type": "image", "base64": str(data), "mime_type": str(item.mimeType)}


def contents_text(uri: str, result: Any) -> str:
    """A `resources/read` result as text for the model (its images: `contents_images`)."""
    parts = []
    for item in result.contents:
        body = getattr(item, "text", None)
        if body is not None:
            parts.append(str(body))
        elif not is_image(item):
            size = len(getattr(item, "blob", "")) * 3 // 4
            parts.append(f"[binary resource {item.uri} ({item.mimeType or 'unknown type'}, {size} bytes)]")
    if not parts and any(is_image(item) for item in result.contents):
        return f"[image resource {uri}]"
    return "\n".join(parts) if parts else f"[resource {uri} is empty]"


def contents_images(result: Any) -> list[dict[str, Any]]:
    """The images of a `resources/read` result, as LangChain image blocks."""
    return [image_block(item) for item in result.contents if is_image(item)]


def with_images(text: str, images: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """`text` alone, or a text block followed by `images`."""
    return [{"type": "text", "text": text}, *images] if images else text


def attachment(server: str, uri: str, text: str) -> str:
    return f'<mcp_resource server="{server}" uri="{uri}">\n{text}\n</mcp_resource>'


def resource_tools(manager: Any) -> list[BaseTool]:
    """The model's two resource tools over `manager` (offered while a connected server has resources)."""
    from langchain_core.tools import StructuredTool

    async def list_resources(server: str = "") -> str:
        rows = [
            f"{srv}:{res.uri}  {res.name}"
            + (f" ({res.mimeType})" if res.mimeType else "")
            + (f" - {res.description}" if res.description else "")
            for srv, res in manager.resources()
            if not server or srv == server
        ]
        templates = [
            f"{srv}:{tpl.uriTemplate}  {tpl.name} (template)"
            for srv, tpl in manager.resource_templates()
            if not server or srv == server
        ]
        found = rows + templates
        return (
            "\n".join(found) if found else "No MCP resources" + (f" on server '{server}'." if server else ".")
        )

    async def read_resource(server: str, uri: str) -> str | list[dict[str, Any]]:
        from langchain_core.tools import ToolException

        from auger.errors import AugerError

        try:
            result = await manager.read_resource(server, uri)
        except AugerError as exc:
            raise ToolException(str(exc)) from exc
        return with_images(contents_text(uri, result), contents_images(result))

    meta = {"read_only": True, "mcp_builtin": True}
    return [
        StructuredTool.from_function(
            coroutine=list_resources,
            name=LIST_TOOL,
            description="List the resources (files, documents, records) MCP servers offer, as "
            "`server:uri  name`. `server` narrows it to one server.",
            metadata=meta,
        ),
        StructuredTool.from_function(
            coroutine=read_resource,
            name=READ_TOOL,
            description="Read one MCP resource by its server and URI (as list_mcp_resources shows them).",
            metadata=meta,
            handle_tool_error=True,
        ),
    ]

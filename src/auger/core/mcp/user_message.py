"""What MCP adds to a user prompt before the turn: `/mcp__SERVER__PROMPT args` becomes the
server's prompt (`auger.core.mcp.prompts`) and each `@SERVER:URI` attaches that resource
(`auger.core.mcp.resources`). Used by `Session.send`, so the TUI, headless and the HTTP server
treat them the same; `/mcp__...` in the TUI and `auger -n "/mcp__docs__review 42"` both work.
"""

from __future__ import annotations

from typing import Any

from auger.core.mcp.prompts import (
    PROMPT_KEY,
    McpPromptError,
    prompt_arguments,
    prompt_images,
    prompt_text,
    split_command,
)
from auger.core.mcp.resources import (
    RESOURCE_KEY,
    attachment,
    contents_images,
    contents_text,
    mentions,
    with_images,
)


async def mcp_message(prompt: str, message: Any, manager: Any) -> Any:
    """`message` (the HumanMessage for `prompt`) with MCP prompts run and resources attached.
    McpPromptError (one line, naming the server, prompt or resource) when one cannot be had."""
    from langchain_core.messages import HumanMessage

    content, extra = message.content, dict(message.additional_kwargs)
    images: list[dict[str, Any]] = []
    parsed = split_command(prompt)
    if parsed is not None:
        name, args = parsed
        found = {p.command: p for p in manager.prompts()}.get(name)
        if found is None:
            known = ", ".join(f"/{c}" for c in sorted(p.command for p in manager.prompts())) or "none"
            raise McpPromptError(f"No MCP prompt /{name} (connected servers' prompts: {known}).")
        result = await manager.get_prompt(found, prompt_arguments(found, args))
        content, images = prompt_text(result), prompt_images(result)
        extra[PROMPT_KEY] = {"command": name, "server": found.server, "prompt": found.name, "args": args}
    attached = mentions(prompt, manager.connected())
    if not attached and parsed is None:
        return message
    if attached and isinstance(content, str):
        texts = [content]
        for server, uri in attached:
            result = await manager.read_resource(server, uri)
            texts.append(attachment(server, uri, contents_text(uri, result)))
            images += contents_images(result)
        content = "\n\n".join(texts)
        extra[RESOURCE_KEY] = [{"server": s, "uri": u} for s, u in attached]
    if isinstance(content, str):
        content = with_images(content, images)
    return HumanMessage(content=content, additional_kwargs=extra)

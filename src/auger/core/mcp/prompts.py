"""MCP prompts as slash commands: `/mcp__SERVER__PROMPT args` runs the server's prompt and sends
what it returns as the user's message (Claude Code's form; the name rule is `auger.core.mcp.names`).

Arguments: `key=value` words set the argument of that name; other words fill the prompt's
arguments in the order the server declares them, the last one taking the rest of the line
(`/mcp__github__review 42 look at the tests` -> pr="42", focus="look at the tests"). A required
argument left out is a one-line error naming it and the command's usage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from auger.core.catalog.arguments import positional as split_words
from auger.core.mcp.names import prompt_command
from auger.errors import UsageError

PROMPT_KEY = "auger_mcp_prompt"  # additional_kwargs marker on the message a prompt became


class McpPromptError(UsageError):
    """A prompt command that cannot run (unknown prompt, missing argument, the server refused)."""


@dataclass(frozen=True)
class PromptArg:
    name: str
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class McpPrompt:
    server: str
    name: str
    description: str = ""
    arguments: tuple[PromptArg, ...] = ()

    @property
    def command(self) -> str:
        return prompt_command(self.server, self.name)

    @property
    def usage(self) -> str:
        """`/mcp__weather__forecast city [state]`: the command, its arguments (optional ones in brackets)."""
        hint = " ".join(a.name if a.required else f"[{a.name}]" for a in self.arguments)
        return f"/{self.command} {hint}".rstrip()

    @classmethod
    def from_mcp(cls, server: str, prompt: Any) -> McpPrompt:
        args = tuple(
            PromptArg(a.name, bool(a.required), a.description or "") for a in (prompt.arguments or [])
        )
        return cls(server, prompt.name, prompt.description or "", args)


def split_command(text: str) -> tuple[str, str] | None:
    """`/name rest` -> (name, rest) when `text` is an `mcp__` slash command."""
    stripped = text.strip()
    if not stripped.startswith("/mcp__"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    return head, rest.strip()


def prompt_arguments(prompt: McpPrompt, text: str) -> dict[str, str]:
    """The arguments `text` gives `prompt` (see the module doc); McpPromptError for a missing one."""
    names = [a.name for a in prompt.arguments]
    given: dict[str, str] = {}
    positional: list[str] = []
    for word in split_words(text):
        key, eq, value = word.partition("=")
        if eq and key in names and key not in given:
            given[key] = value
        else:
            positional.append(word)
    free = [n for n in names if n not in given]
    if positional and not free:
        raise McpPromptError(
            f"/{prompt.command}: too many arguments ({' '.join(positional)!r}).",
            hint=f"Usage: {prompt.usage}",
        )
    for i, name in enumerate(free[: len(positional)]):
        given[name] = " ".join(positional[i:]) if i == len(free) - 1 else positional[i]
    missing = [a.name for a in prompt.arguments if a.required and not given.get(a.name)]
    if missing:
        raise McpPromptError(f"/{prompt.command} needs {', '.join(missing)}.", hint=f"Usage: {prompt.usage}")
    return given


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        res = block.resource
        body = getattr(res, "text", None)
        if body is not None:
            return f'<resource uri="{res.uri}">\n{body}\n</resource>'
        return f"[embedded resource {res.uri} ({res.mimeType or 'binary'})]"
    if kind == "resource_link":
        return f"[resource link: {block.name} at {block.uri}]"
    if kind in ("image", "audio"):  # images follow the text (`prompt_images`); audio is not sent
        return f"[{kind} ({block.mimeType}) from the prompt{', below' if kind == 'image' else ': not sent'}]"
    return f"[{kind or 'unknown'} content]"


def prompt_images(result: Any) -> list[dict[str, Any]]:
    """The images of a `prompts/get` result (a message's image content, an embedded image
    resource), as LangChain image blocks after the prompt's text."""
    from auger.core.mcp.resources import image_block, is_image

    blocks = [message.content for message in result.messages]
    items = [block.resource if getattr(block, "type", "") == "resource" else block for block in blocks]
    return [image_block(item) for item in items if is_image(item)]


def prompt_text(result: Any) -> str:
    """What a `prompts/get` result says, as one user message: each message's content, an assistant
    message marked as such (a prompt may script an exchange)."""
    parts = []
    for message in result.messages:
        text = _block_text(message.content)
        parts.append(text if message.role == "user" else f"[{message.role}]\n{text}")
    return "\n\n".join(parts)

"""What a user prompt becomes in the thread, and the load warnings shown on the first turn.

`user_message(prompt, settings)` turns `/skill-name args` (a known skill) into the skill's
invocation message (its full instructions + the request, marked with `additional_kwargs
["auger_skill"]`), and `/command args` (a custom command, `auger.core.catalog.commands`) into its
expanded prompt (`additional_kwargs["auger_command"]`); any other prompt is a plain HumanMessage.
Used by `Session.send`, so the TUI, headless (`auger -n "/commit fix typo"`) and the HTTP server
all get skill and command calls the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.core.port import PromptImage
    from auger.settings import Settings


def user_message(prompt: str, settings: Settings) -> tuple[Any, list[str]]:
    """(message, warnings): the message for `prompt`, and why a skill call fell back to plain text."""
    from langchain_core.messages import HumanMessage

    if prompt.lstrip().startswith("/"):
        from auger.core.catalog.commands import invocation_message as command_message
        from auger.core.catalog.skills import SkillError, invocation_message

        try:
            message = invocation_message(prompt, settings)
        except SkillError as exc:
            return HumanMessage(content=prompt), [str(exc)]
        shipped = message is not None and message.additional_kwargs["auger_skill"]["source"] == "built-in"
        if message is not None and not shipped:
            return message, []  # the user's skills win over commands of the same name
        found = command_message(prompt, settings)  # the user's commands win over auger's own skills
        if found is not None:
            return found
        if message is not None:
            return message, []
    return HumanMessage(content=prompt), []


def refuse_images(images: Sequence[PromptImage], settings: Settings, spec: str | None) -> None:
    """ModelError when the prompt has `images` and the model `spec` takes none
    (`auger.core.models.images`): the turn ends before anything is sent or written."""
    if not images:
        return
    from auger.core.agent.graph import model_factory
    from auger.core.models.images import model_takes_images
    from auger.errors import ModelError

    if spec and model_takes_images(model_factory(settings)(spec, {})):
        return
    many = f"{len(images)} images were" if len(images) > 1 else "its image was"
    raise ModelError(
        f"The model {spec or '(none)'} does not take images: the prompt was not sent ({many} refused).",
        hint=f'Switch to a model that takes images (/model), or if it does, set [models."{spec}"] '
        "images = true in ~/.auger/config.toml.",
    )


def with_images(message: Any, images: Sequence[PromptImage]) -> Any:
    """`message` with the prompt's `images` after its text, as LangChain image blocks (the
    OpenAI-compatible wire gets them as `image_url` data URLs)."""
    if not images:
        return message
    text = message.content if isinstance(message.content, str) else None
    blocks: list[Any] = [{"type": "text", "text": text}] if text else list(message.content or [])
    for image in images:
        source = {"url": image.url} if image.url else {"base64": image.data}
        blocks.append({"type": "image", "mime_type": image.mime_type, **source})
    return message.model_copy(update={"content": blocks})


def _marker(message: Any) -> dict[str, Any]:
    kwargs = getattr(message, "additional_kwargs", None) or {}
    found = kwargs.get("auger_skill") or kwargs.get("auger_command")
    return found if isinstance(found, dict) else {}


def allowed_tools(message: Any) -> tuple[str, ...] | None:
    """The tools a skill or command invocation limits its turn to (its `allowed-tools`), or None."""
    tools = _marker(message).get("allowed_tools")
    return tuple(tools) if tools else None


def turn_model(message: Any, settings: Settings) -> tuple[str | None, str | None]:
    """(spec, warning): the model a command's frontmatter asks for this turn, if auger knows it."""
    wanted = _marker(message).get("model")
    if not wanted:
        return None, None
    from auger.core.models.providers import check_credentials
    from auger.core.models.specs import parse_spec
    from auger.errors import AugerError

    name = _marker(message).get("name")
    if ":" not in str(wanted):  # Claude Code's aliases (sonnet, haiku, claude-...) name its own models
        return None, f"/{name}: model {wanted!r} is not a provider:model spec; using the current model"
    try:
        spec = parse_spec(str(wanted), settings.providers)
        check_credentials(spec)
    except AugerError as exc:
        return None, f"/{name}: cannot use model {wanted!r} ({exc.message}); using the current model"
    return spec.spec, None


def load_warnings(settings: Settings) -> list[str]:
    """Skills and subagent definitions that were skipped, memory files skipped or capped, Claude
    settings files or rules that were ignored, and why (one line each)."""
    from auger.core.catalog.commands import list_commands
    from auger.core.catalog.memory import memory_warnings
    from auger.core.catalog.skills import discover_skills
    from auger.core.catalog.subagents import discover_subagents
    from auger.core.safety.claude_settings import load_warnings as claude_warnings

    return [
        *discover_skills(settings).warnings,
        *discover_subagents(settings).warnings,
        *memory_warnings(settings),
        *claude_warnings(settings.project_root, trusted=settings.trusted),
        *list_commands(settings).warnings,
    ]

"""Custom slash commands: Markdown prompt files run as `/name args`, in Claude Code's format.

Sources, rising precedence (a later command of the same name wins):

    user     ~/.claude/commands, $AUGER_HOME/commands
    project  .claude/commands, .auger/commands

A command of the same name as one of auger's built-in skills wins over it; the user's own skills
win over commands. `<source>/review.md` is `/review`; a file in a subfolder, `<source>/git/commit.md`, is
`/git:commit`. Frontmatter is optional: `description` (default: the body's first line),
`argument-hint`, `model` (a `provider:model` spec for that turn) and `allowed-tools` (the turn
may use only those, as for skills: `auger.core.middleware.tools.turn_tools`). When invoked, the body
becomes the prompt with:

* `$ARGUMENTS`, `$1` … `$9` replaced by what followed the name (`auger.core.catalog.arguments`); a body
  that uses none gets the arguments appended as `ARGUMENTS: ...`, as Claude Code does;
* `` !`cmd` `` replaced by the command's output (run with /bin/sh in the project root, 30 s at
  most) — only when the command's `allowed-tools` (not those of an untrusted project's command)
  or your allow rules allow it as a shell call, and no deny or ask rule or protected path stops
  it; otherwise it is not run and you are told why;
* `@path` replaced by the file's contents (relative to the project root, inside it; a missing
  or outside file stays as written, with a warning).

A file that cannot be read, or has broken frontmatter, is skipped with a warning.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.catalog.arguments import expand_arguments, uses_arguments
from auger.core.catalog.frontmatter import (
    Catalog,
    FrontmatterError,
    allowed_tools,
    read_text,
    split,
    text_field,
)

if TYPE_CHECKING:
    from auger.settings import Settings

COMMAND_KEY = "auger_command"  # additional_kwargs marker on an invocation message
SHELL_TIMEOUT = 30
MAX_FILE_INLINE = 64 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*(?::[A-Za-z0-9][A-Za-z0-9_.-]*)*$")
_BANG = re.compile(r"!`([^`\n]+)`")
_HINT = re.compile(r"^(argument-hint:[ \t]*)(.*)$", re.MULTILINE)
_AT = re.compile(r"(?<![\w@`])@([\w./~-]*[\w/-])")


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    body: str
    source: str  # user | project
    path: Path
    argument_hint: str = ""
    model: str | None = None
    allowed_tools: tuple[str, ...] = ()


def command_sources(settings: Settings) -> list[tuple[str, Path]]:
    root = Path(settings.project_root)
    return [
        ("user", Path.home() / ".claude" / "commands"),
        ("user", Path(settings.home) / "commands"),
        ("project", root / ".claude" / "commands"),
        ("project", root / ".auger" / "commands"),
    ]


def _quote_hint(match: re.Match[str]) -> str:
    value = match.group(2).strip()
    if value[:1] in ("'", '"') or not value:
        return match.group(0)
    return f"{match.group(1)}'{value.replace(chr(39), chr(39) * 2)}'"


def _read(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter, body); a file without frontmatter is all body. `argument-hint: [a] [b]` is
    read as the text it is (as Claude Code does), not as YAML lists."""
    text = read_text(path)
    if not text.startswith("---"):
        return {}, text
    return split(_HINT.sub(_quote_hint, text, count=1))


def _load(label: str, base: Path, path: Path) -> Command:
    rel = path.relative_to(base).with_suffix("")
    name = ":".join(rel.parts)
    if not _NAME.match(name):
        raise FrontmatterError(f"{name!r} is not a command name (letters, digits, '-', '_', '.')")
    data, body = _read(path)
    body = body.strip()
    first = next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "")
    description = text_field(data, "description") or first[:100]
    hint = data.get("argument-hint")
    model = text_field(data, "model") or None
    return Command(name, description, body, label, path, str(hint or "").strip(), model, allowed_tools(data))


def list_commands(settings: Settings) -> Catalog[Command]:
    """Every usable command (later sources override earlier ones by name), plus warnings."""
    found: dict[str, Command] = {}
    warnings: list[str] = []
    for label, base in command_sources(settings):
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                if not filename.endswith(".md") or filename.startswith("."):
                    continue
                try:
                    command = _load(label, base, path)
                except FrontmatterError as exc:
                    warnings.append(f"skipped command {path}: {exc}")
                    continue
                found[command.name] = command
    return Catalog(dict(sorted(found.items())), warnings)


# --- expansion ------------------------------------------------------------------------------


def _shell_allowed(command: Command, line: str, settings: Settings) -> str | None:
    """None when `line` may run for this command (as an `execute` call in manual mode whose
    thread allowed the command's `allowed-tools`: deny and ask rules and protected paths first);
    else why not. An untrusted project's command brings no `allowed-tools` of its own."""
    from auger.core.safety.permissions import PermissionEngine

    engine = PermissionEngine.from_settings(settings)
    own = command.source != "project" or settings.trusted
    grants = command.allowed_tools if own else ()
    verdict = engine.evaluate("execute", {"command": line}, mode="manual", gated=True, grants=grants)
    if verdict.action == "allow":
        return None
    if verdict.action == "deny" or verdict.by != "mode":
        return verdict.reason
    if command.allowed_tools and not own:
        return (
            "the project is not trusted, so its command's allowed-tools do not apply; no allow rule allows it"
        )
    return "neither the command's allowed-tools nor an allow rule allows it"


def _run(line: str, root: Path) -> str:
    try:
        proc = subprocess.run(
            ["/bin/sh", "-c", line],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=SHELL_TIMEOUT,
            errors="replace",
        )
    except subprocess.TimeoutExpired:
        return f"[timed out after {SHELL_TIMEOUT} s]"
    out = (proc.stdout + proc.stderr).rstrip()
    return out if proc.returncode == 0 else f"{out}\n[exit {proc.returncode}]".lstrip()


def _inline_file(name: str, root: Path) -> str | None:
    path = (root / name).resolve()
    if not path.is_relative_to(root.resolve()) or not path.is_file():
        return None
    data = path.read_bytes()[:MAX_FILE_INLINE]
    return f'<file path="{name}">\n{data.decode("utf-8", errors="replace").rstrip()}\n</file>'


def expand(command: Command, args: str, settings: Settings) -> tuple[str, list[str]]:
    """The prompt `command` becomes for `args`, and warnings (commands not run, files not found)."""
    root = Path(settings.project_root)
    warnings: list[str] = []
    text = expand_arguments(command.body, args)  # a body without placeholders stays as it is
    if args and not uses_arguments(command.body):
        text = f"{text}\n\nARGUMENTS: {args}"

    def bang(match: re.Match[str]) -> str:
        line = match.group(1).strip()
        why = _shell_allowed(command, line, settings)
        if why is not None:
            warnings.append(
                f"/{command.name}: did not run `{line}`: {why} (add it to allowed-tools as Bash(...))"
            )
            return f"[`{line}` was not run: {why}]"
        return _run(line, root)

    def at(match: re.Match[str]) -> str:
        inlined = _inline_file(match.group(1), root)
        if inlined is None:
            warnings.append(
                f"/{command.name}: @{match.group(1)} is not a file in the project; left as written"
            )
            return match.group(0)
        return inlined

    text = _BANG.sub(bang, text)
    text = _AT.sub(at, text)
    return text, warnings


def invocation_message(prompt: str, settings: Settings) -> tuple[Any, list[str]] | None:
    """(HumanMessage, warnings) for `/name args` when `name` is a custom command, else None. The
    message carries `additional_kwargs["auger_command"] = {name, args, path, allowed_tools?, model?}`."""
    parsed = list_commands(settings).invocation(prompt)
    if parsed is None:
        return None
    from langchain_core.messages import HumanMessage

    command, args = parsed
    text, warnings = expand(command, args, settings)
    marker: dict[str, Any] = {"name": command.name, "args": args, "path": str(command.path)}
    if command.allowed_tools:
        marker["allowed_tools"] = list(command.allowed_tools)
    if command.model:
        marker["model"] = command.model
    return HumanMessage(content=text, additional_kwargs={COMMAND_KEY: marker}), warnings

"""The compact prompt profile: what auger sends a model whose context window is small.

With a window of at most `COMPACT_WINDOW` tokens (configured with `context_window`, or known for
the model) the full profile's system prompt and tool descriptions (~6.6k tokens) would leave a
local 8k model little room for the conversation. The compact profile keeps the same tools and
the same rules in few words: one line per tool, parameter names and types without their prose,
a short system prompt. It is chosen per model call (`is_compact`), so `/model` to a bigger
model gets the full profile on its next call. No deepagents or langchain import here.
"""

from __future__ import annotations

import re
from typing import Any

COMPACT_WINDOW = 16_384

COMPACT_SYSTEM_PROMPT = """\
You are auger, a coding assistant working in the user's project.
- Read files before changing them; follow the project's conventions.
- Do what was asked, no more.
- Check your work with `execute` (tests, the program).
- Paths start at the project root (`/src/app.py`); commands run there too.
- If a call is refused, adjust; do not repeat it.
- Git: never commit, push, force-push, rebase or `reset --hard` unless asked; never revert others' changes.
- Never reveal secrets. Be brief; cite code as `path:line`. Plan long work with write_todos.
- The first user message starts with auger's `## Local context` note."""

COMPACT_MEMORY_PROMPT = """## Memory (AGENTS.md)
<agent_memory>
{agent_memory}
</agent_memory>
The user's request wins over these notes. To remember, edit `/AGENTS.md` (project) or
`/~auger/AGENTS.md` (personal); no secrets."""

COMPACT_TOOLS = {
    "ls": "List a directory.",
    "read_file": "Read a file with line numbers; offset and limit pick the lines.",
    "write_file": "Create or replace a file.",
    "edit_file": "Replace old_string (exact; unique unless replace_all) with new_string.",
    "delete": "Delete a file or empty folder.",
    "glob": "Find files by glob pattern, e.g. **/*.py.",
    "grep": "Regex search in file contents (ripgrep syntax).",
    "execute": "Run a shell command in the project root; returns output and exit code.",
    "execute_output": "A background command's new output and state.",
    "execute_stop": "Stop a background command.",
    "get_current_thread_id": "This conversation's thread id.",
    "write_todos": "Replace the todo list.",
    "fetch_url": "A web page as markdown.",
    "web_search": "Search the web: title, URL, snippet per result.",
}

_AGENT_LINE = re.compile(r"^- ([\w.-]+): ", re.M)
SHELL_PATHS_HEADING = "## Shell paths vs. virtual paths"  # deepagents' FilesystemMiddleware block
_MAPPING = re.compile(r"^- (`[^`]+`) -> (`[^`]+`)", re.M)


def window_of(model: Any) -> int | None:
    """The context window a chat model's profile declares (`max_input_tokens`), if any."""
    profile = getattr(model, "profile", None)
    value = profile.get("max_input_tokens") if isinstance(profile, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def is_compact(model: Any) -> bool:
    """Whether a call to `model` gets the compact profile."""
    window = window_of(model)
    return window is not None and window <= COMPACT_WINDOW


def compact_task(description: str) -> str | None:
    """The `task` tool's description in one line, naming the subagents its full one lists."""
    names = _AGENT_LINE.findall(description.split("Usage notes:", 1)[0])
    if not names:
        return None
    return (
        "Give a sub-task to a subagent (it sees only `description`, returns a report). "
        f"subagent_type: {', '.join(names)}."
    )


def _clause(text: str, limit: int = 60) -> str:
    """The first sentence of `text`, cut at a word before `limit` characters."""
    first = text.split(". ")[0]
    return first if len(first) <= limit else first[:limit].rsplit(" ", 1)[0] + "…"


def compact_skills(skills: list[Any]) -> str:
    """The skills section in few words: each skill's name, SKILL.md and first sentence."""
    lines = [
        f"- **{skill['name']}** `{skill['path']}`: {_clause(str(skill['description']), 45)}"
        for skill in skills
    ]
    return "## Skills\nWhen a request matches one, read its SKILL.md first and follow it.\n" + "\n".join(
        lines or ["(none yet; new ones go in `/.auger/skills/NAME/SKILL.md`)"]
    )


def bare_schema(schema: Any) -> Any:
    """A JSON schema without its `description` and `title` texts (names, types, enums, defaults
    stay); an optional `X or null` parameter is just X."""
    if isinstance(schema, dict) and schema.get("default", 0) is None and len(schema.get("anyOf", ())) == 2:
        kept = [option for option in schema["anyOf"] if option != {"type": "null"}]
        if len(kept) == 1:
            return bare_schema(kept[0])
    if isinstance(schema, dict):
        return {
            key: bare_schema(value)
            for key, value in schema.items()
            if key not in ("description", "title") or not isinstance(value, str)
        }
    if isinstance(schema, list):
        return [bare_schema(item) for item in schema]
    return schema


def compact_shell_paths(text: str) -> str | None:
    """deepagents' "shell paths vs. virtual paths" block as one line of its host mappings (None:
    `text` is not that block, or has no mapping)."""
    if SHELL_PATHS_HEADING not in text:
        return None
    pairs = [f"{virtual} is {host}" for virtual, host in _MAPPING.findall(text)]
    if not pairs:
        return None
    return "In shell commands, use host paths: " + "; ".join(pairs) + "."

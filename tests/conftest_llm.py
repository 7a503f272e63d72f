"""Pytest fixture for the scripted OpenAI-compatible server (see tests/llm_server.py).

Import it into conftest.py with ``from conftest_llm import scripted_llm  # noqa: F401``; a test then
takes ``scripted_llm``, calls ``scripted_llm.add({"text": "hello"}, ...)`` and points the client at
``scripted_llm.base_url``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from llm_server import ScriptedLLM
except ImportError:  # imported as a module of another package layout: make tests/ importable
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from llm_server import ScriptedLLM

__all__ = ["ScriptedLLM", "scripted_llm", "typed"]


@pytest.fixture
def scripted_llm(tmp_path: Path) -> Iterator[ScriptedLLM]:
    """An empty-script server on a free port; requests are also logged to ``tmp_path/llm_requests.jsonl``."""
    with ScriptedLLM(log_path=tmp_path / "llm_requests.jsonl") as llm:
        yield llm


NOTE_HEADING = "## Local context\n"  # the note auger puts in front of a thread's first user message


def typed(content: object) -> str:
    """A user message's text as the user typed it, without auger's local-context note."""
    if isinstance(content, str):
        if content.startswith(NOTE_HEADING):
            return content.split("\n\n", 1)[1] if "\n\n" in content else ""
        return content
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if blocks and str(blocks[0].get("text", "")).startswith(NOTE_HEADING):
        blocks = blocks[1:]
    return "".join(str(b.get("text", "")) for b in blocks)

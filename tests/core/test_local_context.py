"""Local context: detection through real backends (local shell, bubblewrap sandbox, files only),
rendering bounds, project kinds, and the middleware's caching / refresh after summarization."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from deepagents.backends import FilesystemBackend, LocalShellBackend
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage

from auger.core.agent.project_facts import (
    MAX_CHARS,
    Facts,
    detect,
    detect_facts,
    kinds_and_test,
    parse,
    render,
)
from auger.core.backends.bwrap import check_bwrap
from auger.core.backends.sandbox import BubblewrapSandbox
from auger.core.middleware.prompt.local_context import CONTEXT_KEY, MARK_KEY, LocalContextMiddleware
from scripted_model import ScriptedChatModel


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "feature/ctx-42")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "T")
    (root / "pyproject.toml").write_text("[project]\nname='x'\n[tool.pytest.ini_options]\n")
    (root / "uv.lock").write_text("")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print(1)\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Initial commit of the app")
    (root / "src" / "app.py").write_text("print(2)\n")  # one changed
    (root / "notes.txt").write_text("x")  # one untracked
    return root


def _check_repo_facts(facts: Facts, root: Path) -> None:
    assert facts.cwd == str(root)
    assert facts.branch == "feature/ctx-42"
    assert (facts.dirty, facts.untracked) == (1, 1)
    assert facts.commits and facts.commits[0].endswith("Initial commit of the app")
    assert {"src/", "pyproject.toml", "uv.lock", "notes.txt"} <= set(facts.entries)


def test_detect_through_local_shell(repo: Path) -> None:
    backend = LocalShellBackend(root_dir=repo, virtual_mode=True, inherit_env=True)
    facts = detect_facts(backend, str(repo))
    _check_repo_facts(facts, repo)
    text = render(facts)
    assert "branch `feature/ctx-42`; 1 changed, 1 untracked" in text
    assert "Python (uv)" in text and "`uv run pytest`" in text


def test_detect_inside_the_bubblewrap_sandbox(repo: Path) -> None:
    check_bwrap()  # fails loudly if bubblewrap is missing: never skipped
    box = BubblewrapSandbox(repo, timeout=30)
    try:
        _check_repo_facts(detect_facts(box, str(repo)), repo)
    finally:
        box.close()


def test_files_only_backend_reads_head_and_listing(repo: Path) -> None:
    facts = detect_facts(FilesystemBackend(root_dir=repo, virtual_mode=True), str(repo))
    assert facts.branch == "feature/ctx-42" and not facts.shell
    assert facts.dirty is None and facts.commits == []
    assert "pytest" in facts.py_tools and "src/" in facts.entries
    assert "Likely test command: `uv run pytest`" in render(facts)


def test_empty_folder_without_git(tmp_path: Path) -> None:
    text = detect(LocalShellBackend(root_dir=tmp_path, virtual_mode=True), str(tmp_path))
    assert "not a git repository" in text and "Top level: (empty)" in text


def test_broken_backend_never_raises(tmp_path: Path) -> None:
    class Broken(LocalShellBackend):
        def execute(self, command: str, *, timeout: int | None = None) -> Any:
            raise OSError("no shell today")

    facts = detect_facts(Broken(root_dir=tmp_path, virtual_mode=True), str(tmp_path))
    assert facts.cwd == str(tmp_path) and facts.branch is None


def test_render_is_bounded() -> None:
    lines = ["cwd=/p", "branch=" + "b" * 300, "dirty=3", "untracked=9"]
    lines += [f"commit=abc{i} " + "subject " * 40 for i in range(5)]
    lines += [f"entry=file_{i:04d}_{'x' * 30}.py" for i in range(60)] + ["entries=5000"]
    text = render(parse("\n".join(lines)))
    assert len(text) <= MAX_CHARS
    assert "(+" in text and "5000 entries" in text


@pytest.mark.parametrize(
    ("entries", "extra", "kinds", "test"),
    [
        (["package.json", "pnpm-lock.yaml"], {"npm_test": "vitest"}, ["Node (pnpm)"], "pnpm test"),
        (["package.json"], {"npm_test": 'echo "Error: no test specified" && exit 1'}, ["Node (npm)"], None),
        (["pyproject.toml", "poetry.lock", "tests/"], {}, ["Python (poetry)"], "poetry run pytest"),
        (["Cargo.toml", "Makefile"], {"make_test": True}, ["Rust (cargo)"], "make test"),
        (["go.mod"], {}, ["Go (go modules)"], "go test ./..."),
        (["README.md"], {}, [], None),
    ],
)
def test_kinds_and_test_command(
    entries: list[str], extra: dict[str, Any], kinds: list[str], test: str | None
) -> None:
    assert kinds_and_test(Facts(entries=entries, **extra)) == (kinds, test)


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, backend: Any, root: str) -> str:
        self.calls += 1
        return f"## Local context\n- detection #{self.calls}"


def test_middleware_caches_in_state_and_refreshes_after_summarization() -> None:
    counter = Counter()
    mw = LocalContextMiddleware(None, "/p", detector=counter)
    first = mw.facts_update({"messages": []})
    assert first == {CONTEXT_KEY: "## Local context\n- detection #1", MARK_KEY: -1}
    state: dict[str, Any] = {"messages": [], **first}
    assert mw.facts_update(state) is None
    state["_summarization_event"] = {"cutoff_index": 12, "summary_message": None, "file_path": None}
    again = mw.facts_update(state)
    assert again is not None and again[MARK_KEY] == 12 and counter.calls == 2
    assert mw.facts_update({**state, **again}) is None


def test_middleware_puts_the_note_in_the_first_user_message_not_the_system_prompt() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    counter = Counter()
    model = ScriptedChatModel(script=["a", "b"])
    agent = create_agent(
        model,
        system_prompt="BASE PROMPT",
        middleware=[LocalContextMiddleware(None, "/p", detector=counter)],
        checkpointer=InMemorySaver(),
    )
    cfg = {"configurable": {"thread_id": "t"}}
    agent.invoke({"messages": [HumanMessage("1")]}, cfg)
    agent.invoke({"messages": [HumanMessage("2")]}, cfg)
    assert counter.calls == 1
    assert model.calls[1]["system"] == "BASE PROMPT"
    first, *rest = (m for m in model.calls[1]["messages"] if m.type == "human")
    assert first.content == "## Local context\n- detection #1\n\n1"
    assert [m.content for m in rest] == ["2"]
    state = agent.get_state(cfg).values  # state keeps what the user typed
    assert [m.content for m in state["messages"] if m.type == "human"] == ["1", "2"]


def test_the_note_goes_before_a_multimodal_message_s_blocks() -> None:
    from auger.core.middleware.prompt.local_context import with_context

    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    out = with_context([HumanMessage([{"type": "text", "text": "look"}, image])], "NOTE")
    assert out[0].content == [{"type": "text", "text": "NOTE"}, {"type": "text", "text": "look"}, image]
    assert [m.content for m in with_context([], "NOTE")] == ["NOTE"]

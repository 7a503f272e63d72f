"""Without ripgrep, grep walks the project in Python (`auger.core.backends.search.python_grep`):
it must skip and find what ripgrep does: .gitignore (nested too) and .ignore rules, hidden
folders, node_modules, binary files; the same context lines, type filter and match cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.core.backends import search


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {
        ".gitignore": "build/\n*.log\n",
        ".ignore": "vendor/\n",
        "src/.gitignore": "generated_*.py\n",
        "src/app.py": "import os\n\ndef alpha(x):\n    return x\n\ndef beta():\n    pass\n",
        "src/generated_api.py": "def alpha(x): generated\n",
        "src/app.js": "function alpha(x) { return x }\n",
        "src/deep/more.py": "def alpha(y):\n    return y\n",
        "notes.log": "def alpha(x) in a log\n",
        "build/out.py": "def alpha(x): built\n",
        "vendor/lib.py": "def alpha(x): vendored\n",
        ".venv/lib/site.py": "def alpha(x): venv\n",
        "node_modules/pkg/index.js": "function alpha(x) {}\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "src/blob.bin").write_bytes(b"def alpha(x)\0\x01" * 50)
    (tmp_path / ".git").mkdir()  # .gitignore counts in a git repository, as for git
    return tmp_path


QUERIES = [
    search.Query(r"alpha\(\w\)"),
    search.Query("def (alpha|beta)", context=1),
    search.Query("alpha", file_type="py", context=2),
    search.Query("alpha", glob="*.js"),
    search.Query(r"\w+", limit=3),
]


@pytest.mark.parametrize("query", QUERIES, ids=[q.pattern for q in QUERIES])
def test_the_python_fallback_finds_what_ripgrep_finds(repo: Path, query: search.Query) -> None:
    assert search.find_rg() is not None  # the `ripgrep` dependency ships it
    by_rg = search.host_grep(repo, repo, query)
    by_python = search.python_grep(repo, repo, query)
    key = [(m["path"], m["line"]) for m in by_rg.matches or []]
    assert sorted(key) == sorted((m["path"], m["line"]) for m in by_python.matches or [])
    if query.limit > 3:
        assert by_rg == by_python or sorted(map(str, by_rg.matches or [])) == sorted(
            map(str, by_python.matches or [])
        )
    paths = {m["path"] for m in by_python.matches or []}
    assert paths <= {"/src/app.py", "/src/app.js", "/src/deep/more.py"}, paths
    assert by_python.truncated == by_rg.truncated


def test_a_search_of_node_modules_itself_looks_there(repo: Path) -> None:
    base = repo / "node_modules"
    for grep in (search.host_grep, search.python_grep):
        found = grep(repo, base, search.Query("alpha"))
        assert [m["path"] for m in found.matches or []] == ["/node_modules/pkg/index.js"]


def test_a_bad_regex_names_the_pattern(repo: Path) -> None:
    for grep in (search.host_grep, search.python_grep):
        error = grep(repo, repo, search.Query("alpha(")).error or ""
        assert error.startswith("Error: 'alpha(' is not a valid regex"), error


def test_an_outer_repositorys_ignore_file_hides_nothing(tmp_path: Path) -> None:
    """A dotfiles repository's `*` in the home folder's .gitignore is not the project's."""
    (tmp_path / ".gitignore").write_text("*\n")
    (tmp_path / ".git").mkdir()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "a.txt").write_text("needle\n")
    for grep in (search.host_grep, search.python_grep):
        found = grep(project, project, search.Query("needle"))
        assert [m["path"] for m in found.matches or []] == ["/a.txt"], grep

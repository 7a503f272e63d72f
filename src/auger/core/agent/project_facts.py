"""Project facts for the system prompt: cwd, git state, project kinds, test command, top level.

`detect(backend)` runs ONE bounded shell script through `backend.execute` — so it sees what the
agent's shell sees, inside a sandbox too — and `parse` + `render` turn its `key=value` lines into
a short markdown block (at most `MAX_CHARS`). A backend without a shell (FilesystemBackend) gets
the same facts, minus git status and commits, from the backend's file API. Nothing here raises:
a missing git, an empty folder or a failing command just leave facts out.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("auger.project_facts")

MAX_CHARS = 2048
_NOISE = ("_cache/", "__pycache__/", ".DS_Store")  # counted, not listed
MAX_ENTRIES = 60
MAX_COMMITS = 5
TIMEOUT_S = 10

SCRIPT = rf"""exec 2>/dev/null
export GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 LC_ALL=C
printf 'cwd=%s\n' "$(pwd)"
if command -v git >/dev/null && git rev-parse --git-dir >/dev/null; then
  printf 'branch=%s\n' "$(git symbolic-ref --short -q HEAD || git rev-parse --short HEAD)"
  git status --porcelain | awk '/^\?\?/{{u++;next}}{{d++}}END{{printf "dirty=%d\nuntracked=%d\n",d,u}}'
  git log -n {MAX_COMMITS} --no-color --format='commit=%h %s'
fi
ls -1Ap | grep -vxF '.git/' | head -n {MAX_ENTRIES} | sed 's/^/entry=/'
printf 'entries=%s\n' "$(ls -1A | grep -vxF '.git' | wc -l)"
[ -f package.json ] && sed -n 's/^ *"test" *: *"\(.*\)".*/npmtest=\1/p' package.json | head -n 1
[ -f Makefile ] && grep -q '^test:' Makefile && echo 'maketest=1'
[ -f pyproject.toml ] && grep -o '^\[tool\.[a-z_-]*' pyproject.toml | sort -u | head -n 20 \
  | sed 's/^\[tool\./pytool=/'
exit 0
"""


@dataclass
class Facts:
    cwd: str = ""
    branch: str | None = None
    dirty: int | None = None
    untracked: int | None = None
    commits: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)  # names, directories end with "/"
    total_entries: int = 0
    npm_test: str | None = None
    make_test: bool = False
    py_tools: set[str] = field(default_factory=set)
    shell: bool = True


def parse(output: str) -> Facts:
    facts = Facts()
    for line in output.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        value = value.strip()
        if key == "cwd":
            facts.cwd = value
        elif key == "branch" and value:
            facts.branch = value
        elif key in ("dirty", "untracked") and value.isdigit():
            setattr(facts, key, int(value))
        elif key == "commit" and value:
            facts.commits.append(value)
        elif key == "entry" and value:
            facts.entries.append(value)
        elif key == "entries" and value.isdigit():
            facts.total_entries = int(value)
        elif key == "npmtest" and value:
            facts.npm_test = value
        elif key == "maketest":
            facts.make_test = True
        elif key == "pytool":
            facts.py_tools.add(value)
    facts.total_entries = max(facts.total_entries, len(facts.entries))
    return facts


# --- project kinds ---------------------------------------------------------------------------

_NODE_MANAGERS = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
)
_PY_LOCKS = (("uv.lock", "uv"), ("poetry.lock", "poetry"), ("pdm.lock", "pdm"), ("Pipfile", "pipenv"))
_SIMPLE_KINDS = (  # marker file -> (kind, package manager, test command)
    ("Cargo.toml", "Rust", "cargo", "cargo test"),
    ("go.mod", "Go", "go modules", "go test ./..."),
    ("Gemfile", "Ruby", "bundler", "bundle exec rake test"),
    ("pom.xml", "Java", "maven", "mvn test"),
    ("build.gradle", "JVM", "gradle", "./gradlew test"),
    ("build.gradle.kts", "JVM", "gradle", "./gradlew test"),
    ("composer.json", "PHP", "composer", "vendor/bin/phpunit"),
    ("mix.exs", "Elixir", "mix", "mix test"),
    ("deno.json", "Deno", "deno", "deno test"),
    ("CMakeLists.txt", "C/C++", "cmake", "ctest --test-dir build"),
)


def _python(facts: Facts, names: set[str]) -> tuple[str, str | None] | None:
    if not names & {"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}:
        return None
    manager = next((m for f, m in _PY_LOCKS if f in names), None)
    manager = manager or next((t for t in ("poetry", "uv", "pdm", "hatch") if t in facts.py_tools), "pip")
    pytest = bool(
        "pytest" in facts.py_tools or names & {"pytest.ini", "conftest.py", "tox.ini", "tests/", "test/"}
    )
    runner = {"uv": "uv run pytest", "poetry": "poetry run pytest", "pdm": "pdm run pytest"}
    test = (runner.get(manager, "python -m pytest")) if pytest else None
    return f"Python ({manager})", test


def kinds_and_test(facts: Facts) -> tuple[list[str], str | None]:
    """Project kinds (with package manager) and the likely test command."""
    names = set(facts.entries)
    kinds: list[str] = []
    tests: list[str] = []
    if facts.make_test:
        tests.append("make test")
    if "package.json" in names:
        manager = next((m for f, m in _NODE_MANAGERS if f in names), "npm")
        kinds.append(f"Node ({manager})")
        if facts.npm_test and "no test specified" not in facts.npm_test:
            tests.append(f"{manager} test")
    py = _python(facts, names)
    if py:
        kinds.append(py[0])
        tests += [py[1]] if py[1] else []
    for marker, kind, manager, test in _SIMPLE_KINDS:
        if marker in names:
            kinds.append(f"{kind} ({manager})")
            tests.append(test)
    if not kinds and any(n.endswith((".csproj", ".sln")) for n in names):
        kinds.append(".NET (dotnet)")
        tests.append("dotnet test")
    return kinds, (tests[0] if tests else None)


# --- rendering -------------------------------------------------------------------------------


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(facts: Facts, max_chars: int = MAX_CHARS) -> str:
    kinds, test = kinds_and_test(facts)
    lines = ["## Local context", f"- Working directory: `{facts.cwd or '?'}`"]
    if facts.branch:
        status = ""
        if facts.dirty is not None:
            status = f"; {facts.dirty} changed, {facts.untracked or 0} untracked"
        lines.append(f"- Git: branch `{_clip(facts.branch, 80)}`{status}")
    elif facts.shell:
        lines.append("- Git: not a git repository (or git is not installed)")
    if facts.commits:
        lines.append("- Recent commits: " + "; ".join(_clip(c, 90) for c in facts.commits[:MAX_COMMITS]))
    if kinds:
        lines.append("- Project: " + ", ".join(kinds))
    if test:
        lines.append(f"- Likely test command: `{test}`")
    head = "\n".join(lines)
    if not facts.entries:
        return _clip(head + "\n- Top level: (empty)", max_chars)
    prefix = f"\n- Top level ({facts.total_entries} entries): "
    room = max_chars - len(head) - len(prefix) - 12
    shown: list[str] = []
    for name in sorted(facts.entries, key=lambda n: (not n.endswith("/"), n.lower())):
        if name.endswith(_NOISE):
            continue
        if len(", ".join([*shown, name])) > room:
            break
        shown.append(_clip(name, 60))
    more = facts.total_entries - len(shown)
    return head + prefix + ", ".join(shown) + (f", … (+{more})" if more > 0 else "")


# --- detection -------------------------------------------------------------------------------

_BRANCH = re.compile(r"ref:\s*refs/heads/(\S+)")


def _read(backend: Any, paths: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for path, resp in zip(paths, backend.download_files(paths), strict=True):
        if resp.error is None and resp.content is not None:
            out[path] = resp.content[:65536].decode("utf-8", errors="replace")
    return out


def _entry_name(entry: Any) -> str:
    return str(entry["path"]).rstrip("/").rsplit("/", 1)[-1] + ("/" if entry.get("is_dir") else "")


def _facts_from_files(backend: Any, root: str) -> Facts:
    """No shell: the same facts from `ls` and a few small files through the backend."""
    facts = Facts(cwd=root, shell=False)
    listing = backend.ls("/")
    entries = getattr(listing, "entries", listing) or []
    names = [_entry_name(e) for e in entries]
    names = [n for n in names if n not in (".git/", ".git", "/")]
    facts.total_entries, facts.entries = len(names), names[:MAX_ENTRIES]
    files = _read(backend, ["/.git/HEAD", "/package.json", "/Makefile", "/pyproject.toml"])
    if m := _BRANCH.search(files.get("/.git/HEAD", "")):
        facts.branch = m.group(1)
    if m := re.search(r'^\s*"test"\s*:\s*"(.*)"', files.get("/package.json", ""), re.M):
        facts.npm_test = m.group(1)
    facts.make_test = bool(re.search(r"^test:", files.get("/Makefile", ""), re.M))
    facts.py_tools = set(re.findall(r"^\[tool\.([a-z_-]+)", files.get("/pyproject.toml", ""), re.M))
    return facts


def detect_facts(backend: Any, root: str = "") -> Facts:
    try:
        from deepagents.middleware.filesystem import supports_execution

        if supports_execution(backend):
            try:
                result = backend.execute(SCRIPT, timeout=TIMEOUT_S)
            except TypeError:  # a backend whose execute takes no timeout
                result = backend.execute(SCRIPT)
            return parse(result.output or "")
        return _facts_from_files(backend, root)
    except Exception:  # never let detection break a turn
        log.warning("local context detection failed", exc_info=True)
        return Facts(cwd=root)


def detect(backend: Any, root: str = "") -> str:
    """The rendered local-context block for the project behind `backend`."""
    return render(detect_facts(backend, root))

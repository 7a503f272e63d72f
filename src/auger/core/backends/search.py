"""grep, glob and ls that respect the project: ignore files honoured, binary files skipped, output capped.

`grep` takes a regex in ripgrep's syntax and runs ripgrep (the `ripgrep` package ships `rg`)
with `.ignore` and, in a git repository, `.gitignore` honoured (as git does: an outer
repository's ignore file, a dotfiles repo's `*` above the project, hides nothing), hidden
folders (`.git`, `.venv`) and `node_modules` skipped unless the search path names them, binary
and huge files skipped. `rg_argv` builds the command and `parse` reads its `--json` stream into matches with
optional context lines: the host backends run it here (`host_grep`), the bubblewrap sandbox runs
the same argv inside the sandbox. Without `rg`, `python_grep` walks the tree itself (`pathspec`
for the ignore files, `re` for the pattern). At most `limit` matches are kept, the rest are
counted (`Found.more`) for the "N more; narrow the pattern" note. `cap_entries` bounds an ls or
glob listing the same way, and `missing` names a search path that does not exist.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepagents.backends.protocol import FileInfo, GrepMatch, GrepResult

LINE_CHARS = 300  # a matching line is cut here (minified files)
MAX_FILESIZE = 10 * 1024 * 1024
COUNT_CAP = 100_000  # matches past `limit` are counted up to here
TIMEOUT = 30.0
LIST_CAP, LIST_BYTES = 500, 25_000  # entries of an ls or glob listing
SUBFOLDER, NARROWER = "list a subfolder, or glob for a pattern", "narrow the pattern or the path"
SKIPPED = "node_modules"  # skipped unless named: hidden folders already are, by ripgrep's default
_TYPES = {"py": "py pyi", "js": "js mjs cjs jsx", "ts": "ts tsx mts cts", "rust": "rs", "md": "md markdown"}
_TYPES |= {"yaml": "yaml yml", "sh": "sh bash", "c": "c h", "cpp": "cpp cc cxx hpp hh h", "html": "html htm"}


@dataclass
class Found(GrepResult):
    """A grep result that also says how many matches were left out (`more`; `more_cut`: at least)."""

    more: int = 0
    more_cut: bool = False


@dataclass(frozen=True)
class Query:
    """A search: the regex, the glob and file type the files must match, context lines, matches kept."""

    pattern: str
    glob: str | None = None
    file_type: str | None = None
    context: int = 0
    limit: int = COUNT_CAP

    @classmethod
    def of(
        cls,
        pattern: str,
        glob: str | None,
        *,
        file_type: str | None = None,
        context_lines: int = 0,
        max_count: int | None = None,
    ) -> Query:
        """The query of a backend's `grep(pattern, path, glob, **keywords)`."""
        return cls(pattern, glob, file_type, max(context_lines, 0), max_count or COUNT_CAP)


def takes_query(grep: Any) -> bool:
    """Whether a backend's `grep` takes `Query.of`'s keywords (a provider's sandbox may not)."""
    params = inspect.signature(grep).parameters.values()
    return any(p.name == "file_type" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


@functools.cache
def find_rg() -> str | None:
    """ripgrep's `rg`: on PATH, or next to this Python (the `ripgrep` package's script)."""
    beside = Path(sys.executable).parent / "rg"
    return shutil.which("rg") or (str(beside) if os.access(beside, os.X_OK) else None)


def missing(path: str | None) -> str:
    """What a search of a path that does not exist answers (the glob tool puts "Error: " before it)."""
    return f"path '{path}' does not exist: check the name (ls its folder)"


def rg_argv(rg: str, query: Query, base: str) -> list[str]:
    """The ripgrep command running `query` over `base` (a real path)."""
    argv = [rg, "--json", "--sort", "path", "--max-filesize", str(MAX_FILESIZE), "--no-config"]
    argv += ["--glob", query.glob] if query.glob else []
    argv += ["--type", query.file_type] if query.file_type else []
    argv += [] if SKIPPED in Path(base).parts else ["--glob", f"!{SKIPPED}/"]
    argv += ["--context", str(query.context)] if query.context > 0 else []
    return [*argv, "--regexp", query.pattern, "--", base]


def _text(data: dict[str, Any]) -> str:
    lines = data.get("lines") or {}
    text = lines.get("text")
    if text is None:
        text = "<line not UTF-8>"
    text = text.rstrip("\r\n")
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS] + " …"


class Collect:
    """Matches (with context lines) from a stream of events, keeping `limit`, counting the rest."""

    def __init__(self, limit: int, context: int) -> None:
        self.limit, self.context = limit, context
        self.matches: list[GrepMatch] = []
        self.more = 0
        self._before: list[Any] = []

    def add(self, kind: str, path: str, line: int, text: str) -> bool:
        """Take one event; False once enough is known (COUNT_CAP passed)."""
        if len(self.matches) >= self.limit:
            self.more += kind == "match"
            return self.more < COUNT_CAP
        last = self.matches[-1] if self.matches else None
        if kind == "context":
            if last and last["path"] == path and 0 < line - last["line"] <= self.context:
                last.setdefault("context_after", []).append({"line": line, "text": text})
            else:
                self._before = [*self._before, {"line": line, "text": text, "path": path}][-self.context :]
            return True
        match: GrepMatch = {"path": path, "line": line, "text": text}
        if self.context:
            before = [
                c for c in self._before if c["path"] == path and line - self.context <= c["line"] < line
            ]
            match["context_before"] = [{"line": c["line"], "text": c["text"]} for c in before]
            match["context_after"] = []
        self._before = []
        self.matches.append(match)
        return True


def parse(lines: Iterable[bytes], collect: Collect, virtual: Any) -> bool:
    """Feed ripgrep `--json` lines to `collect` (paths through `virtual`); False if it stopped early."""
    for raw in lines:
        try:
            event = json.loads(raw)
        except ValueError:
            continue
        kind, data = event.get("type"), event.get("data") or {}
        if kind in ("match", "context"):
            path = virtual((data.get("path") or {}).get("text", "?"))
            if not collect.add(kind, path, int(data.get("line_number") or 0), _text(data)):
                return False
    return True


def rg_error(pattern: str, stderr: str) -> str:
    """What a failed ripgrep run tells the model (a bad regex or an unknown type, mostly)."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()][:8]
    detail = "\n".join(lines)[:1000] or "ripgrep failed"
    if "regex parse error" in detail:
        escape = "ripgrep's syntax; escape ( [ . * + ? with \\"
        return f"Error: '{pattern}' is not a valid regex ({escape}):\n{detail}"
    if "unrecognized file type" in detail:
        detail += "\nUse a ripgrep type (py, js, ts, rust, go, java, c, cpp, md, json, yaml, sh)"
        detail += " or a glob: `*.ext`."
    return f"Error: {detail}"


def result(collect: Collect, complete: bool, error: str | None = None) -> Found:
    return Found(
        error=error,
        matches=collect.matches,
        truncated=bool(collect.more) or not complete,
        more=collect.more,
        more_cut=not complete,
    )


def host_grep(root: Path, base: Path, query: Query) -> GrepResult:
    """Run `query` over `base` (inside the project folder `root`) with ripgrep, or in Python."""
    rg = find_rg()
    if rg is None:
        return python_grep(root, base, query)
    collect = Collect(query.limit, query.context)
    with tempfile.TemporaryFile() as err:
        try:
            argv = rg_argv(rg, query, str(base))
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        except OSError:  # an `rg` that cannot run here (another platform's binary)
            return python_grep(root, base, query)
        late: list[bool] = []

        def stop() -> None:
            late.append(True)
            proc.kill()

        timer = threading.Timer(TIMEOUT, stop)
        timer.start()
        try:
            assert proc.stdout is not None
            complete = parse(proc.stdout, collect, lambda p: _virtual(root, p))
        finally:
            timer.cancel()
            proc.kill()
            code = proc.wait()
        err.seek(0)
        stderr = err.read(8192).decode("utf-8", "replace")
    if code == 2 and not collect.matches and stderr.strip():
        return GrepResult(error=rg_error(query.pattern, stderr), matches=[])
    return result(collect, complete and not late)


def from_output(data: bytes, code: int, whole: bool, query: Query, virtual: Any) -> GrepResult:
    """What a ripgrep run that printed `data` (all of it if `whole`; stderr too) and exited with
    `code` found (the bubblewrap sandbox runs it)."""
    collect, lines = Collect(query.limit, query.context), data.splitlines()
    complete = parse(lines, collect, virtual) and whole and code != 124  # 124: timed out
    if code == 2 and not collect.matches:
        stderr = "\n".join(x.decode("utf-8", "replace") for x in lines if not x.startswith(b"{"))
        return GrepResult(error=rg_error(query.pattern, stderr), matches=[])
    return result(collect, complete)


def _virtual(root: Path, real: str) -> str:
    try:
        return "/" + Path(real).relative_to(root).as_posix()
    except ValueError:
        return real


# -- without ripgrep ------------------------------------------------------------------------------
def _ignores(folder: Path, git: bool) -> Any:
    import pathspec

    lines: list[str] = []
    for name in (".gitignore", ".ignore") if git else (".ignore",):
        try:
            lines += (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()[:5000]
        except OSError:
            continue
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def _walk(root: Path, base: Path) -> Iterator[Path]:
    """The files under `base` that ripgrep would search, in its `--sort path` order: ignore files
    (also those in the folders above, up to `root`) honoured, hidden folders and links skipped."""
    if base.is_file():
        yield base
        return
    named, git = SKIPPED in base.parts, (root / ".git").exists()

    def enter(folder: Path, chain: list[tuple[Path, Any]]) -> tuple[Iterator[os.DirEntry[str]], Any]:
        spec = _ignores(folder, git)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            entries = []
        return iter(entries), [*chain, (folder, spec)] if spec is not None else chain

    above: list[tuple[Path, Any]] = []
    for folder in reversed([d for d in base.parents if d == root or root in d.parents]):
        above = enter(folder, above)[1]
    stack = [enter(base, above)]
    while stack:
        entries, chain = stack[-1]
        if (entry := next(entries, None)) is None:
            stack.pop()
            continue
        is_dir = entry.is_dir(follow_symlinks=False)
        if entry.name.startswith(".") or (is_dir and entry.name == SKIPPED and not named):
            continue
        path = Path(entry.path)
        if any(s.match_file(path.relative_to(d).as_posix() + "/" * is_dir) for d, s in chain):
            continue
        if is_dir:
            stack.append(enter(path, chain))
        elif entry.is_file(follow_symlinks=False):
            yield path


def _wanted(path: Path, glob: str | None, file_type: str | None) -> bool:
    import pathspec

    if glob and not pathspec.GitIgnoreSpec.from_lines([glob]).match_file(path.name):
        return False
    exts = _TYPES.get(file_type, file_type).split() if file_type else []
    return not exts or path.suffix.lstrip(".") in exts


def python_grep(root: Path, base: Path, query: Query) -> GrepResult:
    """`host_grep` without ripgrep: Python's `re` (close to ripgrep's syntax for common patterns)."""
    try:
        regex = re.compile(query.pattern)
    except re.error as exc:
        return GrepResult(error=f"Error: '{query.pattern}' is not a valid regex: {exc}", matches=[])
    context = query.context
    collect, deadline = Collect(query.limit, context), time.monotonic() + TIMEOUT
    for path in _walk(root, base):
        if time.monotonic() > deadline:
            return result(collect, False)
        try:
            if not _wanted(path, query.glob, query.file_type) or path.stat().st_size > MAX_FILESIZE:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        lines = data.decode("utf-8", "replace").splitlines()
        hits = [i for i, line in enumerate(lines) if regex.search(line)]
        shown = sorted(
            {j for i in hits for j in range(max(0, i - context), min(len(lines), i + context + 1))}
        )
        for i in shown:
            text = lines[i] if len(lines[i]) <= LINE_CHARS else lines[i][:LINE_CHARS] + " …"
            if not collect.add("match" if i in hits else "context", _virtual(root, str(path)), i + 1, text):
                return result(collect, False)
    return result(collect, True)


# -- listings -------------------------------------------------------------------------------------
def cap_entries(entries: list[FileInfo], narrow: str, unread: int = 0) -> tuple[list[FileInfo], int]:
    """The first entries of a listing (at most LIST_CAP, LIST_BYTES of paths) with a last entry
    saying how many more there are (`unread` of them not even read) and to `narrow`; and that number."""
    size, count = 0, len(entries)
    for index, entry in enumerate(entries):
        size += len(str(entry.get("path", ""))) + 4
        if index >= LIST_CAP or size > LIST_BYTES:
            count = index
            break
    more = len(entries) - count + unread
    if not more:
        return entries, 0
    return [*entries[:count], FileInfo(path=f"… {more} more not shown; {narrow}", is_dir=False, size=0)], more

"""Bubblewrap sandbox: every shell command *and* every file tool runs inside `bwrap`.

The host filesystem is bound read-only, the project folder read-write at its own path, `/tmp` is a
private per-backend folder (never the host's `/tmp`), the user's credentials and AUGER_HOME are
hidden (`hide`/`expose`, see `auger.core.backends.sandbox_hide`) and every namespace is unshared — no
network unless `network=True`. File-tool paths are virtual and rooted at the project ("/src/x.py" is
`<root>/src/x.py`), with the same results as `LocalShellBackend(root_dir=root, virtual_mode=True)`.
The bwrap flags, the scrubbed environment and the output collector are `auger.core.backends.bwrap`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from deepagents.backends.protocol import (
    DeleteResult,
    EditResult,
    ExecuteResponse,
    FileData,
    FileDownloadResponse,
    FileInfo,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)
from deepagents.backends.sandbox import BaseSandbox, _build_glob_cmd, _parse_glob_output
from deepagents.backends.utils import _get_backend_read_file_type, normalize_read_bounds

from auger.core.backends import paging, search
from auger.core.backends.bwrap import ISOLATION, MISSING_BWRAP, sandbox_env
from auger.core.backends.editing import edit_by_transfer
from auger.core.backends.project_files import not_found, page_result
from auger.core.backends.sandbox_hide import BwrapHide
from auger.core.backends.spawn import kill_group, started
from auger.core.backends.spill import SpillTo, Window, collect, response

_DOWNLOAD_CAP = 64 * 1024 * 1024
_SH = "/bin/sh"
_LS_SCRIPT = """
import base64, datetime, json, os, stat, sys
path, root = (base64.b64decode(a).decode() for a in sys.argv[1:3])
try:
    names = os.listdir(path)
except (FileNotFoundError, NotADirectoryError, PermissionError) as exc:
    codes = {FileNotFoundError: 'path_not_found', NotADirectoryError: 'not_a_directory'}
    print(json.dumps({'error': codes.get(type(exc), 'permission_denied')}))
    sys.exit(0)
out = []
names = sorted(names)
for name in names[:int(sys.argv[3])]:
    full = os.path.join(path, name)
    real = os.path.realpath(full)
    try:
        mode, size, mtime = (lambda s: (s.st_mode, s.st_size, s.st_mtime))(os.stat(full))
    except OSError:
        continue
    inside = real == root or real.startswith(root + '/')
    if inside and (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        d = stat.S_ISDIR(mode)
        when = datetime.datetime.fromtimestamp(mtime).isoformat()
        out.append({'path': full + '/' * d, 'is_dir': d, 'size': 0 if d else size, 'modified_at': when})
print(json.dumps({'entries': out, 'unread': max(len(names) - int(sys.argv[3]), 0)}))
"""
_UPLOAD_SCRIPT = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'
_DOWNLOAD_SCRIPT = '[ -d "$1" ] && exit 3; [ -e "$1" ] || exit 4; [ -r "$1" ] || exit 5; exec cat -- "$1"'
_DOWNLOAD_ERRORS = {3: "is_directory", 4: "file_not_found", 5: "permission_denied"}


class BubblewrapSandbox(BaseSandbox):
    """A `SandboxBackendProtocol` whose commands and file operations all run inside bubblewrap."""

    def __init__(
        self,
        root_dir: str | Path,
        *,
        network: bool = False,
        timeout: int = 120,
        max_output_bytes: int = 100_000,
        hide: Iterable[str] = (),
        expose: Sequence[str] = (),
        spill_to: SpillTo | None = None,
        lines: int | None = None,
        binds: Sequence[str] = (),
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.root = os.path.realpath(root_dir)
        self.network = network
        self.binds = list(binds)  # `--add-dir` folders, writable at their own paths
        self._timeout, self._cap = timeout, max_output_bytes
        self.spill_to, self.lines = spill_to, lines
        self._env = sandbox_env()
        self._bwrap = shutil.which("bwrap") or "bwrap"
        self._id = f"bwrap-{uuid.uuid4().hex[:8]}"
        self.tmp_dir = tempfile.mkdtemp(prefix="auger-sandbox-tmp-")
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.tmp_dir, ignore_errors=True)
        self._hide = BwrapHide.build(hide, expose, self.root, self._tool_dirs)

    @property
    def id(self) -> str:
        return self._id

    def close(self) -> None:
        """Remove the sandbox's private /tmp (also done when the object is garbage-collected)."""
        self._finalizer()

    # -- running commands ------------------------------------------------------------------------
    @property
    def _tool_dirs(self) -> list[str]:
        """The private /tmp hides the host's; toolchains that live there (a venv, PATH entries)
        are bound back, read-only."""
        dirs = {sys.prefix, *self._env.get("PATH", "").split(os.pathsep)}
        return sorted(x for x in dirs if x.startswith("/tmp/") and os.path.isdir(x))

    def bwrap_argv(self, *command: str) -> list[str]:
        """The full argv that runs `command` inside the sandbox."""
        argv = [self._bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        argv += ["--bind", self.tmp_dir, "/tmp", *[a for d in self._tool_dirs for a in ("--ro-bind", d, d)]]
        argv += [*self._hide.before, "--bind", self.root, self.root]
        argv += [*(a for d in self.binds for a in ("--bind", d, d)), *self._hide.after, *ISOLATION]
        argv += ["--share-net"] if self.network else []
        return [*argv, "--chdir", self.root, "--", *command]

    def _spawn(self, command: list[str], stdin: Any = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.bwrap_argv(*command),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=self._env,
            cwd=self.root,
            start_new_session=True,
        )

    def _run(self, command: list[str], *, data: bytes = b"", cap: int | None = None) -> Window:
        with tempfile.TemporaryFile() as stdin:
            stdin.write(data)
            stdin.seek(0)
            return collect(self._spawn(command, stdin), self._timeout, Window(cap or self._cap))

    def _start(self, command: str, timeout: int | None) -> tuple[int, subprocess.Popen[bytes] | str]:
        limit = timeout if timeout is not None else self._timeout
        if not command or not isinstance(command, str) or limit <= 0:
            return limit, "Error: Command must be a non-empty string and the timeout positive."
        try:
            return limit, self._spawn([_SH, "-c", command])
        except OSError as exc:
            return limit, f"Error: cannot start bubblewrap ({exc}). {MISSING_BWRAP}"

    def spawn_command(self, command: str) -> subprocess.Popen[bytes]:
        """A background command (auger.core.backends.jobs), inside the sandbox like the others."""
        return self._spawn([_SH, "-c", command])

    def _window(self) -> Window:
        half = self._cap // 2
        return Window(self._cap - half, half, self.spill_to, self.lines)

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        limit, proc = self._start(command, timeout)
        if isinstance(proc, str):
            return ExecuteResponse(output=proc, exit_code=1)
        return response(collect(proc, limit, self._window()), limit)

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        def stop(started_: tuple[int, subprocess.Popen[bytes] | str]) -> None:
            if not isinstance(started_[1], str):
                kill_group(started_[1])

        limit, proc = await started(lambda: self._start(command, timeout), stop)  # off the event loop
        if isinstance(proc, str):
            return ExecuteResponse(output=proc, exit_code=1)
        try:
            out = await asyncio.to_thread(collect, proc, limit, self._window())
        except asyncio.CancelledError:
            kill_group(proc)  # a cancelled turn stops the command; the reader thread then sees EOF
            raise
        return response(out, limit)

    # -- virtual paths ---------------------------------------------------------------------------
    def real_path(self, path: str) -> str:
        """The host (= sandbox) path of a virtual path; `ValueError` if it leaves the project."""
        vpath = path if path.startswith("/") else "/" + path
        if ".." in PurePosixPath(vpath).parts or path.startswith("~"):
            raise ValueError(f"Path '{path}' is outside the project: path traversal is not allowed")
        full = os.path.realpath(os.path.join(self.root, vpath.lstrip("/")))
        if full != self.root and not full.startswith(self.root + "/"):
            raise ValueError(f"Path '{path}' is outside the project: a symlink leads out of it")
        return full

    def virtual_path(self, real: str) -> str:
        if real == self.root:
            return "/"
        return real[len(self.root) :] if real.startswith(self.root + "/") else real

    def _infos(self, infos: list[FileInfo]) -> list[FileInfo]:
        mapped: list[FileInfo] = [{**info, "path": self.virtual_path(info["path"])} for info in infos]
        return sorted(mapped, key=lambda info: info["path"])

    # -- file operations: virtual paths in, virtual paths out ------------------------------------
    def ls(self, path: str) -> LsResult:
        try:
            real = self.real_path(path)
        except ValueError as exc:
            return LsResult(error=str(exc))
        args = [base64.b64encode(s.encode()).decode() for s in (real, self.root)]
        out = self._run(["python3", "-c", _LS_SCRIPT, *args, str(2 * search.LIST_CAP)], cap=_DOWNLOAD_CAP)
        try:
            data: dict[str, Any] = json.loads(out.data)
        except ValueError:
            return LsResult(error=f"Cannot list '{path}': {out.data[:300].decode(errors='replace')}")
        if "error" in data:
            return LsResult(error=f"Path '{path}': {data['error']}")
        listed = self._infos(data["entries"])
        return LsResult(entries=search.cap_entries(listed, search.SUBFOLDER, data["unread"])[0])

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """A text file's page read inside the sandbox by `auger.core.backends.paging` (only the page
        is read); other files fetched whole, as `FilesystemBackend.read` gives them."""
        try:
            real = self.real_path(file_path)
        except ValueError as exc:
            return ReadResult(error=f"Error reading file '{file_path}': {exc}")
        if _get_backend_read_file_type(file_path) != "text":
            [response] = self.download_files([file_path])
            if response.error or response.content is None:
                missing = response.error in ("file_not_found", "is_directory")
                return ReadResult(
                    error=not_found(file_path, real, self.root)
                    if missing
                    else f"Error reading file '{file_path}': {response.error}"
                )
            return ReadResult(
                file_data=FileData(content=base64.b64encode(response.content).decode(), encoding="base64")
            )
        offset, limit = normalize_read_bounds(offset, limit)
        out = self._run(
            ["python3", "-c", _paging_source(), real, str(offset), str(max(limit, 1))], cap=_DOWNLOAD_CAP
        )
        try:
            found = json.loads(out.data)
        except ValueError:
            return ReadResult(
                error=f"Error reading file '{file_path}': {out.data.decode('utf-8', 'replace').strip()[:300]}"
            )
        if isinstance(found, dict):
            missing = found["error"] == "not_found"
            return ReadResult(
                error=not_found(file_path, real, self.root)
                if missing
                else f"Error reading file '{file_path}': {found['error']}"
            )
        return page_result(tuple(found), offset, limit)  # type: ignore[arg-type]

    def write(self, file_path: str, content: str) -> WriteResult:
        try:
            self.real_path(file_path)
        except ValueError as exc:
            return WriteResult(error=f"Error writing file '{file_path}': {exc}")
        [response] = self.upload_files([(file_path, content.encode("utf-8"))])
        if response.error:
            return WriteResult(error=f"Error writing file '{file_path}': {response.error}")
        return WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        try:
            self.real_path(file_path)
        except ValueError as exc:
            return EditResult(error=f"Error editing file '{file_path}': {exc}")
        result = edit_by_transfer(self, file_path, old_string, new_string, replace_all)  # `cat >`: mode kept
        if result.error and result.error.endswith("not found"):
            return EditResult(error="Error: " + not_found(file_path, self.real_path(file_path), self.root))
        return result

    def stamp(self, file_path: str) -> str | None:
        with contextlib.suppress(OSError, ValueError):
            return "{0.st_mtime_ns}:{0.st_size}".format(os.stat(self.real_path(file_path)))
        return None

    def delete(self, file_path: str) -> DeleteResult:
        try:
            real = self.real_path(file_path)
        except ValueError as exc:
            return DeleteResult(error=f"Error deleting '{file_path}': {exc}")
        if real == self.root:
            return DeleteResult(error="Error: refusing to delete the project root")
        result = super().delete(real)
        if result.error:
            return DeleteResult(error=result.error.replace(real, file_path))
        return DeleteResult(path=file_path)

    def grep(self, pattern: str, path: str | None = None, glob: str | None = None, **kw: Any) -> GrepResult:
        """ripgrep run inside the sandbox as on the host (`search.Query.of` reads `kw`)."""
        try:
            real = self.real_path(path or "/")
        except ValueError as exc:
            return GrepResult(error=str(exc), matches=[])
        if not os.path.exists(real):
            return GrepResult(error=f"Error: {search.missing(path)}", matches=[])
        if (rg := search.find_rg()) is None:
            return GrepResult(error="Error: grep needs ripgrep's `rg` (pip install ripgrep)", matches=[])
        query = search.Query.of(pattern, glob, **kw)
        out = self._run(search.rg_argv(rg, query, real), cap=_DOWNLOAD_CAP)
        found = search.from_output(out.data, out.exit_code, not out.truncated, query, self.virtual_path)
        found.error = found.error.replace(real, path or "/") if found.error else None
        return found

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        try:
            real = self.real_path(path or "/")
        except ValueError as exc:
            return GlobResult(error=str(exc), matches=None)
        if not os.path.exists(real):
            return GlobResult(error=search.missing(path))
        out = self._run([_SH, "-c", _build_glob_cmd(pattern, real)], cap=_DOWNLOAD_CAP)  # no shell window
        response = ExecuteResponse(output=out.data.decode("utf-8", "replace"), exit_code=out.exit_code)
        result = _parse_glob_output(response, real)
        if result.matches is not None:
            result.matches, more = search.cap_entries(self._infos(result.matches), search.NARROWER)
            result.truncated = result.truncated or bool(more)
        result.error = result.error.replace(real, path or "/") if result.error else None
        return result

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        responses = []
        for path, data in files:
            try:
                real = self.real_path(path)
            except ValueError:
                responses.append(FileUploadResponse(path=path, error="invalid_path"))
                continue
            out = self._run([_SH, "-c", _UPLOAD_SCRIPT, "sh", real], data=data)
            text = out.data.decode("utf-8", "replace").replace(real, path).strip()
            error = None if out.exit_code == 0 else (text[:300] or f"exit code {out.exit_code}")
            if error and "Is a directory" in error:
                error = "is_directory"
            elif error and ("Permission denied" in error or "Read-only file system" in error):
                error = "permission_denied"
            responses.append(FileUploadResponse(path=path, error=error))
        return responses

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        responses = []
        for path in paths:
            try:
                real = self.real_path(path)
            except ValueError:
                responses.append(FileDownloadResponse(path=path, error="invalid_path"))
                continue
            out = self._run([_SH, "-c", _DOWNLOAD_SCRIPT, "sh", real], cap=_DOWNLOAD_CAP)
            if out.exit_code == 0 and not out.truncated:
                responses.append(FileDownloadResponse(path=path, content=out.data))
                continue
            error = _DOWNLOAD_ERRORS.get(out.exit_code, f"download failed (exit code {out.exit_code})")
            responses.append(
                FileDownloadResponse(path=path, error="file too large" if out.truncated else error)
            )
        return responses


@functools.cache
def _paging_source() -> str:
    return Path(paging.__file__).read_text(encoding="utf-8")


def _in_thread(name: str) -> Any:
    async def method(self: BubblewrapSandbox, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(getattr(self, name), *args, **kwargs)

    method.__name__ = method.__qualname__ = f"a{name}"
    return method


# Async file operations run the sync ones in a thread: BaseSandbox's own async versions call
# `aexecute` directly and would skip the virtual-path mapping above.
for _name in ("ls", "read", "write", "edit", "delete", "grep", "glob", "upload_files", "download_files"):
    setattr(BubblewrapSandbox, f"a{_name}", _in_thread(_name))

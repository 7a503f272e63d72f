"""A real PostgreSQL server for the tests: `initdb` + `pg_ctl` into a temporary folder, on a free
port of 127.0.0.1, trust authentication, fsync off. One per test session (per xdist worker);
each test gets a database of its own (`PgServer.database()`).

Debian's `postgresql` package provides the binaries (scripts/test.sh installs it when missing).
PostgreSQL refuses to run as root, so as root the server runs as the OS user `postgres` (created
by that package; created here if missing).

    python tests/pg_server.py DIR      # start one by hand: prints its URL, stops on Ctrl+C
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

OS_USER = "postgres"


def pg_bin(name: str) -> str:
    """The path of a PostgreSQL program (`initdb`, `pg_ctl`): on PATH or in Debian's folders."""
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))[::-1]), None
    )
    if found is None:
        raise RuntimeError(f"{name} not found: install PostgreSQL (Debian: apt-get install postgresql)")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    try:
        pwd.getpwnam(OS_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", OS_USER], check=True)
    return ["runuser", "-u", OS_USER, "--", *cmd]


class PgServer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.port = _free_port()
        self.log = folder / "server.log"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> PgServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            _as_server_user(["true"])  # creates the user if needed
            user = pwd.getpwnam(OS_USER)
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            for parent in self.folder.parents:  # the server user must reach its folder
                if parent == Path("/"):
                    break
                parent.chmod(parent.stat().st_mode | 0o011)
        run = lambda cmd: subprocess.run(_as_server_user(cmd), check=True, capture_output=True, text=True)  # noqa: E731
        run(
            [
                pg_bin("initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        options += " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        run([pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start"])
        return self

    def stop(self) -> None:
        subprocess.run(
            _as_server_user([pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
        )

    def database(self) -> str:
        """A new, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url.rsplit("/", 1)[0] + f"/{name}"


@contextlib.contextmanager
def running(folder: Path) -> Iterator[PgServer]:
    server = PgServer(folder).start()
    try:
        yield server
    finally:
        server.stop()


if __name__ == "__main__":
    with running(Path(sys.argv[1])) as srv:
        print(srv.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()

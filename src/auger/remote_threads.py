"""RemoteThreadStore: the ThreadStore reads and edits a front end uses, over `auger serve`.

`RemoteSession.threads` is one of these, so the TUI's status bar (title) and `/threads` picker
(list, search, rename, delete) work against a server. Its methods are synchronous like the
SQLite store's (a short blocking HTTP call); `fork_thread` is async (the server copies the
checkpoints). "This project" (`root` given) means the server's project; `root=None` is all.
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import TYPE_CHECKING, Any

from auger.core.thread_search import unmarked
from auger.errors import AugerError, ThreadError

if TYPE_CHECKING:
    import httpx

    from auger.core.threads import ThreadInfo


def info_from_dict(row: dict[str, Any]) -> ThreadInfo:
    """Rebuild a ThreadInfo from its JSON shape (`ThreadInfo.to_dict`)."""
    from auger.core.threads import ThreadInfo

    return ThreadInfo(
        id=row["id"],
        title=row.get("title") or "",
        cwd=row.get("cwd") or "",
        root=row.get("project") or "",
        git_branch=row.get("git_branch"),
        model=row.get("model"),
        created_at=_time(row.get("created_at")),
        updated_at=_time(row.get("updated_at")),
        message_count=int(row.get("message_count") or 0),
        parent_id=row.get("parent_id"),
        fork_turn=row.get("fork_turn"),
        snippet=unmarked(row["snippet"]) if row.get("snippet") is not None else None,
        snippet_at=_time(row["snippet_at"]) if row.get("snippet_at") else None,
    )


def _time(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    return 0.0


class RemoteThreadStore:
    def __init__(
        self, url: str, headers: dict[str, str], async_client: httpx.AsyncClient | None = None
    ) -> None:
        self.url = url
        self._headers = headers
        self._client: httpx.Client | None = None
        self._async = async_client

    def _http(self) -> httpx.Client:
        if self._client is None:
            import httpx

            self._client = httpx.Client(base_url=self.url, headers=self._headers, timeout=30.0)
        return self._client

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        """A blocking JSON request (for the synchronous bits of the front-end API)."""
        return self._call(method, path, **kwargs)

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        try:
            resp = self._http().request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise AugerError(f"Cannot reach the auger server at {self.url}: {exc}.") from None
        if resp.status_code == 404:
            raise ThreadError(_message(resp))
        if resp.status_code >= 400:
            raise AugerError(_message(resp))
        return resp.json()

    # -- reading ---------------------------------------------------------------------------
    def get(self, thread_id: str) -> ThreadInfo | None:
        try:
            return info_from_dict(self._call("GET", f"/threads/{thread_id}"))
        except ThreadError:
            return None

    def list(
        self, *, root: str | None = None, search: str | None = None, limit: int | None = 50
    ) -> list[ThreadInfo]:
        params: dict[str, Any] = {"all": "0" if root is not None else "1", "limit": limit or 10_000}
        if search:
            params["search"] = search
        return [info_from_dict(r) for r in self._call("GET", "/threads", params=params)["threads"]]

    def search(
        self, text: str, *, root: str | None = None, limit: int | None = 50
    ) -> builtins.list[ThreadInfo]:
        return self.list(root=root, search=text, limit=limit)

    def newest(self, root: str) -> str | None:
        rows = self.list(root=root, limit=1)
        return rows[0].id if rows else None

    def resolve(self, ref: str) -> str:
        return str(self._call("GET", f"/threads/{ref}")["id"])

    # -- editing ---------------------------------------------------------------------------
    def rename(self, thread_id: str, title: str) -> None:
        self._call("PATCH", f"/threads/{thread_id}", json={"title": title})

    def delete(self, thread_id: str) -> None:
        self._call("DELETE", f"/threads/{thread_id}")

    async def fork_thread(self, source_id: str, at_turn: int | None = None) -> str:
        """Like `auger.core.thread_ops.fork_thread`, done by the server; returns the new id."""
        body = {"at": at_turn} if at_turn is not None else {}
        if self._async is None:
            return str(self._call("POST", f"/threads/{source_id}/fork", json=body)["id"])
        resp = await self._async.post(f"/threads/{source_id}/fork", json=body)
        if resp.status_code >= 400:
            raise (ThreadError if resp.status_code == 404 else AugerError)(_message(resp))
        return str(resp.json()["id"])

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _message(resp: httpx.Response) -> str:
    try:
        return str(resp.json().get("error") or resp.text)
    except ValueError:
        return resp.text[:200] or resp.reason_phrase


class RemoteMcp:
    """`session.mcp` for a RemoteSession: the server's MCP servers, for `/mcp`."""

    def __init__(self, sync: RemoteThreadStore) -> None:
        self._sync = sync

    def status(self) -> builtins.list[dict[str, Any]]:
        return builtins.list(self._sync.call("GET", "/tools").get("mcp") or [])

    def tools(self, existing: Any = ()) -> builtins.list[Any]:
        return []  # `tool_names()` already lists the server's MCP tools

    def drain_notices(self) -> builtins.list[str]:
        return []

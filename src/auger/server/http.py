"""Request parsing for the server: bounded JSON bodies, typed fields, one error shape.

Every client mistake is an `ApiError(status, message)`; the app turns it into
`{"error": message}` with that status, so the server keeps serving.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from auger.core import operations
from auger.core.bounded_json import TooDeep, loads
from auger.core.operations import kind_of

if TYPE_CHECKING:
    from auger.core.port import PromptImage

MAX_BODY = 1 << 20  # bytes; bigger bodies get 413
EXPECTED = {str: "a string", int: "a whole number", bool: "true or false", list: "an array"}  # of `field`


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def read_json(request: Request, limit: int = MAX_BODY, *, optional: bool = False) -> dict[str, Any]:
    """The body as a JSON object; 413 past `limit` bytes, 400 when it is not a JSON object or
    nests too deep (auger.core.bounded_json)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"Request body is {declared} bytes; the limit is {limit} bytes.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"Request body is over the limit of {limit} bytes.")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        if optional:
            return {}
        raise ApiError(400, "Request body is empty; send a JSON object.")
    try:
        data = loads(raw)
    except TooDeep as exc:
        raise ApiError(400, f"Request body is refused: its {exc}.") from None
    except ValueError as exc:  # a UnicodeDecodeError too
        raise ApiError(400, f"Request body is not valid JSON: {exc}.") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"Request body must be a JSON object, not {kind_of(data)}.")
    return data


def field(body: dict[str, Any], name: str, kind: type, *, required: bool = False) -> Any:
    """`body[name]` checked against `kind` (str, int, bool, list); None when absent and optional."""
    if name not in body or body[name] is None:
        if required:
            raise ApiError(400, f"Missing field {name!r}.")
        return None
    value = body[name]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):  # true is no int
        raise ApiError(400, f"Field {name!r} must be {EXPECTED[kind]}, not {kind_of(value)}.")
    return value


def images_field(body: dict[str, Any]) -> tuple[PromptImage, ...]:
    """`body["images"]`: `[{"mime_type", "data" (base64) | "url"}]` given with a prompt."""
    from auger.core.port import PromptImage

    out = []
    for item in field(body, "images", list) or []:
        ok = isinstance(item, dict) and isinstance(item.get("mime_type"), str)
        data, url = (item.get("data") or "", item.get("url") or "") if ok else ("", "")
        if not ok or not isinstance(data, str) or not isinstance(url, str) or not (data or url):
            raise ApiError(
                400, 'Each of \'images\' must be {"mime_type": ..., "data": BASE64} or {..., "url": URL}.'
            )
        out.append(PromptImage(item["mime_type"], data=data, url=url))
    return tuple(out)


def check_thread_id(value: str) -> str:
    try:
        return operations.check_thread_id(value)
    except ValueError as exc:
        raise ApiError(400, f"{exc}.") from None

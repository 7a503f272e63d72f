"""The forms MCP servers ask the user to fill in during a turn (`elicitation/create`), while
they wait for an answer.

`PendingInputs.ask` puts an `InputRequested` on the turn's stream and waits for its answer;
`answer` (the `resolve_input` operation) checks accepted content against the request's schema
first — content that does not fit is refused with a UsageError naming the fields, and the
request stays open, so the front end can let the user correct it; `cancel_all` answers `cancel`
to every open request (the turn was cancelled or ended).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.forms import check_form, describe
from auger.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from auger.core.session.lifecycle import Put


class PendingInputs:
    def __init__(self) -> None:
        self.open: dict[str, ev.InputRequested] = {}

    async def ask(self, server: str, message: str, schema: dict[str, Any], put: Put) -> ev.InputAnswer:
        """Show the form to the front end and wait for its (checked) answer."""
        request = ev.InputRequested(
            request_id=uuid.uuid4().hex[:12],
            server=server,
            message=message,
            schema=schema,
            future=asyncio.get_running_loop().create_future(),
        )
        assert request.future is not None
        self.open[request.request_id] = request
        put(request)
        try:
            return await request.future
        finally:
            self.open.pop(request.request_id, None)

    def answer(self, request_id: str, answer: ev.InputAnswer, thread_id: str) -> None:
        request = self.open.get(request_id)
        if request is None:
            raise NotFoundError(f"No pending input request {request_id!r} on thread {thread_id!r}.")
        if answer.action == "accept":
            errors = check_form(request.schema, answer.content if answer.content is not None else {})
            if errors:
                raise UsageError(
                    f"The form of MCP server '{request.server}' was not accepted: {describe(errors)}",
                    hint="Correct the fields and submit again, or decline.",
                )
        else:
            answer = ev.InputAnswer(answer.action)  # no content with a decline or cancel
        request.respond(answer)

    def cancel_all(self) -> None:
        for request in list(self.open.values()):
            request.respond(ev.InputAnswer("cancel"))

"""MessageMemo: per-message work done once while a message stays in the requests (not per step),
and WireContentMiddleware through it still cleans what it must."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from auger.core.middleware.model.wire_content import wire_message
from auger.core.models.requests.message_memo import MessageMemo


def test_each_message_is_transformed_once_while_it_stays() -> None:
    seen: list[Any] = []

    def upper(message: Any) -> str:
        seen.append(message)
        return str(message.content).upper()

    memo = MessageMemo(upper)
    history: list[Any] = [HumanMessage("a"), AIMessage("b")]
    assert memo.map(history) == ["A", "B"]
    history.append(ToolMessage("c", tool_call_id="1"))
    assert memo.map(history) == ["A", "B", "C"]  # a step later: only the new one is worked on
    assert len(seen) == 3
    assert memo.map(history[1:]) == ["B", "C"] and len(seen) == 3
    again = HumanMessage("a")  # the first one left the requests: a newcomer is worked on again
    assert memo.map([again, *history[1:]]) == ["A", "B", "C"] and len(seen) == 4


def test_a_request_whose_tail_was_read_back_reworks_only_the_tail() -> None:
    seen: list[Any] = []
    memo = MessageMemo(lambda m: seen.append(m) or str(m.content))
    history: list[Any] = [HumanMessage(str(i)) for i in range(50)]
    assert memo.map(history) == [str(i) for i in range(50)]
    reread = [*history[:-2], *(m.model_copy() for m in history[-2:]), AIMessage("new")]
    seen.clear()
    assert memo.map(reread) == [*(str(i) for i in range(50)), "new"]
    assert seen == reread[-3:]  # the two read back (new objects) and the new one


def test_wire_content_through_the_memo_still_cleans() -> None:
    memo = MessageMemo(wire_message)
    bad = HumanMessage("broken \udcff byte")
    good = AIMessage("fine")
    first = memo.map([bad, good])
    assert first[0].content == "broken \ufffd byte" and first[1] is good
    assert memo.map([bad, good])[0] is first[0]  # the cleaned copy is reused, not rebuilt


class _CountingDict(dict):  # type: ignore[type-arg]
    """The memo's kept results, counting the lookups made in Python."""

    gets = 0

    def get(self, key: Any, default: Any = None) -> Any:
        _CountingDict.gets += 1
        return super().get(key, default)


def test_a_message_rewritten_in_front_costs_a_lookup_for_it_alone_not_for_the_history() -> None:
    memo = MessageMemo(lambda m: str(m.content))
    history: list[Any] = [HumanMessage(str(i)) for i in range(200)]
    memo.map(history)
    for step in range(3):  # each call: the first message rewritten (its note), one message more
        history.append(AIMessage(f"step {step}"))
        request = [history[0].model_copy(update={"content": f"note {step}"}), *history[1:]]
        memo._kept = _CountingDict(memo._kept)
        _CountingDict.gets = 0
        assert memo.map(request) == [f"note {step}", *(str(m.content) for m in history[1:])]
        assert _CountingDict.gets == 2, _CountingDict.gets  # the rewritten one and the new one

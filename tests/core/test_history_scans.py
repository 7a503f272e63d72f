"""deepagents' unsupported-content check and dangling-tool-call patch look at each message once
(auger.core.middleware.history_scans): the same requests and patches as the SDK's own classes on
every kind of history, and a long thread looks only at what is new in each turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deepagents.middleware.patch_tool_calls import PatchToolCallsMiddleware
from deepagents.middleware.unsupported_content import UnsupportedContentMiddleware
from langchain.agents.middleware import ModelRequest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from auger.core.middleware import history_scans
from auger.core.middleware.history_scans import RememberedPatchToolCalls, RememberedUnsupportedContent
from auger.core.middleware.model import unsupported_content
from auger.core.models.providers import build_chat_model
from auger.core.models.specs import ModelSpec
from auger.core.runtime import open_session
from llm_server import ScriptedLLM
from session_helpers import options, scripted_settings

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
IMAGE = {"type": "image", "base64": PIXEL, "mime_type": "image/png"}


def _model(images: bool) -> Any:
    model = build_chat_model(
        ModelSpec(provider="local", model="scripted-model", base_url="http://127.0.0.1:9/v1"), {}
    )
    model.profile = {**(model.profile or {}), "image_inputs": images}
    return model


def _history() -> list[BaseMessage]:
    return [
        HumanMessage([{"type": "text", "text": "look — ü"}, IMAGE]),
        AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": "/a.png"}, "id": "c1"}]),
        ToolMessage([IMAGE], tool_call_id="c1", name="read_file"),
        AIMessage([{"type": "text", "text": "an image"}, IMAGE]),  # AI messages are not looked at
        HumanMessage([{"type": "text", "text": "plain blocks"}, "and a string"]),
        ToolMessage("plain", tool_call_id="c0"),
        HumanMessage("thanks"),
    ]


def _messages(request: ModelRequest) -> list[Any]:
    return [(type(m).__name__, m.content) for m in request.messages]


@pytest.mark.parametrize("images", [False, True])
def test_unsupported_content_is_the_sdk_s_own_and_each_message_is_looked_at_once(images: bool) -> None:
    model, ours, sdk = _model(images), RememberedUnsupportedContent(), UnsupportedContentMiddleware()
    history = _history()
    for step in range(len(history)):
        request = ModelRequest(model=model, messages=history[: step + 1])
        before = ours.looked_at
        filtered = ours._filter_request(request)
        assert _messages(filtered) == _messages(sdk._filter_request(request))
        assert (filtered is request) == (sdk._filter_request(request) is request)
        assert ours.looked_at - before == 1  # the new message only
    if not images:  # the SDK's notice replaced the images sent to a text-only model
        sent = str(_messages(ours._filter_request(ModelRequest(model=model, messages=history[:3]))))
        assert PIXEL not in sent and "does not support image content" in sent
    rewritten = [*history[:4], HumanMessage([IMAGE]), *history[5:]]
    before = ours.looked_at
    assert _messages(ours._filter_request(ModelRequest(model=model, messages=rewritten))) == _messages(
        sdk._filter_request(ModelRequest(model=model, messages=rewritten))
    )
    assert ours.looked_at - before == 1


def _patched(middleware: PatchToolCallsMiddleware, messages: list[BaseMessage]) -> Any:
    result = middleware.before_agent({"messages": messages}, None)  # type: ignore[arg-type]
    return (
        None
        if result is None
        else [(type(m).__name__, m.content, getattr(m, "tool_call_id", None)) for m in result["messages"]]
    )


def test_the_dangling_tool_call_patch_is_the_sdk_s_own_and_looks_only_at_new_messages() -> None:
    ours, sdk = RememberedPatchToolCalls(), PatchToolCallsMiddleware()
    assert ours.name == sdk.name == "PatchToolCallsMiddleware"
    call = {"name": "ls", "args": {}, "id": "c1"}
    answered = [HumanMessage("hi"), AIMessage("", tool_calls=[call]), ToolMessage("ok", tool_call_id="c1")]
    history: list[BaseMessage] = []
    for i in range(5):  # a growing thread where every call is answered: nothing to patch
        history = [*history, *answered[:1], answered[1].model_copy(update={"id": f"a{i}"}), answered[2]]
        before = ours.looked_at
        assert _patched(ours, history) is None and _patched(sdk, history) is None
        assert ours.looked_at - before == 3
    dangling = [*history, AIMessage("", tool_calls=[{"name": "ls", "args": {}, "id": "c9"}])]
    assert _patched(ours, dangling) == _patched(sdk, dangling) is not None
    invalid = [
        *history,
        AIMessage("", invalid_tool_calls=[{"name": "ls", "args": "{", "id": "c8", "error": "x"}]),
    ]
    assert _patched(ours, invalid) == _patched(sdk, invalid) is not None  # the dangling one taken back out
    no_id = [*history, AIMessage("", tool_calls=[{"name": "ls", "args": {}, "id": None}])]
    assert _patched(ours, no_id) is None and _patched(sdk, no_id) is None
    early_answer = [ToolMessage("ok", tool_call_id="c7"), AIMessage("", tool_calls=[{**call, "id": "c7"}])]
    assert _patched(ours, early_answer) is None and _patched(sdk, early_answer) is None  # any order
    assert _patched(ours, []) is None


async def test_a_long_thread_looks_only_at_each_turn_s_new_messages(
    tmp_path: Path, scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked = [0]
    plain = unsupported_content.plain_text
    sdk_patch = PatchToolCallsMiddleware.before_agent
    patches: list[RememberedPatchToolCalls] = []
    init = RememberedPatchToolCalls.__init__

    def counted_plain(content: Any) -> bool:
        looked[0] += 1
        return plain(content)

    def counted_patch(self: Any, state: Any, runtime: Any) -> Any:
        looked[0] += len(state["messages"])  # the SDK's patch walks them all
        return sdk_patch(self, state, runtime)

    def kept(self: RememberedPatchToolCalls) -> None:
        init(self)
        patches.append(self)

    from deepagents.middleware import filesystem

    move = filesystem._move_media_results_after_tool_results

    def counted_move(messages: list[Any]) -> list[Any]:
        looked[0] += len(messages)  # the filesystem middleware's passes walk what they are given
        return move(messages)

    monkeypatch.setattr(filesystem, "_move_media_results_after_tool_results", counted_move)
    monkeypatch.setattr(unsupported_content, "plain_text", counted_plain)
    monkeypatch.setattr(history_scans, "plain_text", counted_plain)
    monkeypatch.setattr(PatchToolCallsMiddleware, "before_agent", counted_patch)
    monkeypatch.setattr(RememberedPatchToolCalls, "__init__", kept)
    session = await open_session(scripted_settings(tmp_path, scripted_llm))
    per_turn = []
    try:
        for i in range(10):
            call = {"name": "ls", "args": {"path": "/"}, "id": f"call_{i}"}
            scripted_llm.add({"tool_calls": [call]}, {"text": f"answer {i}"})
            before = looked[0] + sum(p.looked_at for p in patches)
            events = [e async for e in session.send(f"question {i}", options(session, headless=True))]
            assert type(events[-1]).__name__ == "TurnEnded", events[-1]
            per_turn.append(looked[0] + sum(p.looked_at for p in patches) - before)
    finally:
        await session.aclose()
    assert per_turn[-1] == per_turn[2] and max(per_turn) <= 16, per_turn


def test_the_main_graph_patches_a_dangling_tool_call_in_the_sdk_slot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from auger.core.agent.context import AugerContext
    from auger.core.agent.graph import create_cli_agent
    from scripted_model import ScriptedChatModel
    from session_helpers import offline_settings

    model = ScriptedChatModel(script=["first", "second"])
    graph = create_cli_agent(
        offline_settings(tmp_path, monkeypatch), model=model, checkpointer=InMemorySaver()
    )
    cfg = {"configurable": {"thread_id": "t"}}
    context = AugerContext(mode="yolo")
    graph.invoke({"messages": [HumanMessage("hi")]}, cfg, context=context)
    cut_short = AIMessage("", tool_calls=[{"name": "ls", "args": {"path": "/"}, "id": "cut_1"}], id="cut")
    graph.update_state(cfg, {"messages": [cut_short]})  # a turn stopped before its tool ran
    graph.invoke({"messages": [HumanMessage("again")]}, cfg, context=context)
    sent = model.calls[-1]["messages"]
    patch = next(m for m in sent if isinstance(m, ToolMessage) and m.tool_call_id == "cut_1")
    assert "did not complete" in str(patch.content) and patch.status == "error"
    assert [type(m).__name__ for m in sent[-4:]] == ["AIMessage", "AIMessage", "ToolMessage", "HumanMessage"]


# --- the filesystem middleware's history passes -------------------------------------------------

MEDIA = {"read_file_media_result": True}  # deepagents' tag on a read_file media message


def _fs_pair(tmp_path: Path) -> tuple[Any, Any]:
    from deepagents.backends.filesystem import FilesystemBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware

    backend = FilesystemBackend(root_dir=tmp_path, virtual_mode=True)
    ours = history_scans.RememberedFilesystem(backend=backend, human_message_token_limit_before_evict=100)
    return ours, FilesystemMiddleware(backend=backend, human_message_token_limit_before_evict=100)


def _through(middleware: Any, messages: list[BaseMessage], refuse: bool = False) -> tuple[Any, Any]:
    """What `middleware` hands the model for `messages` (the last attempt), and its state update."""
    import asyncio
    import re

    from langchain_core.exceptions import ModelInvalidRequestError

    seen: list[list[Any]] = []

    async def handler(request: ModelRequest) -> AIMessage:
        seen.append(request.messages)
        if refuse and len(seen) == 1:
            raise ModelInvalidRequestError("unsupported image")
        return AIMessage("ok")

    request = ModelRequest(model=_model(True), messages=messages, state={"messages": messages})
    result = asyncio.run(middleware.awrap_model_call(request, handler))
    command = getattr(result, "command", None)

    def plain(ms: Any) -> Any:  # a new eviction's file name is random: named alike
        return [(type(m).__name__, re.sub(r"[0-9a-f-]{36}", "X", str(m.content)), m.id) for m in ms]

    return plain(seen[-1]), plain(command.update["messages"]) if command is not None else None


def _batch(i: int, media: bool = False) -> list[BaseMessage]:
    calls = [{"name": "read_file", "args": {"file_path": f"/f{i}{k}"}, "id": f"r{i}{k}"} for k in "ab"]
    out: list[BaseMessage] = [HumanMessage(f"question {i}"), AIMessage("", tool_calls=calls, id=f"a{i}")]
    out.append(ToolMessage("first", tool_call_id=f"r{i}a", name="read_file"))
    if media:  # a video's frames, between the batch's tool results: moved after them
        out.append(HumanMessage([IMAGE], additional_kwargs=MEDIA, id=f"m{i}"))
    out += [ToolMessage([IMAGE], tool_call_id=f"r{i}b", name="read_file"), AIMessage(f"answer {i}")]
    return out


def test_the_filesystem_passes_see_only_the_tail_and_hand_on_the_sdk_s_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepagents.middleware import filesystem

    ours, sdk = _fs_pair(tmp_path)
    assert ours.name == sdk.name == "FilesystemMiddleware"
    scanned: list[int] = []
    move = filesystem._move_media_results_after_tool_results
    monkeypatch.setattr(
        filesystem, "_move_media_results_after_tool_results", lambda ms: scanned.append(len(ms)) or move(ms)
    )
    history: list[BaseMessage] = []
    for i in range(4):  # a growing thread: each call's passes see the last AI message on
        history += _batch(i)
        for at in (len(history) - 1, len(history)):  # the turn's last call, then the next prompt
            request = [*history[:at], HumanMessage(f"next {i}")] if at == len(history) else history[:at]
            scanned.clear()
            assert _through(ours, request) == _through(sdk, request)
            assert scanned[0] <= 5 and scanned[1] == len(request), scanned  # ours, then the SDK's
    cases = {
        "media in the tail": [*history, *_batch(9, media=True)[:-1]],
        "media further back": [*_batch(8, media=True), *history],
        "an evicted message further back": [
            HumanMessage(
                "x" * 500, additional_kwargs={"lc_evicted_to": "/conversation_history/1.md"}, id="e"
            ),
            *history,
        ],
        "a new message over the limit": [*history, HumanMessage("y" * 500, id="big")],
    }
    for name, request in cases.items():
        assert _through(ours, request) == _through(sdk, request), name
    sent, update = _through(ours, cases["media in the tail"])
    assert [kind for kind, *_ in sent[-4:]] == ["AIMessage", "ToolMessage", "ToolMessage", "HumanMessage"]
    sent, update = _through(ours, cases["a new message over the limit"])
    assert update is not None and sent[-1][1] != "y" * 500  # evicted to a file, sent as a preview
    refused = [*history, HumanMessage("look"), *_batch(7)[1:-1]]  # the model refuses the image
    assert _through(ours, refused, refuse=True) == _through(sdk, refused, refuse=True)
    assert "Unsupported content" in _through(ours, refused, refuse=True)[0][-1][1]
    assert ours.sent_whole == 2  # the two with a message the passes act on further back


def test_the_filesystem_middleware_is_built_as_deepagents_builds_it_for_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sdk_filesystem` relies on deepagents' private `_harness_profile_for_model` (the model's
    harness profile rewrites the filesystem tools' descriptions): with a profile registered for
    the model, its tools read as the ones of the middleware `create_deep_agent` builds itself, so a
    deepagents release that drops the function, or stops building the middleware from it, fails
    here rather than sending other tool descriptions unnoticed."""
    from deepagents import HarnessProfile, create_deep_agent, register_harness_profile
    from deepagents import graph as sdk_graph
    from deepagents.backends.filesystem import FilesystemBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware
    from deepagents.profiles.harness import harness_profiles

    harness_profiles._ensure_harness_profiles_loaded()
    monkeypatch.setattr(harness_profiles, "_HARNESS_PROFILES", dict(harness_profiles._HARNESS_PROFILES))
    overrides = {"ls": "LS, as this model's profile words it", "read_file": "READ, as the profile says"}
    register_harness_profile("openai:scripted-model", HarnessProfile(tool_description_overrides=overrides))
    built: list[FilesystemMiddleware] = []

    class Recorded(FilesystemMiddleware):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            built.append(self)

    monkeypatch.setattr(sdk_graph, "FilesystemMiddleware", Recorded)
    backend = FilesystemBackend(root_dir=tmp_path, virtual_mode=True)
    model = _model(False)
    create_deep_agent(model=model, backend=backend)
    sdk = built[-1]  # the main agent's (the general-purpose subagent's comes first)
    ours = history_scans.sdk_filesystem(model, backend)

    def described(middleware: Any) -> dict[str, str]:
        return {tool.name: tool.description for tool in middleware.tools}

    from auger.core.agent.prompt import TOOL_DESCRIPTIONS

    # auger's texts for its tools (the SDK's for any other), the model's profile over both
    expected = {name: TOOL_DESCRIPTIONS.get(name, text) for name, text in described(sdk).items()}
    assert described(ours) == {**expected, **overrides}
    assert {name: described(ours)[name] for name in overrides} == overrides

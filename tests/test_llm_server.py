"""Tests for tests/llm_server.py, driven through the real langchain-openai / openai clients."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from conftest_llm import scripted_llm  # noqa: F401  (fixture)
from llm_server import EXHAUSTED, ScriptedLLM

pytestmark = pytest.mark.timeout(20)


@pytest.fixture
def llm(scripted_llm: ScriptedLLM) -> ScriptedLLM:
    return scripted_llm


def chat(llm: ScriptedLLM, model: str = "m", **kw: Any) -> ChatOpenAI:
    return ChatOpenAI(
        base_url=llm.base_url,
        api_key="x",
        model=model,
        use_responses_api=False,
        stream_usage=True,
        max_retries=0,
        **kw,
    )


async def collect(model: Any, prompt: Any) -> tuple[AIMessageChunk, int]:
    """Stream one reply; return the merged message and the number of chunks."""
    merged: AIMessageChunk | None = None
    n = 0
    async for chunk in model.astream(prompt):
        merged = chunk if merged is None else merged + chunk
        n += 1
    assert merged is not None
    return merged, n


@tool
def write_file(path: str, content: str) -> str:
    """Write a file."""
    return "ok"


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return ""


async def test_streams_text_in_chunks_with_usage(llm: ScriptedLLM) -> None:
    llm.add({"text": "Hello there, this is a streamed reply."})
    msg, n = await collect(chat(llm), "hi")
    assert msg.content == "Hello there, this is a streamed reply."
    assert n > 4
    assert msg.response_metadata["finish_reason"] == "stop"
    usage = msg.usage_metadata
    assert usage is not None and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


async def test_prompt_tokens_grow_with_request(llm: ScriptedLLM) -> None:
    llm.add("a", "b")
    small, _ = await collect(chat(llm), "hi")
    big, _ = await collect(chat(llm), "hi " * 2000)
    assert small.usage_metadata and big.usage_metadata
    assert big.usage_metadata["input_tokens"] > small.usage_metadata["input_tokens"] + 1000


async def test_streamed_tool_call_reassembled(llm: ScriptedLLM) -> None:
    args = {"path": "notes/a.txt", "content": 'line one\nline two with "quotes" and ünïcode'}
    llm.add({"tool_calls": [{"name": "write_file", "args": args, "id": "call_abc"}]})
    model = chat(llm).bind_tools([write_file, read_file])
    msg, n = await collect(model, "write it")
    assert n > 5  # arguments arrived in several pieces
    assert msg.tool_calls == [{"name": "write_file", "args": args, "id": "call_abc", "type": "tool_call"}]
    assert msg.response_metadata["finish_reason"] == "tool_calls"
    sent = llm.requests[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert {t["function"]["name"] for t in sent["tools"]} == {"write_file", "read_file"}


async def test_two_tool_calls_and_text_in_one_response(llm: ScriptedLLM) -> None:
    llm.add(
        {
            "text": "Let me look.",
            "tool_calls": [
                {"name": "read_file", "args": {"path": "a.py"}},
                {"name": "read_file", "args": {"path": "b.py"}},
            ],
        }
    )
    msg, _ = await collect(chat(llm).bind_tools([read_file]), "go")
    assert msg.content == "Let me look."
    assert [c["args"] for c in msg.tool_calls] == [{"path": "a.py"}, {"path": "b.py"}]
    ids = [c["id"] for c in msg.tool_calls]
    assert all(ids) and len(set(ids)) == 2


async def test_reasoning_streamed_as_reasoning_content(llm: ScriptedLLM) -> None:
    llm.add({"reasoning": "The user greets me; greet back.", "text": "Hi!"})
    llm.add({"reasoning": "Again.", "text": "Hi again!"})
    client = openai.AsyncOpenAI(base_url=llm.base_url, api_key="x", max_retries=0)
    stream = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    reasoning, content, order = "", "", []
    async for chunk in stream:
        assert chunk.usage is None  # not requested
        for choice in chunk.choices:
            extra = choice.delta.model_extra or {}
            if extra.get("reasoning_content"):
                reasoning += extra["reasoning_content"]
                order.append("r")
            if choice.delta.content:
                content += choice.delta.content
                order.append("c")
    assert reasoning == "The user greets me; greet back." and content == "Hi!"
    assert "".join(order) == "rrrr" + "c"  # reasoning first, in several chunks
    # ChatOpenAI ignores reasoning_content but must still see only the text.
    msg, _ = await collect(chat(llm), "hi")
    assert msg.content == "Hi again!"


async def test_non_streaming(llm: ScriptedLLM) -> None:
    llm.add({"reasoning": "hmm", "text": "plain", "tool_calls": [{"name": "read_file", "args": {}}]})
    msg = await chat(llm).bind_tools([read_file]).ainvoke("x")
    assert msg.content == "plain"
    assert msg.tool_calls[0]["name"] == "read_file" and msg.tool_calls[0]["args"] == {}
    assert msg.usage_metadata and msg.usage_metadata["output_tokens"] > 0
    assert llm.requests[0].get("stream") in (None, False)


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, openai.AuthenticationError), (429, openai.RateLimitError), (500, openai.InternalServerError)],
)
async def test_http_errors(llm: ScriptedLLM, status: int, error: type[Exception]) -> None:
    llm.add({"error": status, "message": f"scripted {status}"})
    with pytest.raises(error) as info:
        await collect(chat(llm), "hi")
    assert f"scripted {status}" in str(info.value)
    body = info.value.body  # type: ignore[attr-defined]
    assert body["message"] == f"scripted {status}"


async def test_garbage_body_raises(llm: ScriptedLLM) -> None:
    llm.add({"garbage": True}, {"garbage": True})
    with pytest.raises(ValueError):  # json.JSONDecodeError from the SSE decoder
        await collect(chat(llm), "hi")
    with pytest.raises((ValueError, openai.APIError)):
        await chat(llm).ainvoke("hi")


async def test_when_matching_and_exhaustion(llm: ScriptedLLM) -> None:
    llm.add(
        {"when": {"system_contains": "subagent"}, "text": "sub"},
        {"when": {"model": "big"}, "text": "big"},
        {"when": {"last_user_contains": "second"}, "text": "second"},
        {"text": "anything"},
    )
    model = chat(llm)
    assert (await model.ainvoke([HumanMessage("first")])).content == "anything"
    assert (await model.ainvoke([HumanMessage("the second one")])).content == "second"
    assert (await chat(llm, "big").ainvoke("x")).content == "big"
    assert (await model.ainvoke([SystemMessage("You are a subagent"), HumanMessage("y")])).content == "sub"
    assert (await model.ainvoke("z")).content == EXHAUSTED
    assert llm.served[-1].get("exhausted") is True
    assert len(llm.requests) == 5


async def test_repeat_is_never_consumed(llm: ScriptedLLM) -> None:
    llm.add({"repeat": True, "tool_calls": [{"name": "read_file", "args": {"path": "x"}}]})
    model = chat(llm).bind_tools([read_file])
    for _ in range(3):
        msg, _ = await collect(model, "loop")
        assert msg.tool_calls[0]["args"] == {"path": "x"}
    assert len(llm.pending) == 1


async def test_request_log_in_memory_and_file(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    with ScriptedLLM(["one", "two"], log_path=log) as llm:
        await chat(llm).ainvoke([SystemMessage("sys"), HumanMessage("q1")])
        await collect(chat(llm, "other"), "q2")
        assert [r["model"] for r in llm.requests] == ["m", "other"]
        assert llm.requests[0]["messages"] == [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "q1"},
        ]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["request"] for line in lines] == llm.requests
    assert [line["response"]["text"] for line in lines] == ["one", "two"]


async def test_api_key_and_models_endpoint() -> None:
    with ScriptedLLM(["ok"], api_key="sekret", models=["alpha", "beta"]) as llm:
        with pytest.raises(openai.AuthenticationError):
            await collect(chat(llm), "hi")  # api_key="x"
        good = ChatOpenAI(base_url=llm.base_url, api_key="sekret", model="alpha", max_retries=0)
        assert (await good.ainvoke("hi")).content == "ok"
        client = openai.OpenAI(base_url=llm.base_url, api_key="sekret")
        assert [m.id for m in client.models.list()] == ["alpha", "beta"]
        llm.add({"when": {"model": "gamma"}, "text": "g"})
        assert [m.id for m in client.models.list()] == ["alpha", "beta", "gamma"]
        assert len(llm.requests) == 2 and llm.served[0].get("auth") is True


async def test_delay_and_hang(llm: ScriptedLLM) -> None:
    llm.add({"hang": True}, {"delay": 0.2, "text": "late"})
    with pytest.raises(openai.APITimeoutError):
        await collect(chat(llm, timeout=0.2), "hi")
    start = time.monotonic()
    assert (await chat(llm).ainvoke("x")).content == "late"
    assert time.monotonic() - start >= 0.2


async def test_text_tokens_is_fast(llm: ScriptedLLM) -> None:
    llm.add({"text_tokens": 20_000}, {"text_tokens": 1_000})
    start = time.monotonic()
    content = ""
    with httpx.stream("POST", f"{llm.base_url}/chat/completions", json={"model": "m", "stream": True}) as r:
        for line in r.iter_lines():
            if line.startswith("data: {"):
                content += "".join(c["delta"].get("content") or "" for c in json.loads(line[6:])["choices"])
    elapsed = time.monotonic() - start
    assert len(content.split()) == 20_000
    assert 20_000 / elapsed >= 2_000, f"{20_000 / elapsed:.0f} tokens/s"
    msg, n = await collect(chat(llm), "bench")  # the real client sees the same stream
    assert len(str(msg.content).split()) == 1_000 and n > 100
    assert msg.usage_metadata and msg.usage_metadata["output_tokens"] == 1_000


def test_rate_limits_stream_speed() -> None:
    with ScriptedLLM([{"text_tokens": 40, "rate": 200}]) as llm:
        start = time.monotonic()
        with httpx.stream(
            "POST", f"{llm.base_url}/chat/completions", json={"model": "m", "stream": True}
        ) as r:
            body = "".join(r.iter_text())
        assert time.monotonic() - start >= 0.15
    assert body.rstrip().endswith("data: [DONE]")


def test_bad_script_entries_rejected() -> None:
    with pytest.raises(ValueError, match="unknown keys"):
        ScriptedLLM([{"txet": "typo"}])
    with pytest.raises(ValueError, match="'when'"):
        ScriptedLLM([{"text": "x", "when": {"user": "y"}}])


def test_cli_subprocess(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"models": ["cli-model"], "responses": [{"text": "from cli"}]}))
    log = tmp_path / "log.jsonl"
    server = Path(__file__).with_name("llm_server.py")
    proc = subprocess.Popen(
        [sys.executable, str(server), "--script", str(script), "--port", "0", "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first.startswith("PORT=")
        base = f"http://127.0.0.1:{int(first[5:])}/v1"
        assert httpx.get(f"{base}/models").json()["data"][0]["id"] == "cli-model"
        reply = httpx.post(f"{base}/chat/completions", json={"model": "cli-model", "messages": []}).json()
        assert reply["choices"][0]["message"]["content"] == "from cli"
        assert reply["usage"]["prompt_tokens"] > 0
        assert json.loads(log.read_text())["request"]["model"] == "cli-model"
    finally:
        proc.terminate()
        proc.wait(5)


# ---- faults (the turn-fault tests' server side) ----------------------------------------------
async def _raw_stream(llm: ScriptedLLM, **kw: Any) -> tuple[list[Any], Any]:
    client = openai.AsyncOpenAI(base_url=llm.base_url, api_key="x", max_retries=0, **kw)
    stream = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    chunks = []
    async for chunk in stream:
        chunks.append(chunk)
    return chunks, stream


async def test_cut_eof_ends_the_stream_cleanly_without_a_finish(llm: ScriptedLLM) -> None:
    cut = {"text": "half a", "tool_calls": [{"name": "write_file", "args": '{"path": "a'}], "cut": "eof"}
    llm.add(cut, cut)
    chunks, _ = await _raw_stream(llm)  # the SDK ends quietly: no error, no [DONE]
    assert [c.choices[0].finish_reason for c in chunks if c.choices] == [None] * len(chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "half a"
    args = "".join(tc.function.arguments or "" for c in chunks for tc in c.choices[0].delta.tool_calls or [])
    assert args == '{"path": "a'
    msg, _ = await collect(chat(llm).bind_tools([write_file]), "again")
    assert "finish_reason" not in msg.response_metadata  # what auger must notice, since langchain
    assert msg.tool_calls[0]["args"] == {"path": "a"}  # "repairs" the cut arguments into a valid call


async def test_cut_drop_is_an_incomplete_chunked_read(llm: ScriptedLLM) -> None:
    llm.add({"text": "half a reply", "cut": "drop"}, "next one works")
    with pytest.raises(openai.APIConnectionError) as info:
        await _raw_stream(llm)
    assert "incomplete chunked read" in str(info.value.__cause__)
    assert (await chat(llm).ainvoke("x")).content == "next one works"


@pytest.mark.parametrize("fault", [{"hang": "after_headers"}, {"text": "so far", "stall": True}])
async def test_hang_after_headers_and_stall_go_silent(llm: ScriptedLLM, fault: dict[str, Any]) -> None:
    llm.add(fault)
    start = time.monotonic()
    with pytest.raises(openai.APITimeoutError):  # raised while reading the body: headers came
        await _raw_stream(llm, timeout=0.5)
    assert 0.4 < time.monotonic() - start < 5


def test_keepalive_comments_come_before_the_answer(llm: ScriptedLLM) -> None:
    llm.add({"keepalive": 0.6, "keepalive_every": 0.2, "text": "at last"})
    start = time.monotonic()
    with httpx.stream("POST", f"{llm.base_url}/chat/completions", json={"model": "m", "stream": True}) as r:
        lines = [line for line in r.iter_lines() if line]
    assert time.monotonic() - start >= 0.6
    comments = [i for i, line in enumerate(lines) if line.startswith(": keep-alive")]
    first_data = next(i for i, line in enumerate(lines) if line.startswith("data:"))
    assert len(comments) >= 3 and max(comments) < first_data and lines[-1] == "data: [DONE]"


def test_bad_fault_values_rejected() -> None:
    with pytest.raises(ValueError, match="'cut'"):
        ScriptedLLM([{"text": "x", "cut": "later"}])
    with pytest.raises(ValueError, match="'hang'"):
        ScriptedLLM([{"hang": "forever"}])


# ---- Anthropic Messages API (tests/anthropic_wire.py) -----------------------------------------
def claude(llm: ScriptedLLM) -> Any:
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(  # type: ignore[call-arg]
        model_name="claude-test", base_url=f"http://127.0.0.1:{llm.port}", api_key="x", max_retries=0
    )


async def test_anthropic_stream_with_text_and_a_tool_call(llm: ScriptedLLM) -> None:
    args = {"path": "notes/a.txt", "content": 'with "quotes"'}
    llm.add({"text": "Writing.", "tool_calls": [{"name": "write_file", "args": args, "id": "toolu_1"}]})
    msg, n = await collect(claude(llm).bind_tools([write_file]), "write it")
    assert n > 5 and msg.text == "Writing."
    assert msg.tool_calls == [{"name": "write_file", "args": args, "id": "toolu_1", "type": "tool_call"}]
    assert msg.response_metadata["stop_reason"] == "tool_use"
    assert msg.usage_metadata and msg.usage_metadata["output_tokens"] > 0
    sent = llm.requests[0]
    assert (
        sent["model"] == "claude-test" and sent["stream"] is True and sent["tools"][0]["name"] == "write_file"
    )


async def test_anthropic_non_streaming_errors_and_cut(llm: ScriptedLLM) -> None:
    import anthropic

    llm.add("plain answer", {"error": 429, "message": "slow down"}, {"text": "cut", "cut": "eof"})
    reply = await claude(llm).ainvoke("x")
    assert reply.content == "plain answer" and reply.response_metadata["stop_reason"] == "end_turn"
    with pytest.raises(anthropic.RateLimitError, match="slow down"):
        await claude(llm).ainvoke("y")
    msg, _ = await collect(claude(llm), "z")
    assert msg.text == "cut" and not msg.response_metadata.get("stop_reason")


async def test_streamed_replies_do_not_wait_on_delayed_acks(tmp_path: Path) -> None:
    """Each SSE chunk is its own write: with Nagle's algorithm on, a reply waits ~40 ms for the
    client's delayed ACK, which made every scripted model call cost 40 ms of nothing (and every
    e2e turn and step bench with it). 20 streamed tool-call replies on one connection, and a
    `--times` line for each (received <= answered)."""
    times = tmp_path / "times.txt"
    call = {"tool_calls": [{"name": "ls", "args": {"path": "/"}}], "repeat": True}
    with ScriptedLLM([call], times_path=times) as llm:
        client = openai.AsyncOpenAI(base_url=llm.base_url, api_key="x", max_retries=0)
        await _raw_stream(llm)  # connect and warm up
        start = time.perf_counter()
        for _ in range(20):
            stream = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True
            )
            async for _chunk in stream:
                pass
        took = time.perf_counter() - start
    assert took < 0.6, f"20 replies took {took:.2f} s: stalled on delayed ACKs (40 ms each)?"
    pairs = [tuple(map(float, line.split())) for line in times.read_text().splitlines()]
    assert len(pairs) == 21
    assert all(received <= answered for received, answered in pairs)

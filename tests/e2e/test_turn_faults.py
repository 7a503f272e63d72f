"""End-to-end: a model reply that did not finish is never executed — the real `auger -n` against the
fault-injecting scripted server (tests/llm_server.py), over the OpenAI wire format and Anthropic's.

Each case checks what a user would: the exit code and the one-line message, the file system (the
cut-off command did not run: the marker folder is still there), the thread in threads.db (no
half-made tool call, the streamed text kept) and that the thread can be resumed. Also: provider
errors are retried a bounded number of times.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import AugerEnv
from turn_checks import assert_clean_error, assert_no_tool_call, assistant_texts, stored_messages

CUT_RM = '{"command": "rm -rf keep'  # what the model was writing when the stream broke off
NOT_RUN = "nothing of the unfinished reply was run"


def _marker(env: AugerEnv) -> Path:
    keep = env.project / "keep"
    keep.mkdir()
    (keep / "data.txt").write_text("precious\n")
    return keep / "data.txt"


def _run(env: AugerEnv, prompt: str, *args: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    proc = env.run("-n", prompt, *args, "--mode", "yolo", "--output-format", "json")
    return proc.returncode, json.loads(proc.stdout.splitlines()[-1]), proc.stderr


def _anthropic(env: AugerEnv) -> None:
    """Point the built-in anthropic provider at the scripted server's /v1/messages."""
    env.env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{env.llm.port}")
    env.write_config(model="anthropic:claude-sonnet-4-5")


@pytest.mark.parametrize(
    ("wire", "cut", "why"),
    [
        (
            "openai",
            "eof",
            "the reply stream ended before the model finished with a half-made call to 'execute'",
        ),
        ("openai", "drop", "broke off before the reply was complete"),
        (
            "anthropic",
            "eof",
            "the reply stream ended before the model finished with a half-made call to 'execute'",
        ),
        ("anthropic", "drop", "broke off before the reply was complete"),
    ],
    ids=["openai-eof", "openai-drop", "anthropic-eof", "anthropic-drop"],
)
def test_a_stream_cut_mid_tool_call_runs_nothing_keeps_the_text_and_the_thread_resumes(
    auger_env: AugerEnv, wire: str, cut: str, why: str
) -> None:
    if wire == "anthropic":
        _anthropic(auger_env)
    marker = _marker(auger_env)
    auger_env.llm.add(
        {"text": "Cleaning up now.", "tool_calls": [{"name": "execute", "args": CUT_RM}], "cut": cut}
    )
    proc = auger_env.run("-n", "clean up the keep folder", "--mode", "yolo", "--output-format", "json")
    assert_clean_error(proc, 1, why, NOT_RUN)
    result = json.loads(proc.stdout)
    assert result["reason"] == "error" and "tool_call_started" not in json.dumps(result["events"])
    assert marker.read_text() == "precious\n"  # `rm -rf keep` did not run
    assert len(auger_env.llm.requests) == 1  # no retry loop

    stored = stored_messages(auger_env, result["thread_id"])
    assert_no_tool_call(stored)
    assert [m.type for m in stored] == ["human", "ai"]
    assert (
        stored[1].text.startswith("Cleaning up now.")
        and "[interrupted: the reply broke off here]" in stored[1].text
    )

    auger_env.llm.add({"text": "Nothing was deleted."})
    code, again, err = _run(auger_env, "what happened?", "-r", result["thread_id"])
    assert (
        code == 0 and again["text"] == "Nothing was deleted." and again["thread_id"] == result["thread_id"]
    ), err
    sent = json.dumps(auger_env.llm.requests[-1])
    assert "Cleaning up now." in sent and "rm -rf keep" not in sent  # the partial text, no half call
    assert marker.exists()


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_stream_cut_mid_text_is_an_error_and_the_text_is_kept(auger_env: AugerEnv, wire: str) -> None:
    if wire == "anthropic":
        _anthropic(auger_env)
    auger_env.llm.add({"text": "The answer is forty", "cut": "eof"})
    proc = auger_env.run("-n", "what is six times seven?")
    assert_clean_error(proc, 1, "the reply stream ended before the model finished (no finish reason)")
    assert proc.stdout.strip() == "The answer is forty"  # what streamed was shown
    tid = auger_env.run("threads", "list", "--json").stdout
    stored = stored_messages(auger_env, json.loads(tid)[0]["id"])
    assert stored[-1].type == "ai" and stored[-1].text.startswith("The answer is forty\n\n[interrupted")


def test_tool_call_arguments_that_are_not_json_are_sent_back_to_the_model(auger_env: AugerEnv) -> None:
    marker = _marker(auger_env)
    # the model says the call is finished, but its JSON lacks the closing brace: its mistake
    broken = '{"command": "rm -rf keep"'
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": broken, "id": "call_bad"}]},
        {"tool_calls": [{"name": "execute", "args": {"command": "echo fixed > fixed.txt"}}]},
        {"text": "Done properly this time."},
    )
    code, result, err = _run(auger_env, "clean up")
    assert code == 0 and result["text"] == "Done properly this time.", err
    assert marker.exists() and (auger_env.project / "fixed.txt").read_text() == "fixed\n"
    told = [m for m in auger_env.llm.requests[1]["messages"] if m.get("tool_call_id") == "call_bad"]
    assert len(told) == 1 and "not a JSON object; it was not run" in told[0]["content"]
    assert broken in told[0]["content"]  # what it sent, to correct


def test_arguments_broken_again_after_the_model_was_told_end_the_turn(auger_env: AugerEnv) -> None:
    marker = _marker(auger_env)
    bad = {"tool_calls": [{"name": "execute", "args": '{"command": rm -rf keep}'}]}
    auger_env.llm.add(bad, bad, {"text": "never asked"})
    proc = auger_env.run("-n", "clean up", "--mode", "yolo")
    assert_clean_error(proc, 1, "the model sent invalid tool-call arguments to 'execute' again")
    assert "connection" not in proc.stderr
    assert marker.exists() and len(auger_env.llm.requests) == 2


def test_complete_anthropic_tool_calls_still_run(auger_env: AugerEnv) -> None:
    _anthropic(auger_env)
    auger_env.llm.add(
        {
            "text": "Writing it.",
            "tool_calls": [{"name": "execute", "args": {"command": "echo made > made.txt"}}],
        },
        {"text": "Done: made.txt holds 'made'."},
    )
    code, result, err = _run(auger_env, "make made.txt")
    assert code == 0 and result["text"] == "Done: made.txt holds 'made'.", err
    assert (auger_env.project / "made.txt").read_text() == "made\n"
    first = auger_env.llm.requests[0]
    assert first["model"] == "claude-sonnet-4-5" and first["stream"] is True and "max_tokens" in first
    blocks = [
        b
        for m in auger_env.llm.requests[1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
    ]
    assert any(b.get("type") == "tool_use" for b in blocks) and any(
        b.get("type") == "tool_result" for b in blocks
    )


@pytest.mark.parametrize("status", [429, 500])
def test_a_provider_error_then_success_is_retried(auger_env: AugerEnv, status: int) -> None:
    auger_env.llm.add({"error": status, "message": "busy", "retry_after": 0}, {"text": "second time lucky"})
    code, result, err = _run(auger_env, "hi")
    assert code == 0 and result["text"] == "second time lucky", err
    assert len(auger_env.llm.requests) == 2


def test_retries_are_bounded(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"error": 500, "message": "down for good", "retry_after": 0, "repeat": True})
    proc = auger_env.run("-n", "hi")
    assert_clean_error(proc, 1, "server error (500)")
    assert len(auger_env.llm.requests) == 3  # the first try and max_retries (2), not a loop
    assert assistant_texts(auger_env.llm.requests[-1]) == []


def test_a_subagent_cut_mid_tool_call_runs_nothing(auger_env: AugerEnv) -> None:
    marker = _marker(auger_env)
    auger_env.llm.add(
        {
            "tool_calls": [
                {"name": "task", "args": {"description": "empty keep/", "subagent_type": "general-purpose"}}
            ]
        },
        {
            "text": "On it.",
            "tool_calls": [{"name": "execute", "args": CUT_RM}],
            "cut": "eof",
        },  # the subagent's
    )
    code, result, err = _run(auger_env, "clean up")
    assert code == 1 and "half-made call to 'execute'" in err and NOT_RUN in err
    assert marker.exists() and len(auger_env.llm.requests) == 2
    stored = stored_messages(auger_env, result["thread_id"])
    assert not [m for m in stored if m.type == "ai" and any(c["name"] == "execute" for c in m.tool_calls)]
    auger_env.llm.add({"text": "The subagent was cut off; nothing was deleted."})
    code, again, err = _run(auger_env, "status?", "-r", result["thread_id"])
    assert code == 0 and again["text"].startswith("The subagent was cut off"), err
    assert marker.exists()

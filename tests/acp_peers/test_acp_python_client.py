"""`auger acp` driven by the official Python ACP client through a whole editor session: prompt,
streamed text, a tool call needing permission, allow, the file on disk, cancel mid-turn, and the
session loaded in a new process. The agent is the real `auger` against the scripted model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acp import RequestError
from acp import schema as s
from acp_peer import RecordingClient, is_kind, spawn, start

from conftest import AugerEnv
from conftest_llm import typed

WRITE = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/hello.txt", "content": "hi there\n"}}]}


def text_prompt(text: str) -> list[s.TextContentBlock]:
    return [s.TextContentBlock(type="text", text=text)]


async def test_full_session_prompt_permission_cancel_and_load(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        WRITE,
        {"text": "Wrote hello.txt for you."},
        {"text": "Counting: ", "text_tokens": 4000, "rate": 200},  # long and slow: cancelled midway
    )
    client = RecordingClient("allow_once")
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        done = await conn.prompt(session_id=session_id, prompt=text_prompt("write hello.txt"))
        assert done.stop_reason == "end_turn"
        assert (auger_env.project / "hello.txt").read_text() == "hi there\n"

        call = client.of("tool_call")[0]
        assert (call.kind, call.title) == ("edit", "Write /hello.txt")
        assert call.locations[0].path == str(auger_env.project / "hello.txt")
        diff = call.content[0]
        assert (diff.type, diff.path, diff.new_text) == (
            "diff",
            str(auger_env.project / "hello.txt"),
            "hi there\n",
        )
        [asked] = client.permissions
        assert asked.tool_call.tool_call_id == call.tool_call_id
        assert {o.kind for o in asked.options} == {"allow_once", "allow_always", "reject_once"}
        finished = [u for u in client.of("tool_call_update") if u.status]
        assert finished[-1].status == "completed"
        assert client.text() == "Wrote hello.txt for you."

        client.clear()
        running = conn.prompt(session_id=session_id, prompt=text_prompt("count to a lot"))
        import asyncio

        turn = asyncio.ensure_future(running)
        await client.wait_for(lambda u: is_kind("agent_message_chunk")(u) and "lorem" in u.content.text)
        await conn.cancel(session_id=session_id)
        cancelled = await asyncio.wait_for(turn, 30)
        assert cancelled.stop_reason == "cancelled"
        assert "lorem" in client.text()

    replayed = RecordingClient()
    async with spawn(auger_env, replayed) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        await conn.load_session(cwd=str(auger_env.project), session_id=session_id, mcp_servers=[])
        users = [u.content.text for u in replayed.of("user_message_chunk")]
        assert users[:2] == ["write hello.txt", "count to a lot"]
        assert "Wrote hello.txt for you." in replayed.text()
        [old_call] = replayed.of("tool_call")
        assert old_call.title == "Write /hello.txt"
        assert any(u.status == "completed" for u in replayed.of("tool_call_update"))


async def test_reject_keeps_the_file_away_and_tells_the_model(auger_env: AugerEnv) -> None:
    auger_env.llm.add(WRITE, {"text": "Understood, not writing."})
    client = RecordingClient("reject_once")
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        done = await conn.prompt(session_id=session_id, prompt=text_prompt("write hello.txt"))
    assert done.stop_reason == "end_turn"
    assert not (auger_env.project / "hello.txt").exists()
    assert [u.status for u in client.of("tool_call_update") if u.status][-1] == "failed"
    tool_result = auger_env.llm.requests[-1]["messages"][-1]
    assert tool_result["role"] == "tool" and "declined" in str(tool_result["content"])


async def test_allow_always_grants_the_rule_for_the_thread(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "echo one"}}]},
        {"text": "ran one"},
        {"tool_calls": [{"name": "execute", "args": {"command": "echo one two"}}]},
        {"text": "ran two"},
    )
    client = RecordingClient("allow_always")
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        await conn.prompt(session_id=session_id, prompt=text_prompt("run echo one"))
        await conn.prompt(session_id=session_id, prompt=text_prompt("run echo two"))
    [asked] = client.permissions  # the second call is covered by "execute(echo one *)"
    assert (
        next(o.name for o in asked.options if o.kind == "allow_always") == "Always allow execute(echo one *)"
    )
    outputs = [u for u in client.of("tool_call_update") if u.status == "completed"]
    assert "one" in outputs[0].content[0].content.text and "one two" in outputs[1].content[0].content.text


async def test_modes_models_and_commands_are_advertised(auger_env: AugerEnv) -> None:
    skill = auger_env.home / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Say hello nicely\n---\nSay hello.\n")
    commands_dir = (
        auger_env.project / ".claude" / "commands" / "git"
    )  # a custom command, Claude Code's format
    commands_dir.mkdir(parents=True)
    (commands_dir / "log.md").write_text(
        "---\ndescription: Summarise the log\nargument-hint: [days]\n---\nDo it.\n"
    )
    auger_env.llm.add({"text": "edited"})
    client = RecordingClient()
    async with spawn(auger_env, client) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        new = await conn.new_session(cwd=str(auger_env.project), mcp_servers=[])
        assert new.modes.current_mode_id == "manual"
        assert [m.id for m in new.modes.available_modes] == ["manual", "auto-edit", "yolo", "plan"]
        model = next(o for o in new.config_options if o.id == "model")
        assert model.current_value == "local:scripted-model"
        assert "local:other-model" in [o.value for o in model.options]
        commands = await client.wait_for(is_kind("available_commands_update"))
        names = [c.name for c in commands.available_commands]
        assert "greet" in names and "compact" in names
        custom = next(c for c in commands.available_commands if c.name == "git:log")
        assert custom.description == "Summarise the log" and custom.input.root.hint == "[days]"

        changed = await conn.set_config_option(
            config_id="model", session_id=new.session_id, value="local:other-model"
        )
        assert next(o for o in changed.config_options if o.id == "model").current_value == "local:other-model"
        await conn.set_session_mode(session_id=new.session_id, mode_id="auto-edit")
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("hi"))
        assert auger_env.llm.requests[-1]["model"] == "other-model"

        try:
            await conn.set_config_option(config_id="model", session_id=new.session_id, value="nope:thing")
        except RequestError as exc:
            assert "nope" in str(exc) and "auger:" in str(exc)
        else:
            raise AssertionError("an unknown provider was accepted")


async def test_a_plan_accepted_in_the_editor_switches_the_mode_and_goes_on(auger_env: AugerEnv) -> None:
    plan = "# Plan\n\n1. Write hello.txt."
    auger_env.llm.add(
        {"tool_calls": [{"name": "present_plan", "args": {"plan": plan}}]}, WRITE, {"text": "Done."}
    )
    client = RecordingClient("allow_once")  # the first allow_once of a plan: accept, auto-edit
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        await conn.set_session_mode(session_id=session_id, mode_id="plan")
        done = await conn.prompt(session_id=session_id, prompt=text_prompt("plan hello.txt, then do it"))
        assert done.stop_reason == "end_turn"
        [asked] = client.permissions  # the plan only: the write after it went through in auto-edit
        assert asked.tool_call.raw_input == {"plan": plan}
        assert [(o.option_id, o.kind) for o in asked.options] == [
            ("plan:auto-edit", "allow_once"),
            ("plan:manual", "allow_once"),
            ("reject", "reject_once"),
        ]
        [switched] = client.of("current_mode_update")
        assert switched.current_mode_id == "auto-edit"
        assert (auger_env.project / "hello.txt").read_text() == "hi there\n"
        assert "write_file" not in {t["function"]["name"] for t in auger_env.llm.requests[0]["tools"]}


async def test_load_of_an_unknown_session_is_a_clear_error(auger_env: AugerEnv) -> None:
    client = RecordingClient()
    async with spawn(auger_env, client) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        try:
            await conn.load_session(cwd=str(auger_env.project), session_id="no-such-thread", mcp_servers=[])
        except RequestError as exc:
            assert "no saved thread 'no-such-thread'" in str(exc)
        else:
            raise AssertionError("loading an unknown thread succeeded")


async def test_load_of_another_projects_thread_is_refused(auger_env: AugerEnv, tmp_path: Path) -> None:
    """A thread saved in another project is not loaded here: the error names it and its project."""
    other = tmp_path / "other-project"
    (other / ".git").mkdir(parents=True)
    auger_env.llm.add({"text": "Hello from elsewhere."})
    ran = auger_env.run("-n", "hi there", "--output-format", "stream-json", cwd=other)
    assert ran.returncode == 0, ran.stderr
    thread = auger_env.events(ran)[-1]["thread_id"]
    client = RecordingClient()
    async with spawn(auger_env, client) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        try:
            await conn.load_session(cwd=str(auger_env.project), session_id=thread, mcp_servers=[])
        except RequestError as exc:
            assert f"thread {thread!r} belongs to the project {other}" in str(exc), exc
        else:
            raise AssertionError("another project's thread was loaded")
    assert not client.of("agent_message_chunk")  # none of its history reached the editor


async def test_the_editors_mcp_servers_join_the_users(auger_env: AugerEnv) -> None:
    server = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
    call = {"name": "mcp__calc__add", "args": {"a": 20, "b": 22}}  # MCP tools are mcp__SERVER__TOOL
    auger_env.llm.add({"tool_calls": [call]}, {"text": "It is 42."})
    client = RecordingClient("allow_once")
    async with spawn(auger_env, client) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        calc = s.McpServerStdio(name="calc", command=sys.executable, args=[str(server)], env=[])
        new = await conn.new_session(cwd=str(auger_env.project), mcp_servers=[calc])
        done = await conn.prompt(session_id=new.session_id, prompt=text_prompt("add 20 and 22"))
    assert done.stop_reason == "end_turn"
    assert "mcp__calc__add" in [t["function"]["name"] for t in auger_env.llm.requests[0]["tools"]]
    [result] = [u for u in client.of("tool_call_update") if u.status == "completed"]
    assert "42" in result.content[0].content.text


async def test_connect_runs_the_sessions_on_auger_serve(auger_env: AugerEnv) -> None:
    from serve_harness import TOKEN, start_server

    server = start_server(auger_env)
    try:
        auger_env.llm.add(WRITE, {"text": "Written on the server."})
        client = RecordingClient("allow_once")
        async with spawn(auger_env, client, "--connect", server.url, "--token", TOKEN) as (conn, _proc):
            session_id = await start(conn, auger_env)
            done = await conn.prompt(session_id=session_id, prompt=text_prompt("write hello.txt"))
        assert done.stop_reason == "end_turn"
        assert len(client.permissions) == 1
        assert (auger_env.project / "hello.txt").read_text() == "hi there\n"
        assert client.text() == "Written on the server."
        with server.client() as http:
            assert http.get(f"/threads/{session_id}").status_code == 200  # the server's thread
    finally:
        server.stop()


async def test_thoughts_plan_and_command_output(auger_env: AugerEnv) -> None:
    todos = [{"content": "look around", "status": "in_progress"}, {"content": "report", "status": "pending"}]
    auger_env.llm.add(
        {
            "reasoning": "Let me plan first.",
            "tool_calls": [{"name": "write_todos", "args": {"todos": todos}}],
        },
        {"tool_calls": [{"name": "execute", "args": {"command": "echo from-the-shell"}}]},
        {"text": "All done."},
    )
    client = RecordingClient("allow_once")
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        await conn.set_session_mode(session_id=session_id, mode_id="yolo")
        done = await conn.prompt(session_id=session_id, prompt=text_prompt("plan and run"))
    assert done.stop_reason == "end_turn"
    assert client.permissions == []  # yolo: nothing asks
    assert client.text("agent_thought_chunk") == "Let me plan first."
    plan = client.of("plan")[0]
    assert [(e.content, e.status) for e in plan.entries] == [
        ("look around", "in_progress"),
        ("report", "pending"),
    ]
    assert [c.title for c in client.of("tool_call")] == ["Run echo from-the-shell"]  # write_todos is the plan
    [run] = client.of("tool_call")
    assert run.kind == "execute"
    [output] = [u for u in client.of("tool_call_update") if u.status == "completed"]
    assert output.content[0].content.text.startswith("```\nfrom-the-shell")


async def test_a_failing_model_is_a_json_rpc_error_with_the_reason(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"error": 401, "message": "Incorrect API key provided."})
    client = RecordingClient()
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        try:
            await conn.prompt(session_id=session_id, prompt=text_prompt("hello"))
        except RequestError as exc:
            message = str(exc)
        else:
            raise AssertionError("a failed turn ended normally")
    assert message.startswith("auger: ") and ("401" in message or "API key" in message), message
    assert "Traceback" not in (auger_env.home / "acp-stderr.log").read_text()


async def test_session_list_shows_this_projects_threads(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "hello back"})
    client = RecordingClient()
    async with spawn(auger_env, client) as (conn, _proc):
        init = await conn.initialize(protocol_version=1)
        assert init.agent_capabilities.session_capabilities.list is not None
        session_id = await start(conn, auger_env)
        await conn.prompt(session_id=session_id, prompt=text_prompt("say hello to the list"))
        listed = await conn.list_sessions(cwd=str(auger_env.project))
    [info] = listed.sessions
    assert info.session_id == session_id and info.cwd == str(auger_env.project)
    assert "say hello" in (info.title or "") and info.updated_at


PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def image_prompt(text: str) -> list[s.TextContentBlock | s.ImageContentBlock]:
    return [*text_prompt(text), s.ImageContentBlock(type="image", data=PNG_1PX, mime_type="image/png")]


async def test_an_image_prompt_reaches_a_model_that_takes_images_and_survives_the_thread(
    auger_env: AugerEnv,
) -> None:
    auger_env.write_config('[models."local:scripted-model"]\nimages = true\n')
    auger_env.llm.add({"text": "A single pixel."})
    client = RecordingClient()
    async with spawn(auger_env, client) as (conn, _proc):
        init = await conn.initialize(protocol_version=1)
        assert init.agent_capabilities.prompt_capabilities.image is True
        session = await conn.new_session(cwd=str(auger_env.project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=image_prompt("what is this?"))
        assert done.stop_reason == "end_turn" and client.text() == "A single pixel."
    [request] = auger_env.llm.requests
    user = request["messages"][-1]["content"]
    assert typed(user) == "what is this?"
    assert {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_1PX}"}} in user

    replayed = RecordingClient()
    async with spawn(auger_env, replayed) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        await conn.load_session(cwd=str(auger_env.project), session_id=session.session_id, mcp_servers=[])
    [prompt] = [u.content.text for u in replayed.of("user_message_chunk")]
    assert prompt == "what is this? [image image/png]"
    assert "A single pixel." in replayed.text()


async def test_an_image_prompt_reaches_the_model_through_auger_serve(auger_env: AugerEnv) -> None:
    from serve_harness import TOKEN, start_server

    auger_env.write_config('[models."local:scripted-model"]\nimages = true\n')
    server = start_server(auger_env)
    try:
        auger_env.llm.add({"text": "Seen on the server."})
        client = RecordingClient()
        async with spawn(auger_env, client, "--connect", server.url, "--token", TOKEN) as (conn, _proc):
            session_id = await start(conn, auger_env)
            done = await conn.prompt(session_id=session_id, prompt=image_prompt("and this?"))
        assert done.stop_reason == "end_turn" and client.text() == "Seen on the server."
    finally:
        server.stop()
    user = auger_env.llm.requests[-1]["messages"][-1]["content"]
    assert {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_1PX}"}} in user


async def test_an_image_prompt_to_a_text_model_is_refused_and_nothing_is_sent(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "never asked"}, {"text": "Text is fine."})
    client = RecordingClient()
    async with spawn(auger_env, client) as (conn, _proc):
        session_id = await start(conn, auger_env)
        try:
            await conn.prompt(session_id=session_id, prompt=image_prompt("what is this?"))
        except RequestError as exc:
            message = str(exc)
        else:
            raise AssertionError("an image went to a model that takes none")
        assert auger_env.llm.requests == []
        done = await conn.prompt(session_id=session_id, prompt=text_prompt("then just text"))
        assert done.stop_reason == "end_turn" and client.text() == "never asked"
    assert "local:scripted-model does not take images" in message, message
    assert '[models."local:scripted-model"] images = true' in message
    [request] = auger_env.llm.requests
    assert "image_url" not in str(request) and typed(request["messages"][-1]["content"]) == "then just text"
    assert "Traceback" not in (auger_env.home / "acp-stderr.log").read_text()


async def test_an_mcp_servers_form_is_the_editors_elicitation(auger_env: AugerEnv) -> None:
    """An editor offering `elicitation.form` gets the MCP server's form as `elicitation/create`;
    content the agent refuses is asked again with the reason; what it accepts reaches the server.
    An editor without forms never sees it: the server hears `decline`."""
    server = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
    calc = s.McpServerStdio(name="calc", command=sys.executable, args=[str(server)], env=[])
    call = {"tool_calls": [{"name": "mcp__calc__sign_up", "args": {"team": "core"}}]}
    auger_env.llm.add(call, {"text": "Signed up."}, call, {"text": "Declined."})
    good = {"name": "Ann", "email": "ann@example.com", "age": 42, "role": "dev"}
    client = RecordingClient("allow_once")
    client.form_answers = [
        s.AcceptElicitationResponse(action="accept", content={**good, "age": 5}),
        s.AcceptElicitationResponse(action="accept", content=good),
    ]
    forms = s.ClientCapabilities(elicitation=s.ElicitationCapabilities(form=s.ElicitationFormCapabilities()))
    async with spawn(auger_env, client, "--mode", "yolo", unstable=True) as (conn, _proc):
        await conn.initialize(protocol_version=1, client_capabilities=forms)
        new = await conn.new_session(cwd=str(auger_env.project), mcp_servers=[calc])
        done = await conn.prompt(session_id=new.session_id, prompt=text_prompt("sign me up"))
    assert done.stop_reason == "end_turn"
    results = [u.content[0].content.text for u in client.of("tool_call_update") if u.status == "completed"]
    assert len(client.forms) == 2, (results, client.of("agent_message_chunk"))
    (first, mode), (again, _) = client.forms
    assert first == "MCP server 'calc' asks: Join team core: who are you?"
    assert mode.session_id == new.session_id
    props = mode.requested_schema.properties
    assert props["age"].minimum == 18 and props["height"].type == "number"  # Pydantic's anyOf unwrapped
    assert props["role"].enum == ["dev", "ops", "pm"] and mode.requested_schema.required[0] == "name"
    assert "Field 'age': must be at least 18." in again and again.endswith("who are you?")
    [result] = [u for u in client.of("tool_call_update") if u.status == "completed"]
    expected = json.dumps({**good, "height": None, "newsletter": False}, sort_keys=True)
    assert result.content[0].content.text == f"elicitation accept: {expected}"

    plain = RecordingClient("allow_once")
    async with spawn(auger_env, plain, "--mode", "yolo") as (conn, _proc):
        await conn.initialize(protocol_version=1)
        new = await conn.new_session(cwd=str(auger_env.project), mcp_servers=[calc])
        done = await conn.prompt(session_id=new.session_id, prompt=text_prompt("sign up again"))
    assert done.stop_reason == "end_turn" and plain.forms == []
    [result] = [u for u in plain.of("tool_call_update") if u.status == "completed"]
    assert result.content[0].content.text == "elicitation decline: null"

"""Capability flags (the `capabilities` operation, GET /capabilities through `auger serve`): the
agents the user can reach with their tools, and per model tools / images / reasoning / context
window from LangChain's model profiles (None where no profile knows the model; images are a yes
or a no: config, else the profile, else no)."""

from __future__ import annotations

from conftest import AugerEnv
from serve_harness import start_server


def test_capabilities_per_agent_and_per_model(auger_env: AugerEnv) -> None:
    auger_env.write_config(
        '[acp_agents.helper]\ncommand = "auger"\nargs = ["acp"]\ndescription = "Another auger."\n'
    )
    (auger_env.project / ".auger" / "agents").mkdir(parents=True)
    (auger_env.project / ".auger" / "agents" / "reader.md").write_text(
        "---\nname: reader\ndescription: Reads only\ntools: [read_file, grep]\n---\nYou read files.\n"
    )
    auger_env.env["OPENAI_API_KEY"] = "sk-test-not-used"
    server = start_server(auger_env)
    try:
        with server.client() as http:
            caps = http.get("/capabilities").json()
    finally:
        server.stop()
    agents = {a["name"]: a for a in caps["agents"]}
    assert agents["auger"]["kind"] == "main" and "execute" in agents["auger"]["tools"]
    assert agents["reader"] == {
        "name": "reader",
        "kind": "subagent",
        "model": None,
        "tools": ["read_file", "grep"],
    }
    assert agents["helper"]["kind"] == "acp"
    models = {m["spec"]: m for m in caps["models"]}
    assert caps["models"][0]["spec"] == "local:scripted-model"  # the current model first
    assert models["local:scripted-model"] == {
        "spec": "local:scripted-model",
        "context_window": 128000,
        "tools": None,
        "images": False,  # nothing known of it: no images (`auger.core.models.images`)
        "reasoning": None,
    }
    assert models["openai:gpt-4.1"] == {
        "spec": "openai:gpt-4.1",
        "context_window": 1047576,
        "tools": True,
        "images": True,
        "reasoning": False,
    }

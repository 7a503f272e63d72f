"""One behaviour per module; the order they run in is the list in `auger.core.agent.graph`.

* `tools/`: around each tool call (and the tools offered) — permissions, hooks, redaction, results,
  allow-lists, MCP tools, client tools, folder memory, rewind snapshots.
* `prompt/`: what the model is told — memory, skills, the project-facts note, plan mode, the compact
  profile.
* `model/`: the model call itself — which model, what the wire takes, model hooks, compaction, turn
  limits, resume state.
* `base.py`: the request-shaper and tool-filter shapes several of them share.
"""

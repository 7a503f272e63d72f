"""The agent graph: `create_cli_agent` (the ONE middleware list), its prompt, run context and
project facts."""

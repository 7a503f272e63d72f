"""Middleware around each tool call: permissions, hooks, redaction, results, allow-lists, MCP
tools, tools the front end runs, folder memory, rewind snapshots."""

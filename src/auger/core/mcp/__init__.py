"""MCP servers: their configuration and project trust, and the manager that keeps them connected."""

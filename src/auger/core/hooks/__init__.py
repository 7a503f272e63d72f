"""Hooks: commands the user configures to run on agent events, in Claude Code's format — which
exist and may run (`config`: sources, project trust, matchers) and running them (`runner`)."""

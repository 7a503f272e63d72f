"""Safety: permission rules and the engine, shell analysis, protected paths, hooks, redaction."""

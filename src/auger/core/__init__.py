"""The agent core. Never imports Textual (tests/core/test_layering.py enforces it)."""

"""Widgets of the auger TUI (each module small; styles live in ../app.tcss)."""

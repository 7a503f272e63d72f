"""auger: a small, fast terminal coding assistant."""

__version__ = "0.1.0"

"""The web: `fetch_url` (a page as markdown, `fetch.py`) and `web_search` (a configured engine,
`search.py`); `tools.py` makes them tools and applies the sandbox and the redirect checks."""

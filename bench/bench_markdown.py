"""Long real-markdown replies in a real terminal (tmux): auger vs a bare Textual app streaming the
same text into `MarkdownStream`, in the same run.

    python bench/bench_markdown.py [--rounds N] [--only long echo esc mixed] [--baseline OTHER/bin/auger]

`--rounds N`: the long reply N times (each round: a bare round, then each build), echo, esc and
mixed N auger rounds per build against one bare round each (the bare app takes minutes).
`--baseline` (repeatable) measures another build first in every section (e.g. main's venv
against this branch's), so before and after come from the same run on the same load.

The replies are real files from bench/corpus/ (see SOURCES.md), streamed by the scripted server in
its usual 8-character chunks:

1. `long`: black's CHANGES.md (70 KB of nested lists), sent as fast as the server can. For each
   round, first the bare app (a `Markdown` in an anchored `VerticalScroll`, fed through
   `Markdown.get_stream` in the same 8-character pieces), then auger: the time from Enter until
   the reply's last line is on screen (auger: and the turn is over). Targets: auger ≤ 1.0× bare
   (goal ≤ 0.5×); auger's RSS growth for the reply ≤ 60 MB, and after `/clear` back within 20 MB
   of where it started.
2. `echo`: the same reply while a key is typed every 100 ms (for at most `ECHO_SECONDS`): the
   time until each key shows in the input box (target p95 ≤ 50 ms); the bare app typed at the
   same way first.
3. `esc`: the same reply, Esc pressed once its first "Preview style" heading is on screen: the
   time until the turn is over and the TUI idle (target ≤ 0.3 s).
4. `mixed`: 20,000 tokens of mixed markdown (rich's, fastapi's and axios's READMEs: HTML, tables,
   code, lists) in 16-character chunks (~4 tokens, as bench_tui.py's lorem reply), paced at
   3,000 tok/s; rendered end to end at ≥ 2,000 tok/s. Tokens are the scripted server's count
   (⌈characters / 4⌉ per chunk, what its usage reports); a real tokenizer (o200k_base) counts
   ~2% fewer in this text (18,681 for the server's 19,088), so tok/s here is ~2% generous.
   The bare app gets the same text at the same pace first. Each build's CPU seconds are
   printed too: on a loaded machine wall time mostly measures the load, CPU time what the
   build costs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_tui import AUGER, Env, Term, idle, ready, rss_mb, settled  # noqa: E402
from tmux_control import ControlClient  # noqa: E402

from llm_server import CHUNK_CHARS, ScriptedLLM, _pieces, _tokens  # noqa: E402

CORPUS = HERE / "corpus"
END = "Reply complete: 7f3a9c."
ECHO_RATE = 500.0  # tok/s of the paced echo case: the 70 KB reply (17,985 tokens) takes 36 s
ECHO_SECONDS = 60  # keys are typed for at most this long (or until the reply is done)
ESC_AFTER = "Preview style"  # a heading ~10 KB into black's CHANGES.md: Esc goes in once it shows
BARE_MARKDOWN_APP = """
import asyncio, sys
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static, TextArea

TEXT = open(sys.argv[1], encoding="utf-8").read()
CHUNK = int(sys.argv[2])
RATE = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0  # chars/s to pace at (0: as fast as it can)

class Bare(App):
    CSS = "VerticalScroll { height: 1fr; } TextArea { height: 3; }"
    def compose(self):
        with VerticalScroll(id="t"):
            yield Markdown()
        yield TextArea(placeholder="Ask anything · / for commands")
        yield Static("ready", id="status")
    def on_mount(self):
        self.query_one("#t").anchor()
        self.query_one(TextArea).focus()
    def on_text_area_changed(self, event):
        if "\\n" in event.text_area.text and not getattr(self, "started", False):
            self.started = True
            self.query_one("#status").update("working")
            self.run_worker(self.stream())
    async def stream(self):
        stream = Markdown.get_stream(self.query_one(Markdown))
        loop = asyncio.get_running_loop()
        started = loop.time()
        for i in range(0, len(TEXT), CHUNK):
            await stream.write(TEXT[i : i + CHUNK])
            await asyncio.sleep(max(0.0, started + (i + CHUNK) / RATE - loop.time()) if RATE else 0)
        await stream.stop()
        self.query_one("#status").update("done")

Bare().run()
"""


def reply_text(name: str) -> str:
    return (CORPUS / name).read_text(encoding="utf-8").rstrip() + f"\n\n{END}\n"


MIXED_CHUNK = 16  # characters per streamed chunk: ~4 tokens, as bench_tui.py's lorem reply


def mixed_text(tokens: int) -> str:
    """The mixed corpus cut at a line end where it reaches `tokens`, as the scripted server counts
    the stream (its `MIXED_CHUNK`-character chunks over the whole text, not line by line)."""
    text = "".join(
        reply_text(n).replace(END, "") for n in ("rich-README.md", "fastapi-README.md", "axios-README.md")
    )
    lines = text.splitlines(keepends=True)

    def streamed(n_lines: int) -> str:
        return "".join(lines[:n_lines]).rstrip() + f"\n\n{END}\n"

    low, high = 1, len(lines)  # the fewest lines whose stream is `tokens` or more
    while low < high:
        mid = (low + high) // 2
        if sum(_tokens(p) for p in _pieces(streamed(mid), MIXED_CHUNK)) >= tokens:
            high = mid
        else:
            low = mid + 1
    return streamed(low)


def end_shown(screen: str) -> bool:
    return END in screen


def bare_round(env: Env, text_file: Path, n: int, chunk: int = CHUNK_CHARS, rate: float = 0.0) -> float:
    app = env.tmp / "bare_markdown_app.py"
    app.write_text(BARE_MARKDOWN_APP)
    term = Term(f"bench-md-bare-{os.getpid()}-{n}")
    try:
        term.start(f"{sys.executable} {app} {text_file} {chunk} {rate}", env.project, env.env)
        term.wait(lambda s: "Ask anything" in s)
        t0 = time.perf_counter()
        term.keys("Enter")
        t1, _ = term.wait(lambda s: end_shown(s) and "done" in s, timeout=3600, pause=0.05)
        print(f"  (round {n}: bare MarkdownStream {t1 - t0:.1f} s)", flush=True)
        return t1 - t0
    finally:
        term.kill()


def auger_round(
    env: Env, llm: ScriptedLLM, text: str, n: int, *, clear: bool = True, auger: str = AUGER
) -> dict[str, float]:
    llm.add({"text": text})
    term = Term(f"bench-md-auger-{os.getpid()}-{n}")
    try:
        term.start(auger, env.project, env.env)
        term.wait(ready)
        pid = term.pid()
        before = rss_mb(pid)
        term.type_line("show me the changelog")
        t0 = time.perf_counter()
        t1, _ = term.wait(lambda s: end_shown(s) and idle(s), timeout=3600, pause=0.05)
        rendered = rss_mb(pid)
        print(f"  (round {n}: auger {t1 - t0:.1f} s, RSS {before:.0f} -> {rendered:.0f} MB)", flush=True)
        out = {"seconds": t1 - t0, "rss_start_mb": before, "rss_rendered_mb": rendered}
        if clear:
            term.type_line("/clear")
            term.wait(lambda s: "New thread." in s and not end_shown(s))
            time.sleep(3.0)  # the app's idle-time collection (gcpolicy.IDLE_DELAY) has run by then
            out["rss_after_clear_mb"] = rss_mb(pid)
        return out
    finally:
        term.kill()


def long_reply(env: Env, llm: ScriptedLLM, rounds: int, augers: list[str]) -> dict[str, object]:
    """Each round: the bare app, then each build (`augers`, the last one this branch's)."""
    text = reply_text("black-CHANGES-70k.md")
    text_file = env.tmp / "long.md"
    text_file.write_text(text, encoding="utf-8")
    bare: list[float] = []
    builds: list[list[dict[str, float]]] = [[] for _ in augers]
    for n in range(rounds):
        bare.append(bare_round(env, text_file, n))
        for runs, auger in zip(builds, augers, strict=True):
            runs.append(auger_round(env, llm, text, n, auger=auger))
    out: dict[str, object] = {
        "corpus": "black-CHANGES-70k.md",
        "chars": len(text),
        "rounds": rounds,
        "bare_markdownstream_s": statistics.median(bare),
    }
    for index, runs in enumerate(builds):
        label = "" if index == len(augers) - 1 else f"baseline{index}_"
        out.update({f"{label}{key}": value for key, value in _long_figures(runs, bare).items()})
    return out


def _long_figures(augers: list[dict[str, float]], bare: list[float]) -> dict[str, object]:
    ratios = [a["seconds"] / b for a, b in zip(augers, bare, strict=True)]

    def med(key: str) -> float:
        return statistics.median(a[key] for a in augers)

    return {
        "auger_s": med("seconds"),
        "ratio_auger_over_bare": statistics.median(ratios),
        "ratios": " ".join(f"{r:.2f}" for r in ratios),
        "rss_start_mb": med("rss_start_mb"),
        "rss_growth_mb": statistics.median(a["rss_rendered_mb"] - a["rss_start_mb"] for a in augers),
        "rss_after_clear_over_start_mb": statistics.median(
            a["rss_after_clear_mb"] - a["rss_start_mb"] for a in augers
        ),
    }


def _prompt_text(screen: str) -> str:
    """What the input box shows (it grows to several lines as keys are typed)."""
    lines = screen.rstrip().splitlines()
    top = max((i for i, line in enumerate(lines) if line.strip().startswith("╭")), default=len(lines))
    return "\n".join(lines[top + 1 : -2])


def _bare_typed(screen: str) -> str:
    """What the bare app's TextArea shows (its three lines above the status line)."""
    return "\n".join(screen.rstrip().splitlines()[-4:-1])


def _bare_done(screen: str) -> bool:
    lines = screen.rstrip().splitlines()
    return bool(lines) and lines[-1].strip() == "done"


HARNESS = "control"  # how keys are typed and echoes seen: "control" (tmux -C) or "spawn" (a tmux per step)
FLOOR_KEYS = 60  # keys typed into an idle app for the floor
BARE_KEYS = 100  # keys typed into the bare MarkdownStream app: its one-line TextArea shows ~115


def _type_while_busy(term: Term, typed_text: Any, done: Any, most: int = 0) -> list[float]:
    """Type a key every 100 ms until `done(screen)` (or ECHO_SECONDS, or `most` keys): each key's
    echo time, timed by HARNESS."""
    if HARNESS == "spawn":
        return _type_spawning(term, typed_text, done, most)
    control = ControlClient(term)
    try:
        return _type_through(control, typed_text, done, most)
    finally:
        control.close()


def _type_through(control: ControlClient, typed_text: Any, done: Any, most: int) -> list[float]:
    """Through a tmux control client: from writing `send-keys` to the app's output showing it."""
    echoes: list[float] = []
    typed = 0
    stop_at = time.perf_counter() + ECHO_SECONDS
    while not done(control.screen()[1]) and time.perf_counter() < stop_at and (not most or typed < most):
        typed += 1
        t0 = control.send_literal("x")
        t1, screen = control.wait(lambda s, n=typed: typed_text(s).count("x") >= n or done(s), 30)
        if typed_text(screen).count("x") >= typed:
            echoes.append(t1 - t0)
        time.sleep(max(0.0, 0.1 - (time.perf_counter() - t0)))
    return echoes


def _type_spawning(term: Term, typed_text: Any, done: Any, most: int) -> list[float]:
    """A tmux process per key and per poll (the harness before tmux_control): it times the
    send-keys process's start and up to one capture process after the echo too."""
    echoes: list[float] = []
    typed = 0
    stop_at = time.perf_counter() + ECHO_SECONDS
    while not done(term.screen()) and time.perf_counter() < stop_at and (not most or typed < most):
        typed += 1
        t0 = time.perf_counter()
        term.keys("x", literal=True)
        t1, screen = term.wait(lambda s, n=typed: typed_text(s).count("x") >= n or done(s), 30)
        if typed_text(screen).count("x") >= typed:
            echoes.append(t1 - t0)
        time.sleep(max(0.0, 0.1 - (time.perf_counter() - t0)))
    return echoes


def echo_round(env: Env, llm: ScriptedLLM, auger: str, rate: float = 0.0) -> list[float]:
    """Keys typed while the 70 KB reply streams (`rate`: at that many tokens a second, 0: as
    fast as the server can), each key's echo time."""
    llm.add({"text": reply_text("black-CHANGES-70k.md"), "rate": rate})
    term = Term(f"bench-md-echo-{os.getpid()}")
    try:
        term.start(auger, env.project, env.env)
        term.wait(ready)
        term.type_line("show me the changelog")
        term.wait(lambda s: "working" in s.rstrip().splitlines()[-1])
        echoes = _type_while_busy(term, _prompt_text, idle)
        settled(term)
        return echoes
    finally:
        term.kill()


def echo_bare(env: Env, rate: float = 0.0) -> list[float]:
    """Keys typed into the bare MarkdownStream app while it streams the reply (`rate`: tok/s)."""
    text = reply_text("black-CHANGES-70k.md")
    text_file = env.tmp / "long.md"
    text_file.write_text(text, encoding="utf-8")
    chars_per_s = len(text) / (sum(_tokens(p) for p in _pieces(text, CHUNK_CHARS)) / rate) if rate else 0.0
    app = env.tmp / "bare_markdown_app.py"
    app.write_text(BARE_MARKDOWN_APP)
    term = Term(f"bench-md-echo-bare-{os.getpid()}")
    try:
        term.start(f"{sys.executable} {app} {text_file} {CHUNK_CHARS} {chars_per_s}", env.project, env.env)
        term.wait(lambda s: "Ask anything" in s)
        term.keys("Enter")
        term.wait(lambda s: "working" in s.rstrip().splitlines()[-1])
        return _type_while_busy(term, _bare_typed, _bare_done, BARE_KEYS)
    finally:
        term.kill()


def _echo_figures(echoes: list[float], prefix: str) -> dict[str, float]:
    echoes = sorted(echoes)
    if not echoes:
        return {f"{prefix}keys": 0}
    p95 = echoes[max(0, int(len(echoes) * 0.95) - 1)]
    return {
        f"{prefix}keys": len(echoes),
        f"{prefix}echo_p50_ms": statistics.median(echoes) * 1000,
        f"{prefix}echo_p95_ms": p95 * 1000,
        f"{prefix}echo_max_ms": echoes[-1] * 1000,
    }


def echo(
    env: Env, llm: ScriptedLLM, augers: list[str], rounds: int = 1, rate: float = 0.0
) -> dict[str, object]:
    """Keys typed while the 70 KB reply streams (`rate`: paced at that many tok/s; 0: as fast as
    the server can, ~1 s): the bare MarkdownStream app once, then the builds, `rounds` times (the
    samples of each build's rounds pooled; the builds' order alternates from round to round)."""
    out: dict[str, object] = {
        "corpus": "black-CHANGES-70k.md",
        "rate_tok_per_s": rate or "as fast as it can",
        "auger_rounds": rounds,
        "harness": HARNESS,
    }
    out.update(_echo_figures(echo_bare(env, rate), "bare_"))
    samples: list[list[float]] = [[] for _ in augers]
    loads: list[float] = []
    for n in range(rounds):
        order = list(enumerate(augers))
        for index, auger in order if n % 2 == 0 else order[::-1]:
            keys = echo_round(env, llm, auger, rate)
            samples[index] += keys
            loads.append(os.getloadavg()[0])
            print(f"  (round {n}: {_label(index, augers) or 'this '}build, {len(keys)} keys)", flush=True)
    for index, echoes in enumerate(samples):
        out.update(_echo_figures(echoes, _label(index, augers)))
    out["load"] = f"{min(loads):.2f}-{max(loads):.2f}"
    return out


def _label(index: int, augers: list[str]) -> str:
    return "" if index == len(augers) - 1 else f"baseline{index}_"


BARE_INPUT_APP = """
from textual.app import App
from textual.widgets import Input, Static

class BareInput(App):
    CSS = "Input { dock: bottom; margin-bottom: 1; }"
    def compose(self):
        yield Input(placeholder="Ask anything")
        yield Static("ready", id="status")

BareInput().run()
"""


def floor_bare(env: Env, harness: str) -> list[float]:
    """Keys into a bare Textual app with one Input, nothing else running: the floor of the
    harness, tmux and Textual's own frame pacing."""
    app = env.tmp / "bare_input_app.py"
    app.write_text(BARE_INPUT_APP)
    term = Term(f"bench-md-floor-bare-{os.getpid()}")
    try:
        term.start(f"{sys.executable} {app}", env.project, env.env)
        term.wait(lambda s: "Ask anything" in s)
        with _harness(harness):
            return _type_while_busy(term, lambda s: s, lambda s: False, FLOOR_KEYS)  # no other x on it
    finally:
        term.kill()


def floor_auger(env: Env, auger: str, harness: str) -> list[float]:
    """Keys into an idle auger (no reply streaming)."""
    term = Term(f"bench-md-floor-auger-{os.getpid()}")
    try:
        term.start(auger, env.project, env.env)
        term.wait(ready)
        settled(term)
        with _harness(harness):
            return _type_while_busy(term, _prompt_text, lambda s: False, FLOOR_KEYS)
    finally:
        term.kill()


@contextlib.contextmanager
def _harness(name: str) -> Iterator[None]:
    global HARNESS
    before, HARNESS = HARNESS, name
    try:
        yield
    finally:
        HARNESS = before


def floor(env: Env, augers: list[str], rounds: int = 1) -> dict[str, object]:
    """The floor under the echo figures, with both harnesses: a bare Input app and each idle
    build, `FLOOR_KEYS` keys a round."""
    out: dict[str, object] = {}
    for harness in ("spawn", "control"):
        bare: list[float] = []
        idle_augers: list[list[float]] = [[] for _ in augers]
        for _ in range(rounds):
            bare += floor_bare(env, harness)
            for index, auger in enumerate(augers):
                idle_augers[index] += floor_auger(env, auger, harness)
        out.update(_echo_figures(bare, f"{harness}_bare_input_"))
        for index, echoes in enumerate(idle_augers):
            out.update(_echo_figures(echoes, f"{harness}_idle_{_label(index, augers)}"))
    out["load"] = os.getloadavg()[0]
    return out


def esc_round(env: Env, llm: ScriptedLLM, auger: str) -> float:
    """Esc once the 70 KB reply shows on screen: seconds until the turn is over and the TUI idle."""
    text = reply_text("black-CHANGES-70k.md")
    llm.add({"text": text})
    term = Term(f"bench-md-esc-{os.getpid()}")
    try:
        term.start(auger, env.project, env.env)
        term.wait(ready)
        term.type_line("show me the changelog")
        term.wait(lambda s: ESC_AFTER in s and not idle(s), pause=0.02)
        t0 = time.perf_counter()
        term.keys("Escape")
        t1, screen = term.wait(idle, 60, pause=0.01)
        if end_shown(screen):
            raise RuntimeError("the reply ended before Esc was pressed: nothing was measured")
        return t1 - t0
    finally:
        term.kill()


def esc(env: Env, llm: ScriptedLLM, augers: list[str], rounds: int) -> dict[str, object]:
    """Esc while the 70 KB reply streams, `rounds` times per build: median and worst."""
    out: dict[str, object] = {"corpus": "black-CHANGES-70k.md", "rounds": rounds}
    for index, auger in enumerate(augers):
        label = "" if index == len(augers) - 1 else f"baseline{index}_"
        took = sorted(esc_round(env, llm, auger) for _ in range(rounds))
        out[f"{label}esc_median_s"] = statistics.median(took)
        out[f"{label}esc_max_s"] = took[-1]
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (load on the machine barely changes it)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mixed_round(env: Env, llm: ScriptedLLM, text: str, rate: float, auger: str) -> tuple[float, float]:
    """(seconds until the reply is on screen and the turn over, CPU seconds auger spent on it)."""
    llm.add({"text": text, "rate": rate, "chunk_chars": MIXED_CHUNK})
    term = Term(f"bench-md-mixed-{os.getpid()}")
    try:
        term.start(auger, env.project, env.env)
        term.wait(ready)
        pid = term.pid()
        cpu0 = cpu_seconds(pid)
        term.type_line("show me the readmes")
        t0 = time.perf_counter()
        t1, _ = term.wait(lambda s: end_shown(s) and idle(s), timeout=3600, pause=0.05)
        return t1 - t0, cpu_seconds(pid) - cpu0
    finally:
        term.kill()


def mixed(
    env: Env, llm: ScriptedLLM, tokens: int, rate: float, augers: list[str], *, rounds: int = 1
) -> dict[str, object]:
    """The bare MarkdownStream app, then each build (`augers`, e.g. main's and this branch's)
    `rounds` times (medians), fed the same text at the same pace, in this one run."""
    text = mixed_text(tokens)
    n_tokens = sum(_tokens(p) for p in _pieces(text, MIXED_CHUNK))
    text_file = env.tmp / "mixed.md"
    text_file.write_text(text, encoding="utf-8")
    chars_per_s = len(text) / (n_tokens / rate)
    out: dict[str, object] = {
        "corpus": "rich-README.md + fastapi-README.md + axios-README.md",
        "chars": len(text),
        "tokens": n_tokens,
        "rate": rate,
        "min_stream_s": n_tokens / rate,
    }
    bare = bare_round(env, text_file, 0, MIXED_CHUNK, chars_per_s)
    out["bare_markdownstream_tok_per_s"] = n_tokens / bare
    for index, auger in enumerate(augers):
        runs = [mixed_round(env, llm, text, rate, auger) for _ in range(rounds)]
        took, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        label = "" if index == len(augers) - 1 else f"baseline{index}_"
        out[f"{label}seconds"] = took
        out[f"{label}cpu_s"] = cpu
        out[f"{label}rendered_tok_per_s"] = n_tokens / took
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=20_000)
    ap.add_argument("--rate", type=float, default=3_000, help="mixed: tok/s")
    ap.add_argument("--echo-rate", type=float, default=ECHO_RATE, help="echo_paced: tok/s")
    sections = ("long", "floor", "echo", "esc", "mixed")
    ap.add_argument("--only", nargs="+", choices=sections, default=list(sections))
    ap.add_argument("--harness", choices=("control", "spawn"), default="control", help="how echo types")
    ap.add_argument("--baseline", action="append", default=[], help="another build's auger to measure first")
    args = ap.parse_args()
    global HARNESS
    HARNESS = args.harness
    results: dict[str, dict[str, object]] = {}
    with ScriptedLLM() as llm:
        env = Env(llm)
        builds = [*args.baseline, AUGER]
        for name, section in (
            ("long", "long_reply"),
            ("floor", "floor"),
            ("echo", "echo"),
            ("esc", "esc"),
            ("mixed", "mixed"),
        ):
            if name not in args.only:
                continue
            if name == "long":
                results[section] = long_reply(env, llm, args.rounds, builds)
            elif name == "floor":
                results[section] = floor(env, builds, args.rounds)
            elif name == "echo":
                results[section] = echo(env, llm, builds, args.rounds)
                show(section, results[section])
                section = "echo_paced"
                results[section] = echo(env, llm, builds, args.rounds, args.echo_rate)
            elif name == "esc":
                results[section] = esc(env, llm, builds, args.rounds)
            else:
                results[section] = mixed(env, llm, args.tokens, args.rate, builds, rounds=args.rounds)
            show(section, results[section])
    print("targets:")
    for check, ok in checks(results).items():
        print(f"  {'PASS' if ok else 'FAIL'}  {check}")


def show(section: str, figures: dict[str, object]) -> None:
    print(f"{section}:")
    for key, value in figures.items():
        if isinstance(value, float):
            print(f"  {key:<32} {value:.3f}" if abs(value) < 10 else f"  {key:<32} {value:.1f}")
        else:
            print(f"  {key:<32} {value}")
    sys.stdout.flush()


def checks(results: dict[str, dict[str, object]]) -> dict[str, bool]:
    def figure(section: str, key: str) -> float:
        return float(results[section][key])  # type: ignore[arg-type]

    out: dict[str, bool] = {}
    if "long_reply" in results:
        out["70 KB reply ≤ 1.0× bare MarkdownStream"] = figure("long_reply", "ratio_auger_over_bare") <= 1.0
        out["RSS growth ≤ 60 MB"] = figure("long_reply", "rss_growth_mb") <= 60
        out["RSS after /clear within 20 MB"] = figure("long_reply", "rss_after_clear_over_start_mb") <= 20
    if "echo" in results and "echo_p95_ms" in results["echo"]:
        out["key echo p95 ≤ 50 ms"] = figure("echo", "echo_p95_ms") <= 50
    if "echo_paced" in results and "echo_p95_ms" in results["echo_paced"]:
        out["key echo p95 ≤ 50 ms, reply paced"] = figure("echo_paced", "echo_p95_ms") <= 50
    if "esc" in results:
        out["Esc ends the turn within 0.3 s"] = figure("esc", "esc_max_s") <= 0.3
    if "mixed" in results:
        out["mixed 20k tokens ≥ 2000 tok/s"] = figure("mixed", "rendered_tok_per_s") >= 2000
    return out


if __name__ == "__main__":
    main()

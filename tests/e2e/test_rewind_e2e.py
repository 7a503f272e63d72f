"""End-to-end: real `auger -n` turns against the scripted server change files with file tools and
shell commands (rm, mv, sed -i, mkdir), then `auger threads rewind` / `threads diff` — checking the
disk, the conversation, the user's own .git, forks, housekeeping and the bad-input cases. Every
test runs on both thread databases (`thread_db`: the SQLite file, and PostgreSQL)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import AUGER, AugerEnv, db_rows
from conftest_llm import typed

pytestmark = pytest.mark.usefixtures("thread_db")


def write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write_file", "args": {"file_path": f"/{path}", "content": content}}


def shell(command: str) -> dict[str, Any]:
    return {"name": "execute", "args": {"command": command}}


def turn(env: AugerEnv, prompt: str, *calls: dict[str, Any], resume: bool = True) -> list[dict[str, Any]]:
    """One user turn: each call in its own model step, then a closing reply; returns the events."""
    when = {"last_user_contains": prompt}
    env.llm.add(
        *({"when": when, "tool_calls": [c]} for c in calls), {"when": when, "text": f"{prompt}: done"}
    )
    args = ["-r", "-n", prompt] if resume else ["-n", prompt]
    proc = env.run(*args, "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    return env.events(proc)


def changed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "files_changed"]


def thread_id(env: AugerEnv) -> str:
    threads = json.loads(env.run("threads", "list", "--json").stdout)
    assert len(threads) == 1
    return str(threads[0]["id"])


def disk(root: Path, skip: tuple[str, ...] = (".git",)) -> dict[str, str]:
    """Every file under `root` (symlinks as "-> target"), relative paths, `skip` folders left out."""
    out: dict[str, str] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        for name in names:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            out[rel] = (
                f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes().decode(errors="replace")
            )
    return out


def folders(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts}


def user_prompts(request: dict[str, Any]) -> list[str]:
    return [typed(m["content"]) for m in request["messages"] if m["role"] == "user"]


def seed(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src/app.py").write_text("def main():\n    return 1\n")
    (root / "notes.md").write_text("# notes\n")
    (root / "keep.txt").write_text("keep me\n")
    (root / ".gitignore").write_text("*.log\n")


def test_rewind_undoes_file_tools_and_shell_commands_from_turn_n_on(
    auger_env: AugerEnv, thread_db: Any
) -> None:
    root = auger_env.project
    seed(root)
    one = turn(auger_env, "turn one", write("a.txt", "from turn one\n"), resume=False)
    start_of_two = disk(root)
    two = turn(
        auger_env,
        "turn two",
        shell("rm keep.txt && mkdir docs && mv notes.md docs/ && sed -i 's/return 1/return 2/' src/app.py"),
        shell("mkdir -p gen/deep && echo out > gen/deep/out.txt && echo noise > build.log"),
        {"name": "edit_file", "args": {"file_path": "/a.txt", "old_string": "one", "new_string": "ONE"}},
    )
    three = turn(auger_env, "turn three", write("src/extra.py", "X = 3\n"), shell("chmod +x src/app.py"))
    assert [(e["turn"], e["paths"]) for e in changed(one)] == [(1, ["a.txt"])]
    (two_changes,) = changed(two)
    assert two_changes["turn"] == 2 and two_changes["added"] == ["docs/notes.md", "gen/deep/out.txt"]
    assert two_changes["deleted"] == ["keep.txt", "notes.md"]
    assert sorted(two_changes["paths"]) == [
        "a.txt",
        "docs/notes.md",
        "gen/deep/out.txt",
        "keep.txt",
        "notes.md",
        "src/app.py",
    ]
    assert "build.log" not in two_changes["paths"]  # .gitignore'd: not snapshotted
    assert [(e["turn"], e["added"]) for e in changed(three)] == [(3, ["src/extra.py"])]
    tid = thread_id(auger_env)
    main = "SELECT count(*) FROM checkpoints WHERE checkpoint_ns = ''"
    assert db_rows(thread_db, main) == [(6,)]  # collapsed: each turn's input and end are what is left

    proc = auger_env.run("threads", "rewind", tid[:8], "--to", "2")
    assert proc.returncode == 0, proc.stderr
    assert "Removed user turns 2-3 from the conversation (1 left)." in proc.stdout
    assert "recreated keep.txt" in " ".join(proc.stdout.split()) and "removed gen/deep/out.txt" in " ".join(
        proc.stdout.split()
    )
    after = disk(root)
    assert after == {**start_of_two, "build.log": "noise\n"}  # ignored files stay as they are
    assert "gen" not in folders(root) and "docs" not in folders(root)  # folders the agent made went
    assert not os.access(root / "src/app.py", os.X_OK)

    assert json.loads(auger_env.run("threads", "list", "--json").stdout)[0]["message_count"] == 4
    # the conversation now ends after turn one: resuming sends only that
    auger_env.llm.add({"text": "resumed"})
    resumed = auger_env.run("-r", "-n", "after the rewind")
    assert resumed.returncode == 0, resumed.stderr
    assert user_prompts(auger_env.llm.requests[-1]) == ["turn one", "after the rewind"]
    shown = auger_env.run("threads", "show", tid)
    assert "turn one" in shown.stdout and "turn two" not in shown.stdout
    assert db_rows(thread_db, main) == [(4,)]  # the turn after the rewind is collapsed as well


def test_files_only_and_conversation_only(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    turn(auger_env, "turn one", write("one.txt", "1\n"), resume=False)
    turn(auger_env, "turn two", shell("rm notes.md"), write("two.txt", "2\n"))
    tid = thread_id(auger_env)
    files = auger_env.run("threads", "rewind", tid, "--to", "2", "--files")
    assert files.returncode == 0, files.stderr
    assert (root / "notes.md").exists() and not (root / "two.txt").exists() and (root / "one.txt").exists()
    assert "conversation" not in files.stdout
    assert "Changed 2 files back to before turn 2:" in files.stdout  # counted, not "2 file(s)"
    assert "turn two" in auger_env.run("threads", "show", tid).stdout  # kept

    again = auger_env.run("threads", "rewind", tid, "--to", "2", "--files")
    assert again.returncode == 0 and "nothing to undo" in again.stdout  # already there

    conv = auger_env.run("threads", "rewind", tid, "--to", "1", "--conversation")
    assert conv.returncode == 0, conv.stderr
    assert (root / "one.txt").read_text() == "1\n"  # files untouched
    assert "Removed user turns 1-2 from the conversation (0 left)." in conv.stdout
    assert "turn one: done" not in auger_env.run("threads", "show", tid).stdout  # the title stays
    # the turns it removed cannot be rewound any more: their records went with them
    none = auger_env.run("threads", "diff", tid)
    assert none.returncode == 0 and none.stdout == "" and "No file changes recorded" in none.stderr


def test_a_file_changed_by_hand_is_listed_and_kept_unless_forced(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    turn(
        auger_env,
        "turn one",
        write("made.txt", "agent\n"),
        shell("sed -i 's/keep me/kept/' keep.txt"),
        resume=False,
    )
    tid = thread_id(auger_env)
    (root / "keep.txt").write_text("the user's own words\n")
    state = disk(root)
    dry = auger_env.run("threads", "rewind", tid, "--to", "1", "--dry-run")
    refused = auger_env.run("threads", "rewind", tid, "--to", "1")
    assert dry.returncode == 2 and refused.returncode == 2
    assert (
        "1 file changed since the agent last wrote them, so nothing was changed: keep.txt." in refused.stderr
    )
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert disk(root) == state and "turn one" in auger_env.run("threads", "show", tid).stdout

    forced = auger_env.run("threads", "rewind", tid, "--to", "1", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "keep.txt  (your changes overwritten)" in forced.stdout
    assert (root / "keep.txt").read_text() == "keep me\n" and not (root / "made.txt").exists()


def test_a_git_project_keeps_its_dot_git_byte_identical(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
    (root / "staged.txt").write_text("staged\n")
    subprocess.run([*git, "add", "staged.txt"], cwd=root, check=True)  # an index with work in it
    dot_git = _fingerprint(root / ".git")
    start = disk(root)
    turn(
        auger_env,
        "turn one",
        shell("rm staged.txt && echo 2 >> src/app.py"),
        write("new.txt", "n\n"),
        resume=False,
    )
    assert _fingerprint(root / ".git") == dot_git  # the snapshots never touched it
    proc = auger_env.run("threads", "rewind", thread_id(auger_env), "--to", "1")
    assert proc.returncode == 0, proc.stderr
    assert disk(root) == start
    assert _fingerprint(root / ".git") == dot_git  # nor did the rewind: no commit, stash, index, HEAD
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
    )
    assert status.stdout == "A  staged.txt\n"


def _fingerprint(folder: Path) -> dict[str, tuple[str, int]]:
    """Content hash and mtime of every file under `folder` (mtimes catch a rewrite of the same bytes)."""
    return {
        p.relative_to(folder).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_threads_diff_per_turn_and_for_the_thread_applies_in_reverse(
    auger_env: AugerEnv, tmp_path: Path
) -> None:
    root = auger_env.project
    seed(root)
    original = tmp_path / "original"
    subprocess.run(["cp", "-a", str(root), str(original)], check=True)
    turn(
        auger_env, "turn one", write("a.txt", "a\n"), shell("sed -i 's/notes/NOTES/' notes.md"), resume=False
    )
    turn(
        auger_env, "turn two", shell("rm keep.txt && printf 'x\\ny\\n' >> src/app.py"), write("a.txt", "a2\n")
    )
    tid = thread_id(auger_env)
    second = auger_env.run("threads", "diff", tid, "--turn", "2")
    assert second.returncode == 0, second.stderr
    assert "diff --git a/keep.txt b/keep.txt\ndeleted file mode 100644" in second.stdout
    assert "-a\n+a2\n" in second.stdout and "notes.md" not in second.stdout
    whole = auger_env.run("threads", "diff", tid)
    assert "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a2\n" in whole.stdout  # the net change of a.txt
    assert "-# notes\n+# NOTES\n" in whole.stdout
    undo = subprocess.run(
        ["git", "apply", "-R", "-"], input=whole.stdout, text=True, cwd=root, capture_output=True
    )
    assert undo.returncode == 0, undo.stderr
    assert disk(root) == disk(original)
    bad = auger_env.run("threads", "diff", tid, "--turn", "3")
    assert bad.returncode == 2 and "has 2 user turns; --turn must be 1..2 (got 3)" in bad.stderr


def test_turns_that_change_nothing_cost_nothing_and_rewind_can_be_off(
    auger_env: AugerEnv, thread_db: Any
) -> None:
    root = auger_env.project
    seed(root)
    events = turn(
        auger_env,
        "just look",
        {"name": "read_file", "args": {"file_path": "/notes.md"}},
        {"name": "ls", "args": {"path": "/"}},
        resume=False,
    )
    assert changed(events) == [] and not (auger_env.home / "snapshots").exists()  # no snapshot, no git
    quiet = turn(auger_env, "run a command that changes nothing", shell("true"))
    assert [e["paths"] for e in changed(quiet)] == [[]]  # it could have: snapshotted, nothing to list

    auger_env.write_config("[rewind]\nenabled = false\n")
    off = turn(auger_env, "write with rewind off", write("off.txt", "x\n"))
    assert changed(off) == [] and (root / "off.txt").exists()
    assert db_rows(thread_db, "SELECT count(*) FROM auger_rewind_turns") == [(1,)]


def test_files_over_max_file_mb_are_left_alone(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    auger_env.write_config("[rewind]\nmax_file_mb = 0.01\n")  # about 10 KB
    events = turn(
        auger_env,
        "make a big file",
        shell("head -c 20000 /dev/zero > big.bin && echo small > small.txt"),
        resume=False,
    )
    assert [e["paths"] for e in changed(events)] == [["small.txt"]]
    proc = auger_env.run("threads", "rewind", thread_id(auger_env), "--to", "1")
    assert proc.returncode == 0, proc.stderr
    assert not (root / "small.txt").exists() and (root / "big.bin").stat().st_size == 20000


def test_a_subagent_s_writes_are_recorded_with_its_task(auger_env: AugerEnv) -> None:
    root = auger_env.project
    task = {"name": "task", "args": {"description": "write the file", "subagent_type": "general-purpose"}}
    auger_env.llm.add(
        {"tool_calls": [task]},
        {"tool_calls": [write("by_subagent.txt", "sub\n")]},
        {"text": "subagent done"},
        {"text": "main done"},
    )
    proc = auger_env.run("-n", "delegate", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert [e["paths"] for e in changed(auger_env.events(proc))] == [["by_subagent.txt"]]
    assert auger_env.run("threads", "rewind", thread_id(auger_env), "--to", "1").returncode == 0
    assert not (root / "by_subagent.txt").exists()


def test_a_turn_killed_mid_way_can_still_be_rewound(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    auger_env.llm.add({"tool_calls": [write("half.txt", "half\n")]}, {"hang": True})
    proc = subprocess.Popen(
        [AUGER, "-n", "write then hang", "--mode", "yolo"],
        cwd=root,
        env=auger_env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(auger_env.llm.requests) < 2:  # the tool ran; the model is asked again
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert (root / "half.txt").exists()
    rewind = auger_env.run("threads", "rewind", thread_id(auger_env), "--to", "1", "--files")
    assert rewind.returncode == 0, rewind.stderr
    assert not (root / "half.txt").exists() and "removed   half.txt" in rewind.stdout


def test_a_fork_shares_the_parent_s_snapshots_up_to_the_fork_point(auger_env: AugerEnv) -> None:
    root = auger_env.project
    turn(auger_env, "turn one", write("f.txt", "v1\n"), resume=False)
    turn(auger_env, "turn two", write("f.txt", "v2\n"), write("g.txt", "g\n"))
    parent = thread_id(auger_env)
    fork = auger_env.run("threads", "fork", parent, "--at", "1").stdout.strip()
    # the files hold turn two's changes, which the fork never made: they count as someone else's
    refused = auger_env.run("threads", "rewind", fork, "--to", "1", "--files")
    assert refused.returncode == 2 and "nothing was changed: f.txt." in refused.stderr
    # the parent undoes its turn two; then the fork can undo turn one, which it shares
    assert auger_env.run("threads", "rewind", parent, "--to", "2", "--files").returncode == 0
    assert (root / "f.txt").read_text() == "v1\n" and not (root / "g.txt").exists()
    assert auger_env.run("threads", "delete", parent).returncode == 0  # the fork keeps its snapshots
    done = auger_env.run("threads", "rewind", fork, "--to", "1")
    assert done.returncode == 0, done.stderr
    assert not (root / "f.txt").exists()


def test_delete_and_prune_remove_snapshots_nobody_uses_and_list_shows_sizes(
    auger_env: AugerEnv, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    turn(auger_env, "turn one", write("x.txt", "x" * 3000), resume=False)
    first = thread_id(auger_env)
    auger_env.llm.add({"tool_calls": [write("y.txt", "y" * 5000)]}, {"text": "ok"})
    assert auger_env.run("-n", "elsewhere", "--mode", "yolo", cwd=other).returncode == 0
    listed = json.loads(auger_env.run("threads", "list", "--all", "--json").stdout)
    assert {t["id"]: t["snapshot_bytes"] for t in listed}[first] == 3000
    assert sorted(t["snapshot_bytes"] for t in listed) == [3000, 5000]
    assert "[2.9 KB snapshots]" in auger_env.run("threads", "list").stdout
    stores = sorted((auger_env.home / "snapshots").glob("*.db"))
    assert len(stores) == 2
    assert auger_env.run("threads", "delete", first).returncode == 0
    assert sorted((auger_env.home / "snapshots").glob("*.db")) == [s for s in stores if "other" in s.name]
    assert auger_env.run("threads", "prune", "--older-than", "0s").returncode == 0
    assert list((auger_env.home / "snapshots").glob("*.db")) == []


def test_bad_input_is_one_clear_line_and_changes_nothing(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    turn(auger_env, "turn one", write("one.txt", "1\n"), resume=False)
    turn(auger_env, "turn two", shell("rm keep.txt"))
    tid = thread_id(auger_env)
    state = disk(root)
    cases = [
        (["--to", "3"], 2, "has 2 user turns; --to must be 1..2 (got 3)"),
        (["--to", "0"], 2, "--to must be 1..2 (got 0)"),
        (["--files", "--conversation", "--to", "1"], 2, "not allowed with argument"),
    ]
    for args, code, text in cases:
        proc = auger_env.run("threads", "rewind", tid, *args)
        assert proc.returncode == code and text in proc.stderr, (args, proc.stderr)
    unknown = auger_env.run("threads", "rewind", "feedface", "--to", "1")
    assert unknown.returncode == 2 and "No thread 'feedface'" in unknown.stderr

    (store,) = (auger_env.home / "snapshots").glob("*.db")
    conn = sqlite3.connect(store)
    conn.execute("DELETE FROM objects WHERE id IN (SELECT id FROM objects ORDER BY id LIMIT 3)")
    conn.commit()
    conn.close()
    damaged = auger_env.run("threads", "rewind", tid, "--to", "1")
    assert (
        damaged.returncode == 1 and "is missing" in damaged.stderr and "Nothing was changed" in damaged.stderr
    )

    store.write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    corrupt = auger_env.run("threads", "rewind", tid, "--to", "1")
    assert corrupt.returncode == 1 and "is unreadable" in corrupt.stderr

    store.unlink()
    missing = auger_env.run("threads", "rewind", tid, "--to", "2")
    assert (
        missing.returncode == 1
        and "are missing" in missing.stderr
        and "nothing was changed" in missing.stderr
    )
    for proc in (damaged, corrupt, missing):
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert disk(root) == state
    assert "turn two" in auger_env.run("threads", "show", tid).stdout  # the conversation too


def test_mcp_tools_snapshot_unless_read_only(auger_env: AugerEnv) -> None:
    server = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
    mcp = {"mcpServers": {"calc": {"command": sys.executable, "args": [str(server)]}}}
    (auger_env.home / "mcp.json").write_text(json.dumps(mcp))
    read_only = turn(
        auger_env, "read only", {"name": "mcp__calc__getenv", "args": {"name": "HOME"}}, resume=False
    )
    assert [e["status"] for e in read_only if e["type"] == "tool_call_finished"] == ["success"]
    assert changed(read_only) == [] and not (auger_env.home / "snapshots").exists()
    writes = turn(auger_env, "may write", {"name": "mcp__calc__add", "args": {"a": 1, "b": 2}})
    assert [e["status"] for e in writes if e["type"] == "tool_call_finished"] == ["success"]
    assert [(e["turn"], e["paths"]) for e in changed(writes)] == [(2, [])]


def test_two_processes_snapshot_one_project_at_once(auger_env: AugerEnv, thread_db: Any) -> None:
    """Two agents in one folder at once: the shared store stays sound and every turn is recorded.
    (Each turn's snapshots also see what the other wrote meanwhile — the conflict check then treats
    the other's later writes as someone else's, so neither rewind overwrites them unforced.)"""
    root = auger_env.project
    seed(root)
    for name in ("alpha", "beta"):  # each writes, then waits, so the two turns overlap
        when = {"last_user_contains": f"{name} task"}  # not the file name: the local-context note lists files
        auger_env.llm.add(
            {"when": when, "tool_calls": [write(f"{name}.txt", f"{name}\n")]},
            {"when": when, "delay": 1.0, "tool_calls": [shell(f"echo more >> {name}.txt")]},
            {"when": when, "text": "done"},
        )
    procs = {
        name: subprocess.Popen(
            [AUGER, "-n", f"{name} task", "--mode", "yolo", "--output-format", "stream-json"],
            cwd=root,
            env=auger_env.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta")
    }
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and "cannot be rewound" not in err, err
        (event,) = [e for e in map(json.loads, out.splitlines()) if e["type"] == "files_changed"]
        assert f"{name}.txt" in event["paths"]
    (store,) = (auger_env.home / "snapshots").glob("*.db")
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert db_rows(thread_db, "SELECT count(*) FROM auger_rewind_turns WHERE after_tree IS NOT NULL") == [
        (2,)
    ]
    for thread in json.loads(auger_env.run("threads", "list", "--json").stdout):
        name = thread["title"].split()[0]
        diff = auger_env.run("threads", "diff", thread["id"])
        assert f"+++ b/{name}.txt\n@@ -0,0 +1,2 @@\n+{name}\n+more\n" in diff.stdout


def test_a_project_over_max_files_runs_on_with_one_notice(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    auger_env.write_config("[rewind]\nmax_files = 3\n")
    auger_env.llm.add(
        {"tool_calls": [write("a.txt", "a\n")]}, {"tool_calls": [shell("echo b > b.txt")]}, {"text": "ok"}
    )
    proc = auger_env.run("-n", "write two", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert (root / "a.txt").exists() and (root / "b.txt").exists()  # the tools ran
    notices = [e["message"] for e in auger_env.events(proc) if e["type"] == "notice"]
    assert notices == [
        f"This turn cannot be rewound: {root} has more than [rewind] max_files = 3 files, so its turns are"
        " not snapshotted. Add a .gitignore for generated files, or raise [rewind] max_files."
    ]
    assert changed(auger_env.events(proc)) == []


def test_a_thread_busy_in_another_auger_is_refused_and_nothing_changes(auger_env: AugerEnv) -> None:
    root = auger_env.project
    seed(root)
    turn(auger_env, "turn one", write("one.txt", "1\n"), resume=False)
    tid = thread_id(auger_env)
    auger_env.llm.add({"when": {"last_user_contains": "hang"}, "hang": True})
    busy = subprocess.Popen(
        [AUGER, "-r", tid, "-n", "hang here", "--mode", "yolo"],
        cwd=root,
        env=auger_env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not any("hang here" in user_prompts(r) for r in auger_env.llm.requests):  # its turn runs
            assert time.monotonic() < deadline and busy.poll() is None
            time.sleep(0.02)
        state = disk(root)
        refused = auger_env.run("threads", "rewind", tid, "--to", "1")
        assert refused.returncode == 1, refused.stderr
        assert f"Thread {tid} is busy (pid {busy.pid}); nothing was changed." in refused.stderr
        assert disk(root) == state and "turn one: done" in auger_env.run("threads", "show", tid).stdout
    finally:
        busy.send_signal(signal.SIGKILL)
        busy.wait()
    done = auger_env.run("threads", "rewind", tid, "--to", "1")  # a dead holder frees the thread
    assert done.returncode == 0, done.stderr
    assert not (root / "one.txt").exists()


def test_a_rewind_across_a_fork_point_leaves_the_other_thread_whole(auger_env: AugerEnv) -> None:
    root = auger_env.project
    turn(auger_env, "turn one", write("f.txt", "v1\n"), resume=False)
    turn(auger_env, "turn two", write("f.txt", "v2\n"))
    parent = thread_id(auger_env)
    fork = auger_env.run("threads", "fork", parent, "--at", "1").stdout.strip()
    auger_env.llm.add(
        {"when": {"last_user_contains": "fork turn"}, "tool_calls": [write("h.txt", "h\n")]},
        {"when": {"last_user_contains": "fork turn"}, "text": "fork turn: done"},
    )
    assert auger_env.run("-r", fork, "-n", "fork turn", "--mode", "yolo").returncode == 0
    state = disk(root)
    # to turn 1, before the fork point: f.txt holds the parent's turn two, which the fork never made
    refused = auger_env.run("threads", "rewind", fork, "--to", "1")
    assert refused.returncode == 2 and "nothing was changed: f.txt." in refused.stderr
    assert "Traceback" not in refused.stderr and disk(root) == state
    shown = auger_env.run("threads", "show", fork).stdout
    assert "turn one: done" in shown and "fork turn: done" in shown  # its conversation too
    # the conversation alone goes back across the fork point: the parent keeps both its turns
    cut = auger_env.run("threads", "rewind", fork, "--to", "1", "--conversation")
    assert cut.returncode == 0, cut.stderr
    assert "turn one: done" not in auger_env.run("threads", "show", fork).stdout
    kept = auger_env.run("threads", "show", parent).stdout
    assert "turn one: done" in kept and "turn two: done" in kept and disk(root) == state

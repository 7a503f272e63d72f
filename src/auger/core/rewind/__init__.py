"""Rewind: snapshots of the project around every turn that changes files, and undoing them.

* `recorder` — `turn_recorder()` / `TurnRecorder`: per turn, a snapshot before the first
  file-changing tool call (`auger.core.middleware.tools.rewind`) and one at the end; the pair is
  recorded per (thread, user turn) in the thread database (`records`) and the turn emits
  `FilesChanged`.
* `snapshot`, `scan`, `trees`, `objects` — the snapshot store: a private content-addressed store
  per project under `$AUGER_HOME/snapshots/` (never the project's `.git`), incremental through a
  stat cache, respecting `.gitignore`, default excludes and `[rewind] max_file_mb`.
* `timeline` — a thread's recorded turns with their changes; `restore` — putting files back as they
  were before turn N (refusing files changed by hand since, unless forced); `patch` — the changes
  as a unified diff; `housekeeping` — sizes and removing snapshots no thread references.

Standard library only (plus `git ls-files` for the .gitignore rules). Nothing is imported with the
package itself (`auger threads list` reads `records` and must start fast).
"""

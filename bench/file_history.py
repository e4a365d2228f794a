"""File history (rewind's backups): what a tool's first change of a 100 KB file costs before it runs (the backup
and its snapshot line, through the session writer), and what each prompt costs per tracked file that did not
change (the file compared with its backup)."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit, run_alone, summary

FILES = 200
SIZE = 100_000


def benchmarks() -> Iterator[Result]:
    from agentui.core.session.file_history import FileHistory
    from agentui.core.session.writer import SessionWriter, line_uuid, timestamp

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        project, backups = root / "project", root / "file-history"
        project.mkdir()
        paths = []
        for number in range(FILES):
            path = project / f"module_{number}.py"
            path.write_bytes((f"value_{number} = {number}  # {'x' * 60}\n" * (SIZE // 80 + 1)).encode()[:SIZE])
            paths.append(path)
        writer = SessionWriter(root / "session.jsonl", "5e551000-0000-4000-8000-000000000002", project)
        writer.history = FileHistory(backups, project, timestamp)
        writer.history.at_prompt(line_uuid())
        first = []
        for path in paths:  # each file's first change in the session: backed up, one update line
            started = time.perf_counter()
            writer.before_change("toolu_bench", path)
            first.append(time.perf_counter() - started)
        prompts = []
        history = writer.history
        assert history is not None and len(history.tracked) == FILES
        for _ in range(5):  # a prompt with all of them tracked and none changed: each compared with its backup
            started = time.perf_counter()
            history.at_prompt(line_uuid())
            prompts.append((time.perf_counter() - started) / FILES)
        writer.close()
    yield emit(
        summary(
            "file_history.first_change_100kb",
            first,
            "ms",
            target=2.0,
            target_text="≤ 2 ms for a 100 KB file",
            scale=1000,
            note=f"the backup copied and its snapshot line written, before the tool runs; {FILES} files",
        )
    )
    yield emit(
        summary(
            "file_history.prompt_per_tracked_file",
            prompts,
            "ms",
            target_text="report",
            scale=1000,
            note="at each prompt, a tracked 100 KB file that did not change: compared with its backup",
        )
    )


if __name__ == "__main__":
    run_alone(benchmarks)

"""Parallel attempts: what a branch costs beyond its model calls, in a 10,000-file git repository with some
uncommitted work: its worktree made (the person's changes brought in, the starting state recorded), its changes
read back as a patch, and the worktree removed."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit, run_alone, summary

REPOSITORY_FILES = 10_000


def branch_overhead() -> Iterator[Result]:
    from agentui.core.parallel.working_copy import WorkingCopy

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)

    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / "project"
        for number in range(REPOSITORY_FILES):
            directory = project / f"package_{number // 100}"
            directory.mkdir(parents=True, exist_ok=True)
            (directory / f"module_{number}.py").write_text(f"value = {number}\n" + "# filler line\n" * 40)
        git("init", "-q")
        git("add", "-A")
        git("-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "-m", "files")
        for number in range(5):  # the person's uncommitted work, which each branch starts from
            (project / f"package_{number}" / f"module_{number}.py").write_text("changed\n")
            (project / f"new_{number}.py").write_text("new\n")
        os.sync()  # (the 10,000 files just written are not still being flushed while a branch is timed)
        made, read, removed = [], [], []
        for number in range(7):
            os.sync()  # (nor the branches made before it)
            started = time.perf_counter()
            copy = WorkingCopy.create(project, Path(scratch) / f"branch_{number}")
            made.append(time.perf_counter() - started)
            (copy.root / "package_7" / "module_700.py").write_text("the branch's change\n")
            started = time.perf_counter()
            assert "the branch's change" in copy.diff()
            read.append(time.perf_counter() - started)
            started = time.perf_counter()
            copy.remove()
            removed.append(time.perf_counter() - started)
    note = f"{REPOSITORY_FILES:,} files, 10 uncommitted changes"
    yield emit(
        summary(
            "attempts.worktree_10k_files",
            made[1:],
            "s",
            target=0.5,
            target_text="≤ 0.5 s",
            note=f"a branch's working copy made (git worktree, the person's changes in, the start recorded); {note}",
        )
    )
    yield emit(
        summary("attempts.patch_10k_files", read[1:], "s", target_text="report", note=f"its changes as a patch; {note}")
    )
    yield emit(summary("attempts.remove_10k_files", removed[1:], "s", target_text="report", note=note))


def benchmarks() -> Iterator[Result]:
    yield from branch_overhead()


if __name__ == "__main__":
    run_alone(benchmarks)

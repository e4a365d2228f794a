"""File history (rewind's backups): what a tool's first change of a 100 KB file costs before it runs (the backup
and its snapshot line, through the session writer), what each prompt costs per tracked file that did not change
(the file compared with its backup), and the snapshot of a 10,000-file git work tree before a Bash command."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit, run_alone, summary

FILES = 200
SIZE = 100_000


def file_tools() -> Iterator[Result]:
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


REPOSITORY_FILES = 10_000


def bash_snapshots() -> Iterator[Result]:
    """Before a Bash command that may write, in a git repository of 10,000 files (a few changed, a few new): the
    work tree kept as a commit on the session's private ref, through the hook the agent awaits."""
    import asyncio
    import subprocess

    from agentui.core.session.shell_snapshots import BeforeBash
    from agentui.core.session.writer import timestamp

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)

    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        for number in range(REPOSITORY_FILES):
            directory = project / f"package_{number // 100}"
            directory.mkdir(exist_ok=True)
            (directory / f"module_{number}.py").write_text(f"value = {number}\n" + "# filler line\n" * 40)
        git("init", "-q")
        git("add", "-A")
        git("-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "-m", "files")
        for number in range(5):
            (project / f"package_{number}" / f"module_{number}.py").write_text("changed\n")
            (project / f"new_{number}.py").write_text("new\n")
        warnings: list[str] = []
        hook = BeforeBash(project, "5e551000-0000-4000-8000-000000000003", timestamp, warnings.append)

        async def times() -> list[float]:
            taken = []
            for number in range(12):
                (project / "package_9" / "module_900.py").write_text(f"run {number}\n")  # what the last one did
                started = time.perf_counter()
                await hook("toolu_bench", f"sed -i 's/value/v{number}/' package_1/module_100.py")
                taken.append(time.perf_counter() - started)
            return taken[2:]  # (the first finds the repository; the second warms the copied index's stats)

        taken = asyncio.run(times())
        assert not warnings and hook.snapshots is not None and len(hook.snapshots.taken()) == 12
    yield emit(
        summary(
            "file_history.bash_snapshot_10k_files",
            taken,
            "ms",
            target=100.0,
            target_text="≤ 100 ms in a 10,000-file repository",
            scale=1000,
            note="before a Bash command that may write: the work tree kept as a commit on a private ref",
        )
    )


def benchmarks() -> Iterator[Result]:
    yield from file_tools()
    yield from bash_snapshots()


if __name__ == "__main__":
    run_alone(benchmarks)

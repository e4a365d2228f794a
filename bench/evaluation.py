"""`agentui eval` throughput with a scripted model (no model server: each run replays a one-answer script), so what
is timed is agentui's own work per task (a clone, a conversation, a check): tasks per minute with local workers,
and on a local Dask cluster of two worker processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit, run_alone

TASKS = 40


def _task_set(root: Path) -> Path:
    lines = []
    for number in range(TASKS):
        repo = root / "repos" / f"task{number}"
        repo.mkdir(parents=True)
        (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
        for args in (
            ["init", "-q"],
            ["add", "-A"],
            ["-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "t"],
        ):
            subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
        lines.append(
            {"id": f"t{number}", "repo": str(repo), "prompt": "Check it.", "check": "python3 -c 'import calc'"}
        )
    path = root / "tasks.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def throughput() -> Iterator[Result]:
    agentui = str(Path(sys.executable).with_name("agentui"))
    dask = str(Path(sys.executable).with_name("dask"))
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        tasks = _task_set(root)
        (root / "script.json").write_text(json.dumps([{"text": "It is fine."}] * 1000))
        env = {**os.environ, "AGENTUI_PROVIDER": "scripted", "AGENTUI_SCRIPT": str(root / "script.json"),
               "HOME": str(root / "home"), "AGENTUI_CONFIG_DIR": str(root / "config")}  # fmt: skip

        def timed(out: str, *flags: str) -> float:
            started = time.perf_counter()
            subprocess.run([agentui, "eval", str(tasks), "--out", str(root / out), *flags], env=env, check=True,
                           capture_output=True, timeout=1200)  # fmt: skip
            return time.perf_counter() - started

        local = timed("local", "--jobs", "2")
        scheduler_file = root / "scheduler.json"
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
        scheduler = subprocess.Popen([dask, "scheduler", "--scheduler-file", str(scheduler_file), "--port", "0",
                                      "--no-dashboard"], **quiet)  # type: ignore[call-overload]  # fmt: skip
        workers = subprocess.Popen([dask, "worker", "--scheduler-file", str(scheduler_file), "--nworkers", "2",
                                    "--nthreads", "1", "--no-dashboard"], **quiet)  # type: ignore[call-overload]  # fmt: skip
        try:
            while not (scheduler_file.exists() and scheduler_file.read_text().strip()):
                time.sleep(0.1)
            address = json.loads(scheduler_file.read_text())["address"]
            time.sleep(2)  # (the workers join the scheduler)
            cluster = timed("cluster", "--cluster", address)
        finally:
            workers.terminate()
            scheduler.terminate()
            workers.wait(timeout=60)
            scheduler.wait(timeout=60)
    for name, seconds, how in (("local", local, "--jobs 2"), ("cluster", cluster, "2 Dask workers of 1 thread")):
        yield emit(
            Result(
                name=f"eval.throughput_{name}",
                value=round(TASKS / seconds * 60, 1),
                unit="tasks/min",
                target="report",
                note=f"{TASKS} tasks, a scripted model, {how}; {seconds:.1f} s including start-up",
            )
        )


def benchmarks() -> Iterator[Result]:
    yield from throughput()


if __name__ == "__main__":
    run_alone(benchmarks)

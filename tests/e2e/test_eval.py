"""`agentui eval`: a 20-task set of small git repositories, each with a failing check, run against the loopback
Messages API whose model fixes some tasks and not others; the pass rates are exactly as played, also after the
evaluation is killed halfway and started again (what finished is not run again), and a run the infrastructure
breaks is tried again while a failing check is not."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream
from tests.support.waiting import eventually
from tests.support.work_tree import committed

TASKS = 20
FIXED = {n for n in range(TASKS) if n % 4 != 0}
"""The tasks model m1 fixes (m2 fixes none): 15 of 20."""


def task_set(tmp_path: Path, count: int = TASKS) -> Path:
    lines = []
    for n in range(count):
        repo = tmp_path / "repos" / f"task{n}"
        committed(repo, {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "check.py": "from calc import add\nassert add(2, 3) == 5\n",
        })  # fmt: skip
        lines.append({"id": f"t{n}", "repo": f"repos/task{n}", "prompt": f"Fix task {n}.", "check": "python3 check.py"})
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


class Model:
    """m1 writes the fix for the tasks in FIXED; m2 only answers. Tasks in `held` wait for `release`."""

    def __init__(self, server: LoopbackServer) -> None:
        self.held: set[int] = set()
        self.release = threading.Event()
        self.asked: list[tuple[str, int]] = []
        server.responder = self.answer

    def answer(self, request: RecordedRequest) -> Reply:
        body = request.json()
        said = json.dumps(body["messages"])
        found = re.search(r"Fix task (\d+)\.", said)
        if "tools" not in body or found is None:
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "A title"}]))
        number = int(found.group(1))
        self.asked.append((body["model"], number))
        gate = self.release if number in self.held else None
        steps = said.count('"tool_result"')  # (read it, then write the fix, then say so)
        if body["model"] == "m1" and number in FIXED and steps < 2:
            fix = {"file_path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}
            name, arguments = ("Read", {"file_path": "calc.py"}) if steps == 0 else ("Write", fix)
            call = {"type": "tool_use", "id": f"c{number}_{steps}", "name": name, "input": arguments}
            return Reply(chunks=anthropic_stream([call], stop_reason="tool_use"), gate=gate)
        return Reply(chunks=anthropic_stream([{"type": "text", "text": "Done."}]), gate=gate)


def evaluate(
    agentui_bin: str, env: dict[str, str], server: LoopbackServer, tasks: Path, *flags: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [agentui_bin, "eval", str(tasks), "--models", "m1,m2", "--out", str(tasks.parent / "out"), *flags],
        env={**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def results(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_pass_rates_are_exact_and_a_killed_evaluation_goes_on_where_it_was(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    tasks = task_set(tmp_path)
    model = Model(server)
    model.held = {10}  # (m1's eleventh task waits: the evaluation is killed while it does)
    first = evaluate(agentui_bin, clean_env, server, tasks, "--jobs", "1")
    try:
        out = tmp_path / "out"
        try:
            await eventually(lambda: len(results(out)) == 10 and ("m1", 10) in model.asked, ceiling=120)
        except TimeoutError:
            first.kill()
            raise AssertionError(f"the evaluation did not get halfway: {first.communicate()[1][-2000:]}") from None
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    finally:
        model.release.set()
    assert [r["task"] for r in results(out)] == [f"t{n}" for n in range(10)]

    model.asked.clear()
    second = evaluate(agentui_bin, clean_env, server, tasks, "--jobs", "3")
    stdout, stderr = second.communicate(timeout=600)
    assert second.returncode == 0, stderr[-3000:]
    assert not [asked for asked in model.asked if asked[0] == "m1" and asked[1] < 10]  # finished: not run again
    done = results(out)
    assert sorted((r["task"], r["config"]) for r in done) == sorted(
        (f"t{n}", m) for n in range(TASKS) for m in ("m1", "m2")
    )
    assert all(r["status"] == ("pass" if r["config"] == "m1" and int(r["task"][1:]) in FIXED else "fail") for r in done)
    assert all(r["tries"] == 1 for r in done)  # (a failing check is not tried again)
    report = json.loads((out / "report.json").read_text())
    assert report["m1"]["pass_rate"] == 0.75 and report["m1"]["passed"] == 15 and report["m1"]["tasks"] == 20
    assert report["m2"]["pass_rate"] == 0.0 and report["m2"]["failed"] == 20
    assert "m1" in stdout and "75.0%" in stdout and "40/40 done · 0 running · 25 failed" in stderr
    sessions = list((out / "claude" / "projects").glob("*/*.jsonl"))
    assert len(sessions) == 2 * TASKS + 1  # (each run's, and the one the kill cut short)
    assert all(Path(r["session"]).exists() for r in done)


def test_infrastructure_failures_are_retried_and_bad_task_files_are_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    tasks = task_set(tmp_path, 2)
    with tasks.open("a") as handle:
        handle.write(json.dumps({"id": "gone", "repo": "repos/nowhere", "prompt": "Fix task 1.", "check": "true"}))
    Model(server)
    run = evaluate(agentui_bin, clean_env, server, tasks, "--retries", "1")
    _, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr[-3000:]
    by_task = {(r["task"], r["config"]): r for r in results(tmp_path / "out")}
    gone = by_task[("gone", "m1")]
    assert gone["status"] == "error" and gone["tries"] == 2 and "git clone" in gone["error"]
    assert by_task[("t1", "m1")]["status"] == "pass" and by_task[("t0", "m1")]["status"] == "fail"

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "repo": "r"}\n')
    done = subprocess.run([agentui_bin, "eval", str(bad)], env=clean_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Line 1 of" in done.stderr and "prompt" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_same_set_on_a_local_dask_cluster_gives_the_same_report(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    tasks = task_set(tmp_path)
    Model(server)
    bin_dir = Path(agentui_bin).parent
    env = {
        **clean_env,
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "x",
        "PATH": f"{bin_dir}:{clean_env['PATH']}",
    }
    address_file = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "cwd": tmp_path}
    scheduler = subprocess.Popen(
        [str(bin_dir / "dask"), "scheduler", "--scheduler-file", str(address_file), "--port", "0", "--no-dashboard"],
        **quiet,  # type: ignore[call-overload]
    )
    workers = subprocess.Popen(
        [str(bin_dir / "dask"), "worker", "--scheduler-file", str(address_file), "--nworkers", "2", "--nthreads", "1",
         "--no-dashboard"],
        **quiet,  # type: ignore[call-overload]
    )  # fmt: skip
    try:
        import time

        deadline = time.monotonic() + 120
        address = None
        while address is None and time.monotonic() < deadline:  # (the scheduler writes its address when it is up)
            if address_file.exists() and address_file.read_text().strip():
                address = json.loads(address_file.read_text())["address"]
            time.sleep(0.1)
        assert address, "the Dask scheduler did not start"
        command = [agentui_bin, "eval", str(tasks), "--models", "m1,m2", "--out", str(tmp_path / "out")]
        run = subprocess.run(
            [*command, "--cluster", address],
            env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        report = json.loads((tmp_path / "out" / "report.json").read_text())
        assert {name: (row["passed"], row["failed"], row["errors"]) for name, row in report.items()} == {
            "m1": (15, 5, 0), "m2": (0, 20, 0),
        }  # fmt: skip
        done = results(tmp_path / "out")
        assert len(done) == 40 and all(Path(r["session"]).exists() for r in done)
        assert len({r["ran_on"] for r in done}) == 2  # (both worker processes, and not the command itself)
    finally:
        workers.terminate()
        scheduler.terminate()
        workers.wait(timeout=60)
        scheduler.wait(timeout=60)


def test_each_run_stops_at_the_limits_given_and_its_result_says_which(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    tasks = task_set(tmp_path, 2)
    Model(server)
    run = evaluate(agentui_bin, clean_env, server, tasks, "--max-total-tokens", "20")  # (46 tokens a call)
    _, stderr = run.communicate(timeout=600)
    assert run.returncode == 0, stderr[-3000:]
    stops = {(r["task"], r["config"]): (r["status"], r["stop"]) for r in results(tmp_path / "out")}
    # m1 would fix t1 in three calls; the limit stops it after the first, and its check fails.
    assert stops == {("t0", "m1"): ("fail", "end_turn"), ("t1", "m1"): ("fail", "max_total_tokens"),
                     ("t0", "m2"): ("fail", "end_turn"), ("t1", "m2"): ("fail", "end_turn")}  # fmt: skip
    bad = subprocess.run([agentui_bin, "eval", str(tasks), "--max-duration", "0"], env=clean_env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "take a number above 0" in bad.stderr and "Traceback" not in bad.stderr

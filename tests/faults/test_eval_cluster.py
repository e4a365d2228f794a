"""`agentui eval --cluster` when its Dask cluster goes away, on a real scheduler and real worker processes that the
test kills with SIGKILL: with no worker left (or none ever joining) it ends after AGENTUI_EVAL_NO_WORKER_SECONDS,
with the scheduler gone it ends at once; either way in one sentence, with no traceback (distributed's own log never
reaches the screen), a non-zero exit, and only finished runs in the results, so that running the same command
again on a fresh cluster does exactly the runs that did not finish."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Literal

import pytest

from tests.e2e.test_eval import Model, evaluate, results, task_set
from tests.e2e.test_print_mode import assert_one_clean_sentence
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.waiting import eventually

TASKS = 4
RUNS = {(f"t{n}", model) for n in range(TASKS) for model in ("m1", "m2")}
"""Each task on each of the two models: 8 runs."""
CEILING = 60.0
"""Seconds any awaited event may take on a loaded machine; only a broken run reaches it."""
PROGRESS = re.compile(r"\[[#.]+\] \d+/\d+ done · \d+ running · \d+ failed")


class HeldModel(Model):
    """The model of tests/e2e/test_eval.py, holding every run after the first `free` at its first reply (the test
    releases them), so that exactly `free` runs finish before the cluster is taken away."""

    def __init__(self, server: LoopbackServer, free: int) -> None:
        super().__init__(server)
        self.free = free
        self.runs: list[tuple[str, int]] = []
        """Each run (model, task number) in the order its first request came."""

    def answer(self, request: RecordedRequest) -> Reply:
        reply = super().answer(request)
        found = re.search(r"Fix task (\d+)\.", json.dumps(request.json()["messages"]))
        if "tools" not in request.json() or found is None:
            return reply
        run = (request.json()["model"], int(found.group(1)))
        if run not in self.runs:
            self.runs.append(run)
        return replace(reply, gate=self.release) if self.runs.index(run) >= self.free else reply

    def asked_runs(self) -> set[tuple[str, str]]:
        return {(f"t{number}", model) for model, number in self.asked}


class Cluster:
    """A real Dask scheduler and, unless `workers` is 0, a `dask worker` with that many worker processes; each
    command in its own process group, so that a kill reaches the nanny and the workers it started."""

    def __init__(self, where: Path, env: dict[str, str], workers: int = 2) -> None:
        where.mkdir(parents=True)
        self.where, self.env, self.count = where, env, workers
        self.file = where / "scheduler.json"
        self.scheduler = self._start("scheduler", "--scheduler-file", str(self.file), "--port", "0", "--no-dashboard")
        self.workers = None
        if workers:
            self.workers = self._start(
                "worker", "--scheduler-file", str(self.file), "--nworkers", str(workers), "--nthreads", "1",
                "--no-dashboard", "--local-directory", str(where / "scratch"),
            )  # fmt: skip

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        dask = str(Path(sys.executable).parent / "dask")
        return subprocess.Popen(
            [dask, *args], env=self.env, cwd=self.where, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip

    def _address(self) -> str | None:
        try:
            return str(json.loads(self.file.read_text())["address"])
        except (OSError, ValueError, KeyError):  # (not written yet, or half-written)
            return None

    async def address(self) -> str:
        """The scheduler's address, once it is up and has written it, and its workers have joined."""
        await eventually(self._address, ceiling=CEILING)
        address = self._address()
        assert address
        if self.workers is not None:
            await asyncio.to_thread(self._joined, address)
        return address

    def _joined(self, address: str) -> None:
        from distributed import Client

        with Client(address, timeout=CEILING) as client:
            client.wait_for_workers(self.count, timeout=CEILING)

    @staticmethod
    def kill(process: subprocess.Popen[bytes] | None) -> None:
        """SIGKILL to the command's whole process group; returns once the command itself is gone."""
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=CEILING)

    def close(self) -> None:
        self.kill(self.workers)
        self.kill(self.scheduler)


@pytest.fixture
def env(clean_env: dict[str, str], server: LoopbackServer) -> dict[str, str]:
    """For the evaluation and the cluster's workers alike (the workers use their own key and model server)."""
    bin_dir = Path(sys.executable).parent
    return {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x",
            "PATH": f"{bin_dir}:{clean_env['PATH']}", "AGENTUI_EVAL_NO_WORKER_SECONDS": "2"}  # fmt: skip


@pytest.fixture
def clusters(tmp_path: Path, env: dict[str, str]) -> Iterator[list[Cluster]]:
    """The clusters a test starts (`clusters.append(...)`), each killed at the end whatever happened."""
    started: list[Cluster] = []
    try:
        yield started
    finally:
        for cluster in started:
            cluster.close()


def start(clusters: list[Cluster], where: Path, env: dict[str, str], workers: int = 2) -> Cluster:
    cluster = Cluster(where, env, workers)
    clusters.append(cluster)
    return cluster


def ended(process: subprocess.Popen[str]) -> tuple[str, str]:
    """The evaluation's stdout and stderr once it has ended by itself (killed, with what it said, if it does not)."""
    try:
        return process.communicate(timeout=CEILING)
    except subprocess.TimeoutExpired:
        process.kill()
        stderr = process.communicate()[1]
        raise AssertionError(f"the evaluation did not end: {stderr[-2000:]}") from None


def assert_one_sentence_and_no_traceback(stdout: str, stderr: str) -> str:
    """The last line of stderr is the one sentence; every line before it is a progress line, nothing of Dask's."""
    assert_one_clean_sentence(stderr)
    assert "Traceback" not in stdout, stdout
    *before, sentence = stderr.strip().splitlines()
    assert all(PROGRESS.fullmatch(line) for line in before), stderr
    return sentence


async def finish_on_a_fresh_cluster(
    agentui_bin: str, clusters: list[Cluster], tmp_path: Path, env: dict[str, str], server: LoopbackServer,
    model: HeldModel, tasks: Path, recorded: set[tuple[str, str]],
) -> None:  # fmt: skip
    """The same command again, on a new cluster: it runs exactly the runs not recorded, and ends with all of them."""
    model.free, model.asked = len(RUNS), []
    cluster = start(clusters, tmp_path / "second", env)
    again = evaluate(agentui_bin, env, server, tasks, "--cluster", await cluster.address())
    stdout, stderr = ended(again)
    assert again.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stdout + stderr
    assert model.asked_runs() == RUNS - recorded
    done = [(r["task"], r["config"]) for r in results(tmp_path / "out")]
    assert sorted(done) == sorted(RUNS)  # (each once: nothing recorded twice)


async def test_with_every_worker_killed_it_ends_in_one_sentence_and_a_rerun_does_the_rest(
    agentui_bin: str, server: LoopbackServer, env: dict[str, str], clusters: list[Cluster], tmp_path: Path
) -> None:
    await lose_part_of_the_cluster_midway(agentui_bin, server, env, clusters, tmp_path, lost="workers")


async def test_with_no_worker_ever_joining_it_ends_in_one_sentence_and_records_nothing(
    agentui_bin: str, server: LoopbackServer, env: dict[str, str], clusters: list[Cluster], tmp_path: Path
) -> None:
    tasks = task_set(tmp_path, TASKS)
    model = HeldModel(server, free=len(RUNS))
    cluster = start(clusters, tmp_path / "first", env, workers=0)
    first = evaluate(agentui_bin, env, server, tasks, "--cluster", await cluster.address())
    stdout, stderr = ended(first)
    assert first.returncode != 0, stderr[-3000:]
    assert "worker" in assert_one_sentence_and_no_traceback(stdout, stderr)
    assert results(tmp_path / "out") == [] and model.asked == []
    await finish_on_a_fresh_cluster(agentui_bin, clusters, tmp_path, env, server, model, tasks, set())


async def test_with_the_scheduler_killed_it_ends_in_one_sentence_and_a_rerun_does_the_rest(
    agentui_bin: str, server: LoopbackServer, env: dict[str, str], clusters: list[Cluster], tmp_path: Path
) -> None:
    await lose_part_of_the_cluster_midway(agentui_bin, server, env, clusters, tmp_path, lost="scheduler")


async def lose_part_of_the_cluster_midway(
    agentui_bin: str,
    server: LoopbackServer,
    env: dict[str, str],
    clusters: list[Cluster],
    tmp_path: Path,
    *,
    lost: Literal["workers", "scheduler"],
) -> None:
    """Two runs finish and the next is held on a worker; then every worker, or the scheduler, is killed. The
    evaluation ends in one sentence naming what was lost, with the two finished runs recorded and nothing else, and
    the same command on a fresh cluster does the rest."""
    tasks = task_set(tmp_path, TASKS)
    model = HeldModel(server, free=2)
    cluster = start(clusters, tmp_path / "first", env)
    out = tmp_path / "out"
    first = evaluate(agentui_bin, env, server, tasks, "--cluster", await cluster.address())
    try:
        try:  # (two runs finished, the next one held on a worker)
            await eventually(lambda: len(results(out)) == 2 and len(model.runs) > 2, ceiling=CEILING)
        except TimeoutError:
            first.kill()
            raise AssertionError(f"the evaluation did not get going: {first.communicate()[1][-2000:]}") from None
        cluster.kill(cluster.workers if lost == "workers" else cluster.scheduler)
        stdout, stderr = ended(first)
        if lost == "scheduler":
            cluster.kill(cluster.workers)  # (else the held runs go on there, for no scheduler to take their results)
    finally:
        model.release.set()
    assert first.returncode != 0, stderr[-3000:]
    sentence = assert_one_sentence_and_no_traceback(stdout, stderr)
    assert ("worker" if lost == "workers" else "scheduler") in sentence, sentence
    recorded = {(r["task"], r["config"]) for r in results(out)}
    assert len(recorded) == 2 and all(r["status"] in ("pass", "fail") for r in results(out))
    await finish_on_a_fresh_cluster(agentui_bin, clusters, tmp_path, env, server, model, tasks, recorded)


def test_a_no_worker_limit_that_is_not_a_number_of_seconds_is_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    tasks = task_set(tmp_path, 1)
    must = "must be a number of seconds above 0, such as 60"
    for wrong in ("soon", "0", "-5", "inf"):
        env = {**clean_env, "ANTHROPIC_API_KEY": "x", "AGENTUI_EVAL_NO_WORKER_SECONDS": wrong}
        done = subprocess.run([agentui_bin, "eval", str(tasks), "--cluster", "tcp://127.0.0.1:1"], env=env,
                              capture_output=True, text=True, timeout=CEILING, stdin=subprocess.DEVNULL)  # fmt: skip
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == f"agentui: AGENTUI_EVAL_NO_WORKER_SECONDS {must}.\n"

"""`agentui eval TASKS.jsonl`: run a task set across agent configurations and report each configuration's pass rate.

A task is one JSON line: `{"id": ..., "repo": a path or git URL, "prompt": ..., "check": a shell command}`. Each
task runs in a fresh clone of its repository, unattended (the clone is thrown away after), and passes when its
check exits 0. Runs go at most `--jobs` at a time; one that fails for the infrastructure (the clone, the model
server) is tried again, a failing check is not. Every finished run is a line of `results.jsonl` in the output
directory, written as it finishes, so an evaluation that was stopped goes on where it was: what finished is not run
again. Each run's conversation is a session under the output directory's `claude/projects`.

With `--cluster`, the runs go to a Dask cluster's workers. If its scheduler goes away, or it has no worker for
AGENTUI_EVAL_NO_WORKER_SECONDS (60 s unless set), the evaluation ends in one sentence; only the runs that finished are
recorded, so the same command again does the rest.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError

HERE = f"{socket.gethostname()}:{os.getpid()}"
CHECK_TIMEOUT = 600.0
"""Seconds a task's check command may take."""
CLONE_TIMEOUT = 600.0
"""Seconds a task's repository may take to clone, and again to check out."""
NO_WORKER_SECONDS = 60.0
"""Seconds an evaluation on a cluster waits with runs to do and no worker there (AGENTUI_EVAL_NO_WORKER_SECONDS)."""
SCHEDULER_SECONDS = 10.0
"""Seconds a cluster's scheduler may take to answer a question, or to let a client go."""


class Task(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    repo: str
    prompt: str
    check: str


class EvalError(Exception):
    """The evaluation cannot start; the message says why in one sentence."""


class ClusterLost(EvalError):
    """The cluster an evaluation runs on went away (its scheduler, or every worker) before every run finished."""


class Infrastructure(Exception):
    """A run failed for something other than the agent's work (the clone, the model server): worth trying again."""


@dataclass(frozen=True)
class Outcome:
    task: str
    config: str
    status: str
    """pass, fail (the check failed), or error (the run could not be made, even after retries)."""
    tokens: int
    cost_usd: float
    seconds: float
    tries: int
    session: str | None = None
    error: str | None = None
    ran_on: str = ""
    """The host and process that ran it (a cluster's worker, or this one)."""
    stop: str = "end_turn"
    """Why the run ended: end_turn, or the limit it reached (max_turns, max_budget, max_total_tokens,
    max_duration); the check decides pass or fail either way."""


def load_tasks(path: Path) -> list[Task]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EvalError(f"The task file {path} cannot be read ({exc.strerror or exc}).") from None
    tasks: list[Task] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            task = Task.model_validate_json(line)
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(part) for part in problem["loc"]) or "the line"
            raise EvalError(f"Line {number} of {path} is not a task ({where}: {problem['msg']}).") from None
        if not Path(task.repo).is_absolute() and "://" not in task.repo and not task.repo.startswith("git@"):
            task.repo = str((path.parent / task.repo).resolve())  # (a path relative to the task file)
        tasks.append(task)
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise EvalError(f"Two tasks in {path} have the id {task.id!r}; each needs its own.")
        seen.add(task.id)
    if not tasks:
        raise EvalError(f"{path} holds no tasks.")
    return tasks


def finished(results: Path) -> dict[tuple[str, str], Outcome]:
    """The runs already done, from an earlier (perhaps stopped) evaluation; a half-written last line is skipped."""
    done: dict[tuple[str, str], Outcome] = {}
    if not results.exists():
        return done
    for line in results.read_text(encoding="utf-8").splitlines():
        try:
            outcome = Outcome(**json.loads(line))
        except (ValueError, TypeError):
            continue
        done[(outcome.task, outcome.config)] = outcome
    return done


@dataclass
class Evaluation:
    tasks: list[Task]
    configs: dict[str, Any]
    """Settings by configuration name."""
    out: Path
    jobs: int = 2
    retries: int = 2
    max_turns: int = 50
    permission_mode: str = "bypassPermissions"
    remote: Callable[[Task, str], Awaitable[Outcome]] | None = None
    """Where runs happen instead of here (a cluster's workers); the results, report and resumption stay here."""
    on_progress: Callable[[int, int, int, int], None] = lambda done, running, failed, total: None

    @property
    def results(self) -> Path:
        return self.out / "results.jsonl"

    async def run(self) -> list[Outcome]:
        self.out.mkdir(parents=True, exist_ok=True)
        outcomes = finished(self.results)
        todo = [(t, name) for name in self.configs for t in self.tasks if (t.id, name) not in outcomes]
        total, running = len(self.tasks) * len(self.configs), 0
        failed = sum(1 for o in outcomes.values() if o.status != "pass")
        gate = asyncio.Semaphore(self.jobs)
        self.on_progress(len(outcomes), 0, failed, total)

        async def one(task: Task, name: str) -> None:
            nonlocal running, failed
            async with gate:
                running += 1
                self.on_progress(len(outcomes), running, failed, total)
                outcome = await (self.remote(task, name) if self.remote else self._tried(task, name))
                running -= 1
                outcomes[(task.id, name)] = outcome
                failed += outcome.status != "pass"
                self._record(outcome)
                self.on_progress(len(outcomes), running, failed, total)

        runs = [asyncio.ensure_future(one(task, name)) for task, name in todo]
        try:
            await asyncio.gather(*runs)
        finally:  # (a run that raised, such as ClusterLost, ends the others: none goes on, or is recorded, after)
            for run in runs:
                run.cancel()
            await asyncio.gather(*runs, return_exceptions=True)
        return [outcomes[(t.id, name)] for name in self.configs for t in self.tasks]

    def _record(self, outcome: Outcome) -> None:
        with self.results.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(asdict(outcome)) + "\n")
            handle.flush()
            os.fsync(handle.fileno())  # (a crash after this loses nothing of this run)

    async def _tried(self, task: Task, name: str) -> Outcome:
        started = time.monotonic()
        error = ""
        for attempt in range(1, self.retries + 2):
            try:
                return replace(await self._run_once(task, name, started, attempt), ran_on=HERE)
            except Infrastructure as exc:
                error = str(exc)
        took = round(time.monotonic() - started, 3)
        return Outcome(task.id, name, "error", 0, 0.0, took, self.retries + 1, error=error, ran_on=HERE)

    async def _run_once(self, task: Task, name: str, started: float, attempt: int) -> Outcome:
        from agentui.api import Launch, PermissionOptions, SessionRequest, open_conversation, process_directory

        workdir = process_directory().temporary("agentui-eval-")  # (removed with the process, however it ends)
        try:
            clone = workdir / "repo"
            await asyncio.to_thread(clone_task_repository, task.repo, clone)
            env = {**os.environ, "CLAUDE_CONFIG_DIR": str(self.out / "claude")}
            launch = Launch(
                self.configs[name],
                cwd=clone,
                permissions=PermissionOptions(mode=self.permission_mode),  # type: ignore[arg-type]
                session=SessionRequest(),
                max_turns=self.max_turns,
            )
            conversation = open_conversation(launch, env=env)
            try:
                result = await conversation.send(task.prompt)
            finally:
                await conversation.aclose()
            if result.stop == "error":
                raise Infrastructure(result.error or "the model call failed")
            check = await asyncio.to_thread(_check, task.check, clone)
            return Outcome(
                task.id,
                name,
                "pass" if check == 0 else "fail",
                result.usage.total_tokens,
                result.cost_usd,
                round(time.monotonic() - started, 3),
                attempt,
                session=str(conversation.session.path),
                stop=result.stop,
            )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


def run_on_worker(task: dict[str, Any], name: str, settings: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """One run on a cluster worker (importable there: the worker has agentui installed and shares the output
    directory). The model's credentials are the worker's own: they never travel with the task."""
    from agentui.api import Overrides, Settings, resolve_settings

    found = resolve_settings(Overrides(provider=settings["provider"], base_url=settings.get("base_url")))
    local = Settings.model_validate({**settings, "api_key": found.api_key, "auth_token": found.auth_token})
    evaluation = Evaluation([Task.model_validate(task)], {name: local}, Path(options.pop("out")), **options)
    return asdict(asyncio.run(evaluation._tried(evaluation.tasks[0], name)))


RERUN = "what finished is recorded, and the same command again runs the rest."
"""The end of the sentence an evaluation the cluster lost ends with."""


class OnCluster:
    """Runs submitted to the Dask cluster whose scheduler is at `address` (`async with`: connected, and watched, inside
    it). A run's outcome is what its worker returned, or an error the run raised there; a run the cluster lost (its
    scheduler went away, or no worker was there for `no_worker_seconds`) raises ClusterLost instead, and is not an
    outcome: the same command again runs it."""

    def __init__(self, address: str, evaluation: Evaluation, no_worker_seconds: float = NO_WORKER_SECONDS) -> None:
        self.address = address
        self.evaluation = evaluation
        self.no_worker_seconds = no_worker_seconds
        self.options = {"out": str(evaluation.out.resolve()), "retries": evaluation.retries,
                        "max_turns": evaluation.max_turns, "permission_mode": evaluation.permission_mode}  # fmt: skip
        self.client: Any = None
        self.waiting = 0
        """Runs submitted and not yet returned."""
        self.lost = asyncio.Event()
        self.why = ""
        """What ClusterLost says, once `lost` is set."""
        self.watcher: asyncio.Task[None] | None = None

    async def __aenter__(self) -> OnCluster:
        try:
            from distributed import Client  # (an extra, `agentui[cluster]`: imported only now)
        except ImportError:
            raise EvalError("--cluster needs Dask's distributed package: pip install 'agentui[cluster]'.") from None
        _route_logs()  # (distributed gave its loggers their own handler on stderr as it was imported)
        client = Client(  # type: ignore[no-untyped-call]  # (distributed's Client is not annotated)
            self.address, asynchronous=True, timeout=30, set_as_default=False
        )
        try:
            self.client = await client
        except Exception as exc:  # (refused, timed out, not an address, TLS not set up...)
            await self._close(client)  # (else it closes as it is collected, and warns that nothing awaited that)
            raise EvalError(f"No Dask scheduler answered at {self.address} ({exc}).") from None
        self.watcher = asyncio.ensure_future(self._watch())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self.watcher is not None:
            self.watcher.cancel()
            await asyncio.gather(self.watcher, return_exceptions=True)
        await self._close(self.client)  # (the runs not taken are given up with it)

    @staticmethod
    async def _close(client: Any) -> None:
        try:  # (a scheduler that is gone cannot be waited for)
            await client.close(timeout=SCHEDULER_SECONDS)
        except Exception as exc:
            logging.getLogger(__name__).debug("the Dask client did not close: %s", exc)

    async def __call__(self, task: Task, name: str) -> Outcome:
        if self.lost.is_set():
            raise ClusterLost(self.why)
        if self.client.status != "running":  # (the scheduler went away as an earlier run finished)
            raise ClusterLost(self._gone())
        settings = self.evaluation.configs[name].model_dump(exclude={"api_key", "auth_token"}, mode="json")
        future = self.client.submit(run_on_worker, task.model_dump(), name, settings, dict(self.options), pure=False)
        self.waiting += 1
        ran = asyncio.ensure_future(self._outcome(future, task, name))
        lost = asyncio.ensure_future(self.lost.wait())
        try:
            await asyncio.wait({ran, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.waiting -= 1
            lost.cancel()
            if not ran.done():
                ran.cancel()
                await asyncio.gather(ran, return_exceptions=True)
        if ran.cancelled():
            raise ClusterLost(self.why)
        return ran.result()  # (finished even as the cluster went: it counts)

    async def _outcome(self, future: Any, task: Task, name: str) -> Outcome:
        try:
            value = await future
        except Exception as exc:
            if future.status != "error":  # (cancelled, or its result not to be had: the cluster's loss, not the run's)
                raise ClusterLost(self._gone()) from None
            # It raised on its worker, or every worker it was given died running it (KilledWorker): its outcome.
            return Outcome(task.id, name, "error", 0, 0.0, 0.0, 1, error=f"the cluster could not run it: {exc}")
        return Outcome(**value)

    def _gone(self) -> str:
        if self.client.status != "running":
            return f"The Dask scheduler at {self.address} went away, so the evaluation stopped; {RERUN}"
        return f"The Dask cluster at {self.address} gave up runs it had been given, so the evaluation stopped; {RERUN}"

    async def _watch(self) -> None:
        """Sets `lost` once runs have waited `no_worker_seconds` with no worker there, or no answer from the
        scheduler; a scheduler that is gone is seen sooner, as the runs it had are cancelled."""
        every = min(5.0, self.no_worker_seconds / 4)
        seen = time.monotonic()
        """When there was last a worker (or nothing waiting for one)."""
        answered = True
        while True:
            await asyncio.sleep(every)
            try:
                identity = await asyncio.wait_for(self.client.scheduler.identity(), SCHEDULER_SECONDS)
                answered, workers = True, len(identity.get("workers") or {})
            except Exception as exc:  # (gone, or too slow: the same as no worker, for now)
                logging.getLogger(__name__).debug("the Dask scheduler did not answer: %s", exc)
                answered, workers = False, 0
            if workers or not self.waiting:
                seen = time.monotonic()
            elif time.monotonic() - seen >= self.no_worker_seconds:
                waited = f"{self.no_worker_seconds:g} s"
                self.why = (
                    f"The Dask cluster at {self.address} has had no worker for {waited}, so the evaluation stopped; "
                    if answered
                    else f"The Dask scheduler at {self.address} has not answered for {waited}, so the evaluation "
                    "stopped; "
                ) + RERUN
                self.lost.set()
                return


def no_worker_seconds() -> float:
    """How long an evaluation on a cluster waits with no worker there: AGENTUI_EVAL_NO_WORKER_SECONDS, or 60."""
    text = os.environ.get("AGENTUI_EVAL_NO_WORKER_SECONDS", "").strip()
    if not text:
        return NO_WORKER_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise EvalError("AGENTUI_EVAL_NO_WORKER_SECONDS must be a number of seconds above 0, such as 60.")
    return seconds


def clone_task_repository(repo: str, dest: Path) -> None:
    """A task's repository (a path or URL, as `git clone` takes it from this process's directory) cloned to `dest`,
    with git confined (the core's `run_git`): over file, https, ssh or git:// only, and running no hook,
    filter or other program that any configuration names. Checked out in a second step, from inside the clone,
    whose configuration can define drivers the starting place's does not (a global `includeIf "gitdir:..."`); no
    template is copied in. Raises Infrastructure, in one sentence."""
    from agentui.api import GIT_TRANSPORTS, GitError, git_complaint, run_git

    parts = urlsplit(repo)
    # (a path, not file://: git copies the objects instead of having upload-pack make a pack, which would run a
    # packObjectsHook from the person's own config, one setting agentui cannot override there)
    source = unquote(parts.path) if parts.scheme == "file" and parts.netloc in ("", "localhost") else repo
    steps = [
        (["clone", "--quiet", "--no-checkout", "--template=", "--", source, str(dest)], Path.cwd(), GIT_TRANSPORTS),
        (["reset", "--hard", "--quiet"], dest, frozenset[str]()),
    ]
    for args, where, transports in steps:
        try:
            done = run_git(args, cwd=where, timeout=CLONE_TIMEOUT, protocols=transports)
        except GitError as exc:
            raise Infrastructure(f"git clone {repo} failed: {exc}") from None
        if done.returncode != 0:
            raise Infrastructure(f"git clone {repo} failed: {git_complaint(done)}")


def _check(command: str, where: Path) -> int:
    try:
        return subprocess.run(command, shell=True, cwd=where, capture_output=True, timeout=CHECK_TIMEOUT).returncode
    except subprocess.TimeoutExpired:
        return 124


def report(outcomes: Sequence[Outcome], configs: Sequence[str]) -> dict[str, Any]:
    """By configuration: tasks, passed, failed, errors, the pass rate, tokens, cost and time."""
    table: dict[str, Any] = {}
    for name in configs:
        mine = [o for o in outcomes if o.config == name]
        passed = sum(o.status == "pass" for o in mine)
        table[name] = {
            "tasks": len(mine),
            "passed": passed,
            "failed": sum(o.status == "fail" for o in mine),
            "errors": sum(o.status == "error" for o in mine),
            "pass_rate": round(passed / len(mine), 4) if mine else 0.0,
            "tokens": sum(o.tokens for o in mine),
            "cost_usd": round(sum(o.cost_usd for o in mine), 6),
            "seconds": round(sum(o.seconds for o in mine), 3),
        }
    return table


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="agentui eval", description=__doc__.splitlines()[0])
    parser.add_argument("tasks", type=Path, help="the task set: one JSON task per line")
    parser.add_argument("--models", help="a configuration per model, comma-separated (default: the configured model)")
    parser.add_argument("--out", type=Path, help="where results, report and sessions go (default: beside TASKS)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at the same time (default 2)")
    parser.add_argument("--retries", type=int, default=2, help="tries again after an infrastructure failure")
    parser.add_argument("--max-turns", type=int, default=50, help="model calls a run may make (default 50)")
    parser.add_argument("--max-budget-usd", type=float, metavar="USD", help="what one run may spend")
    parser.add_argument("--max-total-tokens", type=int, metavar="N", help="the tokens one run may use")
    parser.add_argument("--max-duration", type=float, metavar="SECONDS", help="how long one run may take")
    parser.add_argument(
        "--cluster", metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:port)"
    )
    parser.add_argument(
        "--permission-mode",
        choices=("default", "acceptEdits", "bypassPermissions"),
        default="bypassPermissions",
        help="what a run may do without asking; nobody answers (default: anything, in its throwaway clone)",
    )
    args = parser.parse_args(argv)
    _route_logs()
    if args.jobs < 1 or args.retries < 0 or args.max_turns < 1:
        return _fail("--jobs and --max-turns take a number from 1, --retries from 0.")
    limits = {"max_budget_usd": args.max_budget_usd, "max_total_tokens": args.max_total_tokens,
              "max_duration": args.max_duration}  # fmt: skip
    if any(value is not None and value <= 0 for value in limits.values()):
        return _fail("--max-budget-usd, --max-total-tokens and --max-duration take a number above 0.")
    from agentui.api import ConfigError, Overrides, RunLimits, resolve_settings

    given = RunLimits(
        max_budget_usd=args.max_budget_usd, max_total_tokens=args.max_total_tokens, max_seconds=args.max_duration
    )

    try:
        tasks = load_tasks(args.tasks)
        base = resolve_settings(Overrides())
        waits = no_worker_seconds()
    except (EvalError, ConfigError) as exc:
        return _fail(str(exc))
    models = [m.strip() for m in (args.models or base.model).split(",") if m.strip()]
    # (each run's limits travel in its settings: to a cluster's workers too)
    configs = {model: base.model_copy(update={"model": model, "limits": given.over(base.limits)}) for model in models}
    out = args.out or args.tasks.with_name(f"{args.tasks.stem}-eval")
    evaluation = Evaluation(
        tasks, configs, out, jobs=args.jobs, retries=args.retries, max_turns=args.max_turns,
        permission_mode=args.permission_mode, on_progress=_progress_line(),
    )  # fmt: skip

    async def evaluate() -> list[Outcome]:
        if not args.cluster:
            return await evaluation.run()
        async with OnCluster(args.cluster, evaluation, waits) as cluster:
            evaluation.remote = cluster
            evaluation.jobs = max(evaluation.jobs, 64)  # (the cluster's workers set the pace; this bounds the queue)
            return await evaluation.run()

    try:
        outcomes = asyncio.run(evaluate())
    except KeyboardInterrupt:
        print(f"\nagentui: the evaluation stopped; run the same command again to go on ({out}).", file=sys.stderr)
        return 130
    except ClusterLost as exc:
        return _fail(str(exc), 1)
    except EvalError as exc:
        return _fail(str(exc))
    except Exception as exc:  # (never a traceback on the screen: it goes to AGENTUI_LOG, if that is set)
        logging.getLogger(__name__).error("unexpected failure", exc_info=True)
        return _fail(f"unexpected error: {type(exc).__name__}: {exc}.", 1)
    table = report(outcomes, list(configs))
    (out / "report.json").write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    print(f"{'configuration':<28} {'passed':>8} {'rate':>7} {'errors':>7} {'tokens':>10} {'cost $':>9} {'time s':>8}")
    for name, row in table.items():
        print(
            f"{name:<28} {row['passed']:>4}/{row['tasks']:<3} {row['pass_rate']:>7.1%} {row['errors']:>7} "
            f"{row['tokens']:>10,} {row['cost_usd']:>9.4f} {row['seconds']:>8.1f}"
        )
    return 0


def _progress_line() -> Callable[[int, int, int, int], None]:
    """Tasks done, running and failed: redrawn in place on a terminal, a line per change on a pipe."""
    terminal = sys.stderr.isatty()

    def show(done: int, running: int, failed: int, total: int) -> None:
        width = 30
        filled = width * done // max(1, total)
        line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} done · {running} running · {failed} failed"
        sys.stderr.write(("\r" + line) if terminal else line + "\n")
        if terminal and done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def _route_logs() -> None:
    """Every log record, agentui's or a library's, goes where the root logger's go: to the AGENTUI_LOG file if it is
    set, else nowhere; never a traceback on the screen. Run again after importing a library that gives its loggers
    handlers of their own (distributed puts one on stderr)."""
    root = logging.getLogger()
    if not root.handlers:
        sink: logging.Handler = logging.NullHandler()
        if path := os.environ.get("AGENTUI_LOG"):
            with contextlib.suppress(OSError):  # (a log file that cannot be opened is no log)
                sink = logging.FileHandler(path)
                sink.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
                logging.getLogger("agentui").setLevel(logging.DEBUG)
        root.addHandler(sink)
    for logger in list(root.manager.loggerDict.values()):
        if isinstance(logger, logging.Logger) and logger.handlers:
            logger.handlers, logger.propagate = [], True


def _fail(sentence: str, code: int = 2) -> int:
    print(f"agentui: {sentence}", file=sys.stderr)
    return code

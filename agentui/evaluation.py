"""`agentui eval TASKS.jsonl`: run a task set across agent configurations and report each configuration's pass rate.

A task is one JSON line: `{"id": ..., "repo": a path or git URL, "prompt": ..., "check": a shell command}`. Each
task runs in a fresh clone of its repository, unattended (the clone is thrown away after), and passes when its
check exits 0. Runs go at most `--jobs` at a time; one that fails for the infrastructure (the clone, the model
server) is tried again, a failing check is not. Every finished run is a line of `results.jsonl` in the output
directory, written as it finishes, so an evaluation that was stopped goes on where it was: what finished is not run
again. Each run's conversation is a session under the output directory's `claude/projects`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
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


class Task(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    repo: str
    prompt: str
    check: str


class EvalError(Exception):
    """The evaluation cannot start; the message says why in one sentence."""


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

        await asyncio.gather(*(one(task, name) for task, name in todo))
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
        from agentui.core.frontend import Conversation, Launch, PermissionOptions, SessionRequest

        workdir = Path(tempfile.mkdtemp(prefix="agentui-eval-"))
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
            conversation = Conversation.open(launch, env=env)
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
    from agentui.core.frontend import Overrides, Settings, resolve_settings

    found = resolve_settings(Overrides(provider=settings["provider"], base_url=settings.get("base_url")))
    local = Settings.model_validate({**settings, "api_key": found.api_key, "auth_token": found.auth_token})
    evaluation = Evaluation([Task.model_validate(task)], {name: local}, Path(options.pop("out")), **options)
    return asdict(asyncio.run(evaluation._tried(evaluation.tasks[0], name)))


def on_cluster(address: str, evaluation: Evaluation) -> Callable[[Task, str], Awaitable[Outcome]]:
    """Runs submitted to the Dask cluster at `address` (imported only now: an extra, `agentui[cluster]`)."""
    try:
        from distributed import Client
    except ImportError:
        raise EvalError("--cluster needs Dask's distributed package: pip install 'agentui[cluster]'.") from None
    try:
        client = Client(address, timeout=30)
    except OSError as exc:
        raise EvalError(f"No Dask scheduler answered at {address} ({exc}).") from None
    options = {"out": str(evaluation.out.resolve()), "retries": evaluation.retries, "max_turns": evaluation.max_turns,
               "permission_mode": evaluation.permission_mode}  # fmt: skip

    async def remote(task: Task, name: str) -> Outcome:
        settings = evaluation.configs[name].model_dump(exclude={"api_key", "auth_token"}, mode="json")
        future = client.submit(run_on_worker, task.model_dump(), name, settings, dict(options), pure=False)
        try:
            return Outcome(**await asyncio.to_thread(future.result))
        except Exception as exc:  # (the worker died, or could not run it: the cluster's failure, not the task's)
            return Outcome(task.id, name, "error", 0, 0.0, 0.0, 1, error=f"the cluster could not run it: {exc}")

    return remote


def clone_task_repository(repo: str, dest: Path) -> None:
    """A task's repository (a path or URL, as `git clone` takes it from this process's directory) cloned to `dest`,
    with git confined (`agentui.core.confined_git`): over file, https, ssh or git:// only, and running no hook,
    filter or other program that any configuration names. Checked out in a second step, from inside the clone,
    whose configuration can define drivers the starting place's does not (a global `includeIf "gitdir:..."`); no
    template is copied in. Raises Infrastructure, in one sentence."""
    from agentui.core.confined_git import TRANSPORTS, GitError, complaint, run

    parts = urlsplit(repo)
    # (a path, not file://: git copies the objects instead of having upload-pack make a pack, which would run a
    # packObjectsHook from the person's own config, one setting agentui cannot override there)
    source = unquote(parts.path) if parts.scheme == "file" and parts.netloc in ("", "localhost") else repo
    steps = [
        (["clone", "--quiet", "--no-checkout", "--template=", "--", source, str(dest)], Path.cwd(), TRANSPORTS),
        (["reset", "--hard", "--quiet"], dest, frozenset[str]()),
    ]
    for args, where, transports in steps:
        try:
            done = run(args, cwd=where, timeout=CLONE_TIMEOUT, protocols=transports)
        except GitError as exc:
            raise Infrastructure(f"git clone {repo} failed: {exc}") from None
        if done.returncode != 0:
            raise Infrastructure(f"git clone {repo} failed: {complaint(done)}")


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
    if args.jobs < 1 or args.retries < 0 or args.max_turns < 1:
        return _fail("--jobs and --max-turns take a number from 1, --retries from 0.")
    limits = {"max_budget_usd": args.max_budget_usd, "max_total_tokens": args.max_total_tokens,
              "max_duration": args.max_duration}  # fmt: skip
    if any(value is not None and value <= 0 for value in limits.values()):
        return _fail("--max-budget-usd, --max-total-tokens and --max-duration take a number above 0.")
    limits = {key: value for key, value in limits.items() if value is not None}
    from agentui.core.frontend import ConfigError, Overrides, resolve_settings

    try:
        tasks = load_tasks(args.tasks)
        base = resolve_settings(Overrides())
    except (EvalError, ConfigError) as exc:
        return _fail(str(exc))
    models = [m.strip() for m in (args.models or base.model).split(",") if m.strip()]
    # (each run's limits travel in its settings: to a cluster's workers too)
    configs = {model: base.model_copy(update={"model": model, **limits}) for model in models}
    out = args.out or args.tasks.with_name(f"{args.tasks.stem}-eval")
    evaluation = Evaluation(
        tasks, configs, out, jobs=args.jobs, retries=args.retries, max_turns=args.max_turns,
        permission_mode=args.permission_mode, on_progress=_progress_line(),
    )  # fmt: skip
    if args.cluster:
        try:
            evaluation.remote = on_cluster(args.cluster, evaluation)
        except EvalError as exc:
            return _fail(str(exc))
        evaluation.jobs = max(evaluation.jobs, 64)  # (the cluster's workers set the pace; this only bounds the queue)
    try:
        outcomes = asyncio.run(evaluation.run())
    except KeyboardInterrupt:
        print(f"\nagentui eval: stopped; run the same command again to go on ({out}).", file=sys.stderr)
        return 130
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


def _fail(sentence: str) -> int:
    print(f"agentui eval: {sentence}", file=sys.stderr)
    return 2

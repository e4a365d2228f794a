"""What every benchmark shares: a result line, percentiles, CPU and memory readings, and the machine's description."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.support.procs import descendants

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Result:
    name: str
    value: float
    unit: str
    n: int = 1
    p50: float | None = None
    p95: float | None = None
    target: str = ""
    """The goal, as text: "≤ 0.40 s"."""
    met: bool | None = None
    peer: str = ""
    """What a peer measured in the same run, and the ratio: "claude 0.71 s (×0.55)"."""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        data = {key: value for key, value in asdict(self).items() if value not in (None, "", {})}
        return json.dumps(data, ensure_ascii=False)


def emit(result: Result) -> Result:
    print(result.line(), flush=True)
    return result


def at_most(value: float, limit: float) -> bool:
    return value <= limit


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def summary(
    name: str,
    samples: list[float],
    unit: str,
    *,
    target: float | None = None,
    target_text: str = "",
    scale: float = 1.0,
    note: str = "",
    use: str = "p50",
) -> Result:
    """A result from samples (taken in seconds, shown × `scale`); `value` is the median unless `use` says min."""
    scaled = [s * scale for s in samples]
    p50, p95 = percentile(scaled, 0.5), percentile(scaled, 0.95)
    value = min(scaled) if use == "min" else p50
    return Result(
        name,
        round(value, 4),
        unit,
        n=len(samples),
        p50=round(p50, 4),
        p95=round(p95, 4),
        target=target_text,
        met=None if target is None else value <= target,
        note=note,
    )


def timed(function: Callable[[], Any], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return samples


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_mb(pid: int | None = None) -> float:
    """Resident memory now, from /proc (the peak would hide whether memory stays flat)."""
    with open(f"/proc/{pid or 'self'}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def tree_rss_mb(pid: int) -> float:
    """RSS of a process and its descendants (a shell that started the program counts the program too)."""
    total = 0.0
    for child in [pid, *descendants(pid)]:
        try:
            value = rss_mb(child)
        except OSError:
            continue
        if value == value:  # (a process that has just exited has no VmRSS: nan)
            total += value
    return total


def agentui_bin() -> str:
    path = Path(sys.executable).parent / "agentui"
    if not path.exists():
        raise SystemExit(f"agentui is not installed beside {sys.executable}; pip install -e . first")
    return str(path)


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment like a person's, with a private home: no keys, no config, bytecode caching on."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "OPENAI_", "AGENTUI_", "CLAUDE_", "PYTEST_"))
        and key != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        TERM="xterm-256color",
        **extra,
    )
    return env


def warm_bytecode() -> None:
    """Compile agentui and its dependencies once, as any second run of an installed program finds them."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-c", "import agentui.frontends.tui.app, agentui.cli, agentui.frontends.print.mode"],
        env=env,
        check=True,
        capture_output=True,
    )


def machine() -> dict[str, str]:
    def version(package: str) -> str:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as found

        try:
            return found(package)
        except PackageNotFoundError:
            return "-"

    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "?"
    with contextlib.suppress(OSError, ValueError):
        memory = f"{int(Path('/proc/meminfo').read_text().split()[1]) / 1024 / 1024:.0f} GiB"
    from agentui import __version__

    return {
        "machine": f"{os.cpu_count()} cores, {cpu}, {memory}",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": ", ".join(
            f"{name} {version(name)}" for name in ("textual", "rich", "pydantic", "httpx", "tiktoken", "ripgrep")
        )
        + f", agentui {__version__}",
    }


def emit_all(*groups: Callable[[], Result | Iterable[Result]]) -> Iterator[Result]:
    """Each benchmark's result (or results) in turn, each printed as it comes."""
    for group in groups:
        found = group()
        for result in [found] if isinstance(found, Result) else found:
            yield emit(result)


def run_alone(benchmarks: Callable[[], Iterable[Result]]) -> None:
    """`python -m bench.<name>`: run that module's benchmarks, their lines printed as they come."""
    for _ in benchmarks():
        pass


def home_and_project(scratch: Path) -> tuple[Path, Path]:
    """An empty home and an empty project directory in `scratch`, as a benchmark's program runs in."""
    home, project = scratch / "home", scratch / "project"
    home.mkdir()
    project.mkdir()
    return home, project


def print_run(server: Any, env: dict[str, str], project: Path, text: str, pieces: int) -> tuple[float, float, bytes]:
    """One `agentui -p hi`, answered with `text` in `pieces` deltas by the loopback `server`: the CPU seconds it
    used, the seconds until its first output byte, and its output."""
    from tests.support.loopback import Reply
    from tests.support.sse import anthropic_stream

    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": text}], pieces=pieces)))
    started = time.perf_counter()
    process = subprocess.Popen(
        [agentui_bin(), "-p", "hi"],
        env=env,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    first = process.stdout.read(1)
    first_byte = time.perf_counter() - started
    out = first + process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, process.returncode
    return usage.ru_utime + usage.ru_stime, first_byte, out

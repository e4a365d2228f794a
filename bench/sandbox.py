"""What the bubblewrap sandbox adds to one Bash command: the Bash tool running `true` in a project, with the sandbox
on and off, taken in turns so both see the same machine.

    python -m bench.sandbox
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, run_alone

RUNS = 60


async def _timings(project: Path, domains: tuple[str, ...] = ()) -> tuple[list[float], list[float]]:
    from agentui.core.sandbox import Sandbox, SandboxConfig
    from agentui.core.tools.base import ToolContext
    from agentui.core.tools.bash import Bash, BashArgs
    from agentui.core.workspace import Workspace

    workspace = Workspace(root=project)
    plain = Bash(workspace)
    config = SandboxConfig(enabled=True, allowed_domains=domains)
    boxed = Bash(workspace, sandbox=Sandbox(config, workspace, home=project))
    args = BashArgs(command="true")
    ctx = ToolContext(cwd=project, session_id="bench", tool_call_id="b")
    for tool in (plain, boxed):  # warm: the sandbox's one-time probe, the first bwrap from disk
        await tool.run(args, ctx)
    without, within = [], []
    for _ in range(RUNS):
        for tool, samples in ((plain, without), (boxed, within)):
            started = time.perf_counter()
            result = await tool.run(args, ctx)
            samples.append(time.perf_counter() - started)
            assert not result.is_error and result.details["sandboxed"] is (tool is boxed), result.content
    return without, within


def per_command() -> Result:
    if shutil.which("bwrap") is None:
        return Result("sandbox.bash_overhead", 0.0, "ms", note="bubblewrap is not installed: not measured")
    with tempfile.TemporaryDirectory() as scratch:
        without, within = asyncio.run(_timings(Path(scratch)))
    plain, boxed = statistics.median(without) * 1000, statistics.median(within) * 1000
    overhead = boxed - plain
    return Result(
        "sandbox.bash_overhead",
        overhead,
        "ms",
        target="≤ 15 ms over an unsandboxed run",
        met=overhead <= 15,
        note=f"the Bash tool running `true`, median of {RUNS}: {boxed:.1f} ms in bubblewrap, {plain:.1f} ms without",
    )


def per_command_with_network() -> Result:
    if shutil.which("bwrap") is None:
        return Result("sandbox.bash_overhead_network", 0.0, "ms", note="bubblewrap is not installed: not measured")
    with tempfile.TemporaryDirectory() as scratch:
        without, within = asyncio.run(_timings(Path(scratch), ("pypi.org",)))
    plain, boxed = statistics.median(without) * 1000, statistics.median(within) * 1000
    return Result(
        "sandbox.bash_overhead_network",
        boxed - plain,
        "ms",
        note=f"the same with network.allowedDomains set (the loopback bridge to the proxy starts first): "
        f"{boxed:.1f} ms in bubblewrap, {plain:.1f} ms without",
    )


def benchmarks() -> Iterator[Result]:
    return emit_all(per_command, per_command_with_network)


if __name__ == "__main__":
    run_alone(benchmarks)

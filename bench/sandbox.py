"""What confinement adds to one Bash command: the Bash tool running `true` in a git project, unconfined (the person
lifted the guard for the call), under the guard, in the sandbox without and with the seccomp filter, and with the
network bridge, each with agentui's mount helper and (guard and sandbox) without it; taken in turns so all see the
same machine. Each confined run also makes and removes its stand-ins.

    python -m bench.sandbox
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, run_alone

RUNS = 60


async def _timings(directory: Path, domains: tuple[str, ...] = ()) -> dict[str, list[float]]:
    from agentui.core.safety.guard import Guard
    from agentui.core.safety.sandbox import Sandbox, SandboxConfig
    from agentui.core.tools.base import ToolContext
    from agentui.core.tools.bash import Bash, BashArgs
    from agentui.core.workspace import Workspace

    project, home = directory / "project", directory / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "AGENTUI_CONFIG_DIR": str(home / "config"),
        "AGENTUI_DATA_DIR": str(home / "data"),
        "AGENTUI_STATE_DIR": str(home / "state"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    workspace = Workspace(root=project)
    guard = Guard(workspace, home=home, env=env)
    command_env = {"HOME": str(home), "XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"]}

    def boxed(**config: object) -> Bash:
        sandbox = Sandbox(SandboxConfig(enabled=True, **config), workspace, home=home, env=env)  # type: ignore[arg-type]
        return Bash(workspace, command_env, sandbox=sandbox, guard=guard)

    alone = Guard(workspace, home=home, env=env)
    alone.mount_helper = lambda: None  # type: ignore[method-assign]  # (bubblewrap makes every mount)
    sandbox_alone = boxed(allowed_domains=domains)
    assert sandbox_alone.sandbox is not None
    sandbox_alone.sandbox.mount_helper = lambda: None  # type: ignore[method-assign]
    tools = {
        "none": (Bash(workspace, command_env, guard=guard), True),
        "guard": (Bash(workspace, command_env, guard=guard), False),
        "guard_alone": (Bash(workspace, command_env, guard=alone), False),
        "sandbox_no_filter": (boxed(allow_all_unix_sockets=True, allowed_domains=domains), False),
        "sandbox": (boxed(allowed_domains=domains), False),
        "sandbox_alone": (sandbox_alone, False),
    }
    args = BashArgs(command="true")
    samples: dict[str, list[float]] = {name: [] for name in tools}
    for tool, lifted in tools.values():  # warm: the one-time probes, the first bwrap from disk, git's config read
        await tool.run(args, ToolContext(cwd=project, session_id="bench", tool_call_id="b", protection_lifted=lifted))
    for _ in range(RUNS):
        for name, (tool, lifted) in tools.items():
            ctx = ToolContext(cwd=project, session_id="bench", tool_call_id="b", protection_lifted=lifted)
            started = time.perf_counter()
            result = await tool.run(args, ctx)
            samples[name].append(time.perf_counter() - started)
            assert not result.is_error, result.content
            assert result.details["sandboxed"] is name.startswith("sandbox"), name
            assert result.details["guarded"] is name.startswith("guard"), name
    for tool, _ in tools.values():
        if tool.sandbox is not None and tool.sandbox.proxy is not None:
            await tool.sandbox.proxy.aclose()
    return samples


# A home as a bash user's looks: start-up files, git and Claude Code configured, the usual XDG directories. (The
# missing protected paths are what costs: each gets a stand-in made and removed per command.)
HOME_FILES = (".bashrc", ".profile", ".bash_logout", ".gitconfig", ".config/git/ignore", ".claude/settings.json")
HOME_DIRS = (".local/share", ".local/state", ".cache", ".ssh")


def _medians(domains: tuple[str, ...] = ()) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory) / "home"
        for name in HOME_DIRS:
            (home / name).mkdir(parents=True)
        for name in HOME_FILES:
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text("")
        (Path(directory) / "project").mkdir()
        subprocess.run(["git", "init", "-q", str(Path(directory) / "project")], check=True)
        samples = asyncio.run(_timings(Path(directory), domains))
    return {name: statistics.median(values) * 1000 for name, values in samples.items()}


def _missing(name: str) -> Result | None:
    if shutil.which("bwrap") is None:
        return Result(name, 0.0, "ms", note="bubblewrap is not installed: not measured")
    return None


def per_command() -> Iterator[Result]:
    missing = _missing("sandbox.bash_overhead")
    if missing is not None:
        yield missing
        return
    ms = _medians()
    plain = ms["none"]
    sandbox, guard = ms["sandbox"] - plain, ms["guard"] - plain
    seccomp = ms["sandbox"] - ms["sandbox_no_filter"]
    runs = f"the Bash tool running `true` in a git project, median of {RUNS}"
    yield Result(
        "sandbox.bash_overhead",
        round(sandbox, 2),
        "ms",
        target="≤ 15 ms over an unconfined run",
        met=sandbox <= 15,
        note=f"{runs}: {ms['sandbox']:.1f} ms in the sandbox (stand-ins, masks, seccomp), {plain:.1f} ms unconfined",
    )
    yield Result(
        "sandbox.guard_overhead",
        round(guard, 2),
        "ms",
        target="≤ 15 ms over an unconfined run",
        met=guard <= 15,
        note=f"{runs}: {ms['guard']:.1f} ms under the guard (project and home stand-ins), {plain:.1f} ms unconfined",
    )
    yield Result(
        "sandbox.bash_overhead_bubblewrap_only",
        round(ms["sandbox_alone"] - plain, 2),
        "ms",
        note=f"{runs}: the sandbox where agentui's mount helper cannot be built (no C compiler) or run (Linux before "
        f"5.12), bubblewrap making every mount: {ms['sandbox_alone']:.1f} ms",
    )
    yield Result(
        "sandbox.guard_overhead_bubblewrap_only",
        round(ms["guard_alone"] - plain, 2),
        "ms",
        note=f"{runs}: the same for the guard: {ms['guard_alone']:.1f} ms",
    )
    yield Result(
        "sandbox.seccomp_overhead",
        round(seccomp, 2),
        "ms",
        note=f"{runs}: the sandbox with the Unix-socket filter ({ms['sandbox']:.1f} ms) against without it "
        f"(allowAllUnixSockets, {ms['sandbox_no_filter']:.1f} ms)",
    )


def per_command_with_network() -> Iterator[Result]:
    missing = _missing("sandbox.bash_overhead_network")
    if missing is not None:
        yield missing
        return
    ms = _medians(("pypi.org",))
    yield Result(
        "sandbox.bash_overhead_network",
        round(ms["sandbox"] - ms["none"], 2),
        "ms",
        note=f"the same with network.allowedDomains set (the loopback bridge starts first and loads the filter in "
        f"the command's process): {ms['sandbox']:.1f} ms in the sandbox, {ms['none']:.1f} ms unconfined",
    )


def benchmarks() -> Iterator[Result]:
    return emit_all(per_command, per_command_with_network)


if __name__ == "__main__":
    run_alone(benchmarks)

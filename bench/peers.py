"""Peers side by side: Claude Code and pi (from npm), timed the way agentui is, in the same run.

    python -m bench.peers --install   # npm install them into bench/.peers (needs the npm registry)
    python -m bench --peers           # every benchmark, then the peers that are installed

"Ready" is the first screen: for agentui its prompt, for Claude Code its welcome line (here, with no network and no
account, it shows that and exits), for pi its banner. Memory is read at that moment.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import (
    Result,
    agentui_bin,
    clean_env,
    emit,
    home_and_project,
    percentile,
    run_alone,
    tree_rss_mb,
)
from bench.terminal import Terminal

PEERS_DIR = Path(__file__).with_name(".peers")
PACKAGES = {"claude": "@anthropic-ai/claude-code", "pi": "@mariozechner/pi-coding-agent"}
FIRST_SCREEN = {"agentui": "Ask for something", "claude": "Welcome to Claude Code", "pi": "pi v"}
RUNS = 5


CLAUDE_KEY = "sk-ant-bench-0000000000000000000000"


def claude_at_its_prompt(home: Path, project: Path, server_url: str) -> dict[str, str]:
    """The environment in which Claude Code reaches its real prompt offline: its config in `home` says onboarding is
    done, the bench's API key approved and `project` trusted; the model server is `server_url` (loopback)."""
    import json

    config = {
        "hasCompletedOnboarding": True,
        "numStartups": 5,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [CLAUDE_KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True, "allowedTools": []}},
    }
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / ".claude.json").write_text(json.dumps(config))
    env = clean_env(home, ANTHROPIC_BASE_URL=server_url, ANTHROPIC_API_KEY=CLAUDE_KEY, DISABLE_AUTOUPDATER="1")
    env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    return env


def install() -> None:
    PEERS_DIR.mkdir(exist_ok=True)
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(PEERS_DIR), *PACKAGES.values()], check=True
    )


def installed() -> dict[str, str]:
    found = {}
    for name in PACKAGES:
        local = PEERS_DIR / "node_modules" / ".bin" / name
        path = str(local) if local.exists() else shutil.which(name)
        if path:
            found[name] = path
    return found


def time_program(
    name: str, command: list[str], home: Path, project: Path
) -> tuple[list[float], list[float], list[float]]:
    """--version times, first-screen times and RSS at the first screen."""
    env = clean_env(home)
    versions = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run([command[0], "--version"], env=env, capture_output=True, check=False, timeout=60)
        versions.append(time.perf_counter() - started)
    ready, memory = [], []
    for _ in range(RUNS):
        # (a shell stays behind a program that exits after its first screen, so the screen can still be read)
        terminal = Terminal(f"sh -c '{' '.join(command)}; sleep 30'", env, project)
        try:
            # Memory is sampled while waiting, and the most seen kept: Claude Code (offline) exits soon after its
            # first screen, before a reading taken afterwards could find it.
            peak, deadline = 0.0, time.perf_counter() + 30
            while FIRST_SCREEN[name] not in terminal.screen():
                peak = max(peak, tree_rss_mb(terminal.pid))
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"{name} never showed {FIRST_SCREEN[name]!r}:\n{terminal.screen()}")
                time.sleep(0.002)
            ready.append(time.perf_counter() - terminal.started)
            memory.append(max(peak, tree_rss_mb(terminal.pid)))
        finally:
            terminal.close()
    return versions, ready, memory


def benchmarks() -> Iterator[Result]:
    peers = installed()
    if not peers:
        print("# no peers installed (python -m bench.peers --install)")
        return
    with tempfile.TemporaryDirectory() as scratch:
        home, project = home_and_project(Path(scratch))
        script = Path(scratch) / "script.json"
        script.write_text('[{"text": "hi"}]')
        programs = {
            "agentui": [agentui_bin(), "--provider", "scripted", "--script", str(script)],
            **{name: [path] for name, path in peers.items()},
        }
        timings = {name: time_program(name, command, home, project) for name, command in programs.items()}
    base = {
        kind: percentile(values, 0.5)
        for kind, values in zip(("version", "ready", "rss"), timings["agentui"], strict=True)
    }
    for name in peers:
        for kind, values, unit in zip(("version", "ready", "rss"), timings[name], ("s", "s", "MB"), strict=True):
            value = percentile(values, 0.5)
            ratio = base[kind] / value if value else float("nan")
            yield emit(
                Result(
                    f"peer.{name}.{kind}",
                    round(value, 3),
                    unit,
                    n=len(values),
                    peer=f"agentui {base[kind]:.3g} {unit} (×{ratio:.2f} of {name})",
                    note="first screen, timed the same way for both" if kind == "ready" else "",
                )
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.peers")
    parser.add_argument("--install", action="store_true", help="npm install the peers into bench/.peers first")
    if parser.parse_args().install:
        install()
    run_alone(benchmarks)

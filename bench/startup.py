"""Start-up: the app ready in a real terminal (and its memory then), `agentui --version`, `import agentui.core`, and
`agentui -p` to its first byte of output against a model server on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import (
    Result,
    agentui_bin,
    clean_env,
    emit_all,
    home_and_project,
    print_run,
    run_alone,
    summary,
    tree_rss_mb,
    warm_bytecode,
)
from bench.terminal import Terminal

READY_TEXT = "Ask for something"
RUNS = 10


def version() -> Result:
    binary = agentui_bin()
    with tempfile.TemporaryDirectory() as home:
        env = clean_env(Path(home))
        samples = []
        for _ in range(RUNS):
            started = time.perf_counter()
            subprocess.run([binary, "--version"], env=env, check=True, capture_output=True)
            samples.append(time.perf_counter() - started)
    return summary("startup.version", samples, "s", target=0.05, target_text="≤ 0.05 s")


def import_core() -> Result:
    code = "import time; t = time.perf_counter(); import agentui.core; print(time.perf_counter() - t)"
    with tempfile.TemporaryDirectory() as home:
        env = clean_env(Path(home))
        samples = [
            float(
                subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
            )
            for _ in range(RUNS)
        ]
    return summary("startup.import_core", samples, "s", target=0.1, target_text="≤ 0.1 s")


def ready() -> Iterator[Result]:
    """From launching `agentui` in tmux to its prompt on screen; the memory it holds then."""
    binary = agentui_bin()
    samples, memory = [], []
    with tempfile.TemporaryDirectory() as scratch:
        home, project = home_and_project(Path(scratch))
        script = Path(scratch) / "script.json"
        script.write_text(json.dumps([{"text": "hi"}]))
        env = clean_env(home)
        for _ in range(RUNS):
            terminal = Terminal(f"{binary} --provider scripted --script {script}", env, project)
            try:
                samples.append(terminal.wait_for(READY_TEXT))
                time.sleep(0.3)  # what it holds once settled, not mid-start
                memory.append(tree_rss_mb(terminal.pid))
            finally:
                terminal.close()
    yield summary("startup.ready", samples, "s", target=0.40, target_text="≤ 0.40 s")
    yield summary("memory.ready_rss", [m / 1 for m in memory], "MB", target=80, target_text="≤ 80 MB")


def print_first_byte() -> Result:
    """`agentui -p` from launch to its first byte on stdout, the answer coming from a server on loopback."""
    from tests.support.loopback import LoopbackServer

    server = LoopbackServer()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            home, project = home_and_project(Path(scratch))
            env = clean_env(home, ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="x")
            samples = [print_run(server, env, project, "Hello there.", 4)[1] for _ in range(RUNS)]
    finally:
        server.close()
    return summary("startup.print_first_byte", samples, "s", note="launch to the first answer byte on stdout")


def benchmarks() -> Iterator[Result]:
    warm_bytecode()
    yield from emit_all(version, import_core, ready, print_first_byte)


if __name__ == "__main__":
    run_alone(benchmarks)

"""Grep over a generated tree of 20 000 files / 200 MB: agentui's Grep tool with ripgrep against plain `rg` run the
same way (the ratio is what counts), and the pure-Python engine against the same `rg`.

    python -m bench.grep
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, percentile, run_alone

FILES = 20_000
FILE_BYTES = 10_000  # 20 000 × 10 KB = 200 MB
RUNS = 5
QUERIES = {
    # name: (pattern, files that contain it)
    "rare": ("needle_[0-9]+_found", 20),
    "common": ("TODO\\(perf\\)", 2_000),
}


def make_tree(root: Path) -> None:
    """Source-like files in nested packages, a .gitignore'd build directory, and the patterns sown in known files."""
    rng = random.Random(7)
    words = ["request", "response", "handler", "render", "items", "config", "value", "result", "client", "cache"]
    lines = [f"    {rng.choice(words)}_{n} = {rng.choice(words)}({rng.choice(words)}, {n})\n" for n in range(400)]
    body = "".join(lines)
    (root / ".gitignore").write_text("build/\n")
    for n in range(FILES):
        directory = root / f"pkg{n % 40}" / f"mod{n % 500 // 40}"
        directory.mkdir(parents=True, exist_ok=True)
        start = (n * 37) % (len(body) - FILE_BYTES - 200)
        text = f"def function_{n}():\n" + body[start : start + FILE_BYTES - 100]
        if n % (FILES // QUERIES["rare"][1]) == 0:
            text += f"\n# needle_{n}_found\n"
        if n % (FILES // QUERIES["common"][1]) == 1:
            text += "\n# TODO(perf): cache this\n"
        (directory / f"file_{n}.py").write_text(text)
    build = root / "build"
    build.mkdir()
    (build / "generated.py").write_text("# needle_0_found TODO(perf)\n")  # ignored: never reported


def plain_rg(rg: str, root: Path, pattern: str) -> tuple[float, int]:
    started = time.perf_counter()
    out = subprocess.run(
        [rg, "--files-with-matches", "--hidden", "--no-require-git", "--glob", "!.git", "--regexp", pattern],
        cwd=root,
        capture_output=True,
        check=False,
    ).stdout
    return time.perf_counter() - started, len(out.splitlines())


def tool_grep(tool, ws, root: Path, pattern: str) -> tuple[float, int]:
    from agentui.core.tools.base import ToolContext

    args = tool.Args.model_validate({"pattern": pattern})
    ctx = ToolContext(cwd=root, session_id="bench", tool_call_id="toolu_1", checked_path=root)
    started = time.perf_counter()
    result = asyncio.run(tool.run(args, ctx))
    elapsed = time.perf_counter() - started
    return elapsed, int(result.details["numFiles"])


def grep() -> Iterator[Result]:
    from agentui.core.tools.grep import Grep
    from agentui.core.tools.search import ripgrep_path
    from agentui.core.workspace import Workspace

    rg = ripgrep_path()
    if rg is None:
        raise SystemExit("ripgrep is needed for the Grep benchmark (pip install ripgrep, or apt-get install ripgrep)")
    version = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        started = time.perf_counter()
        make_tree(root)
        built = time.perf_counter() - started
        ws = Workspace(root=root)
        engines = {"ripgrep": Grep(ws, use_ripgrep=True), "python": Grep(ws, use_ripgrep=False)}
        for name, (pattern, expected) in QUERIES.items():
            plain_rg(rg, root, pattern)  # warm the page cache
            rg_times, tool_times, py_times = [], [], []
            for _ in range(RUNS):
                elapsed, found = plain_rg(rg, root, pattern)
                assert found == expected, (name, found)
                rg_times.append(elapsed)
                elapsed, found = tool_grep(engines["ripgrep"], ws, root, pattern)
                assert found == expected, (name, found)
                tool_times.append(elapsed)
            for _ in range(1):  # (seconds each: one run says enough)
                elapsed, found = tool_grep(engines["python"], ws, root, pattern)
                assert found == expected, (name, "python", found)
                py_times.append(elapsed)
            rg_p50, tool_p50, py_p50 = (percentile(t, 0.5) for t in (rg_times, tool_times, py_times))
            ratio = tool_p50 / rg_p50
            yield Result(
                f"grep.{name}.ripgrep",
                round(ratio, 3),
                "× rg",
                n=RUNS,
                p50=round(tool_p50, 4),
                p95=round(percentile(tool_times, 0.95), 4),
                target="≤ 1.1× plain rg",
                met=ratio <= 1.1,
                peer=f"plain rg {rg_p50:.3f} s",
                note=f"{expected:,} of {FILES:,} files match; {version}",
                extra={"tree_build_s": round(built, 1)},
            )
            yield Result(
                f"grep.{name}.python",
                round(py_p50 / rg_p50, 2),
                "× rg",
                n=len(py_times),
                p50=round(py_p50, 4),
                target="report",
                peer=f"plain rg {rg_p50:.3f} s",
                note="the pure-Python engine, for machines without rg",
            )


def benchmarks() -> Iterator[Result]:
    return emit_all(grep)


if __name__ == "__main__":
    run_alone(benchmarks)

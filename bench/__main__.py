"""`python -m bench`: every benchmark, one JSON line per result on stdout, and bench/RESULTS.md rewritten with the
table (the notes below the table are kept: they record what was changed to meet each target).

    python -m bench                 # everything (a few minutes)
    python -m bench startup grep    # some of them
    python -m bench --peers         # also time the peers installed by `python -m bench.peers --install`
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

from bench.common import Result, machine

GROUPS = [
    "startup",
    "dispatch",
    "permissions",
    "sandbox",
    "sessions",
    "grep",
    "streaming",
    "memory",
    "context",
    "resume",
    "keys",
    "keys_late",
    "file_history",
    "attempts",
    "evaluation",
    "compaction_topics",
    "search",
]
RESULTS = Path(__file__).with_name("RESULTS.md")
NOTES_MARK = "<!-- notes: kept when the table is rewritten -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "groups", nargs="*", metavar="group", help=f"which benchmarks: {', '.join(GROUPS)} (default: all)"
    )
    parser.add_argument("--peers", action="store_true", help="also run installed peers side by side")
    parser.add_argument("--no-write", action="store_true", help="print the lines only; leave RESULTS.md alone")
    args = parser.parse_args(argv)
    if unknown := [group for group in args.groups if group not in [*GROUPS, "peers"]]:
        parser.error(f"no benchmark group {', '.join(unknown)}; the groups are {', '.join(GROUPS)} and peers")
    chosen = (args.groups or GROUPS) + (["peers"] if args.peers and "peers" not in args.groups else [])
    results: list[Result] = []
    started = time.perf_counter()
    for group in chosen:
        module = importlib.import_module(f"bench.{group}")
        results += list(module.benchmarks())
    elapsed = time.perf_counter() - started
    print(f"# {len(results)} results in {elapsed:.0f} s", file=sys.stderr)
    if not args.no_write:
        rows = {result.name: _row(result) for result in results}
        previous = _previous_rows()
        kept = {name: row for name, row in previous.items() if name not in rows}
        # Rows of groups not run this time (the peers, say) stay, marked as older in the header.
        write(
            [*rows.values(), *kept.values()] if set(chosen) >= set(GROUPS) else list({**previous, **rows}.values()),
            elapsed,
            groups=chosen,
            partial=bool(kept),
        )
    return 0


def _row(result: Result) -> str:
    value = f"{result.value:.3g} {result.unit}"
    spread = (
        f" (p95 {result.p95:.3g})" if result.p95 is not None and f"{result.p95:.3g}" != f"{result.value:.3g}" else ""
    )
    met = {True: "✅", False: "❌", None: "—"}[result.met]
    cells = [f"`{result.name}`", result.target or "report", f"{value}{spread}", met, result.peer, result.note]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _previous_rows() -> dict[str, str]:
    rows: dict[str, str] = {}
    if RESULTS.exists():
        for line in RESULTS.read_text().splitlines():
            if line.startswith("| `"):
                rows[line.split("`")[1]] = line
    return rows


def write(rows: list[str], elapsed: float, *, groups: list[str], partial: bool = False) -> None:
    notes, runs = "", []
    if RESULTS.exists():
        old = RESULTS.read_text()
        if NOTES_MARK in old:
            notes = old.split(NOTES_MARK, 1)[1]
        runs = [line for line in old.split(NOTES_MARK, 1)[0].splitlines() if line.startswith(("- Run", "- Updated"))]
    about = machine()
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if partial and runs:  # the earlier full run stays described; this one is added below it
        run_lines = [*runs, f"- Updated {now}: {', '.join(groups)} ({elapsed:.0f} s)"]
    else:
        run_lines = [f"- Run: {now}, {elapsed:.0f} s"]
    header = [
        "# Benchmark results",
        "",
        "Written by `python -m bench` (one JSON line per result on stdout as well). Timings are medians of several",
        "runs on a shared machine; the ratios against a peer run in the same process are the steadier figures.",
        "",
        f"- Machine: {about['machine']}; {about['os']}; Python {about['python']}",
        f"- Versions: {about['versions']}",
        *run_lines,
        "",
        "| Benchmark | Target | Result | Met | Peer, same run | Notes |",
        "|---|---|---|---|---|---|",
    ]
    RESULTS.write_text("\n".join(header + rows) + "\n\n" + NOTES_MARK + (notes or "\n"))


if __name__ == "__main__":
    raise SystemExit(main())

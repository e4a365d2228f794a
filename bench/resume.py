"""Resuming a long session in a real terminal (tmux): `--resume` of a 2,000-turn, ~21 MB session until its latest
prompt is on screen (and memory then, and once the whole session has loaded), then PageUp back through it: every key
timed until the screen changes. Claude Code runs the same file beside it when installed (`python -m bench.peers
--install`), with a model server on loopback so that it reaches its real prompt."""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench import gc_watch
from bench.common import Result, agentui_bin, clean_env, emit, home_and_project, percentile, run_alone, tree_rss_mb
from bench.terminal import Terminal
from tests.support.long_session import TURNS, write_long_session

SESSION_ID = "5e551000-0000-4000-8000-000000000001"
LATEST = f"prompt {TURNS - 1}:"
RUNS = 3
PAGES_AT_MOST = 5000
"""PageUp presses timed after a resume, each a page further back (older parts are drawn as they are reached), until
the session's first prompt is on screen; a ceiling for a run that is broken."""
FIRST_PROMPT = re.compile(r"█ prompt 0: make")
"""The first prompt of the session, as the transcript draws it (the status bar names the session by it too)."""


def _sanitized(path: Path) -> str:
    from agentui.api import canonical, sanitize

    return sanitize(canonical(path))


def _agentui(home: Path, project: Path) -> tuple[str, dict[str, str]]:
    env = clean_env(home, OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="bench", OPENAI_MODEL="m")
    return f"{agentui_bin()} --resume {SESSION_ID}", env


def resume_once(
    command: str,
    env: dict[str, str],
    project: Path,
    *,
    to_first: bool = False,
    at_end: Callable[[], object] | None = None,
) -> tuple[float, float, float, list[float]]:
    """Seconds until the latest prompt is on screen, RSS then and two seconds later (MB), and (`to_first`) the
    latency of each PageUp back to the first prompt (seconds until the screen changed); `at_end` is called before
    the program ends."""
    terminal = Terminal(command, env, project)
    try:
        shown = terminal.wait_for(LATEST, timeout=120)
        rss = tree_rss_mb(terminal.pid)
        time.sleep(2)  # the whole session loads meanwhile (agentui: on a worker thread)
        settled = tree_rss_mb(terminal.pid)
        latencies = []
        before = terminal.screen()
        while to_first and not FIRST_PROMPT.search(before) and len(latencies) < PAGES_AT_MOST:
            started = time.perf_counter()
            terminal.keys("PPage")
            deadline = started + 5
            while (now := terminal.screen()) == before and time.perf_counter() < deadline:
                time.sleep(0.001)
            latencies.append(time.perf_counter() - started)
            before = now
        if to_first and not FIRST_PROMPT.search(before):
            latencies.append(float("inf"))  # (never reached: the row fails)
        if at_end is not None:
            at_end()
        return shown, rss, settled, latencies
    finally:
        terminal.close()


HELD = 20
"""PageUps sent at 30 a second, as a held key repeats, against as many sent one at a time."""


def _top_prompt(screen: str) -> int | None:
    found = re.search(r"prompt (\d+):", screen)
    return int(found.group(1)) if found else None


def _settled(terminal: Terminal, ceiling: float = 15) -> str:
    """The screen once it has not changed for half a second (or at the ceiling)."""
    deadline, screen, since = time.perf_counter() + ceiling, terminal.screen(), time.perf_counter()
    while time.perf_counter() < deadline and time.perf_counter() - since < 0.5:
        time.sleep(0.02)
        if (now := terminal.screen()) != screen:
            screen, since = now, time.perf_counter()
    return screen


def _back(top: int | None) -> int:
    """Turns back from the latest, for the first prompt on screen."""
    return TURNS - 1 - (TURNS - 1 if top is None else top)


TRIALS = 3
"""Slow and held runs each, from the end of the same terminal: a turn's place on screen after a page key depends on
which older parts were drawn by then, so one run differs from the next by a turn or two either way."""


def held_pageups(command: str, env: dict[str, str], project: Path) -> tuple[int, int]:
    """How many turns back `HELD` PageUps reach sent one at a time (each once the screen has moved), and sent at
    30 a second from the end again, not waiting: the median of `TRIALS` of each."""
    terminal = Terminal(command, env, project)
    slow: list[int] = []
    held: list[int] = []
    try:
        terminal.wait_for(LATEST, timeout=120)
        time.sleep(2)  # (the whole session loads meanwhile)
        for _ in range(TRIALS):
            for _ in range(HELD):
                before = terminal.screen()
                terminal.keys("PPage")
                deadline = time.perf_counter() + 5
                while terminal.screen() == before and time.perf_counter() < deadline:
                    time.sleep(0.002)
            slow.append(_back(_top_prompt(_settled(terminal))))
            terminal.keys("C-End")
            terminal.wait_for(LATEST)
            _settled(terminal)
            for _ in range(HELD):
                terminal.keys("PPage")
                time.sleep(1 / 30)
            held.append(_back(_top_prompt(_settled(terminal))))
            terminal.keys("C-End")
            terminal.wait_for(LATEST)
            _settled(terminal)
        return sorted(slow)[TRIALS // 2], sorted(held)[TRIALS // 2]
    finally:
        terminal.close()


def benchmarks() -> Iterator[Result]:
    from bench.peers import claude_at_its_prompt, installed

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch:  # (a peer may write as it ends)
        home, project = home_and_project(Path(scratch))
        path = home / ".claude" / "projects" / _sanitized(project) / f"{SESSION_ID}.jsonl"
        size = write_long_session(path, SESSION_ID, project)
        command, env = _agentui(home, project)
        runs = [resume_once(command, env, project) for n in range(RUNS)]
        # PageUp back through it, in a run of its own that notes the app's garbage collections as they happen.
        watched = gc_watch.Watched(Path(scratch), env)
        latencies = resume_once(
            f"{watched.command} --resume {SESSION_ID}", watched.env, project, to_first=True, at_end=watched.ask
        )[3]
        shown = sorted(run[0] for run in runs)
        peer_note, peer_shown = "", None
        claude = installed().get("claude")
        if claude:
            from tests.support.loopback import LoopbackServer

            server = LoopbackServer()
            try:
                claude_env = claude_at_its_prompt(home, project, server.url)
                peer = [resume_once(f"{claude} --resume {SESSION_ID}", claude_env, project) for _ in range(RUNS)]
            finally:
                server.close()
            peer_shown = sorted(run[0] for run in peer)[RUNS // 2]
            peer_note = f"Claude Code {peer_shown:.2f} s, {sorted(run[1] for run in peer)[RUNS // 2]:.0f} MB"
        median = shown[RUNS // 2]
        ratio = f"; ×{median / peer_shown:.2f} of Claude Code" if peer_shown else ""
        yield emit(
            Result(
                "app.resume_2000_turns",
                median,
                "s",
                n=RUNS,
                p95=shown[-1],
                target="≤ 1 s and ≤ 0.5× Claude Code's",
                met=median <= 1.0 and (peer_shown is None or median <= 0.5 * peer_shown),
                peer=peer_note,
                note=f"{size / 1e6:.0f} MB, {TURNS:,} turns: launch to the latest prompt on screen{ratio}",
            )
        )
        memory, first = max(run[2] for run in runs), max(run[1] for run in runs)
        yield emit(
            Result(
                "app.resume_2000_turns_rss",
                memory,
                "MB",
                n=RUNS,
                target="≤ 300 MB",
                met=memory <= 300,
                note=f"with the whole session loaded; {first:.0f} MB when the latest prompt showed",
            )
        )
        yield emit(
            Result(
                "app.pageup_back_through_2000_turns",
                percentile(latencies, 0.5) * 1000,
                "ms",
                n=len(latencies),
                p95=percentile(latencies, 0.95) * 1000,
                target="every key ≤ 100 ms, median ≤ 50 ms",
                met=max(latencies) <= 0.1 and percentile(latencies, 0.5) <= 0.05,
                note=f"{len(latencies):,} PageUps from the end to the first prompt, each timed until the screen "
                f"changed; slowest {max(latencies) * 1000:.0f} ms",
            )
        )
        during = f"PageUp from the end of a resumed {TURNS:,}-turn session to its first prompt"
        yield emit(watched.row("app.gc_full_pageup_2000_turns", during))
        slow, held = held_pageups(command, env, project)
        yield emit(
            Result(
                "app.pageup_held_30hz",
                held / slow if slow else 0.0,
                "× slow",
                n=TRIALS,
                target="≥ 0.95× (as far as slow presses)",
                met=slow > 0 and held >= 0.95 * slow,
                note=f"{HELD} PageUps at 30 Hz reach {held:,} turns back; one at a time, {slow:,} "
                f"(medians of {TRIALS})",
            )
        )


if __name__ == "__main__":
    run_alone(benchmarks)

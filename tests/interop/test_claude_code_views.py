"""The real Claude Code's own screens, in tmux, on sessions agentui wrote: its `--resume` picker lists them with their
titles, and its transcript view shows their tool results as it shows the same calls in a session it wrote itself."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.test_tui_tmux import Terminal
from tests.interop.test_round_trips import World, press_until, results_seen, text, tool

PROMPTS = {"agentui": "read calc, by agentui", "claude": "read calc, by claude"}


def trusting(world: World) -> None:
    """Claude Code's own state for this home: set up, the project trusted, the loopback key approved (its first-run
    screens would stand in front of the ones the test looks at)."""
    key = world.env["ANTHROPIC_API_KEY"]
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {str(world.project): {"hasTrustDialogAccepted": True, "allowedTools": []}},
    }
    for where in (world.home / ".claude.json", world.home / ".claude" / ".claude.json"):
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(json.dumps(state))


def transcript(screen: str, prompt: str) -> list[str]:
    """The lines of Claude Code's detailed transcript after the prompt, without the time and model stamps."""
    lines = screen.splitlines()
    start = next(n for n, line in enumerate(lines) if prompt in line) + 1
    kept = []
    for line in lines[start:]:
        if line.startswith("──"):
            break
        if line.strip() and not re.search(r"\d\d:\d\d [AP]M", line) and "could not be restored" not in line:
            kept.append(line.rstrip())
    return kept


def test_claude_code_lists_and_shows_agentui_sessions_as_its_own(world: World) -> None:
    root = world.project
    turns = [
        [tool("r1", "Read", file_path=str(root / "calc.py"))],
        [tool("b1", "Bash", command="echo one; echo two", description="Two lines")],
        [text("Read and ran.")],
    ]
    world.play(lambda body: turns[min(results_seen(body), len(turns) - 1)])
    trusting(world)
    ids = {}
    for maker, prompt in PROMPTS.items():
        done = world.run(maker, prompt, "--allowedTools", "Read,Bash(echo:*)")
        ids[maker] = json.loads(done.stdout)["session_id"]
    claude = world.bins["claude"]

    picker = Terminal(f"{claude} --resume", world.env, world.project)
    try:
        picker.wait_for("Resume session")
        # Listed by its title. (Claude Code's own -p session is not: its picker hides sessions it wrote for scripts,
        # whose lines say entrypoint sdk-cli, and agentui's say cli.)
        screen = picker.wait_for(PROMPTS["agentui"])
        assert PROMPTS["claude"] not in screen
    finally:
        picker.close()

    views = {}
    for maker, session_id in ids.items():
        view = Terminal(f"{claude} --resume {session_id}", world.env, world.project)
        try:
            view.wait_for("Read and ran.")
            screen = press_until(view, "C-o", "Showing detailed transcript")
            views[maker] = transcript(screen, PROMPTS[maker])
        finally:
            view.close()
    assert views["agentui"] == views["claude"], (views["agentui"], views["claude"])
    assert any("Read 3 lines" in line for line in views["agentui"])  # (Claude Code counts the final line break)


async def test_claude_code_lists_a_session_of_agentui_s_app(world: World, tmp_path: Path) -> None:
    from agentui.frontends.tui.widgets.transcript import AssistantText
    from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until

    harness = Harness(tmp_path, [{"text": "Answered in the app."}])  # (the same project as the world's)
    harness.env.update(HOME=str(world.home), CLAUDE_CONFIG_DIR=str(world.home / ".claude"))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "a question asked in the app")
        await until(pilot, lambda: idle(app) and any(a.finished for a in texts(app, AssistantText)))
    trusting(world)
    picker = Terminal(f"{world.bins['claude']} --resume", world.env, world.project)
    try:
        picker.wait_for("Resume session")
        picker.wait_for("a question asked in the app")
    finally:
        picker.close()

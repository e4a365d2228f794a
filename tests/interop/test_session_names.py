"""A session named with /rename in agentui's app is the one Claude Code 2.1.197 resumes by that name: `claude -p
--resume "<name>"` looks the name up among the sessions' `custom-title` lines, and carries the conversation on (the
`world` fixture then has claude-code-log and ccusage read every session written)."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.test_tui_tmux import Terminal
from tests.interop.test_round_trips import World, last_prompt, text


def test_claude_code_resumes_a_session_renamed_in_the_app_by_its_name(world: World, agentui_bin: str) -> None:
    def turn(body: dict[str, Any]) -> list[dict[str, Any]]:
        said = last_prompt(body)
        return [text("Noted: walrus.")] if "walrus" in said else [text(f"You asked me to remember: {said}")]

    world.play(turn)
    terminal = Terminal(agentui_bin, {**world.env, "TERM": "xterm-256color"}, world.project, size=(100, 30))
    try:
        terminal.wait_for("Ask for something")
        terminal.type("remember the word walrus")
        terminal.keys("Enter")
        terminal.wait_for("Noted: walrus.")
        terminal.type("/rename Walrus day")
        terminal.keys("Enter")
        terminal.wait_for("Session renamed to: Walrus day")
        terminal.quit()
    finally:
        terminal.close()
    [session] = list((world.home / ".claude" / "projects").glob("*/*.jsonl"))
    world.server.requests.clear()
    done = world.run("claude", "which word was it?", "--resume", "Walrus day")
    assert json.loads(done.stdout)["session_id"] == session.stem  # the session it found by its name
    resumed = next(r.json() for r in world.server.requests if "tools" in r.json())
    assert "remember the word walrus" in json.dumps(resumed["messages"])  # with the conversation before

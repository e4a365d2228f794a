"""Keys typed into the prompt as a question appears (a permission question, the trust question at start-up), in a
real terminal: they stay the prompt's and answer nothing (a `y` of a word being typed approved the command before)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from agentui.core.safety.trust import is_trusted
from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

TYPIST = {"AGENTUI_TYPING_HOLD": "3600"}
"""This test's typist, between two tmux commands on a loaded machine, can pause longer than the half second a person's
pause is: its keys are held however slowly they come (what a pause lets through is the Pilot tests' business)."""

PACE = 0.05
"""Seconds between the typist's words: 80 keys a second, several times a fast person's. A loop of tmux commands alone
sends hundreds a second for as long as the question takes: on a loaded machine the app, its prompt one ever longer
line, fell behind them, and the request waited behind the keys (a minute, once)."""


def type_until(terminal: Terminal, text: str, what: str) -> None:
    """Type a word of y's at a time, as the typist above, until `text` is on the screen."""
    deadline = time.monotonic() + 60
    while text not in terminal.screen():
        assert time.monotonic() < deadline, f"{what} never appeared"
        terminal.type("yay ")
        time.sleep(PACE)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_keys_typed_as_a_permission_question_appears_go_on_into_the_prompt_and_answer_nothing(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    bash = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "touch approved.txt"}}
    server.enqueue(  # (slowly: the question appears while the person is still typing)
        Reply(
            chunks=anthropic_stream([{"type": "text", "text": "Running it."}, bash], stop_reason="tool_use"), delay=0.2
        )
    )
    terminal = Terminal(agentui_bin, app_env(clean_env, server, **TYPIST), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("make the file")
        terminal.keys("Enter")
        type_until(terminal, "Yes, once", "the question")  # typing ahead as the question appears
        terminal.type("yes-yay")  # (one word: not wrapped in two at the prompt's edge)
        screen = terminal.wait_for("What you were typing")
        assert "Yes, once" in screen  # (still asking)
        terminal.keys("Escape")  # (No, at once)
        terminal.wait_gone("Yes, once")
        screen = terminal.wait_for("yes-yay")  # what was typed is in the prompt, to send or not
        assert not (project / "approved.txt").exists()
        assert len(server.requests) == 1  # (a plain No ends the turn)
    finally:
        terminal.close()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_typing_at_once_at_start_up_does_not_trust_the_project(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    """The trust question appears as the app opens, while the person may already be typing their first prompt: a
    `y` of it would have trusted the project (and its hooks)."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    hook = {"hooks": [{"type": "command", "command": "touch hooked.txt"}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [hook]}}))
    env = app_env(clean_env, server, AGENTUI_DATA_DIR=str(tmp_path / "data"), **TYPIST)  # (the trust list's there)
    terminal = Terminal(agentui_bin, env, project, size=size)
    try:
        type_until(terminal, "Do you trust this folder?", "the trust question")
        terminal.type("yes-yay")
        screen = terminal.wait_for("What you were typing")
        assert "Do you trust this folder?" in screen
        terminal.keys("Escape")  # (not now)
        terminal.wait_gone("Do you trust this folder?")
        terminal.wait_for("yes-yay")
        assert not is_trusted(project.resolve(), env)
        assert not (project / "hooked.txt").exists()
    finally:
        terminal.close()

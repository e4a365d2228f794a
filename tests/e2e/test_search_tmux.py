"""The /resume picker's full-text search in a real terminal at 80x24 and 120x40: the installed `agentui` in tmux
against the loopback Messages API; the ceilings only end a broken run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def _text(text: str, message_id: str) -> Reply:
    block = {"type": "text", "text": text}
    return Reply(chunks=anthropic_stream([block], stop_reason="end_turn", message_id=message_id))


@pytest.mark.parametrize("size", SIZES)
def test_tab_in_the_picker_finds_an_answer_and_enter_resumes_there(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(_text("The walrus operator came in 3.8.", "msg_first"))
    server.enqueue(_text("Later words.", "msg_second"))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("which version")
        terminal.keys("Enter")
        terminal.wait_for("came in 3.8")
        terminal.type("and after that")
        terminal.keys("Enter")
        terminal.wait_for("Later words.")
        terminal.type("/clear")
        terminal.keys("Enter")
        terminal.wait_for("New session started")
        terminal.type("/resume")
        terminal.keys("Enter")
        terminal.wait_for("Resume a session")
        terminal.keys("Tab")
        terminal.wait_for("Search the text")
        terminal.type("walr")
        terminal.wait_for("· answer ·")  # the hit, its answer's words shown
        terminal.keys("Enter")
        terminal.wait_gone("Search the text")
        terminal.wait_for("came in 3.8")
        terminal.wait_for("Resumed which version")
        assert "Later words." not in terminal.screen()  # resumed at the answer found, not at the session's end
        terminal.quit()
    finally:
        terminal.close()

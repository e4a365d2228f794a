"""/profile and the context advisory in a real terminal at 80x24 and 120x40: the installed `agentui` in tmux against
the loopback Messages API. The ceilings only end a broken run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def _answer(text: str, input_tokens: int) -> Reply:
    usage = {"input_tokens": input_tokens, "output_tokens": 100}
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}], usage=usage, model="claude-sonnet-4-5"))


def _flat(screen: str) -> str:
    return " ".join(screen.split())


@pytest.mark.parametrize("size", SIZES)
def test_profile_shows_the_averages_and_keeps_standing_instructions_for_the_next_request(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(_answer("All tidy.", 130_000))  # 65% of claude-sonnet-4-5's 200,000
    server.enqueue(_answer("Checked.", 1_000))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("tidy up")
        terminal.keys("Enter")
        terminal.wait_for("All tidy.")
        terminal.wait_for("65% full")
        terminal.type("/profile")
        terminal.keys("Enter")
        screen = terminal.wait_for("instructions: none")
        assert "claude-sonnet-4-5: 130,100 tokens" in _flat(screen)
        terminal.type("/profile Run make check first.")
        terminal.keys("Enter")
        terminal.wait_for("instructions set")
        terminal.type("check it")
        terminal.keys("Enter")
        terminal.wait_for("Checked.")
        assert "Run make check first." in json.dumps(server.requests[1].json()["system"])
        assert "Run make check first." not in json.dumps(server.requests[0].json()["system"])
        terminal.quit()
    finally:
        terminal.close()

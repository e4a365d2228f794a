"""/context, /status and /doctor in a real terminal at 80x24 and 120x40: the installed `agentui` in tmux against the
loopback Messages API. Each test asserts on the screen and on what the model server received; the ceilings only end
a broken run."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

MODELS = Reply(chunks=[b'{"data": [{"id": "claude-sonnet-4-5"}], "has_more": false}'], content_type="application/json")


def _answer(text: str, input_tokens: int) -> Reply:
    usage = {"input_tokens": input_tokens, "output_tokens": 100}
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}], usage=usage))


def _flat(screen: str) -> str:
    """The screen's words in one line: a sentence wrapped at the edge reads whole."""
    return " ".join(screen.split())


@pytest.mark.parametrize("size", SIZES)
def test_context_after_a_turn_draws_the_grid_and_agrees_with_the_status_bar(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(_answer("All tidy.", 30_000))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("tidy up")
        terminal.keys("Enter")
        terminal.wait_for("All tidy.")
        terminal.wait_for("context 15%")  # 30,100 tokens of claude-sonnet-4-5's 200,000
        terminal.type("/context")
        terminal.keys("Enter")
        screen = terminal.wait_for("Autocompact buffer")
        assert "Context Usage" in screen and "claude-sonnet-4-5" in screen
        assert "30.1k/200k tokens (15%)" in screen and "context 15%" in screen
        for part in ("System prompt:", "System tools:", "Messages:", "Free space: 149.9k (75.0%)"):
            assert part in screen, screen
        assert "Autocompact buffer: 20k tokens (10.0%)" in screen
        rows = [line for line in screen.splitlines() if re.match(r"\s*[⛁⛀⛶⛝]( [⛁⛀⛶⛝]){9}", line)]
        assert len(rows) == 10, screen  # the grid: ten rows of ten cells, the buffer's in the last
        assert rows[-1].split()[:10] == ["⛝"] * 10 and "⛶" in rows[1]
        assert all(len(line) <= size[0] for line in screen.splitlines())
        assert len(server.requests) == 1  # /context asks the model nothing
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_status_shows_the_session_model_server_and_settings(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text('{"permissions": {"deny": ["Read(.env)"]}}')
    (project / "CLAUDE.md").write_text("Be brief.\n")
    server.enqueue(_answer("Hello.", 2_000))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("hello")
        terminal.keys("Enter")
        terminal.wait_for("Hello.")
        terminal.type("/status")
        terminal.keys("Enter")
        screen = terminal.wait_for("Tokens")
        flat = _flat(screen)
        assert re.search(r"Session ID +[0-9a-f-]{36}", screen), screen
        assert "Model claude-sonnet-4-5" in flat and f"Provider anthropic · {server.url}" in flat
        assert "Permission mode default" in flat
        assert "Setting sources Project local settings (.claude/settings.local.json)" in flat
        assert "Memory files CLAUDE.md" in flat and "MCP servers none" in flat
        assert "Tokens 2,000 in (0 cache read, 0 cache write), 100 out" in flat
        assert len(server.requests) == 1
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_doctor_checks_the_setup_and_asks_the_model_server_with_the_key(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(MODELS)
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("/doctor")
        terminal.keys("Enter")
        screen = terminal.wait_for("Token counts")
        flat = _flat(screen)
        assert "✓ agentui:" in flat and "ripgrep:" in flat and "Sandbox:" in flat
        assert "✓ Settings: no settings files" in flat
        assert f"✓ Model server: anthropic at {server.url} answers." in flat
        [request] = server.requests
        assert (request.method, request.path) == ("GET", "/v1/models?limit=1")
        assert request.headers["x-api-key"] == "x"
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_doctor_names_a_broken_settings_file_and_a_model_server_that_is_down(
    agentui_bin: str, clean_env: dict[str, str], project: Path, size: tuple[int, int]
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    down = f"http://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()  # (nothing listens there: the connection is refused)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash(ls)"],}}')
    env = {**clean_env, "ANTHROPIC_BASE_URL": down, "ANTHROPIC_API_KEY": "x", "TERM": "xterm-256color"}
    terminal = Terminal(agentui_bin, env, project, size=size)
    try:
        terminal.wait_for("valid JSON")  # (the error on opening: the conversation cannot open)
        terminal.type("/doctor")
        terminal.keys("Enter")
        screen = terminal.wait_for("Token counts")
        flat, squeezed = _flat(screen), "".join(screen.split())
        problems = [line.split()[:2] for line in screen.splitlines() if line.strip().startswith("✗")]
        assert problems == [["✗", "Settings:"], ["✗", "Model"]], screen
        assert "✗ Settings: The settings file" in flat, screen
        assert f"{project}/.claude/settings.jsonisnotvalidJSON(line1,column40" in squeezed  # (the path wraps whole)
        assert f"✗ Model server: anthropic at {down} cannot be reached" in flat
        if size[1] >= 40:
            assert "Doctor 2 problems, 0 warnings" in flat
        terminal.quit()
    finally:
        terminal.close()

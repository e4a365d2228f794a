"""The prompt's modes in a real terminal at 80x24 and 120x40: vim mode editing a prompt and sending it, Ctrl+G handing
the terminal to a real $EDITOR script, and Alt+T and `ultrathink` reaching the model server's requests. The installed
`agentui` in tmux against the loopback Messages API; the ceilings only end a broken run."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.listings import without_listings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def _text(text: str) -> Reply:
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}]))


def _prompt_text(request: Any) -> str:
    """What the last user message of `request` says."""
    content = request.json()["messages"][-1]["content"]
    blocks = [] if isinstance(content, str) else without_listings(content)
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in blocks if b["type"] == "text")


@pytest.mark.parametrize("size", SIZES)
def test_vim_mode_edits_a_prompt_and_sends_it(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(_text("Sent as edited."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("/vim")
        terminal.keys("Enter")
        terminal.wait_for("Editor mode set to vim")
        terminal.wait_for("-- INSERT --")
        settings = Path(clean_env["HOME"]) / ".claude" / "settings.json"
        assert json.loads(settings.read_text()) == {"editorMode": "vim"}
        terminal.type("hello wrld")
        terminal.keys("Escape")
        terminal.wait_gone("-- INSERT --")
        terminal.type("bli")  # back a word, right one, insert
        terminal.wait_for("-- INSERT --")
        terminal.type("o")
        terminal.keys("Escape")
        terminal.wait_gone("-- INSERT --")
        terminal.type("0cw")  # the first word changed
        terminal.wait_for("-- INSERT --")
        terminal.type("Hi")
        terminal.keys("Escape")
        terminal.wait_gone("-- INSERT --")
        terminal.type("A")
        terminal.wait_for("-- INSERT --")
        terminal.type("!")
        terminal.keys("Escape")
        terminal.wait_for("Hi world!")
        terminal.keys("Enter")  # sends from NORMAL mode
        terminal.wait_for("Sent as edited.")
        assert _prompt_text(server.requests[-1]) == "Hi world!"
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_ctrl_g_hands_the_terminal_to_the_editor_and_takes_back_its_text(
    agentui_bin: str,
    clean_env: dict[str, str],
    server: LoopbackServer,
    project: Path,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    server.enqueue(_text("Got the edited prompt."))
    had_terminal = tmp_path / "had-terminal"
    editor = tmp_path / "editor.sh"
    editor.write_text(
        "#!/bin/sh\n"
        f'if [ -t 0 ] && [ -t 1 ]; then echo yes > "{had_terminal}"; fi\n'
        'sed -i "s/rough draft/polished request/" "$1"\n'
    )
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    env = app_env(clean_env, server, EDITOR=str(editor), VISUAL="")
    terminal = Terminal(agentui_bin, env, project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("a rough draft")
        terminal.wait_for("a rough draft")
        terminal.keys("C-g")
        terminal.wait_for("a polished request")
        assert had_terminal.read_text() == "yes\n"  # the editor had the terminal, not a pipe
        assert "rough draft" not in terminal.screen()
        terminal.keys("Enter")
        terminal.wait_for("Got the edited prompt.")
        assert _prompt_text(server.requests[-1]) == "a polished request"
        assert not list(Path(clean_env.get("TMPDIR", "/tmp")).glob("agentui-run-*/agentui-edit-*"))
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_alt_t_and_ultrathink_reach_the_models_requests(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(_text("Answer one."), _text("Answer two."), _text("Answer three."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("plain question")
        terminal.keys("Enter")
        terminal.wait_for("Answer one.")
        terminal.keys("M-t")
        terminal.wait_for("Thinking on (8,000 tokens a request)")
        terminal.wait_for("· thinking")  # (the status bar, once the notice has gone)
        terminal.type("thoughtful question")
        terminal.keys("Enter")
        terminal.wait_for("Answer two.")
        terminal.keys("M-t")
        terminal.wait_for("Thinking off")
        terminal.type("ultrathink about this")
        terminal.wait_for("ultrathink: the most thinking for this prompt")
        terminal.keys("Enter")
        terminal.wait_for("Answer three.")
        first, second, third = (request.json() for request in server.requests)
        assert "thinking" not in first
        assert second["thinking"] == {"type": "enabled", "budget_tokens": 8000}
        assert third["thinking"] == {"type": "enabled", "budget_tokens": 31999} and third["max_tokens"] == 32000
        terminal.quit()
    finally:
        terminal.close()

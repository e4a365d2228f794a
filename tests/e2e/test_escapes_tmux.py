"""Escape sequences in what the app shows reach the terminal only as visible text: a Bash command's output and the
model's streamed answer carry OSC 2 (set the title), as ESC and as the C1 control U+009D, and tmux's pane title stays
as it was while the sequences are drawn as `\\x1b`, `\\x9d`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_day_tmux import _reply, _text, _tool
from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.loopback import LoopbackServer

COMMAND = r"printf 'out \033]2;PWNED\033\\ done\n'; printf 'c1 \302\235]2;CPWNED\302\234 end\n'"
"""Output with a title sequence as ESC ] ... ESC \\ and as the C1 controls U+009D ... U+009C."""

ANSWER = "Finished \x1b]2;APWNED\x1b\\ and \x1b[2J cleared nothing."


def _title(terminal: Terminal) -> str:
    return terminal._tmux("display-message", "-p", "-t", "main", "#{pane_title}").strip()


def test_escape_sequences_in_output_and_answer_are_shown_not_obeyed(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(
        _reply(_tool("b1", "Bash", command=COMMAND, description="Print"), stop="tool_use"),
        _reply(_text(ANSWER)),
    )
    env = app_env(clean_env, server)
    terminal = Terminal(f"{agentui_bin} --allowedTools Bash", env, project)
    try:
        terminal.wait_for("Ask for something")
        before = _title(terminal)
        terminal.type("print something")
        terminal.keys("Enter")
        screen = terminal.wait_for("cleared nothing.")  # (the answer comes after the command's output)
        assert "PWNED" not in _title(terminal), f"the output retitled the pane: {_title(terminal)!r}"
        assert _title(terminal) == before
        # The sequences are on the screen as text, each control as \xNN.
        assert r"out \x1b]2;PWNED\x1b\ done" in screen
        assert r"c1 \x9d]2;CPWNED\x9c end" in screen
        assert r"Finished \x1b]2;APWNED\x1b\ and \x1b[2J cleared nothing." in screen
        terminal.quit()
    finally:
        terminal.close()
    # What the model was sent is the output as it was.
    sent = json.dumps([request.json() for request in server.requests])
    assert json.dumps("out \x1b]2;PWNED\x1b\\ done")[1:-1] in sent

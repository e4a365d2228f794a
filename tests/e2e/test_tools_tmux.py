"""Claude Code's interactive tools in a real terminal: the installed `agentui` in tmux against the loopback Messages
API. In plan mode the model asks a question (answered with a number key) and presents its plan (approved with 1:
edits accepted from then on); then a long command runs in the foreground, Ctrl+B sends it to the background, and
/tasks lists it with its output, where k stops it."""

from __future__ import annotations

import time
from pathlib import Path

from tests.core.tools.test_bash import processes_with
from tests.e2e.test_day_tmux import _reply, _text, _tool
from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.loopback import LoopbackServer

QUESTION = {
    "question": "Which greeting should the file hold?",
    "header": "Greeting",
    "options": [
        {"label": "Hello", "description": "the plain one"},
        {"label": "Good morning", "description": "for early risers"},
    ],
    "multiSelect": False,
}
PLAN = "# Greeting plan\n\n1. Write **greeting.txt** with the chosen greeting\n2. Start the ticker\n"
TICKER = "for i in $(seq 1 100000); do echo tick $i; sleep 0.2137; done"  # (0.2137: this test's own sleeps)


def _results(server: LoopbackServer) -> dict[str, object]:
    """Every tool result the model was sent, by call id."""
    found: dict[str, object] = {}
    for request in server.requests:
        for message in request.json()["messages"]:
            content = message["content"]
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result":
                    found[block["tool_use_id"]] = block["content"]
    return found


def test_questions_plan_approval_ctrl_b_and_the_background_panel(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(
        _reply(_tool("q1", "AskUserQuestion", questions=[QUESTION]), stop="tool_use"),
        _reply(_tool("p1", "ExitPlanMode", plan=PLAN), stop="tool_use"),
        _reply(_tool("w1", "Write", file_path="greeting.txt", content="Good morning\n"), stop="tool_use"),
        _reply(_tool("b1", "Bash", command=TICKER, description="Tick"), stop="tool_use"),
        _reply(_text("The ticker runs in the background.")),
    )
    env = app_env(clean_env, server)
    terminal = Terminal(f"{agentui_bin} --permission-mode plan", env, project)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("write a greeting, then start a ticker")
        terminal.keys("Enter")
        screen = terminal.wait_for("Other: type an answer")  # (the options are drawn last)
        assert "Which greeting should the file hold?" in screen and "2. Good morning" in screen
        terminal.keys("2")
        screen = terminal.wait_for("No, keep planning")  # (the choices come after the plan)
        assert "approve it?" in screen and "Greeting plan" in screen and "Yes, and accept the edits" in screen
        terminal.keys("1")
        terminal.wait_for("Permission mode: acceptEdits")
        terminal.wait_for("Yes, once")  # (a loop over a substitution is more than agentui runs without a question)
        terminal.keys("y")
        terminal.wait_for("tick 3")
        assert (project / "greeting.txt").read_text() == "Good morning\n"  # written without a question
        terminal.keys("C-b")
        terminal.wait_for("The ticker runs in the background.")

        terminal.type("/tasks")
        terminal.keys("Enter")
        screen = terminal.wait_for("Background tasks")
        assert "(running)" in screen and "Tick: for i in" in screen
        terminal.wait_for("tick 1")  # its output so far
        terminal.keys("k")
        terminal.wait_for("(killed")
        terminal.keys("Escape")
        terminal.wait_gone("Background tasks")
        terminal.quit()
    finally:
        terminal.close()

    results = _results(server)
    assert '"Which greeting should the file hold?"="Good morning"' in str(results["q1"])
    assert str(results["p1"]).startswith("User has approved your plan.")
    assert str(results["b1"]).startswith("The user sent this command to the background")
    deadline = time.monotonic() + 60  # (k stopped it; the ceiling only ends a broken run)
    while processes_with("0.2137") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with("0.2137") == []

"""A day's work in a real terminal: the installed `agentui` in tmux against the loopback Messages API, driven
through what issue 14 found wrong (each step names its item) and every key `/help` lists; then `--continue` the
next morning. Each step waits for what the screen must show; the ceilings only end a broken run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def _reply(*blocks: dict[str, object], stop: str = "end_turn") -> Reply:
    return Reply(chunks=anthropic_stream(list(blocks), stop_reason=stop))


def _tool(call_id: str, name: str, **arguments: object) -> dict[str, object]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def _text(text: str) -> dict[str, object]:
    return {"type": "text", "text": text}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / ".claude").mkdir()
    (root / ".claude" / "notes.md").write_text("a hidden file whose path also contains cal\n")
    return root


def test_a_day_of_work_in_the_app(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    todos = [{"content": "fix add", "status": "in_progress", "activeForm": "Fixing add"}]
    items = "\n".join(f"item {n}" for n in range(1, 31))
    server.enqueue(
        _reply(
            _text("A plan first."),
            _tool("t1", "TodoWrite", todos=todos),
            _tool("r1", "Read", file_path="calc.py"),
            stop="tool_use",
        ),
        _reply(_tool("e1", "Edit", file_path="calc.py", old_string="a - b", new_string="a + b"), stop="tool_use"),
        _reply(_tool("b1", "Bash", command="echo one && touch made.txt && echo two"), stop="tool_use"),
        _reply(_text(f"Fixed. The checks:\n{items}\n\n```sh\npython -m pytest\n```")),
        _reply(_tool("b2", "Bash", command="rm -rf build"), stop="tool_use"),  # denied, with a reason
        _reply(_text("Leaving build alone.")),
        _reply(_tool("b3", "Bash", command="echo started && sleep 60"), stop="tool_use"),  # interrupted by Esc
        _reply(_text("Summary: add was fixed; build was left alone.")),  # /compact's summary
    )
    env = app_env(clean_env, server)
    terminal = Terminal(agentui_bin, env, project)
    try:
        terminal.wait_for("Ask for something")
        # 1: typed fast and sent at once, a command runs what was typed, not a completion from a moment before
        terminal.type("/cost")
        terminal.keys("Enter")
        terminal.wait_for("This session: 0 input")
        terminal.type("/memory")
        terminal.keys("Enter")
        terminal.wait_for("No memory files are loaded")
        # the day's request: a task list, an edit (answered "always"), a command, a long answer
        terminal.type("fix add in calc.py")
        terminal.keys("Enter")
        screen = terminal.wait_for("Yes, once")
        # 13: the question numbers the diff with the file's own lines and says what the call does
        assert "Edit wants to modify calc.py" in screen and re.search(r"2\s*-\s*return a - b", screen)
        terminal.keys("a")
        terminal.wait_for("Saved to .claude/settings.local.json")  # 7
        screen = terminal.wait_for("Yes, once")
        assert "touch made.txt" in screen
        terminal.keys("y")
        screen = terminal.wait_for("python -m pytest")
        # 4: the diff, the command's output and the task list are on screen without opening anything
        screen = terminal.wait_for("item 30")
        assert re.search(r"^\s*item 29\s*$", screen, re.M) and re.search(r"^\s*item 30\s*$", screen, re.M)  # 8
        assert "Tasks 0/1" in screen and "fix add" in screen
        assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        # 2: PageUp and PageDown scroll the transcript from the prompt; Ctrl+Home and Ctrl+End, top and end
        terminal.keys("PPage")
        up = terminal.wait_for("+ b")
        assert "return a + b" in up and "changed: +1 −1" in up  # 4: the diff, inline
        terminal.keys("C-Home")
        terminal.wait_for("type a request; /help")
        terminal.keys("C-End")
        terminal.wait_for("item 30")
        # 3: after Tab moves focus to the blocks, typing still goes to the prompt, and Esc brings focus back
        terminal.keys("Tab")
        terminal.type("zq")
        terminal.wait_for("zq")
        terminal.keys("C-u")
        # Ctrl+O copies the last answer, and again its code block
        terminal.keys("C-o")
        terminal.wait_for("Copied the last answer")
        terminal.keys("C-o")
        terminal.wait_for("Copied code block 1 of 1")
        # 10: a denial with a reason shows the person's words in full; 11: sent while scrolled up, the prompt's
        # question and answer are in view without End
        terminal.keys("PPage")
        terminal.wait_gone("item 30")
        terminal.type("clean the build")
        terminal.keys("Enter")
        terminal.wait_for("Yes, once")
        terminal.keys("Tab")
        terminal.type("not today, the release build is in there")
        terminal.keys("Enter")
        screen = terminal.wait_for("Leaving build alone.")
        assert "you said: not today, the release build is in there" in " ".join(screen.split()), screen
        assert "doesn't want to proceed" not in screen
        # 15: Esc on a running command keeps what it printed, and says "Interrupted" once
        terminal.type("start the server")
        terminal.keys("Enter")
        terminal.wait_for("  started")  # (echo and sleep need no permission)
        terminal.keys("Escape")
        screen = terminal.wait_for("Interrupted.")
        assert "started" in screen and screen.count("Interrupted") == 1, screen
        # 6: a shell command of the person's own: a block, once, and no tags
        terminal.type("!echo from-the-shell")
        terminal.keys("Enter")
        screen = terminal.wait_for("from-the-shell", timeout=30)
        screen = terminal.wait_for("1 line of output")
        assert "<bash-" not in screen
        # #note, then /memory lists the file
        terminal.type("#use four spaces")
        terminal.keys("Enter")
        terminal.wait_for("Added to")
        assert "- use four spaces" in (project / "CLAUDE.md").read_text()
        # 12: @ completion ranks the file whose name starts with what was typed first; Tab takes it
        terminal.type("look at @cal")
        terminal.wait_for("@calc.py")
        terminal.keys("Tab")
        terminal.wait_for("look at @calc.py")
        terminal.keys("C-u")
        # 16: Shift+Tab leaves a line that says what the mode means
        terminal.keys("BTab")
        terminal.wait_for("Permission mode: acceptEdits — file edits in the project go ahead")
        # Ctrl+R searches earlier prompts; Ctrl+F finds in the transcript
        terminal.keys("C-r")
        terminal.wait_for("Search earlier prompts")
        terminal.type("fix")
        terminal.wait_for("│ fix add in calc.py")
        terminal.keys("Escape")  # (and the next key only once it is gone: Esc then a key at once is Alt+key)
        terminal.wait_gone("Search earlier prompts")
        terminal.keys("C-f")
        terminal.wait_for("Find")
        terminal.type("item 7")
        terminal.wait_for("Find: match 1 of")
        terminal.keys("Escape")
        terminal.wait_gone("Find: match")
        # 14: /export goes to the data directory, not the project
        terminal.type("/export")
        terminal.keys("Enter")
        screen = terminal.wait_for("Exported to")
        assert not list(project.glob("*.md")) or list(project.glob("*.md")) == [project / "CLAUDE.md"]
        # 9: /model shows which model (its picker marks it); /help lists every key this test has pressed
        terminal.type("/model")
        terminal.keys("Enter")
        terminal.wait_for("● claude-sonnet-4-5")
        terminal.keys("Escape")
        terminal.wait_gone("Choose a model")
        terminal.type("/help")
        terminal.keys("Enter")
        commands = terminal.wait_for("Quit agentui")  # the last row of the commands
        terminal.keys("PPage")  # the keys, above them
        above = terminal.wait_for("Shift+Tab")
        terminal.keys("PPage")  # (and their heading, above those: the commands list is long)
        help_screen = " ".join((terminal.wait_for("Keys") + above + commands).split())
        terminal.keys("C-End")
        for key in ("PageUp PageDown", "Ctrl+Home Ctrl+End", "Ctrl+O", "Ctrl+R", "Ctrl+F", "Ctrl+L", "Shift+Tab"):
            assert key in help_screen
        # 5: /compact, and the resumed session still shows every result with its details
        terminal.type("/compact")
        terminal.keys("Enter")
        terminal.wait_for("Conversation compacted")
        terminal.keys("C-l")  # Ctrl+L clears the view
        terminal.wait_for("Ask for something")
        terminal.quit()
    finally:
        terminal.close()

    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert settings["permissions"]["allow"]
    # The next morning: --continue; no trust question (7), the compacted session with its details (5)
    terminal = Terminal(f"{agentui_bin} --continue", env, project)
    try:
        screen = terminal.wait_for("Resumed")
        assert "not trusted" not in screen and "interactively once" not in screen
        terminal.keys("PPage")
        screen = terminal.wait_for("+     return a + b")  # the Edit's diff, kept through the compaction
        terminal.keys("PPage")
        screen = terminal.wait_for("Read  calc.py  — 2 lines")  # and the Read's count, not "0 lines"
        assert "changed: +1 −1" in screen
        terminal.quit()
    finally:
        terminal.close()

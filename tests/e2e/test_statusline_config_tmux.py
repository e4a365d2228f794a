"""The status line and /config in a real terminal, at 80x24 and 120x40: the installed `agentui` in tmux against the
loopback Messages API. A status-line script of the person's (Python, reading Claude Code's JSON on stdin) puts its
line on screen and follows the conversation; /config changes the theme and the permission mode, and the files say
so. Each step waits for what the screen must show; the ceilings only end a broken run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentui.core.session.paths import project_dir
from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

STATUS_SCRIPT = """\
import json, sys
d = json.load(sys.stdin)
open(sys.argv[1], "w").write(json.dumps(d))
used = d["context_window"]["used_percentage"]
shown = "-" if used is None else f"{used}%"
print(f"\\033[1;36m<{d['model']['display_name']}>\\033[0m ctx {shown} +{d['cost']['total_lines_added']}")
"""


def _claude_settings(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".claude" / "settings.json"


@pytest.mark.parametrize("size", SIZES)
def test_a_status_line_script_shows_its_line_and_follows_the_turn(
    agentui_bin: str,
    clean_env: dict[str, str],
    server: LoopbackServer,
    project: Path,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    script, told = tmp_path / "statusline.py", tmp_path / "told.json"
    script.write_text(STATUS_SCRIPT)
    env = app_env(clean_env, server)
    settings = _claude_settings(env)
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"statusLine": {"type": "command", "command": f"{sys.executable} {script} {told}"}}))
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "notes.txt", "content": "a\nb"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([write], stop_reason="tool_use", model="claude-sonnet-4-5")),
        Reply(
            chunks=anthropic_stream(
                [{"type": "text", "text": "Notes written."}],
                usage={"input_tokens": 50_000, "output_tokens": 40},
                model="claude-sonnet-4-5",
            )
        ),
    )
    terminal = Terminal(agentui_bin, env, project, size=size)
    try:
        terminal.wait_for("<Sonnet 4.5> ctx - +0")  # as the conversation opens, before any answer
        terminal.type("write the notes")
        terminal.keys("Enter")
        terminal.wait_for("Yes, once")
        terminal.keys("y")
        terminal.wait_for("Notes written.")
        screen = terminal.wait_for("<Sonnet 4.5> ctx 25% +2")  # the last answer's context, the lines written
        lines = screen.splitlines()
        [at] = [n for n, line in enumerate(lines) if "<Sonnet 4.5> ctx 25% +2" in line]
        assert "\x1b" not in lines[at] and "[1;36m" not in lines[at]  # drawn in colour, not as escapes
        assert "claude-sonnet-4-5" in "\n".join(lines[at + 1 :])  # the built-in bar stays, under it
        sent = server.requests[-1].json()
        assert sent["model"] == "claude-sonnet-4-5"
        assert any("write the notes" in json.dumps(m["content"]) for m in sent["messages"])
        session = json.loads(told.read_text())
        [transcript] = project_dir(project, {"HOME": env["HOME"]}).glob("*.jsonl")
        assert session["transcript_path"] == str(transcript) and session["session_id"] == transcript.stem
        assert session["workspace"]["project_dir"] == str(project)
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_config_changes_the_theme_and_the_permission_mode_and_saves_them(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    env = app_env(clean_env, server)
    settings = _claude_settings(env)
    settings.parent.mkdir(parents=True)
    theirs = {"permissions": {"deny": ["Read(./.env)"]}, "env": {"FOO": "bar"}}
    settings.write_text(json.dumps(theirs))
    config = Path(env["AGENTUI_CONFIG_DIR"]) / "config.json"
    terminal = Terminal(agentui_bin, env, project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("/config")
        terminal.keys("Enter")
        screen = terminal.wait_for("Default permission mode")
        for label in ("Theme", "agentui-dark", "Model", "claude-sonnet-4-5", "Auto-compact", "Verbose output"):
            assert label in screen, label
        assert "Esc closes" in screen  # the keys line fits, at 80x24 too
        terminal.keys("Enter")  # the theme, first: the next one
        terminal.wait_for("Theme set to")
        theme = json.loads(config.read_text())["theme"]
        assert theme != "agentui-dark"
        terminal.wait_for_line(rf"Theme\s+{theme[:15]}")
        terminal.keys("Down")
        terminal.keys("Space")
        terminal.wait_for("this session is in")
        terminal.wait_for_line(r"Default permission mode\s+acceptEdits")
        terminal.keys("Escape")
        terminal.wait_gone("Default permission mode")
        terminal.wait_for_line(r"· acceptEdits ·")  # the status bar: this session too
        assert json.loads(settings.read_text()) == {
            "permissions": {"deny": ["Read(./.env)"], "defaultMode": "acceptEdits"},
            "env": {"FOO": "bar"},
        }
        assert json.loads(config.read_text()) == {"theme": theme}
        terminal.quit()
    finally:
        terminal.close()

"""The app in a real terminal: tmux runs the installed `agentui` against the loopback Messages API server; a person
types a request, approves the edit with one key, sees the answer, quits, and the session is on disk."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from agentui.core.session.paths import project_dir
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sessions import claude_code_log_reads, lines
from tests.support.sse import anthropic_stream

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
"""The two terminal sizes the app is checked at end to end."""


class Terminal:
    """A tmux server of its own (its own socket), one window, read back with capture-pane."""

    def __init__(self, command: str, env: dict[str, str], cwd: Path, size: tuple[int, int] = (120, 40)) -> None:
        assert shutil.which("tmux"), "tmux is needed for this test (.ci/run installs it)"
        self.socket = f"agentui-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{key}={_quote(value)}" for key, value in env.items())
        script = f"cd {_quote(str(cwd))} && env -i {exports} {command}; echo EXIT=$?; sleep 30"
        width, height = size
        self._tmux("new-session", "-d", "-s", "main", "-x", str(width), "-y", str(height), script)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)

    def paste(self, text: str) -> None:
        """As a terminal pastes: bracketed, all at once."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, "load-buffer", "-b", "pasted", "-"], input=text.encode(), timeout=20
        )
        assert done.returncode == 0, "tmux could not take the text to paste"
        self._tmux("paste-buffer", "-p", "-d", "-b", "pasted", "-t", "main")

    def wait_for(self, text: str, timeout: float = 60) -> str:
        """The screen once `text` is on it, on one line or wrapped over several (where a line ends depends on the
        width and, for a path, on the temporary directory's name); the ceiling only ends a run that is broken."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen or text in " ".join(line.strip() for line in screen.splitlines()):
                return screen
            time.sleep(0.1)
        numbered = "\n".join(f"{n:2}|{line}" for n, line in enumerate(self.screen().splitlines()))
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{numbered}")

    def wait_for_line(self, pattern: str, timeout: float = 60) -> str:
        """The screen once a line of it matches the regular expression `pattern`."""
        compiled = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if any(compiled.search(line) for line in screen.splitlines()):
                return screen
            time.sleep(0.1)
        numbered = "\n".join(f"{n:2}|{line}" for n, line in enumerate(self.screen().splitlines()))
        raise AssertionError(f"no line matched {pattern!r}; the screen was:\n{numbered}")

    def wait_gone(self, text: str, timeout: float = 60) -> None:
        """Until `text` has left the screen."""
        deadline = time.monotonic() + timeout
        while text in self.screen():
            assert time.monotonic() < deadline, f"{text!r} stayed on the screen"
            time.sleep(0.1)

    def quit(self) -> None:
        """Ctrl+C twice, as a person quits, and until the app has exited cleanly."""
        self.keys("C-c")
        self.wait_for("Press Ctrl+C again to quit")
        self.keys("C-c")
        self.wait_for("EXIT=0")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)


def app_env(clean_env: dict[str, str], server: LoopbackServer, **extra: str) -> dict[str, str]:
    """The environment the installed app runs in against the loopback Messages API server."""
    return {
        **clean_env,
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "x",
        "TERM": "xterm-256color",
        "PATH": clean_env.get("PATH", "/usr/bin:/bin"),
        **extra,
    }


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "greeting.py").write_text('print("hello")\n')
    return root


def test_a_person_asks_approves_an_edit_sees_the_answer_and_quits(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    read = {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": "greeting.py"}}
    edit = {
        "type": "tool_use",
        "id": "toolu_edit",
        "name": "Edit",
        "input": {"file_path": "greeting.py", "old_string": "hello", "new_string": "hello, world"},
    }
    server.enqueue(
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Let me look first."}, read], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Now the change."}, edit], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "All done: the greeting now says **hello, world**."}])),
    )
    env = app_env(clean_env, server, AGENTUI_LOG=str(project.parent / "agentui.log"))
    terminal = Terminal(agentui_bin, env, project)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("greet the whole world")
        terminal.keys("Enter")
        modal = terminal.wait_for("Yes, once")
        assert "Edit wants to modify greeting.py" in modal and "hello, world" in modal
        terminal.keys("y")
        terminal.wait_for("All done: the greeting now says")
        answer = terminal.wait_for("changed: +1 −1")  # the screen settles a frame or two later
        assert "Edit  greeting.py" in answer
        assert (project / "greeting.py").read_text() == 'print("hello, world")\n'
        terminal.quit()
    finally:
        terminal.close()

    [session] = project_dir(project, {"HOME": env["HOME"]}).glob("*.jsonl")
    written = lines(session)
    assert [
        e["message"]["content"] for e in written if e["type"] == "user" and isinstance(e["message"]["content"], str)
    ] == ["greet the whole world"]
    calls = [
        e["message"]["content"][0]["name"]
        for e in written
        if e["type"] == "assistant" and e["message"]["content"][0]["type"] == "tool_use"
    ]
    assert calls == ["Read", "Edit"]
    assert written[-2]["message"]["content"][0]["text"].startswith("All done")  # then the title line
    assert json.loads(server.requests[2].body)["messages"][-1]["content"][0]["tool_use_id"] == "toolu_edit"
    claude_code_log_reads(session)


CRASHING = """
import sys
from agentui import cli
from agentui.frontends.tui.screens.main import MainScreen

def clear_view(self):  # an internal error on a key, as a bug would make one
    raise ValueError("the view would not clear")

MainScreen.action_clear_view = clear_view
sys.exit(cli.main([]))
"""


@pytest.mark.parametrize("logged", [False, True])
def test_an_internal_error_ends_the_app_with_one_sentence_and_no_traceback(
    clean_env: dict[str, str], tmp_path: Path, logged: bool
) -> None:
    script = tmp_path / "crashing.py"
    script.write_text(CRASHING)
    log = tmp_path / "agentui.log"
    env = {**clean_env, "TERM": "xterm-256color", **({"AGENTUI_LOG": str(log)} if logged else {})}
    terminal = Terminal(f"{sys.executable} {script}", env, tmp_path)
    try:
        terminal.wait_for("Ask for something")
        terminal.keys("C-l")
        screen = terminal.wait_for("EXIT=1")
    finally:
        terminal.close()
    where = "see the log" if logged else "run with --debug"
    sentence = f"agentui: agentui stopped after an internal error (ValueError: the view would not clear); {where}"
    assert sentence in " ".join(screen.split())  # (the terminal may wrap the sentence)
    assert "Traceback" not in screen and "clear_view" not in screen
    if logged:  # the details are in the log, not on the screen
        assert "clear_view" in log.read_text() and "ValueError: the view would not clear" in log.read_text()

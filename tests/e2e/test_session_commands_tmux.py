"""The everyday commands of "the app for a day's work, round two" in a real terminal, at 80x24 and at 120x40: the
installed `agentui` in tmux against the loopback Messages API. /model (its picker and an alias, and the model the
next request names), /agents (a refused name, then a type created and offered to the model), /add-dir (refused for
a file and for /, then a directory the model reads without a question), /rename (the status bar and the session
file) and /copy (what reaches the terminal's clipboard)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def text_reply(text: str) -> Reply:
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}]))


def conversation_requests(server: LoopbackServer) -> list[dict[str, Any]]:
    """The bodies of the requests the conversation made (side calls, such as titles, carry no tools)."""
    return [r.json() for r in server.requests if "tools" in r.json()]


@pytest.fixture
def app(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, request: pytest.FixtureRequest
) -> Iterator[Terminal]:
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=request.param)
    try:
        terminal.wait_for("Ask for something")
        yield terminal
    finally:
        terminal.close()


def send(terminal: Terminal, text: str) -> None:
    terminal.type(text)
    terminal.keys("Enter")


@pytest.mark.parametrize("app", SIZES, indirect=True)
def test_model_picks_an_alias_and_the_next_request_names_its_model(app: Terminal, server: LoopbackServer) -> None:
    server.responder = lambda request: text_reply("Done.")
    send(app, "/model")
    screen = app.wait_for("Choose a model")
    assert "opusplan" in screen and "● claude-sonnet-4-5" in screen
    app.keys("Home", "Down", "Down", "Enter")  # default → sonnet → opus
    app.wait_for("Model set to opus (claude-opus-4-8)")
    app.wait_for_line(r"^ opus \(claude-opus-4-8\) · ")  # the status bar
    send(app, "hello")
    app.wait_for("Done.")
    assert conversation_requests(server)[-1]["model"] == "claude-opus-4-8"
    send(app, "/model haiku")
    app.wait_for("Model set to haiku (claude-haiku-4-5-20251001)")
    send(app, "again")
    app.wait_for_line(r"^ haiku \(claude-haiku-4-5-20251001\) · ")
    wait_until(lambda: len(conversation_requests(server)) == 2)
    assert conversation_requests(server)[-1]["model"] == "claude-haiku-4-5-20251001"


@pytest.mark.parametrize("app", SIZES, indirect=True)
def test_agents_refuses_a_name_with_a_slash_then_creates_a_type_the_model_is_offered(
    app: Terminal, server: LoopbackServer, project: Path
) -> None:
    server.responder = lambda request: text_reply("Done.")
    send(app, "/agents")
    screen = app.wait_for("general-purpose")
    assert "built-in" in screen
    app.keys("n")
    app.wait_for("A new agent type")
    app.type("../sneaky")
    app.keys("Tab")
    app.type("Runs the tests")
    app.keys("Tab")
    app.type("Bash, Read")
    app.keys("Tab", "Tab", "Tab")  # (the model: none; the location: this project; then the prompt)
    app.type("Run the tests and say what failed.")
    app.keys("C-s")
    app.wait_for("cannot name an agent type")
    assert not (project / ".claude").exists()
    app.keys("Tab", "C-u")  # from the prompt round to the name (Shift+Tab is the permission mode's), and clear it
    app.type("test-runner")
    app.wait_for("test-runner")  # (in the name field before it is saved: once, in CI, the save saw it empty)
    app.keys("C-s")
    app.wait_for("Saved the test-runner agent")
    app.keys("Escape")
    app.wait_gone("n new")
    written = (project / ".claude" / "agents" / "test-runner.md").read_text()
    assert written.startswith('---\nname: "test-runner"\ndescription: "Runs the tests"\ntools: Bash, Read\n---\n')
    send(app, "hi")
    app.wait_for("Done.")
    [agent_tool] = [t for t in conversation_requests(server)[-1]["tools"] if t["name"] == "Agent"]
    assert "- test-runner: Runs the tests (Tools: Bash, Read)" in agent_tool["description"]


@pytest.mark.parametrize("app", SIZES, indirect=True)
def test_add_dir_refuses_a_file_and_the_root_then_the_model_reads_the_directory_without_asking(
    app: Terminal, server: LoopbackServer, project: Path
) -> None:
    other = project.parent / "other"
    other.mkdir()
    (other / "notes.txt").write_text("kept-in-other\n")
    (project.parent / "a-file.txt").write_text("x\n")
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": str(other / "notes.txt")}}
    server.enqueue(
        Reply(chunks=anthropic_stream([read], stop_reason="tool_use")),
        text_reply("It says kept-in-other."),
    )
    send(app, "/add-dir ../a-file.txt")
    app.wait_for("is not a directory")
    send(app, "/add-dir /")
    app.wait_for("it is the whole file system")
    send(app, "/add-dir ../other")
    screen = app.wait_for("Yes, and remember this directory")
    assert "Add directory to workspace" in screen
    app.keys("1")
    app.wait_for("as a working directory for this session")
    send(app, "read the notes")
    app.wait_for("It says kept-in-other.")
    assert "Yes, once" not in app.screen()  # (no question: the directory is a working directory now)
    results = [
        block
        for message in conversation_requests(server)[-1]["messages"]
        for block in (message["content"] if isinstance(message["content"], list) else [])
        if block.get("type") == "tool_result"
    ]
    assert "kept-in-other" in json.dumps(results) and not results[0].get("is_error")


@pytest.mark.parametrize("app", SIZES, indirect=True)
def test_rename_names_the_session_on_the_status_bar_and_in_its_file(
    app: Terminal, server: LoopbackServer, clean_env: dict[str, str]
) -> None:
    server.responder = lambda request: text_reply("Done.")
    send(app, "/rename")
    app.wait_for("Say the session's name")
    send(app, "hello")
    app.wait_for("Done.")
    send(app, "/rename Day two")
    app.wait_for("Session renamed to: Day two")
    app.wait_for_line(r"· Day two\s*$")  # the status bar's end
    sessions = list((Path(clean_env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl"))
    [titled] = [s for s in sessions if '"custom-title"' in s.read_text()]
    lines = [json.loads(line) for line in titled.read_text().splitlines()]
    assert [e["customTitle"] for e in lines if e.get("type") == "custom-title"] == ["Day two"]


@pytest.mark.parametrize("app", SIZES, indirect=True)
def test_copy_puts_the_last_answer_on_the_terminals_clipboard(app: Terminal, server: LoopbackServer) -> None:
    app._tmux("set-option", "-g", "set-clipboard", "on")  # (tmux keeps what the app copies with OSC 52 as a buffer)
    server.responder = lambda request: text_reply("Run `make test` first.")
    send(app, "/copy")
    app.wait_for("There is no answer to copy yet.")
    send(app, "what first?")
    app.wait_for("first.")
    send(app, "/copy")
    app.wait_for("Copied to the clipboard: the last answer (1 line).")
    wait_until(lambda: buffer(app) == "Run `make test` first.")


def buffer(terminal: Terminal) -> str:
    done = subprocess.run(
        ["tmux", "-L", terminal.socket, "show-buffer"], capture_output=True, text=True, timeout=20, check=False
    )
    return done.stdout


def wait_until(condition: Any, ceiling: float = 60) -> None:
    """Until `condition()` holds; the ceiling only ends a run that is broken."""
    deadline = time.monotonic() + ceiling
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.1)

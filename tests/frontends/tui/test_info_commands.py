"""/context, /status and /doctor in the app, driven by Pilot: the context's parts add up to what the status bar
shows, the status names what is in force, and the doctor finds a broken settings file and a model server that is
down or hangs, without holding up the screen (Esc stops it)."""

from __future__ import annotations

import io
import json
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from agentui.core import doctor
from agentui.core.run_options import ModelOptions
from agentui.core.settings import Settings
from agentui.frontends.tui.app import AgentApp
from agentui.frontends.tui.widgets.context_view import ContextView
from agentui.frontends.tui.widgets.report_view import DoctorView, StatusView
from agentui.frontends.tui.widgets.transcript import AssistantText, Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.support.loopback import LoopbackServer, Reply

MCP_SERVER = str(Path(__file__).resolve().parents[2] / "support" / "mcp_server.py")


def text_of(drawn: RenderableType, width: int = 77) -> str:
    """What a view draws, as plain text at the transcript's width in an 80-column terminal."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(drawn)
    return console.export_text()


def with_window(harness: Harness, window: int = 200_000) -> Harness:
    """The harness's model with a known context window (the scripted model's is unknown)."""
    settings = Settings(provider="scripted", model="scripted", options=ModelOptions(context_window=window))
    harness.launch = replace(harness.launch, settings=settings)
    return harness


def with_mcp(harness: Harness) -> None:
    """One MCP server that connects (tiny: seven tools) and one that fails."""
    claude = Path(harness.env["CLAUDE_CONFIG_DIR"])
    claude.mkdir(parents=True, exist_ok=True)
    servers = {
        "tiny": {"command": sys.executable, "args": [MCP_SERVER]},
        "broken": {"command": sys.executable, "args": [MCP_SERVER, "crash"]},
    }
    (claude / ".claude.json").write_text(json.dumps({"mcpServers": servers}))


def mcp_settled(app: AgentApp) -> bool:
    conversation = app.conversation
    return (
        conversation is not None
        and conversation.mcp is not None
        and all(server.state != "starting" for server in conversation.mcp.servers)
    )


async def test_context_after_a_turn_adds_up_to_the_status_bars_count_and_names_each_part(tmp_path: Path) -> None:
    harness = with_window(
        Harness(tmp_path, [{"text": "Done.", "usage": {"input_tokens": 30_000, "output_tokens": 120}}])
    )
    (harness.project / "CLAUDE.md").write_text("Use tabs for indentation.\n" * 40)
    agents = harness.project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\nname: reviewer\ndescription: Reviews a change for bugs\n---\nReview.\n")
    with_mcp(harness)
    app = harness.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: mcp_settled(app))
        await type_and_send(pilot, "tidy up")
        await until(pilot, lambda: idle(app) and app.status.status.context_percent is not None)
        await type_and_send(pilot, "/context")
        [view] = texts(app, ContextView)
        breakdown = view.breakdown
        assert app.conversation is not None
        assert breakdown.measured and breakdown.used == app.conversation.agent.context_tokens == 30_120
        assert sum(part.tokens for part in breakdown.parts) == breakdown.used  # the parts add up to the total
        assert breakdown.used + breakdown.buffer + (breakdown.free or 0) == breakdown.window == 200_000
        assert breakdown.buffer == 20_000  # compaction at 90%: the last 10% is its buffer
        kinds = [part.kind for part in breakdown.parts]
        assert kinds == ["system_prompt", "system_tools", "mcp_tools", "agents", "memory", "messages"]
        [memory] = breakdown.memory_files
        assert memory.path == harness.project / "CLAUDE.md" and memory.tokens > 200
        assert [agent.name for agent in breakdown.agents] == ["reviewer"]
        assert {tool.name for tool in breakdown.mcp_tools} >= {"mcp__tiny__add", "mcp__tiny__shout"}
        drawn = text_of(view.drawn)
        percent = f"{app.status.status.context_percent:.0f}%"  # as the status bar says it
        assert f"30.1k/200k tokens ({percent})" in drawn and f"context {percent}" in str(app.status.render())
        for line in ("System prompt:", "System tools:", "MCP tools:", "Custom agents:", "Memory files:", "Messages:"):
            assert line in drawn, drawn
        assert "Free space: 149.9k (74.9%)" in drawn and "Autocompact buffer: 20k tokens (10.0%)" in drawn
        assert "└ CLAUDE.md: " in drawn and "reviewer: " in drawn and "mcp__tiny__add: " in drawn
        grid = [line[:20] for line in drawn.splitlines()[1:11]]
        assert all(len(line.split()) == 10 for line in grid), drawn  # ten rows of ten cells beside the legend
        assert grid[-1].split() == ["⛝"] * 10 and grid[0].startswith("⛀ ⛁ ")
        assert max(len(line) for line in drawn.splitlines()) <= 77


async def test_context_before_any_answer_counts_what_the_first_request_will_carry(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])  # the scripted model: its window is unknown
    app = harness.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/context all")  # (an argument it does not take is ignored)
        [view] = texts(app, ContextView)
        breakdown = view.breakdown
        assert not breakdown.measured and breakdown.window is None and breakdown.free is None
        assert sum(part.tokens for part in breakdown.parts) == breakdown.used > 1000
        assert "the model's window is unknown" in text_of(view.drawn)


async def test_context_where_the_server_counts_less_than_the_estimate_still_adds_up(tmp_path: Path) -> None:
    harness = with_window(Harness(tmp_path, [{"text": "ok", "usage": {"input_tokens": 50, "output_tokens": 5}}]))
    app = harness.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hi")
        await until(pilot, lambda: idle(app) and app.status.status.context_percent is not None)
        await type_and_send(pilot, "/context")
        [view] = texts(app, ContextView)
        assert view.breakdown.used == 55 == sum(part.tokens for part in view.breakdown.parts)


async def test_context_status_and_doctor_with_no_model_configured_say_so_in_a_sentence(tmp_path: Path) -> None:
    env = {**Harness(tmp_path, []).env, "PATH": "/usr/bin:/bin"}
    app = AgentApp(None, problem="No model is configured: set ANTHROPIC_API_KEY.", env=env, cwd=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: any("No model is configured" in n.message for n in texts(app, Notice)))
        await type_and_send(pilot, "/context")
        said = texts(app, Notice)[-1].message
        assert said == "No model is configured, so there is no context to show (/doctor checks the setup)."
        await type_and_send(pilot, "/status")
        await until(pilot, lambda: texts(app, StatusView))
        rows = dict(texts(app, StatusView)[0].rows)
        assert rows["Model"] == "none (No model is configured: set ANTHROPIC_API_KEY.)" and rows["cwd"] == str(tmp_path)
        await type_and_send(pilot, "/doctor ??? --all")  # (arguments it does not take are ignored)
        await until(pilot, lambda: texts(app, DoctorView) and texts(app, DoctorView)[0].checks)
        checks = {check.item: check for check in texts(app, DoctorView)[0].checks}
        assert checks["Model server"].level == "problem"
        assert checks["Model server"].said == "No model is configured: set ANTHROPIC_API_KEY."


async def test_status_names_the_session_model_settings_files_memory_mcp_and_sandbox(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok", "usage": {"input_tokens": 1234, "output_tokens": 56}}])
    (harness.project / "CLAUDE.md").write_text("Be brief.\n")
    (harness.project / ".claude").mkdir()
    (harness.project / ".claude" / "settings.local.json").write_text('{"permissions": {"deny": ["Read(.env)"]}}')
    with_mcp(harness)
    app = harness.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: mcp_settled(app))
        await type_and_send(pilot, "hello")
        await until(pilot, lambda: idle(app) and app.status.status.title)
        await type_and_send(pilot, "/status please")
        await until(pilot, lambda: texts(app, StatusView))
        [view] = texts(app, StatusView)
        rows = dict(view.rows)
        assert app.conversation is not None
        assert rows["Session ID"] == app.conversation.session_id and rows["Session name"] == "hello"
        assert rows["cwd"] == str(harness.project.resolve())
        assert rows["Model"] == "scripted" and rows["Provider"] == "scripted"
        assert rows["Permission mode"] == "default"
        assert rows["Setting sources"] == "Project local settings (.claude/settings.local.json)"
        assert rows["Memory files"] == "CLAUDE.md"
        assert rows["MCP servers"] == "1 connected, 1 failed · /mcp"
        assert rows["Sandbox"].startswith("off")
        assert rows["Tokens"] == "1,234 in (0 cache read, 0 cache write), 56 out · $0.0000"
        drawn = text_of(view.drawn)
        assert "Setting sources" in drawn and max(len(line) for line in drawn.splitlines()) <= 77


@pytest.fixture
def silent_server() -> Iterator[tuple[str, threading.Event]]:
    """A server on 127.0.0.1 that takes a connection and never answers; the event is set once one came."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    came = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)
            came.set()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", came
    finally:
        listener.close()
        for connection in held:
            connection.close()


def anthropic_at(harness: Harness, url: str) -> None:
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=url, api_key="sk-test")
    harness.launch = replace(harness.launch, settings=settings)


async def test_doctor_finds_a_broken_settings_file_and_a_model_server_that_is_down(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    down = f"http://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()  # (nothing listens there now: the connection is refused)
    anthropic_at(harness, down)
    (harness.project / ".claude").mkdir()
    broken = harness.project / ".claude" / "settings.json"
    broken.write_text('{"permissions": {"allow": ["Bash(ls)"],}}')
    app = harness.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: any("is not valid JSON" in n.message for n in texts(app, Notice)))
        assert app.conversation is None  # the broken file keeps the project from opening
        await type_and_send(pilot, "/doctor")
        await until(pilot, lambda: texts(app, DoctorView) and texts(app, DoctorView)[0].checks)
        [view] = texts(app, DoctorView)
        by_item = {check.item: check for check in view.checks}
        settings = by_item["Settings"]
        assert settings.level == "problem" and str(broken) in settings.said and "not valid JSON" in settings.said
        server = by_item["Model server"]
        assert server.level == "problem" and f"anthropic at {down} cannot be reached" in server.said
        assert "base URL" in server.advice
        assert [check.item for check in view.checks][:3] == ["agentui", "ripgrep", "Sandbox"]
        assert by_item["Token counts"].level in ("ok", "warning") and by_item["MCP servers"].level == "ok"
        drawn = text_of(view.drawn)
        assert drawn.startswith("Doctor  2 problems") and "✗ Settings: The settings file" in drawn


async def test_doctor_reaches_the_model_server_with_the_key_and_reports_mcp_servers(
    tmp_path: Path, server: LoopbackServer
) -> None:
    harness = Harness(tmp_path, [])
    anthropic_at(harness, server.url)
    with_mcp(harness)
    server.enqueue(Reply(chunks=[b'{"data": [], "has_more": false}'], content_type="application/json"))
    app = harness.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: mcp_settled(app))
        await type_and_send(pilot, "/doctor")
        await until(pilot, lambda: texts(app, DoctorView) and texts(app, DoctorView)[0].checks)
        checks = texts(app, DoctorView)[0].checks
        by_item = {check.item: check for check in checks}
        assert (
            by_item["Model server"].level == "ok"
            and by_item["Model server"].said == f"anthropic at {server.url} answers."
        )
        [request] = server.requests
        assert (request.method, request.path) == ("GET", "/v1/models?limit=1")
        assert request.headers["x-api-key"] == "sk-test" and request.headers["anthropic-version"]
        assert by_item["MCP servers"].said == "1 connected: tiny."
        assert by_item["MCP broken"].level == "problem" and "mcp-broken.log" in by_item["MCP broken"].advice
        assert by_item["Settings"].level == "ok"


async def test_doctor_waits_a_few_seconds_at_most_for_a_silent_server(
    tmp_path: Path, silent_server: tuple[str, threading.Event], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, came = silent_server
    monkeypatch.setattr(doctor, "SERVER_SECONDS", 0.5)
    harness = Harness(tmp_path, [])
    anthropic_at(harness, url)
    app = harness.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/doctor")
        await until(pilot, lambda: texts(app, DoctorView) and texts(app, DoctorView)[0].checks)
        [server] = [check for check in texts(app, DoctorView)[0].checks if check.item == "Model server"]
        assert came.is_set() and server.level == "problem"
        assert server.said == f"anthropic at {url} did not answer within 0.5 s."


async def test_the_screen_stays_live_while_the_doctor_waits_and_esc_stops_it(
    tmp_path: Path, silent_server: tuple[str, threading.Event], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, came = silent_server
    monkeypatch.setattr(doctor, "SERVER_SECONDS", 600)  # (it would wait for ever, as far as the test can tell)
    harness = Harness(tmp_path, [{"text": "Still here."}])
    anthropic_at(harness, url)
    app = harness.app()  # (the model's answers come from the script; the doctor asks the url)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/doctor")
        await until(pilot, came.is_set)  # the request is out, and no answer will come
        [view] = texts(app, DoctorView)
        assert "Checking the setup" in text_of(view.drawn)
        app.prompt_input.insert("typed meanwhile")  # keys still reach the prompt
        await pilot.pause()
        assert app.prompt_input.text == "typed meanwhile"
        await pilot.press("escape")
        await until(pilot, lambda: "Stopped checking the setup." in text_of(view.drawn))
        assert not view.checks and not [w for w in app.workers if w.group == "checks" and w.is_running]
        await pilot.press("enter")
        await until(pilot, lambda: idle(app) and "Still here." in [a.source for a in texts(app, AssistantText)])

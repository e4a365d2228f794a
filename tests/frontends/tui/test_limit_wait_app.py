"""The app waits out a usage limit: a countdown on the status line, then the answer by itself; Esc ends the wait."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from agentui.frontends.tui.app import AgentApp
from agentui.frontends.tui.widgets.transcript import AssistantText, Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.support.limits import Limited, whole_second
from tests.support.loopback import LoopbackServer
from tests.support.sse import anthropic_stream
from tests.support.waiting import eventually

ANSWER = anthropic_stream([{"type": "text", "text": "After the wait."}])


def _app(tmp_path: Path, server: LoopbackServer) -> AgentApp:
    harness = Harness(tmp_path, [])
    settings = Settings(provider="anthropic", model="claude-test", wait_for_limits=True, max_retry_wait=0.0)
    launch = replace(harness.launch, settings=settings)
    return AgentApp(
        launch, provider_factory=lambda: AnthropicProvider(api_key="x", base_url=server.url), env=harness.env
    )


async def test_the_app_counts_down_to_the_reset_then_answers(tmp_path: Path, server: LoopbackServer) -> None:
    limited = Limited(server, "anthropic unified reset", whole_second(2), ANSWER)
    app = _app(tmp_path, server)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello?")
        await until(pilot, lambda: "Usage limit — resumes at" in str(app.status.render()))
        line = str(app.status.render())
        assert limited.reset.astimezone().strftime("%H:%M") in line and "Esc cancels" in line
        assert re.search(r"\(in \d+:\d\d\)", line)
        assert any("waits until" in n.message for n in texts(app, Notice))
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["After the wait."])
        assert "Usage limit" not in str(app.status.render())
    assert len(server.requests) == 2 and limited.early() == 1


async def test_escape_ends_the_wait_with_nothing_lost(tmp_path: Path, server: LoopbackServer) -> None:
    limited = Limited(server, "anthropic requests reset", whole_second(120), ANSWER)
    app = _app(tmp_path, server)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello?")
        await until(pilot, lambda: "Usage limit — resumes at" in str(app.status.render()))
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        assert [n for n in texts(app, Notice) if n.message == "Interrupted."]
        assert "Usage limit" not in str(app.status.render()) and not texts(app, AssistantText)
        limited.reset = datetime.now(UTC)  # (the limit is over: the next prompt is answered, "hello?" kept)
        await type_and_send(pilot, "again")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["After the wait."])
    assert len(server.requests) == 2 and "hello?" in str(server.requests[1].json()["messages"])


async def test_a_session_killed_during_the_wait_goes_on_when_resumed(
    tmp_path: Path, server: LoopbackServer, agentui_bin: str, clean_env: dict[str, str]
) -> None:
    limited = Limited(server, "anthropic unified reset", whole_second(4), ANSWER)
    harness = Harness(tmp_path, [])
    env = {**clean_env, **harness.env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}
    env["AGENTUI_MAX_RETRY_WAIT"] = "0"
    printing = _start(agentui_bin, harness.project, env)
    sessions = Path(harness.env["CLAUDE_CONFIG_DIR"]) / "projects"
    try:
        await eventually(lambda: _pending_session(sessions))
    finally:
        _kill(printing)  # (a crash in the middle of the wait)
    found = _pending_session(sessions)
    assert found is not None
    assert len(server.requests) == 1

    settings = Settings(provider="anthropic", model="claude-test", wait_for_limits=True, max_retry_wait=0.0)
    launch = replace(harness.launch, settings=settings, session=SessionRequest(resume=found.stem))
    provider = lambda: AnthropicProvider(api_key="x", base_url=server.url)  # noqa: E731
    app = AgentApp(launch, provider_factory=provider, env=harness.env)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: any("interrupted prompt goes on" in n.message for n in texts(app, Notice)))
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["After the wait."])
    assert len(server.requests) == 2 and limited.early() == 1
    assert "hello?" in str(server.requests[1].json()["messages"])


def _pending_session(sessions: Path) -> Path | None:
    for path in sessions.glob("*/*.jsonl"):
        if '"limit_wait"' in path.read_text(errors="replace"):
            return path
    return None


def _start(agentui_bin: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [agentui_bin, "-p", "hello?", "--wait-for-limits"]
    out = subprocess.DEVNULL
    return subprocess.Popen(command, cwd=cwd, env=env, stdin=out, stdout=out, stderr=out)


def _kill(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.wait(60)


def _asking_app(tmp_path: Path, server: LoopbackServer) -> AgentApp:
    harness = Harness(tmp_path, [])
    settings = Settings(
        provider="anthropic",
        model="claude-test",
        wait_for_limits=True,
        max_retry_wait=0.0,
        max_limit_wait_hours=0.0001,  # (a third of a second: a 2 s reset is longer)
    )
    provider = lambda: AnthropicProvider(api_key="x", base_url=server.url)  # noqa: E731
    return AgentApp(replace(harness.launch, settings=settings), provider_factory=provider, env=harness.env)


async def test_a_wait_past_the_longest_is_asked_and_yes_waits(tmp_path: Path, server: LoopbackServer) -> None:
    from agentui.frontends.tui.screens.elicitation import ElicitationScreen

    limited = Limited(server, "anthropic unified reset", whole_second(2), ANSWER)
    app = _asking_app(tmp_path, server)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello?")
        await until(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        assert "Wait until then" in app.screen.request.message and app.screen.request.server == "agentui"
        await pilot.press("enter")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["After the wait."])
    assert len(server.requests) == 2 and limited.early() == 1


async def test_a_wait_past_the_longest_declined_ends_the_run(tmp_path: Path, server: LoopbackServer) -> None:
    from agentui.frontends.tui.screens.elicitation import ElicitationScreen

    Limited(server, "anthropic unified reset", whole_second(2), ANSWER)
    app = _asking_app(tmp_path, server)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello?")
        await until(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        assert any("the wait was declined" in n.message for n in texts(app, Notice))
        assert not texts(app, AssistantText)
    assert len(server.requests) == 1

"""How the app looks, as SVG snapshots (pytest-textual-snapshot): idle, streaming, a tool block with its diff,
the permission question, the session picker. `pytest --snapshot-update` accepts a deliberate change."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agentui.core.messages import Usage
from agentui.core.providers.base import ProviderRequest
from agentui.core.providers.stream import BlockDelta, BlockStart, ProviderEvent, StreamStart
from agentui.frontends.tui.screens.permission import PermissionScreen
from agentui.frontends.tui.screens.picker import SessionPicker
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import AssistantText
from tests.frontends.tui.test_app import Harness, idle, texts, until

SIZE = (100, 30)


class Hanging:
    """Streams the start of an answer, then waits forever: a stable picture of an answer mid-stream."""

    name = "scripted"

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        yield StreamStart("msg_1", "scripted", Usage(input_tokens=1200))
        yield BlockStart(0, "text")
        for piece in [
            "## Plan\n\n",
            "1. Read `app.py`\n",
            "2. Fix the **off-by-one** in `count()`\n",
            "3. Run the tes",
        ]:
            yield BlockDelta(0, "text", piece)
        await asyncio.Event().wait()

    async def aclose(self) -> None:
        return None


async def steady(pilot: Any) -> None:
    """Until the screen has stopped changing: streamed text is drawn in 50 ms batches, so a picture taken at a
    guessed moment could catch a batch half-way on a slow machine. Two identical frames a batch and more apart
    (timers fire in deadline order, so a batch due sooner has been drawn) mean nothing is left to draw."""
    await until(pilot, lambda: pilot.app.conversation is not None)
    pilot.app.prompt_input.cursor_blink = False
    previous = None
    while (frame := pilot.app.export_screenshot()) != previous:
        previous = frame
        await pilot.pause(0.1)


async def send(pilot: Any, text: str) -> None:
    await until(pilot, lambda: pilot.app.conversation is not None)
    pilot.app.prompt_input.insert(text)
    await pilot.press("enter")


def test_idle(snap_compare: Any, tmp_path: Path) -> None:
    app = Harness(tmp_path, [{"text": "ok"}]).app()
    assert snap_compare(app, terminal_size=SIZE, run_before=steady)


def test_streaming(snap_compare: Any, tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    app = harness.app()
    app._provider_factory = Hanging  # type: ignore[assignment]

    async def run_before(pilot: Any) -> None:
        await send(pilot, "fix the counting bug")
        await until(pilot, lambda: any("Run the tes" in answer.source for answer in texts(pilot.app, AssistantText)))
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tool_block_with_diff(snap_compare: Any, tmp_path: Path) -> None:
    edit = {
        "type": "tool_use",
        "id": "e1",
        "name": "Edit",
        "input": {"file_path": "app.py", "old_string": "    return n + 1", "new_string": "    return n"},
    }
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "app.py"}}
    harness = Harness(
        tmp_path, [{"content": [read]}, {"content": [edit]}, {"text": "Fixed the off-by-one."}], mode="acceptEdits"
    )
    (harness.project / "app.py").write_text("def count(n):\n    total = n\n    return n + 1\n")

    async def run_before(pilot: Any) -> None:
        await send(pilot, "fix count")
        await until(pilot, lambda: idle(pilot.app) and len(texts(pilot.app, ToolBlock)) == 2)
        texts(pilot.app, ToolBlock)[1].expanded = True
        await steady(pilot)

    assert snap_compare(harness.app(), terminal_size=SIZE, run_before=run_before)


def test_permission_modal(snap_compare: Any, tmp_path: Path) -> None:
    bash = {
        "type": "tool_use",
        "id": "b1",
        "name": "Bash",
        "input": {"command": "git push origin main", "description": "Push the branch"},
    }
    harness = Harness(tmp_path, [{"content": [{"type": "text", "text": "Pushing now."}, bash]}])

    async def run_before(pilot: Any) -> None:
        await send(pilot, "push it")
        await until(pilot, lambda: isinstance(pilot.app.screen, PermissionScreen))
        await steady(pilot)

    assert snap_compare(harness.app(), terminal_size=SIZE, run_before=run_before)


def test_session_picker(snap_compare: Any, tmp_path: Path) -> None:
    # (an answer of some length puts the file's size mid-way between two whole KB, so the temporary path's length,
    # which differs from machine to machine, never rounds it the other way)
    earlier = Harness(tmp_path, [{"text": "Sure. " + "I will rename it. " * 30}])

    async def make_session() -> None:
        async with earlier.app().run_test(size=SIZE) as pilot:
            await send(pilot, "rename the config loader")
            await until(pilot, lambda: idle(pilot.app) and pilot.app.conversation.agent.messages)

    asyncio.run(make_session())

    async def run_before(pilot: Any) -> None:
        await send(pilot, "/resume")
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionPicker))
        await steady(pilot)

    assert snap_compare(Harness(tmp_path, [{"text": "ok"}]).app(), terminal_size=SIZE, run_before=run_before)


def test_edit_permission_dialog_with_the_files_line_numbers(snap_compare: Any, tmp_path: Path) -> None:
    edit = {
        "type": "tool_use",
        "id": "e1",
        "name": "Edit",
        "input": {"file_path": "calc.py", "old_string": "    return a - b", "new_string": "    return a + b"},
    }
    harness = Harness(tmp_path, [{"content": [{"type": "text", "text": "Fixing add."}, edit]}])
    (harness.project / "calc.py").write_text(
        "".join(f"# line {n}\n" for n in range(1, 31)) + "def add(a, b):\n    return a - b\n"
    )

    async def run_before(pilot: Any) -> None:
        await send(pilot, "fix add")
        await until(pilot, lambda: isinstance(pilot.app.screen, PermissionScreen))
        await steady(pilot)

    assert snap_compare(harness.app(), terminal_size=SIZE, run_before=run_before)


def test_todo_panel(snap_compare: Any, tmp_path: Path) -> None:
    todos = [
        {"content": "Read the failing test", "status": "completed", "activeForm": "Reading the failing test"},
        {"content": "Fix add()", "status": "in_progress", "activeForm": "Fixing add()"},
        {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
    ]
    call = {"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": todos}}
    harness = Harness(tmp_path, [{"content": [call]}, {"text": "On it."}])

    async def run_before(pilot: Any) -> None:
        await send(pilot, "fix add")
        await until(pilot, lambda: idle(pilot.app) and texts(pilot.app, AssistantText))
        await steady(pilot)

    assert snap_compare(harness.app(), terminal_size=SIZE, run_before=run_before)


def test_a_resumed_compacted_session(snap_compare: Any, tmp_path: Path) -> None:
    edit = {
        "type": "tool_use",
        "id": "e1",
        "name": "Edit",
        "input": {"file_path": "app.py", "old_string": "    return n + 1", "new_string": "    return n"},
    }
    bash = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "echo 3 passed"}}
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "app.py"}}
    script = [
        {"content": [{"type": "text", "text": "Reading it."}, read]},
        {"content": [{"type": "text", "text": "Fixing it."}, edit]},
        {"content": [{"type": "text", "text": "Testing."}, bash]},
        {"text": "Fixed, and the tests pass."},
        {"text": "The user fixed an off-by-one in count() in app.py; the tests pass."},
    ]
    earlier = Harness(tmp_path, script, mode="acceptEdits", allowed=("Bash(echo:*)",))
    (earlier.project / "app.py").write_text("def count(n):\n    total = n\n    return n + 1\n")
    session: list[str] = []

    async def make_session() -> None:
        async with earlier.app().run_test(size=SIZE) as pilot:
            await send(pilot, "fix count")
            await until(pilot, lambda: idle(pilot.app) and len(texts(pilot.app, AssistantText)) == 4)
            await send(pilot, "/compact")
            await until(pilot, lambda: idle(pilot.app) and "count()" in pilot.app.conversation.agent.messages[0].text)
            session.append(pilot.app.conversation.session_id)

    asyncio.run(make_session())

    async def run_before(pilot: Any) -> None:
        await send(pilot, f"/resume {session[0]}")
        await until(pilot, lambda: len(texts(pilot.app, ToolBlock)) == 3 and texts(pilot.app, ToolBlock)[2].expanded)
        await steady(pilot)

    assert snap_compare(Harness(tmp_path, []).app(), terminal_size=(100, 40), run_before=run_before)


def test_a_long_diff_question_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    """The smallest terminal: the diff gives up rows, and every answer key stays on screen."""
    content = "".join(f"line number {n} of a long new file\n" for n in range(120))
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "big.txt", "content": content}}
    harness = Harness(tmp_path, [{"content": [write]}])

    async def run_before(pilot: Any) -> None:
        await send(pilot, "write it")
        await until(pilot, lambda: isinstance(pilot.app.screen, PermissionScreen))
        await steady(pilot)

    assert snap_compare(harness.app(), terminal_size=(80, 24), run_before=run_before)


def test_a_collapsed_paste(snap_compare: Any, tmp_path: Path) -> None:
    """A long paste in the prompt is one chip; the prompt sent with it shows its first lines on screen."""
    from textual import events

    harness = Harness(tmp_path, [{"text": "Seen."}])
    log = "".join(f"worker {n} finished\n" for n in range(300))

    async def run_before(pilot: Any) -> None:
        await until(pilot, lambda: pilot.app.conversation is not None)
        prompt = pilot.app.prompt_input
        prompt.insert("first: ")
        prompt.post_message(events.Paste(log))
        await until(pilot, lambda: "[Pasted text #1 +300 lines]" in prompt.text)
        await pilot.press("enter")
        await until(pilot, lambda: idle(pilot.app) and texts(pilot.app, AssistantText))
        prompt.insert("then: ")
        prompt.post_message(events.Paste(log))
        await until(pilot, lambda: "[Pasted text #1 +300 lines]" in prompt.text)
        await steady(pilot)

    assert snap_compare(harness.app(), terminal_size=SIZE, run_before=run_before)

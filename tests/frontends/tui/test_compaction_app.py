"""Compaction in the app: the block that says what was summarised and taken out (opened with Enter or a click), and
Ctrl+P pinning a prompt or a tool call so that it is carried past compactions, also after --resume."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.widgets import Static
from textual.widgets._collapsible import CollapsibleTitle

from agentui.core.context.compaction import SUMMARY_SYSTEM
from agentui.core.context.pins import load_pins
from agentui.core.run_options import ModelOptions
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from agentui.frontends.tui.widgets.answer import CompactionMark
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import Notice, UserPrompt
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until

NOTES = "".join(f"line {number}: the notes say nothing much here\n" for number in range(400))
"""A file big enough that /compact summarises the Read of it rather than keeping it."""


def harness(tmp_path: Path, script: list[dict[str, object]]) -> Harness:
    made = Harness(tmp_path, script)
    options = ModelOptions(context_window=50_000, auto_compact=False)
    made.launch = replace(made.launch, settings=Settings(provider="scripted", model="scripted", options=options))
    (made.project / "notes.txt").write_text(NOTES)
    return made


def body(mark: CompactionMark) -> str:
    return "\n".join(str(static.render()) for static in mark.query(Static) if not isinstance(static, CollapsibleTitle))


async def test_the_compaction_block_names_what_was_summarised_and_the_tool_results_dropped(tmp_path: Path) -> None:
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "notes.txt"}}
    made = harness(
        tmp_path,
        [
            {"content": [{"type": "text", "text": "Reading."}, read]},
            {"text": "Read it."},
            {"text": "Second."},
            {"text": "They read the notes; nothing else matters."},
            {"text": "Third."},
        ],
    )
    app = made.app()
    async with app.run_test(size=(110, 36)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "read the notes. Always answer in one line.")
        await until(pilot, lambda: idle(app) and len(made.providers[0].requests) == 2)
        await type_and_send(pilot, "two")
        await until(pilot, lambda: idle(app) and len(made.providers[0].requests) == 3)
        await type_and_send(pilot, "/compact keep the file names")
        await until(pilot, lambda: idle(app) and texts(app, CompactionMark))
        assert any(
            "Compacting the conversation: /compact keep the file names: compacting " in n.message
            for n in texts(app, Notice)
        )
        (mark,) = texts(app, CompactionMark)
        assert mark.collapsed and "3 messages summarised, 1 tool result taken out" in mark.title
        await pilot.click(mark.query_one(CollapsibleTitle))
        await until(pilot, lambda: not mark.collapsed)
        shown = body(mark)
        assert "Summarised: 3 messages, 1 prompt of yours among them." in shown
        assert "Read notes.txt — dropped (summarised)" in shown
        assert "Your instructions carried verbatim: 1" in shown and "• Always answer in one line." in shown
        assert "Summary:\nThey read the notes; nothing else matters." in shown
        summary_request = made.providers[0].requests[3]
        assert summary_request.system == SUMMARY_SYSTEM and "keep the file names" in summary_request.messages[0].text
        mark.query_one(CollapsibleTitle).focus()
        await pilot.press("enter")  # (Enter folds it again, as other blocks)
        await until(pilot, lambda: mark.collapsed)


async def test_ctrl_p_pins_a_prompt_and_a_tool_call_and_they_survive_compaction_and_resume(tmp_path: Path) -> None:
    code = "The launch code is 4417."
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "notes.txt"}}
    made = harness(
        tmp_path,
        [
            {"text": "Noted."},
            {"content": [{"type": "text", "text": "Reading."}, read]},
            {"text": "Read it."},
            {"text": "A lossy summary."},
            {"text": "Third."},
        ],
    )
    app = made.app()
    async with app.run_test(size=(110, 36)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, code)
        await until(pilot, lambda: idle(app) and len(made.providers[0].requests) == 1)
        await type_and_send(pilot, "read the notes")
        await until(pilot, lambda: idle(app) and len(made.providers[0].requests) == 3)
        (prompt,) = [p for p in texts(app, UserPrompt) if p.text == code]
        await pilot.click(prompt)
        await until(pilot, lambda: app.focused is prompt)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: prompt.pinned)
        assert prompt.has_class("-pinned") and "📌 pinned" in str(prompt.render())
        app.prompt_input.focus()
        await pilot.press("tab")  # (the newest block: the Read)
        await until(pilot, lambda: isinstance(app.focused, ToolBlock))
        await pilot.press("ctrl+p")
        block = app.focused
        assert isinstance(block, ToolBlock)
        await until(pilot, lambda: block.pinned and "📌 pinned" in str(block._header.render()))
        session_id = app.conversation.session_id if app.conversation else ""
        assert len(load_pins(session_id)[0]) == 2
        app.prompt_input.focus()
        await type_and_send(pilot, "/compact")
        await until(pilot, lambda: idle(app) and texts(app, CompactionMark))
        await type_and_send(pilot, "three")
        await until(pilot, lambda: idle(app) and len(made.providers[0].requests) == 5)
        carried = made.providers[0].requests[4].messages[0].text
        assert f"<pinned>\n{code}\n</pinned>" in carried and "line 399: the notes say nothing much here" in carried
    made.script = [{"text": "Fourth."}, {"text": "Lossy again."}, {"text": "Fifth."}]
    made.launch = replace(made.launch, session=SessionRequest(resume=session_id))
    app = made.app()
    async with app.run_test(size=(110, 36)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "four")
        await until(pilot, lambda: idle(app) and len(made.providers[1].requests) == 1)
        await type_and_send(pilot, "/compact")
        await until(pilot, lambda: idle(app) and texts(app, CompactionMark)[-1].report)
        await type_and_send(pilot, "five")
        await until(pilot, lambda: idle(app) and len(made.providers[1].requests) == 3)
        carried = made.providers[1].requests[2].messages[0].text
        assert f"<pinned>\n{code}\n</pinned>" in carried and "Lossy again." in carried
        assert "Pinned messages carried verbatim: 2" in body(texts(app, CompactionMark)[-1])


async def test_a_pinned_prompt_and_tool_call_show_their_mark_again_after_resume(tmp_path: Path) -> None:
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "notes.txt"}}
    made = harness(tmp_path, [{"content": [{"type": "text", "text": "Reading."}, read]}, {"text": "Read it."}])
    app = made.app()
    async with app.run_test(size=(110, 36)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "read the notes")
        await until(pilot, lambda: idle(app) and len(made.providers[0].requests) == 2)
        (prompt,) = texts(app, UserPrompt)
        await pilot.click(prompt)
        await until(pilot, lambda: app.focused is prompt)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: prompt.pinned)
        app.prompt_input.focus()
        await pilot.press("tab")
        await until(pilot, lambda: isinstance(app.focused, ToolBlock))
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.focused, ToolBlock) and app.focused.pinned)
        session_id = app.conversation.session_id if app.conversation else ""
    made.launch = replace(made.launch, session=SessionRequest(resume=session_id))
    app = made.app()
    async with app.run_test(size=(110, 36)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: [p for p in app.query(UserPrompt) if p.text == "read the notes"])
        (prompt,) = [p for p in app.query(UserPrompt) if p.text == "read the notes"]
        (block,) = [b for b in app.query(ToolBlock) if b.tool_call_id == "r1"]
        assert prompt.pinned and "📌 pinned" in str(prompt.render())
        assert block.pinned and "📌 pinned" in str(block._header.render())
        block.focus()
        await pilot.press("ctrl+p")  # (again: unpinned, and the mark goes)
        await until(pilot, lambda: not block.pinned and "📌" not in str(block._header.render()))
        assert [pin.tool_call_id for pin in load_pins(session_id)[0]] == [None]

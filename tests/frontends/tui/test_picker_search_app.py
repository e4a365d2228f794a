"""The /resume picker's full-text search, driven with Pilot: Tab turns the filter into a search of every message of
the project's sessions, and picking a hit resumes its session at that message."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, OptionList, Static

from agentui.core.session.paths import project_dir
from agentui.frontends.tui.screens.picker import SessionPicker
from agentui.frontends.tui.widgets.transcript import AssistantText, UserPrompt
from tests.frontends.tui.test_app import Harness, ready, texts, type_and_send, until
from tests.support.search_sessions import answer, linked, prompt, tool_call, write

SESSION = "11111111-2222-4333-8444-555555555555"
OTHER = "66666666-7777-4888-8999-aaaaaaaaaaaa"


def sessions(harness: Harness) -> None:
    here = str(harness.project)
    directory = project_dir(harness.project, harness.env)
    write(
        directory / f"{SESSION}.jsonl",
        *linked(
            prompt("create the bird table", session=SESSION, cwd=here, stamp="2026-02-01T10:00:00.000Z"),
            answer("the pelican table is ready", session=SESSION, cwd=here, stamp="2026-02-01T10:00:05.000Z"),
            prompt("now drop it", session=SESSION, cwd=here, stamp="2026-02-01T10:01:00.000Z"),
            answer("dropped", session=SESSION, cwd=here, stamp="2026-02-01T10:01:05.000Z"),
        ),
    )
    write(
        directory / f"{OTHER}.jsonl",
        *linked(
            prompt("tidy the imports", session=OTHER, cwd=here),
            tool_call("Bash", {"command": "ruff check --select I"}, session=OTHER, cwd=here),
        ),
    )


def rendered(picker: SessionPicker) -> list[str]:
    options = picker.query_one("#sessions", OptionList)
    return [str(options.get_option_at_index(n).prompt) for n in range(options.option_count)]


async def test_tab_searches_every_message_and_enter_resumes_at_the_one_found(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    sessions(harness)
    app = harness.app()
    async with app.run_test(size=(110, 32)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        await pilot.press(*"pelic")  # no title has it: the picker says Tab searches the messages
        await until(pilot, lambda: not picker.shown and picker.query_one("#empty", Static).display)
        assert "Tab searches every message" in str(picker.query_one("#empty", Static).render())
        await pilot.press("tab")
        await until(pilot, lambda: picker.searched == "pelic")  # (the words typed carry over; the last one a prefix)
        assert [(hit.session_id, hit.kind) for hit in picker.hits] == [(SESSION, "answer")]
        assert picker.query_one("#picker").border_title == "Search the text of this project's sessions"
        shown = rendered(picker)[0]
        assert "the pelican table is ready" in shown and "2026-02-01 10:00 · answer" in shown
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                not isinstance(app.screen, SessionPicker)
                and app.conversation is not None
                and bool(app.conversation.agent.messages)
            ),
        )
        assert [p.text for p in texts(app, UserPrompt)] == ["create the bird table"]  # at the hit, not the end
        assert [a.source for a in texts(app, AssistantText)] == ["the pelican table is ready"]


async def test_the_search_finds_tool_input_and_tab_goes_back_to_the_titles(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    sessions(harness)
    app = harness.app()
    async with app.run_test(size=(110, 32)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        await pilot.press("tab", *"ruff")
        await until(pilot, lambda: picker.searched == "ruff")
        assert [(hit.session_id, hit.kind) for hit in picker.hits] == [(OTHER, "tool")]
        picker.query_one("#filter", Input).value = "zebra"
        await until(pilot, lambda: picker.searched == "zebra")
        assert picker.hits == [] and "No message matches." in str(picker.query_one("#empty", Static).render())
        await pilot.press("tab")  # back to the titles: the filter as before
        await until(pilot, lambda: not picker.full_text)
        picker.query_one("#filter", Input).value = ""
        await until(pilot, lambda: len(picker.shown) == 2)
        assert len(rendered(picker)) == 2

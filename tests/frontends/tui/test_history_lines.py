"""The line-drawn history (issue 34): a conversation's older parts are drawn as lines by one widget, a live
session's as they age and a resumed one's from the start; a click or Tab puts a part back as its live widget, in
its place, as it was drawn."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentui.core.session.lookup import SessionRequest
from agentui.frontends.tui.app import AgentApp
from agentui.frontends.tui.widgets.history_lines import HistoryLines
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import AssistantText, Transcript, UserPrompt
from tests.frontends.tui.test_app import Harness, idle, long_session, ready, texts, type_and_send, until


def _lines(app: object) -> list[HistoryLines]:
    return list(app.transcript.query(HistoryLines))  # type: ignore[attr-defined]


def _resuming(tmp_path: Path, turns: int) -> tuple[Harness, str]:
    """A harness that resumes a session of `turns` turns (a prompt, a Read and an answer each), and its id."""
    from agentui.core.session.paths import project_dir

    session_id = str(uuid.uuid4())
    harness = Harness(tmp_path, [], session=SessionRequest(resume=session_id))
    long_session(project_dir(harness.project, harness.env) / f"{session_id}.jsonl", session_id, harness.project, turns)
    return harness, session_id


def _resumed(tmp_path: Path, turns: int) -> AgentApp:
    """The app resuming a session of `turns` turns."""
    return _resuming(tmp_path, turns)[0].app()


async def _drawn(pilot: Any) -> None:
    """Until the resumed session is open and the parts above its latest are drawn as lines."""
    app = pilot.app
    await ready(pilot)
    await until(pilot, lambda: _lines(app) and not app.view.history.drawing)
    await pilot.pause()


def _screen_row(lines: HistoryLines, index: int) -> int:
    """The row, within `lines`, of the first line of part `index` (after the blank line above it)."""
    at = lines.y_of(index)
    assert at is not None
    return at + 1


def reading_turns(tmp_path: Path, turns: int, answer: Callable[[int], str]) -> Harness:
    """A harness whose model reads a.txt and then answers `answer(n)`, for each of `turns` prompts."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.txt").write_text("alpha\nbeta\n")
    script: list[dict[str, Any]] = []
    for turn in range(turns):
        call = {"type": "tool_use", "id": f"t{turn}", "name": "Read", "input": {"file_path": "a.txt"}}
        script += [{"content": [call]}, {"text": answer(turn)}]
    return Harness(tmp_path, script, allowed=("Read",))


async def ask_turns(pilot: Any, turns: int, answer: Callable[[int], str]) -> None:
    """Sends "question n" for each turn, each once the one before is answered."""
    app = pilot.app
    for turn in range(turns):
        await type_and_send(pilot, f"question {turn}")
        said = answer(turn)
        await until(pilot, lambda said=said: idle(app) and said in [w.source for w in texts(app, AssistantText)])
    await pilot.pause()


async def test_a_live_conversations_old_parts_become_lines_and_the_latest_stay_widgets(tmp_path: Path) -> None:
    turns = 25
    app = reading_turns(tmp_path, turns, "answer {}".format).app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await ask_turns(pilot, turns, "answer {}".format)
        live = [widget for widget in app.transcript.children if not isinstance(widget, HistoryLines)]
        assert len(live) <= Transcript.LIVE_AT_MOST + 3  # (and the two markers of the history)
        [lines] = _lines(app)
        history = lines.source.history
        prompts = [item for kind, item in history.parts[lines.first : lines.end] if kind == "prompt"]
        assert prompts and prompts == [f"question {n}" for n in range(len(prompts))]  # the oldest, in order, as lines
        assert [p.text for p in app.query(UserPrompt)][-1] == f"question {turns - 1}"
        every = [p.text for p in texts(app, UserPrompt)]
        assert every == [f"question {n}" for n in range(turns)]  # nothing lost between the lines and the widgets
        # a call drawn as lines keeps its result: opened by a click, the live block shows what it read
        index = next(i for i in range(lines.first, lines.end) if history.parts[i][0] == "tool")
        assert "alpha" not in lines.plain(index)  # (a Read is one line until opened)
        app.transcript.scroll_home(animate=False)
        await pilot.pause()
        await pilot.click(lines, offset=(4, _screen_row(lines, index)))
        await until(pilot, lambda: isinstance(app.focused, ToolBlock) and app.focused.expanded)
        opened = app.focused
        assert isinstance(opened, ToolBlock) and opened.tool_call_id == "t0" and "alpha" in opened.copy_text
        # in its place: the lines before it, it, and the lines after it
        children = list(app.transcript.children)
        at = children.index(opened.parent)
        assert isinstance(children[at + 1], HistoryLines) and children[at + 1].first == index + 1


async def test_a_resumed_sessions_line_drawn_calls_open_with_a_click_and_tab_in_place(tmp_path: Path) -> None:
    app = _resumed(tmp_path, 300)
    async with app.run_test(size=(100, 30)) as pilot:
        await _drawn(pilot)
        [lines] = _lines(app)
        history = lines.source.history
        # Tab from the prompt: the live blocks first, newest first, then the calls drawn as lines, each put back
        live_blocks = [block for block in app.query(ToolBlock) if block.parent is app.transcript]
        for block in reversed(live_blocks):
            await pilot.press("tab")
            await until(pilot, lambda block=block: app.focused is block)
        newest = max(i for i in range(lines.first, lines.end) if history.parts[i][0] == "tool")
        await pilot.press("tab")
        await until(pilot, lambda: isinstance(app.focused, ToolBlock) and app.focused not in live_blocks)
        assert app.focused.tool_call_id == history.parts[newest][1].id  # type: ignore[union-attr]
        await pilot.press("tab")
        await until(pilot, lambda: app.focused.tool_call_id != history.parts[newest][1].id)  # type: ignore[union-attr]
        older = max(i for i in range(lines.first, newest) if history.parts[i][0] == "tool")
        assert app.focused.tool_call_id == history.parts[older][1].id  # type: ignore[union-attr]
        # Enter opens it as it opens a live block
        await pilot.press("enter")
        await until(pilot, lambda: app.focused.expanded)  # type: ignore[union-attr]
        assert "x = 1" in app.focused.copy_text  # type: ignore[union-attr]
        # what is drawn is still every prompt, in order, once
        shown = [p.text for p in texts(app, UserPrompt)]
        assert shown == sorted(set(shown), key=lambda text: int(text.split()[1]))
        assert shown[-1] == "prompt 299"


async def test_ctrl_f_finds_a_part_drawn_as_lines_and_puts_it_back_marked_in_view(tmp_path: Path) -> None:
    from agentui.frontends.tui.screens.transcript_search import TranscriptSearch

    app = _resumed(tmp_path, 300)
    async with app.run_test(size=(100, 30)) as pilot:
        await _drawn(pilot)
        assert "prompt 290" not in [p.text for p in app.query(UserPrompt)]  # drawn as lines
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, TranscriptSearch))
        await pilot.press(*"prompt 290")

        def found_live() -> list[UserPrompt]:
            return [p for p in app.transcript.query(UserPrompt) if p.text == "prompt 290" and p.has_class("-found")]

        await until(pilot, found_live)
        [found] = found_live()
        await until(pilot, lambda: found.region.y in range(*_rows(app)))  # scrolled to it
        assert "match 1 of 1" in str(app.screen.query_one("Input").border_title)


def _rows(app: object) -> tuple[int, int]:
    view = app.transcript.scrollable_content_region  # type: ignore[attr-defined]
    return view.y, view.bottom


def test_a_long_result_is_kept_as_its_block_shows_it_once_its_widget_goes() -> None:
    from agentui.frontends.tui.history_view import KEPT_CHARS, KEPT_HEAD, KEPT_TAIL, Result, kept_result

    output = "\n".join(f"line {n} " + "x" * 40 for n in range(5000))
    details = {"file": {"content": output, "numLines": 5000}, "structuredPatch": [{"lines": ["-a", "+b"]}]}
    kept = kept_result(Result(output, False, details, False))
    lines = kept.content.splitlines()
    assert KEPT_HEAD // 2 <= lines.index(next(line for line in lines if "more lines" in line)) <= KEPT_HEAD
    head = lines[: lines.index(next(line for line in lines if "more lines" in line))]
    assert head == output.splitlines()[: len(head)]  # the start of a file, as a Read shows it
    assert lines[-KEPT_TAIL:] == output.splitlines()[-KEPT_TAIL:]  # the end, as a command's block shows it
    assert len(kept.content) <= KEPT_CHARS + 100
    assert kept.details == {"file": {"content": "", "numLines": 5000}, "structuredPatch": [{"lines": ["-a", "+b"]}]}
    one_line = kept_result(Result("x" * 100_000, False, {}, False)).content
    assert one_line.startswith("x" * 200) and len(one_line) < KEPT_CHARS  # a minified file: its start
    small = Result("ok", True, {"exit": 1}, False)
    assert kept_result(small) is small


async def test_after_ctrl_l_old_parts_still_become_lines_below_what_was_cleared(tmp_path: Path) -> None:
    from agentui.frontends.tui.widgets.transcript import Notice

    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for number in range(Transcript.LIVE_AT_MOST + 5):
            app.transcript.add(Notice(f"before {number}"))
        await pilot.pause()
        assert _lines(app)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: not _lines(app))
        for number in range(Transcript.LIVE_AT_MOST + 5):
            app.transcript.add(Notice(f"after {number}"))
        await until(pilot, lambda: bool(_lines(app)))
        [lines] = _lines(app)
        said = [item[0] for kind, item in lines.source.history.parts[lines.first : lines.end]]
        assert said == [f"after {number}" for number in range(5)]


async def test_a_long_live_run_keeps_only_the_latest_retired_parts_drawn_and_counts_the_rest(tmp_path: Path) -> None:
    from agentui.frontends.tui.history_view import EARLIER_SHOWN
    from agentui.frontends.tui.history_window import DRAWN_AT_MOST
    from agentui.frontends.tui.widgets.transcript import Notice

    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for number in range(400):
            app.transcript.add(Notice(f"part {number}"))
            if number % 20 == 0:
                await pilot.pause()  # (laid out as a run's parts are, between its turns)
        await pilot.pause()
        [lines] = _lines(app)
        assert lines.size_in_parts < DRAWN_AT_MOST + EARLIER_SHOWN  # not every part ever retired
        said = [n.message for n in texts(app, Notice) if "earlier parts" in n.message and n.display]
        assert said == [f"{lines.first:,} earlier parts of this session are above: PageUp draws them."]
        assert lines.end == len(lines.source.history.parts) and lines.first > 0


async def test_text_drawn_as_lines_is_selected_with_the_mouse_as_in_a_live_answer(tmp_path: Path) -> None:
    from textual.geometry import Offset
    from textual.selection import Selection

    app = _resumed(tmp_path, 30)
    async with app.run_test(size=(100, 30)) as pilot:
        await _drawn(pilot)
        [lines] = _lines(app)
        history = lines.source.history
        index = next(i for i in range(lines.first, lines.end) if history.parts[i][0] == "answer")
        row = _screen_row(lines, index)
        whole = lines.get_selection(Selection(Offset(0, row), Offset(100, row)))
        assert whole is not None and whole[0].strip() == history.parts[index][1].strip()
        start = Offset(0, row - 1)  # from the blank line above it to the one below: the answer, whole
        text, _ = lines.get_selection(Selection(start, Offset(0, row + 1))) or ("", "")
        assert text.strip() == history.parts[index][1].strip()


async def test_the_collector_is_paused_only_while_a_session_opens(tmp_path: Path) -> None:
    """(It is paused while a resumed session loads, until its objects are out of its sight: left paused, cyclic
    garbage would never be freed.)"""
    import gc

    app = _resumed(tmp_path, 200)
    async with app.run_test(size=(100, 30)) as pilot:
        await _drawn(pilot)
        assert gc.isenabled()
    (tmp_path / "other").mkdir()
    missing = Harness(tmp_path / "other", [], session=SessionRequest(resume=str(uuid.uuid4())))
    async with missing.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)  # (a new conversation, in place of the one that cannot be found)
        assert gc.isenabled()
    gc.unfreeze()


def test_a_preview_of_a_session_s_end_loads_no_engine(tmp_path: Path) -> None:
    """The app draws a resumed session's latest turns before anything else loads: the preview reads them with the
    session reader and the messages only (the event union, the writer and compaction cost ~40 ms to import)."""
    import subprocess
    import sys

    harness, session_id = _resuming(tmp_path, 30)
    script = f"""
import sys
from pathlib import Path
from agentui.api import SessionRequest, preview_session
from agentui.frontends.tui.history_view import read_history
found = preview_session(SessionRequest(resume={session_id!r}), Path({str(harness.project)!r}), {harness.env!r})
history = read_history(found.messages, found.tool_details)
print(sum(kind == "prompt" for kind, _ in history.parts))
print(sorted(m for m in ("agentui.core.events", "agentui.core.session.writer", "agentui.core.context.compaction",
    "agentui.core.loop") if m in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    prompts, loaded = done.stdout.splitlines()
    assert int(prompts) == 30
    assert loaded == "[]"

"""Claude Code 2.1 sessions (Agent, the task tools, background shells by their 2.0 and 2.1 names) resume in the app
with their task list, and every call of theirs is drawn with a line that says what it did."""

from __future__ import annotations

from pathlib import Path

from agentui.api import SessionRequest, call_summary, describe_result
from agentui.core.messages import ToolResultBlock, ToolUseBlock
from agentui.core.session.reader import load_session
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from tests.frontends.tui.test_app import Harness, ready, texts, until

FIXTURES = Path(__file__).parents[2] / "fixtures" / "claude-projects"
TEAMMATES = FIXTURES / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"  # 2.1.114
NEW_NAMES = {"Agent", "TaskCreate", "TaskUpdate", "TaskList", "BashOutput", "KillShell", "KillBash", "Task"}


def test_every_call_by_the_new_names_says_what_it_did() -> None:
    seen = set()
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        loaded = load_session(path)
        results = {b.tool_use_id: b for m in loaded.messages for b in m.content if isinstance(b, ToolResultBlock)}
        for message in loaded.messages:
            for call in message.content:
                if not isinstance(call, ToolUseBlock) or call.name not in NEW_NAMES:
                    continue
                seen.add(call.name)
                summary = call_summary(call.name, call.input)
                assert summary and not summary.startswith("{"), (call.name, summary)
                result = results.get(call.id)
                if result is not None and not result.is_error:
                    details = loaded.tool_details.get(call.id, {})
                    said = describe_result(call.name, result.content, False, details).summary
                    assert said != "done" or call.name in ("Agent", "Task", "TaskUpdate"), (call.name, said)
    # (2.0's Task calls load as 2.1's Agent, as Claude Code sends them back)
    assert seen >= {"Agent", "TaskCreate", "TaskUpdate", "TaskList", "BashOutput", "KillShell"}


async def test_a_claude_code_2_1_session_resumes_with_its_task_list(tmp_path: Path) -> None:
    copy = tmp_path / TEAMMATES.name
    # The session as it stood when its TaskList call was answered: two tasks still open.
    lines = TEAMMATES.read_text().splitlines(keepends=True)
    answered = next(n for n, line in enumerate(lines) if "#5 [in_progress] Round 2" in line and '"tool_result"' in line)
    copy.write_text("".join(lines[: answered + 1]))
    harness = Harness(tmp_path, [{"text": "ok"}], session=SessionRequest(resume=str(copy)))
    app = harness.app()
    async with app.run_test(size=(110, 50)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.view.todos.has_class("-open"))
        shown = str(app.view.todos.render())
        assert "◐ Running round 2 (comparisons)" in shown and "☐ Merge round-2 branches into master" in shown
        assert "☒ Research plan mode (alice) (alice)" in shown
        assert app.view.todos.border_title == "Tasks 4/6"
        assert texts(app, ToolBlock) and all(b.state in ("done", "error", "denied") for b in texts(app, ToolBlock))

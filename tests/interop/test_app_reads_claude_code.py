"""agentui's app shows a session the real Claude Code wrote as it shows its own: each tool call's block says what the
call did, counted from Claude Code's toolUseResult shapes (not "0 lines" from a shape it does not know)."""

from __future__ import annotations

from pathlib import Path

from agentui.core.session.lookup import SessionRequest
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from tests.frontends.tui.test_app import Harness, ready, texts, until
from tests.interop.test_round_trips import World, results_seen, text, tool
from tests.support.loopback import LoopbackServer


async def test_the_app_shows_a_claude_code_session_s_tool_results(
    tmp_path: Path, server: LoopbackServer, agentui_bin: str, claude_bin: str
) -> None:
    (tmp_path / "made").mkdir()
    world = World(tmp_path / "made", server, agentui_bin, claude_bin)
    root = world.project
    turns = [
        [tool("r1", "Read", file_path=str(root / "calc.py"))],
        [tool("g1", "Grep", pattern="return", path=str(root))],
        [tool("f1", "Glob", pattern="*.py")],
        [tool("e1", "Edit", file_path=str(root / "calc.py"), old_string="a - b", new_string="a + b")],
        [tool("w1", "Write", file_path=str(root / "new.txt"), content="one\ntwo\n")],
        [tool("b1", "Bash", command="echo done", description="Say done")],
        [text("All done.")],
    ]
    world.play(lambda body: turns[min(results_seen(body), len(turns) - 1)])
    world.run("claude", "do the work", "--allowedTools", "Read,Grep,Glob,Edit,Write,Bash(echo:*)")
    [session] = (world.home / ".claude" / "projects").glob("*/*.jsonl")

    (tmp_path / "app").mkdir()
    harness = Harness(tmp_path / "app", [{"text": "ok"}], session=SessionRequest(resume=str(session)))
    app = harness.app()
    async with app.run_test(size=(120, 60)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: len(texts(app, ToolBlock)) == 6)
        headers = {block.tool_name: str(block._header.render()) for block in texts(app, ToolBlock)}
    assert "calc.py" in headers["Read"] and headers["Read"].endswith("— 2 lines")
    assert headers["Grep"].endswith("— 1 file") and headers["Glob"].endswith("— 1 file")
    assert headers["Edit"].endswith("changed: +1 −1")
    assert headers["Write"].endswith("created: +2 −0")
    assert headers["Bash"].endswith("— 1 line of output")

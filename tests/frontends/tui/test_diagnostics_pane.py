"""The app draws the errors a language server found in an edit under the edit's diff (a real pylsp, started under
the guard as agentui starts its programs), and none when the setting turns the servers off."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from agentui.core.settings import Settings
from agentui.frontends.tui.widgets.diff_view import DiffView
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import AssistantText
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until

CALLS = [
    {"content": [{"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "calc.py"}}]},
    {
        "content": [
            {
                "type": "tool_use",
                "id": "e1",
                "name": "Edit",
                "input": {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + offset"},
            }
        ]
    },
    {"text": "Edited."},
]


def harness(tmp_path: Path, lsp: bool) -> Harness:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    made = Harness(tmp_path, CALLS, allowed=("Edit",))
    made.env["PATH"] = f"{Path(sys.executable).parent}:/usr/bin:/bin"  # (where pylsp is installed)
    settings = Settings(provider="scripted", model="scripted", lsp=lsp, lsp_wait=60)
    made.launch = replace(made.launch, settings=settings)
    return made


async def test_the_diff_pane_shows_the_error_the_edit_brought(tmp_path: Path) -> None:
    app = harness(tmp_path, lsp=True).app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "use an offset")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        block = next(b for b in texts(app, ToolBlock) if b.tool_call_id == "e1")
        assert block.expanded and block.query(DiffView)
        shown = str(block.query_one(".tool-diagnostics").render())
        assert shown == "✘ line 2:16: undefined name 'offset' (pyflakes)"
        assert "<new-diagnostics>" in str(block.result[0] if block.result else "")
        assert app.conversation is not None
        pids = [server.pid for server in app.conversation.project.workspace.lsp.running]  # type: ignore[union-attr]
        # (its guard makes everything read-only: no stand-in for a protected path appears in the project meanwhile)
        assert sorted(p.name for p in (tmp_path / "project").iterdir()) == ["calc.py"]
    assert pids and all(pid is not None and not Path(f"/proc/{pid}").exists() for pid in pids)


async def test_with_the_setting_off_no_server_starts(tmp_path: Path) -> None:
    app = harness(tmp_path, lsp=False).app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "use an offset")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        block = next(b for b in texts(app, ToolBlock) if b.tool_call_id == "e1")
        assert block.query(DiffView) and not block.query(".tool-diagnostics")
        assert app.conversation is not None and app.conversation.project.workspace.lsp is None
        assert "LSP" not in app.conversation.project.tools.names()


def test_a_resumed_edit_drawn_as_lines_keeps_its_diagnostics_under_the_diff() -> None:
    import dataclasses

    from rich.console import Console
    from rich.style import Style

    from agentui.frontends.tui.part_lines import Look, _tool

    look = Look(*(Style() for _ in dataclasses.fields(Look)))
    details = {
        "filePath": "/p/calc.py",
        "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1, "lines": ["-x", "+y"]}],
        "diagnostics": [
            {
                "line": 2,
                "column": 5,
                "severity": "error",
                "message": "undefined name 'y'",
                "source": "pyflakes",
                "code": "",
            }
        ],
    }
    arguments = {"file_path": "/p/calc.py", "old_string": "x", "new_string": "y"}
    strips = _tool("Edit", arguments, ("Edited.", False, details, False), None, 80, look, Console(width=80))
    shown = [strip.text.rstrip() for strip in strips]
    assert shown[-1] == "  ✘ line 2:5: undefined name 'y' (pyflakes)" and any("+ y" in line for line in shown)

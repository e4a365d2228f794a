"""How /context looks at 80x24 after a turn, as an SVG snapshot: the grid of cells beside the legend, and the memory
file under it. `pytest --snapshot-update` accepts a deliberate change (look at the SVG first)."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentui.core.run_options import ModelOptions
from agentui.core.settings import Settings
from agentui.frontends.tui.widgets.context_view import ContextView
from tests.frontends.tui.test_app import Harness, idle, texts, until
from tests.frontends.tui.test_snapshots import send, steady


def test_context_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    # A project whose path has the same length in every run (the memory file's heading names it, and tokens are
    # counted from characters), and a model whose window is known.
    with tempfile.TemporaryDirectory(prefix="ctx") as where:
        assert _context_drawn(snap_compare, tmp_path, Path(where))


def _context_drawn(snap_compare: Any, tmp_path: Path, project: Path) -> bool:
    harness = Harness(tmp_path, [{"text": "Done.", "usage": {"input_tokens": 30_000, "output_tokens": 120}}])
    harness.project = project
    (harness.project / "CLAUDE.md").write_text("Use tabs for indentation.\n" * 40)
    settings = Settings(provider="scripted", model="claude-sonnet-4-5", options=ModelOptions())
    harness.launch = replace(harness.launch, settings=settings, cwd=harness.project)

    async def run_before(pilot: Any) -> None:
        await until(pilot, lambda: pilot.app.conversation is not None)
        agent = pilot.app.conversation.agent  # (the date and the directory in the prompt change from run to run)
        agent.config = agent.config.model_copy(update={"environment": "<env>\nPlatform: linux\n</env>"})
        await send(pilot, "tidy up")
        await until(pilot, lambda: idle(pilot.app) and pilot.app.status.status.context_percent is not None)
        await send(pilot, "/context")
        await until(pilot, lambda: texts(pilot.app, ContextView))
        await steady(pilot)

    return bool(snap_compare(harness.app(), terminal_size=(80, 24), run_before=run_before))

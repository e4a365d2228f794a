"""/memory in the app: the memory files, then the project's learnings, numbered; `/memory edit N text` rewrites one
and `/memory forget N` forgets it, through agentui.api's LearningStore."""

from __future__ import annotations

from pathlib import Path

from agentui.core.context.learnings import LearningStore
from agentui.core.safety.trust import trust
from agentui.frontends.tui.widgets.transcript import Notice
from tests.core.test_learnings import FIX_RUN
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until


async def test_memory_shows_edits_and_forgets_a_learning(tmp_path: Path) -> None:
    harness = Harness(tmp_path, FIX_RUN, mode="bypassPermissions")
    trust(harness.project, harness.env)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "make the readiness check pass")
        await until(pilot, lambda: idle(app) and len(harness.providers[0].requests) == 4)
        await until(pilot, lambda: len(LearningStore(harness.project, harness.env).all()) == 1)
        await type_and_send(pilot, "/memory")
        listing = texts(app, Notice)[-1].message
        assert listing.startswith("No memory files are loaded.")
        assert (
            "Learnings from earlier runs (the most relevant five join each prompt; /memory forget N):\n"
            "1. `test -f ready.txt && echo checked` failed (Exit code 1); after changing ready.txt, it succeeded."
        ) in listing
        await type_and_send(pilot, "/memory edit 1 Create ready.txt before the readiness check.")
        assert texts(app, Notice)[-1].message == ("Learning 1 now says: Create ready.txt before the readiness check.")
        await type_and_send(pilot, "/memory forget 2")
        assert texts(app, Notice)[-1].message == "There is no learning 2 (the numbers are 1 to 1; /memory lists them)."
        await type_and_send(pilot, "/memory forget 1")
        assert texts(app, Notice)[-1].message == "Forgotten: Create ready.txt before the readiness check."
        assert LearningStore(harness.project, harness.env).all() == []
        await type_and_send(pilot, "/memory")
        assert "Learnings" not in texts(app, Notice)[-1].message
        await type_and_send(pilot, "/memory drop everything")
        assert texts(app, Notice)[-1].message.startswith("Say /memory, /memory forget N")

"""Draws docs/search-picker.svg: the /resume picker searching the text of a project's sessions (Tab, then words).

python docs/search_picker_screenshot.py      (from the repository's root)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentui.core.session.paths import project_dir
from agentui.frontends.tui.screens.picker import SessionPicker
from tests.frontends.tui.test_app import Harness, ready, type_and_send, until
from tests.support.search_sessions import answer, linked, prompt, tool_call, write

OUT = Path(__file__).with_name("search-picker.svg")
SESSIONS = [
    (
        "2b0c6f5e-1d1a-4c1e-9a51-6f1d3c2e7a10",
        "2026-11-20T09:12:00.000Z",
        "Why does the retry loop give up after one attempt on a 529?",
        "The retry loop reads `retry-after` before it checks the status, so an overloaded 529 without the header "
        "gives up at once. Backoff should start from the status.",
        {"command": "rg -n 'retry-after' agentui/core/providers"},
    ),
    (
        "7d41e0b2-5c7f-4f0a-8b3e-2a9c4d6e8f01",
        "2026-11-24T16:40:00.000Z",
        "Add jittered backoff to the retry of streamed requests",
        "Done: the delay doubles from 0.5 s with full jitter, and a stream broken after a block completed is not "
        "sent again.",
        {"file_path": "/work/app/agentui/core/providers/retry.py"},
    ),
    (
        "c9e2a7d4-3b6f-4e1a-9c8d-5f0b2e4a6c13",
        "2026-11-27T11:05:00.000Z",
        "Write the changelog entry for the retry fix",
        "Added under Fixed: retries now back off with jitter on 429 and 529.",
        {"command": "git log --oneline -5 -- agentui/core/providers/retry.py"},
    ),
]


async def draw(tmp: Path) -> None:
    harness = Harness(tmp, [{"text": "ok"}])
    here = str(harness.project)
    for session, stamp, asked, said, arguments in SESSIONS:
        lines = linked(
            prompt(asked, session=session, cwd=here, stamp=stamp),
            answer(said, session=session, cwd=here, stamp=stamp),
            tool_call("Bash" if "command" in arguments else "Edit", arguments, session=session, cwd=here),
        )
        write(project_dir(harness.project, harness.env) / f"{session}.jsonl", *lines)
    app = harness.app()
    async with app.run_test(size=(110, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        await pilot.press("tab", *"retry backo")
        await until(pilot, lambda: picker.searched == "retry backo" and len(picker.hits) >= 2)
        await pilot.pause(0.2)
        app.save_screenshot(str(OUT.name), path=str(OUT.parent))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        asyncio.run(draw(Path(scratch)))
    print(OUT)

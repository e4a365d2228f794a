"""The status line in the app (Pilot): a real script's first line under the prompt, in its colours, again after a
turn and a model change; a failing, a slow and an endless command leave the built-in bar and say why once; an
untrusted project's own statusLine never runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import agentui.core.extend.status_line as status_line_module
from agentui.frontends.tui.screens.trust import TrustScreen
from agentui.frontends.tui.widgets.status_bar import StatusBar
from agentui.frontends.tui.widgets.status_line import StatusLineBar
from agentui.frontends.tui.widgets.transcript import AssistantText, Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.frontends.tui.test_snapshots import steady

SHOW = """\
import json, sys
d = json.load(sys.stdin)
model, out, added = d["model"]["id"], d["context_window"]["total_output_tokens"], d["cost"]["total_lines_added"]
print(f"\\033[36m{model}\\033[0m · out {out} · \\033[1m{added}+\\033[0m")
"""


def user_settings(harness: Harness, settings: dict[str, Any]) -> None:
    path = Path(harness.env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def status_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "status.py"
    script.write_text(body)
    return f"{sys.executable} {script}"


def notices(app: Any, containing: str) -> list[str]:
    return [str(n.render()) for n in texts(app, Notice) if containing in str(n.render())]


def bar(app: Any) -> StatusLineBar:
    return app.status_line.bar


def cyan(app: Any) -> list[str]:
    """The text drawn in cyan on the status line's row."""
    drawn = bar(app).render_line(0)
    return [s.text for s in drawn if s.style and s.style.color and s.style.color.number == 6]


async def test_the_scripts_line_shows_under_the_prompt_and_follows_the_conversation(tmp_path: Path) -> None:
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "n.txt", "content": "a\nb\n"}}
    harness = Harness(
        tmp_path,
        [{"content": [write], "usage": {"input_tokens": 50, "output_tokens": 7}}, {"text": "Written."}],
        mode="acceptEdits",
    )
    user_settings(harness, {"statusLine": {"type": "command", "command": status_script(tmp_path, SHOW), "padding": 1}})
    async with harness.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await until(pilot, lambda: bar(app).line is not None)
        assert bar(app).line == "\x1b[36mscripted\x1b[0m · out 0 · \x1b[1m0+\x1b[0m" and bar(app).display
        drawn = bar(app).render()
        assert str(drawn) == "scripted · out 0 · 0+"  # its colours, no escape characters on screen
        await until(pilot, lambda: cyan(app) == ["scripted"])  # (once the line is laid out and drawn)
        # Under the prompt, above the built-in bar, which stays.
        assert app.prompt_input.region.y < bar(app).region.y < app.query_one(StatusBar).region.y

        await type_and_send(pilot, "write the notes")
        await until(
            pilot, lambda: idle(app) and bar(app).line is not None and "3+" in bar(app).line
        )  # (a new file of 2 lines: 3, as Claude Code counts)
        assert "out 10" in (bar(app).line or "")  # the last answer's usage (the scripted default: 10 out)

        await type_and_send(pilot, "/model claude-opus-4-1")
        await until(pilot, lambda: "claude-opus-4-1" in (bar(app).line or ""))


async def test_a_failing_command_leaves_the_built_in_bar_and_says_why_once(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "One."}, {"text": "Two."}])
    user_settings(harness, {"statusLine": {"type": "command", "command": "echo 'no jq here' >&2; exit 4"}})
    async with harness.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await until(pilot, lambda: app.status_line.runs >= 1)
        for prompt in ("first", "second"):
            before = app.status_line.runs
            await type_and_send(pilot, prompt)
            await until(pilot, lambda before=before: idle(app) and app.status_line.runs > before)
        assert notices(app, "status line") == [
            "The status line command `echo 'no jq here' >&2; exit 4` failed with exit code 4: no jq here."
        ]
        assert not bar(app).display and app.query_one(StatusBar).display
        assert "scripted" in str(app.query_one(StatusBar).render())


async def test_the_app_answers_while_the_command_is_still_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(status_line_module, "TIMEOUT", 120.0)
    started, release = tmp_path / "started", tmp_path / "release"
    command = f"touch {started}; while [ ! -e {release} ]; do sleep 0.05; done; echo released"
    harness = Harness(tmp_path, [{"text": "Answered meanwhile."}])
    user_settings(harness, {"statusLine": {"type": "command", "command": command}})
    async with harness.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await until(pilot, started.exists)
        await type_and_send(pilot, "hello")  # the command is held until the test releases it
        await until(
            pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Answered meanwhile."]
        )
        assert app.status_line.runs == 0 and not bar(app).display
        release.touch()
        await until(pilot, lambda: bar(app).line == "released")
        assert not notices(app, "status line")


async def test_a_hung_command_is_stopped_and_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_line_module, "TIMEOUT", 1.0)
    marker = f"hung-{uuid.uuid4().hex}"
    harness = Harness(tmp_path, [{"text": "ok"}])
    user_settings(harness, {"statusLine": {"type": "command", "command": f"sleep 3600; : {marker}"}})
    async with harness.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await until(pilot, lambda: app.status_line.runs >= 1)
        assert notices(app, "status line") == [
            f"The status line command `sleep 3600; : {marker}` took longer than 1 s and was stopped."
        ]
        assert not bar(app).display
        await until(pilot, lambda: subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode != 0)


async def test_a_command_that_prints_without_end_is_cut_off(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    command = "echo '\033[33mbuilding\033[0m'; yes 0123456789 | head -c 100000000"
    user_settings(harness, {"statusLine": {"type": "command", "command": command}})
    async with harness.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await until(pilot, lambda: app.status_line.runs >= 1)
        assert bar(app).line == "\x1b[33mbuilding\x1b[0m" and str(bar(app).render()) == "building"
        [said] = notices(app, "status line")
        assert "printed more than 64 KB, so it was stopped" in said


@pytest.mark.parametrize("answer", ["n", "y"])
async def test_an_untrusted_projects_status_line_runs_only_once_trusted(tmp_path: Path, answer: str) -> None:
    ran = tmp_path / "ran"
    harness = Harness(tmp_path, [{"text": "ok"}])
    (harness.project / ".claude").mkdir()
    (harness.project / ".claude" / "settings.json").write_text(
        json.dumps({"statusLine": {"type": "command", "command": f"touch {ran}; echo project line"}})
    )
    async with harness.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await until(pilot, lambda: isinstance(app.screen, TrustScreen))
        assert any("(status line)" in line for line in app.screen.held_back)
        await pilot.press(answer)
        await ready(pilot)
        await type_and_send(pilot, "hello")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        if answer == "y":
            await until(pilot, lambda: bar(app).line == "project line")
            assert ran.exists()
        else:
            assert app.status_line.report is None and not bar(app).display and not ran.exists()


def test_only_colours_and_links_of_the_line_reach_the_terminal() -> None:
    from agentui.frontends.tui.widgets.status_line import status_text

    drawn = status_text(
        "\x1b]52;c;aGk=\x07\x1b[2J\x1b[H\x08\rok \x1b[31mred\x1b[0m\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\"
    )
    assert drawn.plain == "ok redlink"
    assert [(drawn.plain[s.start : s.end], str(s.style)) for s in drawn.spans] == [
        ("red", "color(1)"),
        ("link", "link https://x.test"),
    ]
    assert status_text("\x9b2J\x1bc\x1b]0;title\x07plain\x1b").plain == "2Jplain"  # (C1 CSI, reset, title)


def test_a_links_address_carries_no_control_character_to_the_terminal() -> None:
    """Textual writes a link's address as it is, inside its OSC 8: a CAN there ends the sequence early, and what
    follows acts (SO switches the terminal to line drawing; an 8-bit CSI or OSC 52 where the terminal reads C1)."""
    from rich.console import Console
    from rich.segment import Segment
    from textual.strip import Strip

    from agentui.frontends.tui.widgets.status_line import status_text

    drawn = status_text("\x1b]8;;https://x.test/\x18\x0e\x9b2J\x9d52;c;aGk=\x9c\x1b\\click\x1b]8;;\x1b\\ tail")
    assert drawn.plain == "click tail"
    console = Console(color_system="truecolor", force_terminal=True, width=80)
    written = Strip(list(Segment.apply_style(drawn.render(console)))).render(console)
    assert not re.search("[\x00-\x1a\x1c-\x1f\x7f-\x9f]", written), repr(written)
    assert (
        status_text("\x1b]8;;https://x.test/a?b=1\x1b\\ok\x1b]8;;\x1b\\").spans[0].style.link == "https://x.test/a?b=1"
    )


PROMPT_LIKE = """\
import json, os, sys
d = json.load(sys.stdin)
model, used = d["model"]["display_name"], d["context_window"]["used_percentage"]
where, added = os.path.basename(d["workspace"]["project_dir"]), d["cost"]["total_lines_added"]
print(f"\\033[1;36m{model}\\033[0m in \\033[33m{where}\\033[0m · context {used}% · \\033[32m+{added}\\033[0m")
"""


def test_a_status_line_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "The tests pass.", "usage": {"input_tokens": 84_000, "output_tokens": 20}}])
    settings = harness.launch.settings.model_copy(update={"model": "claude-sonnet-4-5"})
    harness.launch = replace(harness.launch, settings=settings)
    script = status_script(tmp_path, PROMPT_LIKE)
    user_settings(harness, {"statusLine": {"type": "command", "command": script, "padding": 1}})

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await type_and_send(pilot, "run the tests")
        await until(pilot, lambda: idle(pilot.app) and "context 42%" in (bar(pilot.app).line or ""))
        await steady(pilot)

    assert snap_compare(harness.app(), terminal_size=(80, 24), run_before=run_before)


async def test_refresh_interval_runs_it_again_with_nothing_changed(tmp_path: Path) -> None:
    count = tmp_path / "count"
    command = f"n=$(( $(cat {count} 2>/dev/null || echo 0) + 1 )); echo $n > {count}; echo run $n"
    harness = Harness(tmp_path, [])
    user_settings(harness, {"statusLine": {"type": "command", "command": command, "refreshInterval": 1}})
    async with harness.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await until(pilot, lambda: bar(app).line == "run 1")
        await until(pilot, lambda: bar(app).line == "run 3")  # no prompt, no event: the interval alone

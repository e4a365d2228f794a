"""The app driven by Textual's Pilot with the scripted provider: what a person sees and what each key does."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import OptionList

from agentui.api.messages import command_record
from agentui.core.conversation import Launch
from agentui.core.events import Event, PermissionResolved
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from agentui.frontends.tui.app import AgentApp
from agentui.frontends.tui.history_view import EARLIER_SHOWN, HISTORY_SHOWN
from agentui.frontends.tui.keys_help import KEYS
from agentui.frontends.tui.screens.model_picker import ModelPicker
from agentui.frontends.tui.screens.permission import PermissionScreen
from agentui.frontends.tui.screens.picker import SessionPicker
from agentui.frontends.tui.widgets.help_view import HelpView
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import AssistantText, Notice, UserPrompt
from tests.support.chain import SessionChain
from tests.support.listings import said, without_listings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


class Harness:
    """An app on a temporary project and home, with a scripted model."""

    def __init__(
        self,
        tmp_path: Path,
        script: list[dict[str, Any]],
        *,
        mode: str | None = None,
        session: SessionRequest = SessionRequest(),
        allowed: tuple[str, ...] = (),
    ) -> None:
        self.project = tmp_path / "project"
        self.project.mkdir(exist_ok=True)
        self.env = {
            "HOME": str(tmp_path / "home"),
            "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
            "AGENTUI_CONFIG_DIR": str(tmp_path / "config"),
            "AGENTUI_DATA_DIR": str(tmp_path / "data"),
            "AGENTUI_CACHE_DIR": str(tmp_path / "cache"),
            "AGENTUI_STATE_DIR": str(tmp_path / "state"),
        }
        self.script = script
        self.providers: list[ScriptedProvider] = []
        settings = Settings(provider="scripted", model="scripted")
        self.launch = Launch(
            settings=settings,
            cwd=self.project,
            session=session,
            permissions=PermissionOptions(mode=mode, allowed_tools=allowed),
        )  # type: ignore[arg-type]
        self.events: list[Event] = []

    def provider(self) -> ScriptedProvider:
        provider = ScriptedProvider(self.script)
        self.providers.append(provider)
        return provider

    def app(self) -> AgentApp:
        return AgentApp(self.launch, provider_factory=self.provider, env=self.env)


async def ready(pilot: Any) -> None:
    """Until the app has opened its conversation (start-up runs once the main screen is mounted)."""
    await until(pilot, lambda: pilot.app.conversation is not None)


async def type_and_send(pilot: Any, text: str) -> None:
    app = pilot.app
    app.prompt_input.insert(text)
    await pilot.press("enter")
    await pilot.pause()


async def until(pilot: Any, condition: Any, ceiling: float = 60) -> None:
    """Until `condition()` holds; the ceiling is only for a hung app, never a measure of speed."""

    async def wait() -> None:
        while not condition():
            await pilot.pause(0.02)

    await asyncio.wait_for(wait(), ceiling)


def idle(app: AgentApp) -> bool:
    return app.conversation is not None and not app.conversation.agent.running


def texts(app: AgentApp, kind: type) -> list[Any]:
    """The parts of `kind` drawn, in order: live widgets, and (for prompts, notices and answers) those drawn as lines
    in the history above them, as stand-ins with the same attribute."""
    from types import SimpleNamespace

    from agentui.frontends.tui.widgets.history_lines import HistoryLines

    found: list[Any] = []
    for widget in app.query("*"):
        if isinstance(widget, kind):
            found.append(widget)
        elif isinstance(widget, HistoryLines):
            for index in range(widget.first, widget.end):
                part, item = widget.source.history.parts[index]
                if kind is UserPrompt and part == "prompt":
                    found.append(SimpleNamespace(text=item, drawn_as_lines=True))
                elif kind is Notice and part == "notice":
                    found.append(SimpleNamespace(message=item[0] if isinstance(item, tuple) else item, display=True))
                elif kind.__name__ == "AssistantText" and part == "answer":
                    found.append(SimpleNamespace(source=item, drawn_as_lines=True))
    return found


def listen(app: AgentApp, harness: Harness) -> None:
    assert app.conversation is not None
    app.conversation.agent.bus.on(harness.events.append)


async def test_a_streamed_answer_renders_as_markdown(tmp_path: Path) -> None:
    harness = Harness(
        tmp_path, [{"text": "Here is **bold** and a list:\n\n- one\n- two\n", "chunk_size": 3, "delay": 0.005}]
    )
    async with harness.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "format something")
        await until(pilot, lambda: idle(pilot.app) and [a for a in texts(pilot.app, AssistantText) if a.finished])
        [answer] = texts(pilot.app, AssistantText)
        assert answer.source == "Here is **bold** and a list:\n\n- one\n- two\n" and answer.finished
        assert [p.text for p in texts(pilot.app, UserPrompt)] == ["format something"]
        assert pilot.app.status.status.title == "format something"


async def test_a_prompt_sent_before_start_up_has_finished_waits_for_the_conversation(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "Answered."}])
    # The launch resolves on the engine's thread after the first frame; a person can press Enter before that.
    app = AgentApp(None, prepare=lambda: (harness.launch, None), provider_factory=harness.provider, env=harness.env)
    app.send("typed at once")  # as the prompt does when Enter comes before start-up has begun
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Answered."])
        assert [p.text for p in texts(app, UserPrompt)] == ["typed at once"]
        assert not [n for n in texts(app, Notice) if "no conversation" in str(n.render())]


@pytest.mark.parametrize(("key", "typed"), [("escape", ""), ("ctrl+c", "half a thought")])
async def test_esc_or_ctrl_c_as_the_conversation_opens_takes_back_what_waits_to_run(
    tmp_path: Path, key: str, typed: str
) -> None:
    """A `!command` sent while the conversation opens waits for it; Esc or Ctrl+C then must stop it as they stop a
    running one (it ran later, after the person had pressed Ctrl+C). It comes back into an empty prompt, and is in
    the history either way; never joined with what is typed, which a `!` in front would run as a shell script."""
    harness = Harness(tmp_path, [{"text": "Answered."}])
    opened = threading.Event()

    def prepare() -> tuple[Launch, None]:  # (start-up held until the keys are in)
        assert opened.wait(60), "the test never let start-up go on"
        return harness.launch, None

    app = AgentApp(None, prepare=prepare, provider_factory=harness.provider, env=harness.env)
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await app.submit("!touch ran.txt")
            app.prompt_input.insert(typed)
            await pilot.press(key)
        finally:
            opened.set()
        await ready(pilot)
        await until(pilot, lambda: "has not run" in " ".join(str(n.render()) for n in texts(app, Notice)))
        assert app.prompt_input.text == (typed or "!touch ran.txt")
        assert app.prompt_input.prompt_history.entries[-1] == "!touch ran.txt"
        await pilot.press("ctrl+c")  # (nothing waits now: the prompt is cleared, and the app stays)
        await until(pilot, lambda: app.prompt_input.text == "")
        assert not (harness.project / "ran.txt").exists() and app.is_running
        assert not [p for p in texts(app, UserPrompt) if "touch" in p.text]


def write_script(name: str = "notes.txt", content: str = "hello\n") -> list[dict[str, Any]]:
    return [
        {
            "content": [
                {"type": "text", "text": "Writing it."},
                {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": name, "content": content}},
            ]
        },
        {"text": "Done."},
    ]


async def test_a_tool_call_shows_its_block_and_asks(tmp_path: Path) -> None:
    harness = Harness(tmp_path, write_script())
    async with harness.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "write the note")
        await until(pilot, lambda: isinstance(pilot.app.screen, PermissionScreen))
        [block] = texts(pilot.app, ToolBlock)
        assert block.tool_name == "Write" and block.state == "asking" and block.arguments["file_path"] == "notes.txt"
        await pilot.press("y")
        await until(pilot, lambda: idle(pilot.app))
        assert (harness.project / "notes.txt").read_text() == "hello\n"
        assert block.state == "done" and "created: +1" in str(block._header.render())
        assert pilot.app.focused is pilot.app.prompt_input


@pytest.mark.parametrize(
    ("keys", "behavior", "scope", "written"),
    [
        (["y"], "allow", "once", True),
        (["1"], "allow", "once", True),
        (["s"], "allow", "session", True),
        (["2"], "allow", "session", True),
        (["a"], "allow", "always", True),
        (["3"], "allow", "always", True),
        (["n"], "deny", "once", False),
        (["escape"], "deny", "once", False),
    ],
)
async def test_each_modal_key_gives_its_decision(
    tmp_path: Path, keys: list[str], behavior: str, scope: str, written: bool
) -> None:
    harness = Harness(tmp_path, write_script())
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        listen(app, harness)
        await type_and_send(pilot, "write the note")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press(*keys)
        await until(pilot, lambda: idle(app))
        [resolved] = [e for e in harness.events if isinstance(e, PermissionResolved)]
        assert (resolved.decision.behavior, resolved.decision.scope) == (behavior, scope)
        assert (harness.project / "notes.txt").exists() is written
        rules = [(r.text, r.source) for r in app.conversation.project.engine.rules if r.source in ("session", "local")]
        assert rules == {"session": [("Edit", "session")], "always": [("Edit", "local")]}.get(scope, [])
        local = harness.project / ".claude" / "settings.local.json"
        assert local.exists() is (scope == "always")
        if scope == "always":
            assert json.loads(local.read_text())["permissions"]["allow"] == ["Edit"]
            # The person kept a rule in the project: the next start neither holds it back nor asks for trust.
            from agentui.core.project import open_project

            reopened = open_project(harness.project, env=harness.env)
            assert reopened.trusted and reopened.notices == []
            assert any(r.text == "Edit" and r.behavior == "allow" for r in reopened.engine.rules)


async def test_tab_denies_with_a_message_for_the_model(tmp_path: Path) -> None:
    harness = Harness(tmp_path, write_script())
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "write the note")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("tab")
        await pilot.press(*"use docs/ instead")
        await pilot.press("enter")
        await until(pilot, lambda: idle(app))
        result = harness.providers[0].requests[1].messages[-1].content[0]
        assert result.is_error and result.content.endswith("The user said: use docs/ instead")
        assert not (harness.project / "notes.txt").exists()
        [block] = texts(app, ToolBlock)  # the person sees their own words, not the sentence for the model
        assert str(block._header.render()).endswith("denied — you said: use docs/ instead")
        assert "doesn't want to proceed" not in str(block._header.render()) and not block.expanded


async def test_results_show_without_asking_diffs_output_and_the_task_list(tmp_path: Path) -> None:
    from agentui.frontends.tui.widgets.diff_view import DiffView

    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    todos = [{"content": "fix add", "status": "in_progress", "activeForm": "Fixing add"}]
    calls = [
        ("r1", "Read", {"file_path": "calc.py"}),
        ("e1", "Edit", {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}),
        ("b1", "Bash", {"command": "seq 1 30"}),
        ("t1", "TodoWrite", {"todos": todos}),
    ]
    script = [{"content": [{"type": "tool_use", "id": i, "name": n, "input": a}]} for i, n, a in calls]
    harness = Harness(tmp_path, [*script, {"text": "Fixed."}], allowed=("Edit", "Bash(seq:*)"))
    app = harness.app()
    async with app.run_test(size=(100, 60)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "fix add")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        blocks = {b.tool_call_id: b for b in texts(app, ToolBlock)}
        assert not blocks["r1"].expanded  # a read stays one line
        assert blocks["e1"].expanded and blocks["e1"].query(DiffView)
        assert "+ " in str(blocks["e1"].query_one(DiffView).render()) and "a + b" in str(
            blocks["e1"].query_one(DiffView).render()
        )
        assert blocks["b1"].expanded
        shown = str(blocks["b1"].query_one(".tool-body Static").render())
        assert shown.splitlines()[0] == "… 18 earlier lines" and shown.splitlines()[-1] == "30"
        assert blocks["t1"].expanded and "fix add" in str(blocks["t1"].query_one(".tool-body Static").render())
        # and the open tasks stay in view above the prompt, also after a resume
        assert app.view.todos.has_class("-open") and "◐ Fixing add" in str(
            app.view.todos.render()
        )  # (its activeForm while in progress)
        assert app.view.todos.border_title == "Tasks 0/1"
        session_id = app.conversation.session_id
    app = harness.app()
    async with app.run_test(size=(100, 60)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume " + session_id)
        await until(pilot, lambda: app.view.todos.has_class("-open"))
        assert "Fixing add" in str(app.view.todos.render())
        await type_and_send(pilot, "/clear")
        await until(pilot, lambda: not app.view.todos.has_class("-open"))


async def test_parallel_requests_queue_one_at_a_time(tmp_path: Path) -> None:
    calls = [
        {"type": "tool_use", "id": f"w{i}", "name": "Write", "input": {"file_path": f"n{i}.txt", "content": "x"}}
        for i in range(2)
    ]
    harness = Harness(tmp_path, [{"content": calls}, {"text": "ok"}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "two files")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert app.screen.request.input["file_path"] == "n0.txt"
        await pilot.press("y")
        await until(
            pilot,
            lambda: isinstance(app.screen, PermissionScreen) and app.screen.request.input["file_path"] == "n1.txt",
        )
        await pilot.press("n")
        await until(pilot, lambda: idle(app))
        assert (harness.project / "n0.txt").exists() and not (harness.project / "n1.txt").exists()


async def test_escape_interrupts_mid_stream(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "word " * 400, "chunk_size": 5, "delay": 0.01}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "talk a lot")
        await until(pilot, lambda: texts(app, AssistantText))
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        assert [n.message for n in texts(app, Notice) if n.message == "Interrupted."]
        assert app.conversation.agent.messages[-1].text == "[Request interrupted by user]"


async def test_escape_interrupts_a_running_command(tmp_path: Path) -> None:
    command = "echo first words; sleep 600"
    sleeper = {"content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": command}}]}
    harness = Harness(tmp_path, [sleeper, {"text": "never"}], allowed=("Bash(echo:*)", "Bash(sleep:*)"))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "wait")
        await until(pilot, lambda: texts(app, ToolBlock) and texts(app, ToolBlock)[0]._log is not None)
        [block] = texts(app, ToolBlock)
        await until(pilot, lambda: "first words" in "\n".join(block._log.lines))
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))  # far sooner than the 600 s the command wanted
        assert block.state == "error" and "stopped (Esc)" in str(block._header.render())
        # what it printed before is still there, and "Interrupted by user" is said once
        assert block._log is not None and "first words" in "\n".join(block._log.lines)
        assert not [s for s in block.query(".tool-body Static") if "Interrupted" in str(s.render())]


async def test_typing_while_the_agent_works_queues_the_message(tmp_path: Path) -> None:
    # The command runs until the test has typed its message: however slow the machine, the agent is still at work.
    go = tmp_path / "go"
    held = {
        "content": [
            {
                "type": "tool_use",
                "id": "b1",
                "name": "Bash",
                "input": {"command": f"while [ ! -e {go} ]; do sleep 0.02; done"},
            }
        ]
    }
    harness = Harness(tmp_path, [held, {"text": "Adjusted."}], allowed=("Bash",))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "start")
        await until(pilot, lambda: texts(app, ToolBlock))
        await type_and_send(pilot, "also use tabs")
        assert "also use tabs" in str(app.query_one("#pending").render()) and app.query_one("#pending").display
        go.touch()
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        assert [p.text for p in texts(app, UserPrompt)] == ["start", "also use tabs"]
        assert not app.query_one("#pending").display
        assert harness.providers[0].requests[1].messages[-1].text == "also use tabs"


async def test_resume_opens_the_picker_and_restores_the_conversation(tmp_path: Path) -> None:
    first = Harness(tmp_path, [{"text": "The first answer."}])
    async with first.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "the first question")
        await until(pilot, lambda: idle(pilot.app) and texts(pilot.app, AssistantText))
    again = Harness(tmp_path, [{"text": "More."}])
    app = again.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        assert [s.title for s in app.screen.sessions] == ["the first question"]
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                not isinstance(app.screen, SessionPicker)
                and app.conversation is not None
                and app.conversation.agent.messages
            ),
        )
        assert [p.text for p in texts(app, UserPrompt)] == ["the first question"]
        assert [a.source for a in texts(app, AssistantText)] == ["The first answer."]
        await type_and_send(pilot, "and then?")
        await until(pilot, lambda: idle(app) and len(texts(app, AssistantText)) == 2)
        assert [said(m) for m in again.providers[-1].requests[0].messages] == [
            "the first question",
            "The first answer.",
            "and then?",
        ]


async def test_the_picker_shows_a_multi_line_prompt_on_one_line_inside_its_entry(tmp_path: Path) -> None:
    """Issue 33: a prompt of several lines showed its later lines at the picker's left edge, out of the entry."""
    first = Harness(tmp_path, [{"text": "One."}, {"text": "Two."}])
    async with first.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "the first question")
        await until(pilot, lambda: idle(pilot.app) and texts(pilot.app, AssistantText))
        pilot.app.prompt_input.text = "fix this function:\n    def parse(text):\n        return text"
        await pilot.press("enter")
        await until(pilot, lambda: idle(pilot.app) and len(texts(pilot.app, AssistantText)) == 2)
    app = Harness(tmp_path, [{"text": "More."}]).app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        entry = str(app.screen.query_one("#sessions", OptionList).get_option_at_index(0).prompt)
        assert entry.splitlines()[1] == "  fix this function: def parse(text): return text"
        assert all(line.startswith("  ") for line in entry.splitlines()[1:])


async def test_resume_flag_with_no_id_starts_with_the_picker(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}], session=SessionRequest(resume=""))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.press("escape")  # nothing to resume: a new session starts
        await until(pilot, lambda: app.conversation is not None)


async def test_themes_load_and_switch(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert {"agentui-dark", "agentui-light"} <= set(app.available_themes) and app.theme == "agentui-dark"
        await type_and_send(pilot, "/theme agentui-light")
        assert app.theme == "agentui-light"
    config = json.loads((tmp_path / "config" / "config.json").read_text())
    assert config == {"theme": "agentui-light"}
    async with Harness(tmp_path, [{"text": "ok"}]).app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert pilot.app.theme == "agentui-light"  # remembered


async def test_slash_commands_custom_commands_and_completion(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "Reviewed."}])
    commands = harness.project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully; start with $0.\n"
    )
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert("/rev")
        await pilot.pause()
        assert [c.value for c in app.query_one("CompletionList").items] == ["/review"]
        await pilot.press("tab")
        assert app.prompt_input.text == "/review "
        app.prompt_input.insert("app.py utils.py")
        await pilot.press("enter")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        # As Claude Code: the command as typed is recorded before the prompt it expands to; the model reads both,
        # the person sees the command (issue 33's small things: the expansion was shown).
        record, expansion = harness.providers[0].requests[0].messages[:2]
        assert said(record) == command_record("review", "app.py utils.py")
        assert said(expansion) == "Review app.py utils.py carefully; start with app.py.\n"  # ($0: Claude Code's first)
        assert [p.text for p in texts(app, UserPrompt)] == ["/review app.py utils.py"]
        assert app.status.status.title == "/review app.py utils.py"
        await type_and_send(pilot, "/nonsense")
        assert texts(app, Notice)[-1].message == "There is no command /nonsense; /help lists them."
        await type_and_send(pilot, "/help")
        [shown] = texts(app, HelpView)
        console = Console(width=80, record=True, file=io.StringIO())
        console.print(shown.tables)
        lines = console.export_text().splitlines()
        assert any(line.startswith("/review") for line in lines)
        for keys, _ in KEYS:  # every key, in the first column; what it does wraps under its own column at 80
            assert any(line.startswith(keys) for line in lines), keys
        column = lines[1].index("send")
        wrapped = [line for line in lines if line.strip() and line[:column].strip() == ""]
        assert wrapped and all(line[column - 1] == " " and line[column] != " " for line in wrapped)


async def test_at_completion_offers_project_files(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    (harness.project / "src").mkdir()
    (harness.project / "src" / "main.py").write_text("")
    (harness.project / "README.md").write_text("")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert("look at @mai")
        await pilot.pause()
        assert [c.value for c in app.query_one("CompletionList").items] == ["@src/main.py"]
        await pilot.press("enter")  # Enter takes the completion, it does not send
        assert app.prompt_input.text == "look at @src/main.py "
        await pilot.pause()
        assert not app.query_one("CompletionList").showing  # the list closes once a completion is taken
        await pilot.press("enter")  # and the next Enter sends
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        sent = without_listings(harness.providers[0].requests[0].messages[0].content)
        assert sent[0].text.strip() == "look at @src/main.py"  # type: ignore[union-attr]


async def test_at_completion_ranks_a_name_that_starts_with_what_was_typed_first(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    for name in (".claude/settings.local.json", "docs/local-calc.md", "src/calculator/core.py", "calc.py"):
        (harness.project / name).parent.mkdir(parents=True, exist_ok=True)
        (harness.project / name).write_text("")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert("open @cal")
        await pilot.pause()
        assert [c.value for c in app.query_one("CompletionList").items] == [
            "@calc.py",
            "@src/calculator/core.py",
            "@docs/local-calc.md",
            "@.claude/settings.local.json",
        ]
        await pilot.press("tab")
        assert app.prompt_input.text == "open @calc.py "


async def test_history_recalls_earlier_prompts(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "a"}, {"text": "b"}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "first prompt")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        await pilot.press("up")
        assert app.prompt_input.text == "first prompt"
        await pilot.press("down")
        assert app.prompt_input.text == ""
    async with Harness(tmp_path, [{"text": "c"}]).app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert pilot.app.prompt_input.text == "first prompt"  # persisted per project


async def test_bang_commands_and_notes(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "I see the listing."}])
    (harness.project / "data.csv").write_text("x")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "!ls")
        await until(pilot, lambda: texts(app, ToolBlock) and texts(app, ToolBlock)[0].state == "done")
        await type_and_send(pilot, "#always run the tests with -q")
        assert (harness.project / "CLAUDE.md").read_text() == "- always run the tests with -q\n"
        await type_and_send(pilot, "what did you see?")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        sent = harness.providers[0].requests[0].messages
        assert said(sent[0]) == "<bash-input>ls</bash-input>\n<bash-stdout>data.csv</bash-stdout>"
        assert said(sent[-1]) == "what did you see?"
        # On screen: the command once, as the person typed it, and its output once, in its block.
        prompts = [p.text for p in texts(app, UserPrompt)]
        assert prompts == ["! ls", "what did you see?"]
        assert len(texts(app, ToolBlock)) == 1
        session_id = app.conversation.session_id
    # Resumed, it shows the same: no tags, and an interrupt as a line of its own, not a message.
    harness.script = [{"text": "word " * 400, "chunk_size": 5, "delay": 0.01}]
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume " + session_id)
        await until(pilot, lambda: "! ls" in [p.text for p in texts(app, UserPrompt)])
        assert not [p for p in texts(app, UserPrompt) if "<bash" in p.text]
        await type_and_send(pilot, "talk a lot")
        await until(pilot, lambda: texts(app, AssistantText) and not idle(app))
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        session_id = app.conversation.session_id
    harness.script = []
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume " + session_id)
        await until(pilot, lambda: "talk a lot" in [p.text for p in texts(app, UserPrompt)])
        assert not [p for p in texts(app, UserPrompt) if p.text.startswith("[Request interrupted")]
        assert [n for n in texts(app, Notice) if n.message == "Interrupted."]


async def test_shift_tab_cycles_the_permission_mode(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.conversation is not None)
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append(app.conversation.project.engine.mode)
        assert seen == ["acceptEdits", "plan", "default"] and app.status.status.mode == "default"
        said = [n.message for n in texts(app, Notice) if n.message.startswith("Permission mode:")]
        assert said == [
            "Permission mode: acceptEdits — file edits in the project go ahead; commands still ask",
            "Permission mode: plan — read-only: the agent looks and plans, and changes nothing",
            "Permission mode: default — edits and commands ask first",
        ]
        await type_and_send(pilot, "/init")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        assert [p.text for p in texts(app, UserPrompt)] == ["/init"]  # not the prompt agentui sends for it


async def test_ctrl_c_twice_quits_and_ctrl_l_clears(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert not texts(app, UserPrompt)
        await pilot.press("ctrl+c")
        assert app.status.status.hint == "Press Ctrl+C again to quit" and app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_errors_are_sentences_in_the_transcript(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"error": {"status": 401, "message": "invalid x-api-key"}}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hi")
        await until(pilot, lambda: idle(app) and any(n.has_class("-error") for n in texts(app, Notice)))
        [error] = [n for n in texts(app, Notice) if n.has_class("-error")]
        assert error.message == "The scripted model rejected the API key (401); check the script: invalid x-api-key."
    unconfigured = AgentApp(None, problem="No model is configured: set ANTHROPIC_API_KEY.", env=harness.env)
    async with unconfigured.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any(n.has_class("-error") for n in texts(pilot.app, Notice)))
        await type_and_send(pilot, "hi")
        config = Path(harness.env["AGENTUI_CONFIG_DIR"]) / "config.json"
        errors = [n.message for n in texts(pilot.app, Notice) if n.has_class("-error")]
        assert errors[0].startswith("No model is configured: set ANTHROPIC_API_KEY.\nOr write " + str(config))
        assert errors[1:] == ["Not sent: no model is configured (see above, or /model)."]
        assert [p.text for p in texts(pilot.app, UserPrompt)] == ["hi"]  # what was typed is shown
        await type_and_send(pilot, "/model")
        assert str(config) in texts(pilot.app, Notice)[-1].message


async def test_export_writes_markdown(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "The answer."}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "the question")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        await type_and_send(pilot, "/export conversation.md")
        await type_and_send(pilot, "/export")  # no name: kept out of the project
        said = texts(app, Notice)[-1].message
        await type_and_send(pilot, "/clear")
        await type_and_send(pilot, "/export")
        assert texts(app, Notice)[-1].message == "There is nothing to export yet: this conversation is empty."
    assert (harness.project / "conversation.md").read_text() == (
        "## You\n\nthe question\n\n## Assistant\n\nThe answer.\n"
    )
    [exported] = (tmp_path / "data" / "exports").glob("project-*.md")
    assert said == f"Exported to {exported}." and "The answer." in exported.read_text()
    assert sorted(p.name for p in harness.project.iterdir() if p.suffix == ".md") == ["conversation.md"]


async def test_retries_show_a_countdown_and_a_notice(tmp_path: Path) -> None:
    harness = Harness(
        tmp_path, [{"error": {"status": 529, "message": "Overloaded", "retry_after": 0.6}}, {"text": "Made it."}]
    )
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hi")
        await until(pilot, lambda: app.status.status.retry_until is not None)
        assert "retrying in" in str(app.status.render()) and "Overloaded" in app.status.status.retry_reason
        assert any(n.message.startswith("Retrying in 0.6 s (attempt 2 of 10)") for n in texts(app, Notice))
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Made it."])
        assert app.status.status.retry_until is None


async def test_memory_lists_the_claude_md_files_and_compact_folds_the_history_into_a_summary(tmp_path: Path) -> None:
    from agentui.core.context.compaction import SUMMARY_PREFIX, SUMMARY_SYSTEM
    from agentui.frontends.tui.widgets.transcript import CompactionMark

    harness = Harness(
        tmp_path,
        [
            {"text": "First answer."},
            {"text": "Second answer."},
            {"text": "They asked two things."},
            {"text": "Third answer."},
        ],
    )
    (harness.project / "CLAUDE.md").write_text("Use tabs. @notes.md\n")
    (harness.project / "notes.md").write_text("Notes.\n")
    (harness.project / ".claude" / "rules").mkdir(parents=True)
    (harness.project / ".claude" / "rules" / "style.md").write_text("Short names.\n")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/memory")
        listing = texts(app, Notice)[-1].message
        assert "- CLAUDE.md: the project's instructions (20 characters), ending:\n    Use tabs. @notes.md" in listing
        assert "- notes.md: imported by CLAUDE.md (7 characters)" in listing
        assert "- .claude/rules/style.md: a rule, always applied (" in listing
        for prompt in ("one", "two"):
            await type_and_send(pilot, prompt)
            await until(pilot, lambda: idle(app))
        await type_and_send(pilot, "/compact keep the numbers")
        await until(pilot, lambda: idle(app) and texts(app, CompactionMark))
        (mark,) = texts(app, CompactionMark)
        assert mark.summary == "They asked two things." and mark.collapsed
        requests = harness.providers[0].requests
        assert requests[2].system == SUMMARY_SYSTEM and "keep the numbers" in requests[2].messages[0].text
        await type_and_send(pilot, "three")
        await until(pilot, lambda: idle(app) and len(requests) == 4)
        assert requests[3].messages[0].text == SUMMARY_PREFIX + "They asked two things."
        session_id = app.conversation.session_id
    harness.launch = replace(harness.launch, session=SessionRequest(resume=session_id))
    async with harness.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: texts(pilot.app, CompactionMark))
        assert texts(pilot.app, CompactionMark)[0].summary == "They asked two things."
        assert "one" not in [p.text for p in texts(pilot.app, UserPrompt)]


async def test_mcp_servers_connect_in_the_background_and_mcp_shows_them(tmp_path: Path) -> None:
    import sys

    from textual.widgets import OptionList, Static

    from agentui.frontends.tui.screens.mcp import McpScreen

    server = str(Path(__file__).resolve().parents[2] / "support" / "mcp_server.py")
    harness = Harness(
        tmp_path,
        [
            {"content": [{"type": "tool_use", "id": "m1", "name": "mcp__tiny__add", "input": {"a": 20, "b": 22}}]},
            {"text": "It is 42."},
        ],
        allowed=("mcp__tiny__*",),
    )
    claude = Path(harness.env["CLAUDE_CONFIG_DIR"])
    claude.mkdir(parents=True, exist_ok=True)
    (claude / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "tiny": {"command": sys.executable, "args": [server]},
                    "broken": {"command": sys.executable, "args": [server, "crash"]},
                }
            }
        )
    )
    app = harness.app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await until(
            pilot,
            lambda: (
                app.conversation is not None
                and app.conversation.mcp is not None
                and all(s.state != "starting" for s in app.conversation.mcp.servers)
            ),
        )
        await until(pilot, lambda: any("MCP: tiny connected." in n.message for n in texts(app, Notice)))
        assert any("The MCP server broken" in n.message and n.has_class("-warning") for n in texts(app, Notice))
        await type_and_send(pilot, "/mcp")
        await until(pilot, lambda: isinstance(app.screen, McpScreen))
        listing = app.screen.query_one("#servers", OptionList)
        assert str(listing.get_option_at_index(0).prompt) == "✔ tiny (user) · connected · 7 tools"
        shown = str(app.screen.query_one("#server-details", Static).render())
        assert "Tools: add, shout, pixel, grow, wait, chatter, die" in shown
        await pilot.press("down")
        shown = str(app.screen.query_one("#server-details", Static).render())
        assert "Status: failed" in shown and str(tmp_path / "cache" / "mcp-logs" / "mcp-broken.log") in shown
        await pilot.press("escape")
        await type_and_send(pilot, "add them")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["It is 42."])
        [block] = texts(app, ToolBlock)
        assert block.tool_name == "mcp__tiny__add" and block.state == "done"
        assert harness.providers[0].requests[1].messages[-1].content[0].content == '{"result":42}'


async def test_a_projects_mcp_server_is_asked_about_once_and_the_answer_kept_outside_the_project(
    tmp_path: Path,
) -> None:
    import sys

    from textual.widgets import Static

    from agentui.frontends.tui.screens.mcp_approval import McpApprovalScreen

    server = str(Path(__file__).resolve().parents[2] / "support" / "mcp_server.py")
    harness = Harness(tmp_path, [])
    (harness.project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"tiny": {"command": sys.executable, "args": [server]}}})
    )
    app = harness.app()
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, McpApprovalScreen))
        assert "This project's .mcp.json starts it with:" in str(app.screen.query_one(Static).render())
        box = app.screen.query_one("#question")  # (drawn as every yes-or-no question is: a framed box, centred)
        assert box.border_title == "Use the MCP server tiny?" and box.styles.border_top[0] == "thick"
        await until(pilot, lambda: box.region.width > 0)
        assert box.region.width == 96 and box.region.x == 12  # (80% of 120 columns, in the middle)
        await pilot.press("y")
        await until(pilot, lambda: any("MCP: tiny connected." in n.message for n in texts(app, Notice)))
    assert not (harness.project / ".claude").exists()  # nothing written into the repository
    stored = json.loads((tmp_path / "data" / "mcp-approvals.json").read_text())
    assert stored[str(harness.project.resolve())]["enabledMcpjsonServers"] == ["tiny"]

    again = harness.app()  # asked once: the next start connects without a question
    async with again.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: any("MCP: tiny connected." in n.message for n in texts(again, Notice)))
        assert not isinstance(again.screen, McpApprovalScreen)


async def test_a_sub_agent_is_one_block_that_shows_its_tool_calls_as_they_happen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = Harness(
        tmp_path,
        [
            {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Task",
                        "input": {"description": "look around", "prompt": "Read notes.txt"},
                    }
                ]
            },
            {
                "content": [{"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "notes.txt"}}],
                "delay": 0.3,
            },
            {"text": "The notes say hi.", "delay": 0.3},
            {"text": "Done."},
        ],
    )
    (harness.project / "notes.txt").write_text("hi\n")
    # Every line the Task's block is given while it runs, recorded as it arrives: polling the screen could miss a
    # line a busy machine shows for less than a poll.
    shown: list[tuple[str, str]] = []
    original = ToolBlock.progress

    def recording(block: ToolBlock, text: str) -> None:
        shown.append((block.tool_name, text))
        original(block, text)

    monkeypatch.setattr(ToolBlock, "progress", recording)
    app = harness.app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "look")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Done."])
        assert any(name == "Task" and "Read notes.txt" in text for name, text in shown)
        [block] = texts(app, ToolBlock)  # the child's Read is inside the Task's block, not one of its own
        assert block.tool_name == "Task" and block.state == "done"


async def test_a_custom_commands_allowed_tools_last_for_its_run_only(tmp_path: Path) -> None:
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "a.txt", "content": "a\n"}}
    again = {"type": "tool_use", "id": "w2", "name": "Write", "input": {"file_path": "b.txt", "content": "b\n"}}
    harness = Harness(tmp_path, [{"content": [write]}, {"text": "Wrote a."}, {"content": [again]}])
    commands = Path(harness.env["CLAUDE_CONFIG_DIR"]) / "commands"
    commands.mkdir(parents=True)
    (commands / "jot.md").write_text("---\ndescription: Jot a note\nallowed-tools: Write\n---\nWrite a note.\n")
    project_commands = harness.project / ".claude" / "commands"
    project_commands.mkdir(parents=True)
    (project_commands / "sneaky.md").write_text("---\nallowed-tools: Bash\n---\nRun things.\n")
    app = harness.app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/jot")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Wrote a."])
        assert (harness.project / "a.txt").read_text() == "a\n"  # no question: the command allowed Write
        assert not [r for r in app.conversation.project.engine.rules if r.source.startswith("command")]
        await type_and_send(pilot, "write b")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))  # asked again: the grant has ended
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        await type_and_send(pilot, "/sneaky")
        await until(pilot, lambda: any("this project is not trusted" in n.message for n in texts(app, Notice)))


async def test_a_silent_model_is_counted_on_the_status_bar_and_escape_still_interrupts(
    tmp_path: Path, server: LoopbackServer
) -> None:
    # The server sends its headers and message_start, then nothing: the status bar counts the silence upward, and
    # Esc ends the wait at once, long before the (default, two-minute) idle limit.
    held = threading.Event()
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "never sent"}]), gate=held, gate_after=1))
    harness = Harness(tmp_path, [])
    app = AgentApp(
        harness.launch, provider_factory=lambda: AnthropicProvider(api_key="x", base_url=server.url), env=harness.env
    )
    try:
        async with app.run_test(size=(140, 30)) as pilot:
            await ready(pilot)
            await type_and_send(pilot, "hello?")
            seen: list[int] = []

            def counting() -> bool:
                found = re.search(r"no word from the model for (\d+)s", str(app.status.render()))
                if found and (not seen or int(found[1]) > seen[-1]):
                    seen.append(int(found[1]))
                return len(seen) >= 2

            await until(pilot, counting)
            assert seen[1] > seen[0] >= 3
            await pilot.press("escape")
            await until(pilot, lambda: idle(app))
            assert [n for n in texts(app, Notice) if n.message == "Interrupted."]
            assert "no word" not in str(app.status.render())
    finally:
        held.set()


def long_session(path: Path, session_id: str, cwd: Path, turns: int) -> None:
    """A Claude Code-format session of `turns` turns, each a prompt, a Read call, its result and an answer."""
    chain = SessionChain(session_id, cwd)
    line = chain.add

    for turn in range(turns):
        line("user", {"role": "user", "content": f"prompt {turn}"})
        call = {"type": "tool_use", "id": f"toolu_{turn}", "name": "Read", "input": {"file_path": "a.py"}}
        line("assistant", {"id": f"msg_{turn}a", "role": "assistant", "model": "m", "content": [call]})
        result = {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": "     1\tx = 1"}
        line("user", {"role": "user", "content": [result]})
        answer = {"type": "text", "text": f"answer {turn}"}
        line("assistant", {"id": f"msg_{turn}b", "role": "assistant", "model": "m", "content": [answer]})
    chain.write(path)


def drawn_prompts(app: AgentApp) -> list[tuple[str, int]]:
    """Every prompt drawn, live or line-drawn, in order, with the line of the screen its text is on."""
    from agentui.frontends.tui.widgets.history_lines import HistoryLines

    found: list[tuple[str, int]] = []
    for child in app.transcript.children:
        if isinstance(child, HistoryLines):
            for index in range(child.first, child.end):
                kind, item = child.source.history.parts[index]
                at = child.y_of(index)
                if kind == "prompt" and at is not None:
                    found.append((item, child.region.y + at + 1))  # (after the blank line above each part)
        else:
            found += [(p.text, p.region.y) for p in [child, *child.query(UserPrompt)] if isinstance(p, UserPrompt)]
    return found


def prompt_y(app: AgentApp, text: str) -> int:
    return next(y for shown, y in drawn_prompts(app) if shown == text)


async def test_resuming_a_long_session_draws_its_latest_part_and_pageup_draws_the_earlier_ones(tmp_path: Path) -> None:
    from agentui.core.session.paths import project_dir
    from agentui.frontends.tui.history_window import DRAWN_AT_MOST, LIVE_PARTS
    from agentui.frontends.tui.widgets.history_lines import HistoryLines

    session_id = str(uuid.uuid4())
    harness = Harness(tmp_path, [], session=SessionRequest(resume=session_id))
    path = project_dir(harness.project, harness.env) / f"{session_id}.jsonl"
    long_session(path, session_id, harness.project, 2000)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(
            pilot, lambda: app.conversation is not None and any(p.text == "prompt 1999" for p in texts(app, UserPrompt))
        )
        await until(pilot, lambda: not app.view.history.drawing)
        await pilot.pause()
        assert len(app.conversation.agent.messages) == 8000  # the whole session is the conversation
        # a prompt, a Read and an answer per turn; only the latest are drawn: some as live widgets, and as lines
        # (after the first frame) as many chunks above them as the reader could scroll to soon
        [lines] = app.transcript.query(HistoryLines)
        hidden = lines.first
        assert 3 * 2000 - LIVE_PARTS - HISTORY_SHOWN - EARLIER_SHOWN <= hidden <= 3 * 2000 - LIVE_PARTS - EARLIER_SHOWN
        notice = f"{hidden:,} earlier parts of this session are above: PageUp draws them."
        assert [n.message for n in texts(app, Notice) if "earlier parts" in n.message] == [notice]
        assert [p.text for p in app.query(UserPrompt)] == [f"prompt {n}" for n in range(1996, 2000)]  # the live ones
        assert len(app.transcript.children) < LIVE_PARTS + 8
        drawn = [text for text, _ in drawn_prompts(app)]
        assert drawn == [f"prompt {n}" for n in range(2000 - len(drawn), 2000)] and "prompt 1980" not in drawn
        # Near the top, the older parts are drawn above before the reader gets there, and what is read stays put
        oldest = drawn[0]
        app.transcript.scroll_home(animate=False)
        await pilot.pause()
        was = prompt_y(app, oldest)  # where the oldest prompt drawn is on screen at the top
        await until(pilot, lambda: "prompt 1979" in [text for text, _ in drawn_prompts(app)])
        await until(pilot, lambda: not app.view.history.drawing)
        await pilot.pause()
        top, height = app.transcript.scroll_y, app.transcript.scrollable_content_region.height
        assert top > 0 and prompt_y(app, oldest) == was
        # PageUp goes a page up into them, and mounts nothing
        children = list(app.transcript.children)
        await pilot.press("pageup")
        await until(pilot, lambda: app.transcript.scroll_y < top)
        await until(pilot, lambda: not app.view.history.drawing)
        await pilot.pause()
        assert prompt_y(app, oldest) == was + height  # what was at the top is a page lower
        assert list(app.transcript.children) == children
        left = int(
            next(n for n in texts(app, Notice) if "earlier parts" in n.message).message.split()[0].replace(",", "")
        )
        assert left < hidden - EARLIER_SHOWN  # (counted as they are drawn)
        for _ in range(10):  # reading on up: the parts far below are dropped as more are drawn above
            await pilot.press("pageup")
            await until(pilot, lambda: not app.view.history.drawing)
            await pilot.pause()
        assert lines.first < hidden - 5 * EARLIER_SHOWN
        assert lines.size_in_parts <= DRAWN_AT_MOST + 2 * EARLIER_SHOWN


async def test_a_session_another_agentui_holds_is_not_left_drawn_when_it_cannot_be_opened(tmp_path: Path) -> None:
    import fcntl

    from agentui.core.session.paths import project_dir

    session_id = str(uuid.uuid4())
    harness = Harness(tmp_path, [], session=SessionRequest(resume=session_id))
    path = project_dir(harness.project, harness.env) / f"{session_id}.jsonl"
    long_session(path, session_id, harness.project, 5)
    with path.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the agentui writing it holds it
        app = harness.app()
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await until(pilot, lambda: app.conversation is not None)
            await pilot.pause()
            said = [n.message for n in texts(app, Notice)]
            assert any("another agentui" in m.lower() or "in use" in m.lower() for m in said), said
            assert not [p for p in texts(app, UserPrompt) if p.text.startswith("prompt")]  # the preview is gone
            assert app.conversation.session_id != session_id  # and work goes on in a new session


def _in_view(app: AgentApp) -> set[str]:
    view = app.transcript.scrollable_content_region  # (on screen)
    return {text for text, y in drawn_prompts(app) if y in range(view.y, view.bottom)}


async def _read(pilot: Any, app: AgentApp, key: str, until_seen: str) -> set[str]:
    """Press `key` a page at a time, as a person reads, until `until_seen` is in view: every prompt seen."""
    seen: set[str] = set()
    for _ in range(300):
        await until(pilot, lambda: not app.view.history.drawing)
        await pilot.pause()
        seen |= _in_view(app)
        if until_seen in seen:
            return seen
        await pilot.press(key)
    raise AssertionError(f"{until_seen} never came into view; seen {sorted(seen)}")


async def test_pageup_and_pagedown_read_a_resumed_session_through_missing_nothing(tmp_path: Path) -> None:
    from agentui.core.session.paths import project_dir
    from agentui.frontends.tui.history_window import LIVE_PARTS

    session_id = str(uuid.uuid4())
    harness = Harness(tmp_path, [], session=SessionRequest(resume=session_id))
    turns = 120
    long_session(project_dir(harness.project, harness.env) / f"{session_id}.jsonl", session_id, harness.project, turns)
    app = harness.app()
    every = {f"prompt {n}" for n in range(turns)}
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.conversation is not None and app.transcript.children)
        await pilot.pause()
        assert "prompt 0" not in [text for text, _ in drawn_prompts(app)]
        assert await _read(pilot, app, "pageup", "prompt 0") == every  # back to the first, every prompt seen once
        live = [f"prompt {n}" for n in range(turns - LIVE_PARTS // 3, turns)]  # (the latest stay live widgets)
        drawn = [text for text, _ in drawn_prompts(app)]
        assert drawn[-len(live) :] == live
        drawn = drawn[: -len(live)]
        assert drawn == [f"prompt {n}" for n in range(len(drawn))] and len(drawn) < turns - 10  # in order; far gone
        assert not [n for n in texts(app, Notice) if "earlier parts" in n.message and n.display]
        assert await _read(pilot, app, "pagedown", f"prompt {turns - 1}") >= every - {"prompt 0"}  # and down again
        drawn = [text for text, _ in drawn_prompts(app)]
        assert drawn == [f"prompt {n}" for n in range(turns - len(drawn), turns)]
        # Ctrl+Home goes to the first prompt of the session at once, Ctrl+End back to the latest
        await pilot.press("ctrl+home")
        await until(pilot, lambda: "prompt 0" in _in_view(app) and app.transcript.scroll_y == 0)
        await pilot.press("ctrl+end")
        await until(pilot, lambda: f"prompt {turns - 1}" in _in_view(app))
        assert app.transcript.scroll_y == app.transcript.max_scroll_y


async def test_the_transcript_prunes_each_old_widget_once(tmp_path: Path) -> None:
    from agentui.frontends.tui.widgets.transcript import Transcript

    removed: list[int] = []

    class Counted(Notice):
        def remove(self) -> Any:
            removed.append(id(self))
            return super().remove()

    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for number in range(Transcript.LIVE_AT_MOST + 300):
            app.transcript.add(Counted(f"line {number}"))  # all in one go: no removal has completed meanwhile
        await pilot.pause()
        assert len(removed) == len(set(removed)) >= 300
        # and each joined the line-drawn history once, in order
        history = app.view.history.history
        assert history is not None
        said = [item[0] for kind, item in history.parts if kind == "notice" and item[0].startswith("line ")]
        assert said == [f"line {number}" for number in range(len(removed))]


@pytest.mark.parametrize(("typed", "runs"), [("/cost", "/cost"), ("/memory", "/memory"), ("/co", "/compact")])
async def test_enter_runs_what_was_typed_when_the_menu_lags_behind_the_keys(
    tmp_path: Path, typed: str, runs: str
) -> None:
    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert(typed)
        await pilot.pause()
        # Fast typing: the menu still shows what it offered for "/" alone, with its first entry lit.
        app.prompt_input.completions.show(app.completions("/"))
        await pilot.press("enter")
        await until(pilot, lambda: app.prompt_input.text == "")
        assert app.prompt_input.prompt_history.entries[-1].strip() == runs  # what was sent


async def test_the_keys_scroll_from_the_prompt_and_typing_always_reaches_it(tmp_path: Path) -> None:
    long = {"text": "\n\n".join(f"paragraph {n}" for n in range(120))}
    read = {"content": [{"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "notes.txt"}}]}
    harness = Harness(tmp_path, [read, long, long])
    (harness.project / "notes.txt").write_text("a note\n")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "talk")
        await until(pilot, lambda: idle(app) and [a for a in texts(app, AssistantText) if a.finished])
        scroll = app.transcript
        await until(pilot, lambda: scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y)
        assert app.focused is app.prompt_input
        bottom = app.transcript.scroll_y
        await pilot.press("pageup")
        assert app.transcript.scroll_y < bottom and app.focused is app.prompt_input
        await pilot.press("pagedown")
        await pilot.press("ctrl+home")
        assert app.transcript.scroll_y == 0
        await pilot.press("ctrl+end")
        assert app.transcript.scroll_y == app.transcript.max_scroll_y
        # Focus away (Tab onto the transcript's blocks), then type: the keys land in the prompt.
        await pilot.press("tab")
        assert isinstance(app.focused, ToolBlock) and app.focused.tool_name == "Read"
        await pilot.press("h", "i")
        assert app.focused is app.prompt_input and app.prompt_input.text == "hi"
        await pilot.press("tab")
        await pilot.press("escape")
        assert app.focused is app.prompt_input
        # Scrolled up and sending again: what the new prompt brings arrives in view.
        app.prompt_input.clear()
        await pilot.press("ctrl+home")
        await type_and_send(pilot, "more")
        await until(pilot, lambda: idle(app) and len(texts(app, AssistantText)) == 2)
        await until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y)


def test_the_permission_preview_numbers_lines_as_the_file_does_and_a_new_file_is_created(tmp_path: Path) -> None:
    from agentui.core.events import PermissionRequest
    from agentui.core.project import open_project
    from agentui.frontends.tui.screens.permission import preview
    from tests.support.permissions import check

    (tmp_path / "calc.py").write_text(
        "".join(f"line {n}\n" for n in range(1, 41)) + "def add(a, b):\n    return a - b\n"
    )
    edit = {"file_path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}
    request = PermissionRequest(
        session_id="s", request_id="r", tool_call_id="t", tool_name="Edit", input=edit, reason="asks"
    )
    lines = str(preview(request, tmp_path)).splitlines()
    assert any(line.split()[:2] == ["42", "-"] for line in lines), lines  # line 42 of the file, not of the snippet
    assert any(line.split()[:2] == ["42", "+"] for line in lines)
    engine = open_project(tmp_path, env={"HOME": str(tmp_path / "home")}).engine
    assert check(engine, "Write", file_path="test_div.py", content="x").reason == "Write wants to create test_div.py"
    assert check(engine, "Write", file_path="calc.py", content="x").reason == "Write wants to modify calc.py"


def test_result_summaries_count_in_good_english() -> None:
    from agentui.api import describe_result

    def result_summary(name: str, content: str, is_error: bool, details: dict[str, Any]) -> str:
        return describe_result(name, content, is_error, details).summary

    assert result_summary("Grep", "a.py", False, {"numFiles": 1}) == "1 file"
    assert result_summary("Glob", "", False, {"numFiles": 0}) == "0 files"
    assert result_summary("Bash", "5", False, {"stdout": "5", "exitCode": 0}) == "1 line of output"
    claude_code_read = {"type": "text", "file": {"filePath": "/p/calc.py", "numLines": 12}}
    assert result_summary("Read", "…", False, claude_code_read) == "12 lines"
    notebook = {"type": "notebook", "file": {"filePath": "/p/a.ipynb", "cells": [{"cellType": "code", "source": ""}]}}
    assert result_summary("Read", "<cell …", False, notebook) == "1 cell"
    unchanged = {"type": "file_unchanged", "file": {"filePath": "/p/a.py"}}
    assert result_summary("Read", "File unchanged since last read.", False, unchanged) == "unchanged since last read"
    assert result_summary("Grep", "Same result as …", False, {"type": "unchanged"}) == "same as the earlier search"


async def test_ctrl_o_copies_the_last_answer_as_source_or_the_focused_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentui.frontends.tui import clipboard

    monkeypatch.setattr(clipboard, "AGAIN_SECONDS", 3600.0)  # "again" must not depend on how fast this machine is
    answer = "Run **this**:\n\n```sh\nmake test\n```\n\nA long line " + "word " * 60
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "printf 'one\\ntwo'"}}
    harness = Harness(tmp_path, [{"content": [call]}, {"text": answer}], allowed=("Bash(printf:*)",))
    app = harness.app()
    async with app.run_test(size=(60, 30)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+o")
        assert texts(app, Notice)[-1].message == "There is nothing to copy yet."
        await type_and_send(pilot, "how do I test?")
        await until(pilot, lambda: idle(app) and [a for a in texts(app, AssistantText) if a.finished])
        await pilot.press("ctrl+o")
        assert app.clipboard == answer  # the Markdown as written: no wrapping at 60 columns, no styling
        await pilot.press("ctrl+o")  # again at once: the answer's code block, as written
        assert app.clipboard == "make test"
        await pilot.press("ctrl+o")  # and round again
        assert app.clipboard == answer
        texts(app, ToolBlock)[0].focus()
        await pilot.press("ctrl+o")
        assert app.clipboard == "one\ntwo"


async def test_notices_that_are_not_about_trust_are_said_without_a_trust_dialog(tmp_path: Path) -> None:
    from agentui.frontends.tui.screens.trust import TrustScreen

    harness = Harness(tmp_path, [])
    settings = harness.project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(unclosed"]}}))  # ignored, with a notice
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, TrustScreen)
        assert any("that rule is ignored" in n.message for n in texts(app, Notice))


async def test_a_question_or_a_finished_answer_calls_for_attention_only_when_the_terminal_is_elsewhere(
    tmp_path: Path,
) -> None:
    harness = Harness(tmp_path, [*write_script(), {"text": "More."}])
    app = harness.app()
    rung: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.bell = lambda: rung.append("bell")  # type: ignore[method-assign]
        written: list[str] = []
        driver_write = app._driver.write
        app._driver.write = lambda data: (written.append(data), driver_write(data))[1]  # type: ignore[method-assign]
        app.app_focus = False  # the person is in another window (a key would bring it back: no keys)
        app.prompt_input.insert("write the note")
        app.prompt_input.submit()
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert rung == ["bell"] and any(
            "\x1b]777;notify;agentui;Write is waiting for your answer" in w for w in written
        )
        app.screen.action_answer("once")  # (answered without a key, still away)
        await until(pilot, lambda: idle(app) and len(rung) == 2)  # and once more when the answer is ready
        app.app_focus = True
        await type_and_send(pilot, "again")
        await until(pilot, lambda: idle(app) and len(texts(app, AssistantText)) == 3)
        assert len(rung) == 2  # in view: no bell


async def test_ctrl_r_searches_earlier_prompts_newest_first(tmp_path: Path) -> None:
    from agentui.frontends.tui.screens.history_search import HistorySearch

    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for prompt in ("fix the parser", "run the tests", "fix the lexer"):
            app.history.add(prompt)
        app.prompt_input.insert("draft")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, HistorySearch))
        await pilot.press(*"fix")
        await until(pilot, lambda: app.screen.matches == ["fix the lexer", "fix the parser"])
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert app.prompt_input.text == "fix the lexer" and app.focused is app.prompt_input
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, HistorySearch))
        await pilot.press(*"fix", "ctrl+r", "enter")  # Ctrl+R again: the next older match
        await until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert app.prompt_input.text == "fix the parser"
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, HistorySearch))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert app.prompt_input.text == "fix the parser"  # Esc leaves the prompt as it was


async def test_ctrl_f_finds_text_in_the_transcript_and_scrolls_to_it(tmp_path: Path) -> None:
    from agentui.frontends.tui.screens.transcript_search import TranscriptSearch

    long = "\n\n".join(f"paragraph {n}" for n in range(60))
    harness = Harness(tmp_path, [{"text": "The NEEDLE is here.\n\n" + long}, {"text": long}, {"text": "needle again"}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for prompt in ("one", "two", "three"):
            await type_and_send(pilot, prompt)
            await until(pilot, lambda: idle(app) and app.conversation.messages[-1].role == "assistant")
        await until(pilot, lambda: len(texts(app, AssistantText)) == 3)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, TranscriptSearch))
        await pilot.press(*"needle")
        answers = texts(app, AssistantText)
        await until(pilot, lambda: answers[2].has_class("-found"))  # the newest first
        await pilot.press("enter")
        await until(pilot, lambda: answers[0].has_class("-found") and not answers[2].has_class("-found"))
        assert "match 2 of 2" in str(app.screen.query_one("Input").border_title)
        await until(pilot, lambda: app.transcript.scroll_y < app.transcript.max_scroll_y)  # scrolled up to it
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, TranscriptSearch))
        assert not app.transcript.query(".-found")


async def test_esc_twice_on_an_empty_prompt_rewinds_the_files_and_the_conversation(tmp_path: Path) -> None:
    from agentui.frontends.tui.screens.rewind import RewindPicker

    def use(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
        return {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]}

    script = [
        use("Read", "r1", file_path="calc.py"),
        use("Edit", "e1", file_path="calc.py", old_string="return 1", new_string="return 2"),
        {"text": "Turn one."},
        use("Edit", "e2", file_path="calc.py", old_string="return 2", new_string="return 3"),
        {"text": "Turn two."},
    ]
    harness = Harness(tmp_path, script, mode="acceptEdits")
    calc = harness.project / "calc.py"
    calc.write_text("def f():\n    return 1\n")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "first change")
        await until(pilot, lambda: idle(app) and any(t.source == "Turn one." for t in texts(app, AssistantText)))
        await type_and_send(pilot, "second change")
        await until(pilot, lambda: idle(app) and any(t.source == "Turn two." for t in texts(app, AssistantText)))
        assert calc.read_text().endswith("return 3\n")
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, RewindPicker))
        picker = app.screen
        assert [point.text for point in picker.points] == ["second change", "first change"]  # newest first
        await pilot.press("enter")  # "second change"
        await until(pilot, lambda: picker.query_one("#choices").display)
        summary = str(picker.query_one("#summary").render())
        assert "calc.py: +1 −1" in summary
        await pilot.press("enter")  # the files and the conversation
        await until(pilot, lambda: not isinstance(app.screen, RewindPicker))
        await pilot.pause()
        assert calc.read_text() == "def f():\n    return 2\n"
        assert app.prompt_input.text == "second change"  # back in the input, to edit
        assert any("Rewound to before “second change”: 1 file restored" in n.message for n in texts(app, Notice))
        assert app.conversation is not None and app.conversation.messages[-1].text == "Turn one."
        # the transcript shows the conversation as it now is
        shown = [t.source for t in texts(app, AssistantText)]
        assert "Turn one." in shown and "Turn two." not in shown

        # someone else changes the file: restoring it asks first, and going back restores nothing
        calc.write_text("def f():\n    return 'theirs'\n")
        later = time.time() + 5
        os.utime(calc, (later, later))
        app.prompt_input.text = ""
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, RewindPicker))
        picker = app.screen
        await pilot.press("enter")  # "first change"
        await until(pilot, lambda: picker.query_one("#choices").display)
        assert "(changed outside agentui since)" in str(picker.query_one("#summary").render())
        await pilot.press("down", "down", "enter")  # the files only
        await until(pilot, lambda: picker.query_one("#confirm").display)
        assert "calc.py changed since agentui last worked on it" in str(picker.query_one("#summary").render())
        await pilot.press("enter")  # "Go back" is where Enter starts
        await until(pilot, lambda: picker.query_one("#choices").display and not picker.query_one("#confirm").display)
        assert "theirs" in calc.read_text()
        await pilot.press("down", "down", "enter")
        await until(pilot, lambda: picker.query_one("#confirm").display)
        await pilot.press("up", "enter")  # overwrite them
        await until(pilot, lambda: not isinstance(app.screen, RewindPicker))
        await until(pilot, lambda: calc.read_text() == "def f():\n    return 1\n")
        assert app.conversation.messages[-1].text == "Turn one."  # (the files only)


async def test_the_status_bar_and_cost_show_each_models_share_once_there_are_two(tmp_path: Path) -> None:
    usage = {"input_tokens": 300, "output_tokens": 100}
    harness = Harness(
        tmp_path, [{"text": "One.", "usage": usage}, {"text": "Two.", "usage": {**usage, "input_tokens": 100}}]
    )
    async with harness.app().run_test(size=(160, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "first")
        await until(pilot, lambda: idle(app) and len(texts(app, AssistantText)) == 1)
        assert app.status.status.shares == ""  # (one model so far: nothing to split)
        await type_and_send(pilot, "/model claude-haiku-4-5")
        await type_and_send(pilot, "second")
        await until(pilot, lambda: idle(app) and len(texts(app, AssistantText)) == 2)
        assert app.status.status.shares == "scripted 67% · claude-haiku-4-5 33%"
        assert "(scripted 67% · claude-haiku-4-5 33%)" in str(app.status.render())
        await type_and_send(pilot, "/cost")
        await until(pilot, lambda: any("By model: scripted 400 tokens" in str(n.render()) for n in texts(app, Notice)))


async def test_model_lists_the_routes_of_the_config(tmp_path: Path) -> None:
    from agentui.core.settings import Route

    harness = Harness(tmp_path, [])
    routes = {"compaction": Route(model="small-model"), "subagent:explorer": Route(model="tiny")}
    harness.launch = replace(harness.launch, settings=harness.launch.settings.model_copy(update={"routes": routes}))
    async with harness.app().run_test(size=(160, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/model")  # (the picker: the configured model, then the routes' models)
        await until(pilot, lambda: isinstance(app.screen, ModelPicker))
        meanings = {option.name: option.meaning for option in app.screen.options}
        assert meanings == {
            "default": "the configured model (scripted)",
            "scripted": "the configured model",
            "small-model": "the model compaction calls are routed to",
            "tiny": "the model subagent:explorer calls are routed to",
        }


async def test_a_broken_settings_file_is_said_a_prompt_says_why_it_was_not_sent_and_a_fix_needs_no_restart(
    tmp_path: Path,
) -> None:
    """Issue 33: a typo in .claude/settings.json used to leave the app with no conversation, and every prompt cleared
    and went nowhere. A settings file that cannot be read still stops the conversation opening (what it denies
    cannot be known), but the error is said, a prompt is shown with one sentence saying why it was not sent, and
    each prompt reads the settings again: once the file is fixed, the prompt goes out with its rules in force."""
    harness = Harness(tmp_path, [{"text": "Here now."}])
    broken = harness.project / ".claude" / "settings.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any(str(broken) in n.message for n in texts(app, Notice)))
        await type_and_send(pilot, "are you there?")
        await until(pilot, lambda: any(n.message.startswith("Not sent: ") for n in texts(app, Notice)))
        (why,) = [n.message for n in texts(app, Notice) if n.message.startswith("Not sent: ")]
        assert str(broken) in why and "is not valid JSON" in why
        assert [p.text for p in texts(app, UserPrompt)] == ["are you there?"] and app.conversation is None
        # Fixed while the app is open: the next prompt reads the settings again and goes out, no restart.
        broken.write_text('{"permissions": {"deny": ["Read(./secret.txt)"]}}')
        await type_and_send(pilot, "and now?")
        await until(pilot, lambda: idle(app) and bool(texts(app, AssistantText)))
        assert [said(m) for m in harness.providers[-1].requests[0].messages] == ["and now?"]
        assert ("deny", "Read(./secret.txt)") in [(b, r) for b, r, _ in app.conversation.rules()]
        assert any(n.message.startswith("The settings read well now") for n in texts(app, Notice))


async def test_a_prompt_sent_where_no_conversation_can_open_says_why(tmp_path: Path) -> None:
    """A settings problem that stops a conversation opening (a bad rule given on the command line): the error is
    said, and a prompt sent after it is shown with one sentence saying why it was not sent, not dropped."""
    harness = Harness(tmp_path, [{"text": "unused"}], allowed=("Bash(oops",))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any("--allowedTools" in n.message for n in texts(app, Notice)))
        await type_and_send(pilot, "hello?")
        await until(pilot, lambda: any(n.message.startswith("Not sent: ") for n in texts(app, Notice)))
        (why,) = [n.message for n in texts(app, Notice) if n.message.startswith("Not sent: ")]
        assert "--allowedTools" in why and [p.text for p in texts(app, UserPrompt)] == ["hello?"]
        assert harness.providers == [] or harness.providers[-1].requests == []


async def test_ctrl_u_k_w_kill_and_ctrl_y_puts_back_as_claude_codes_prompt(tmp_path: Path) -> None:
    """Issue 33, item 9: Ctrl+U takes the line before the cursor, Ctrl+K the rest of it, Ctrl+W the word before;
    kills one after another join; Ctrl+Y puts back what they took (TextArea's Ctrl+Y was redo), with Claude Code's
    hint; Ctrl+_ undoes."""
    app = Harness(tmp_path, []).app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.prompt_input
        await pilot.press(*"hello big world")
        await pilot.press("ctrl+w", "ctrl+w")
        assert prompt.text == "hello " and prompt.kills.text == "big world"
        assert prompt.border_subtitle == "Ctrl+Y to paste deleted text"
        await pilot.press("ctrl+y")
        assert prompt.text == "hello big world"
        await pilot.press("home", "right", "right", "ctrl+k")
        assert prompt.text == "he" and prompt.kills.text == "llo big world"
        await pilot.press("ctrl+u")  # right after: the two kills are one piece
        assert prompt.text == "" and prompt.kills.text == "hello big world"
        await pilot.press("x", "y", "z", "ctrl+u")  # typed between: a new piece
        assert prompt.text == "" and prompt.kills.text == "xyz"
        await pilot.press("ctrl+y", "ctrl+y")
        assert prompt.text == "xyzxyz"
        await pilot.press("ctrl+underscore")
        assert prompt.text == "xyz"


async def test_the_status_bar_and_cost_write_a_cost_alike(tmp_path: Path) -> None:
    """Issue 33's small things: /cost and the status bar wrote the same cost differently. Both write it as Claude
    Code does: four decimals up to half a dollar, then cents."""
    usage = {"input_tokens": 200_000, "output_tokens": 100_000}  # $0.20 + $0.50 at claude-haiku-4-5's prices
    harness = Harness(tmp_path, [{"text": "Dear.", "usage": usage}])
    async with harness.app().run_test(size=(160, 30)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/model claude-haiku-4-5")
        await type_and_send(pilot, "first")
        await until(pilot, lambda: idle(app) and len(texts(app, AssistantText)) == 1)
        assert " · $0.70 · " in str(app.status.render()) + " · "
        await type_and_send(pilot, "/cost")
        await until(pilot, lambda: any("about $0.70 at list prices" in str(n.render()) for n in texts(app, Notice)))


def test_a_cost_is_written_as_claude_code_writes_it() -> None:
    from agentui.api import shown_cost

    assert [shown_cost(x) for x in (0.0, 0.01234, 0.5, 0.5049, 1.267, 12.0)] == [
        "$0.0000",
        "$0.0123",
        "$0.5000",
        "$0.50",
        "$1.27",
        "$12.00",
    ]


async def test_a_custom_command_is_shown_as_typed_when_resumed_ours_and_claude_codes(tmp_path: Path) -> None:
    """Issue 33's small things: a custom command showed its expansion. Resumed, agentui's session and Claude Code's
    (which records `/orchestrator ...` before the prompt it expands to) both show the command as typed."""
    import shutil

    first = Harness(tmp_path, [{"text": "Greeted."}])
    (first.project / ".claude" / "commands").mkdir(parents=True)
    (first.project / ".claude" / "commands" / "greet.md").write_text("Say a warm hello to $ARGUMENTS.\n")
    async with first.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/greet Bob")
        await until(pilot, lambda: idle(pilot.app) and texts(pilot.app, AssistantText))
    again = Harness(tmp_path, [], session=SessionRequest(continue_last=True))
    async with again.app().run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: pilot.app.conversation is not None and texts(pilot.app, AssistantText))
        assert [p.text for p in texts(pilot.app, UserPrompt)] == ["/greet Bob"]
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "claude-projects"
    [written] = [f for f in fixtures.glob("*/*.jsonl") if "create TODO app by Next.js" in f.read_text()]
    copy = tmp_path / "theirs" / written.name
    copy.parent.mkdir()
    shutil.copy(written, copy)
    theirs = Harness(tmp_path / "theirs", [], session=SessionRequest(resume=str(copy)))
    async with theirs.app().run_test(size=(100, 30)) as pilot:
        first = "/orchestrator create TODO app by Next.js"
        await until(pilot, lambda: pilot.app.conversation is not None and texts(pilot.app, UserPrompt))
        await pilot.press("ctrl+home")  # (up to the session's first part)
        await until(pilot, lambda: first in [p.text for p in texts(pilot.app, UserPrompt)])
        shown = [p.text for p in texts(pilot.app, UserPrompt)]
        assert shown[0] == first
        assert not any("Split complex tasks" in text or "<command-" in text for text in shown)


async def test_an_untitled_resumed_session_is_named_by_its_first_prompt(tmp_path: Path) -> None:
    """Issue 33's small things: a resumed session with no title line (Claude Code's often have none) was named by its
    UUID; it is named as the session picker names it, by its first prompt."""
    import shutil

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "claude-projects" / "-src-experiments-claude_p"
    [written] = fixture.glob("*.jsonl")
    copy = tmp_path / "theirs" / written.name
    copy.parent.mkdir()
    shutil.copy(written, copy)
    harness = Harness(tmp_path, [], session=SessionRequest(resume=str(copy)))
    async with harness.app().run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any(n.message.startswith("Resumed ") for n in texts(pilot.app, Notice)))
        said = next(n.message for n in texts(pilot.app, Notice) if n.message.startswith("Resumed "))
        first = "Use the Explore task in sub-agents with Haiku model to give me an overview of the code organization"
        assert said.startswith(f"Resumed {first}") and written.stem not in said
        assert pilot.app.status.status.title.startswith("Use the Explore task")


async def test_what_is_sent_after_esc_is_the_next_prompt_and_what_the_run_never_read_comes_back(
    tmp_path: Path,
) -> None:
    """No prompt is lost (issue 33): a message sent while a run goes on is steering, but the run may end before it
    reads it (Esc, a plain No), and a message sent after Esc, before the run has ended, was steering for a run that
    would never read it. The first comes back into the prompt; the second goes out as the next prompt."""
    command = "echo started; sleep 600"
    sleeper = {"content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": command}}]}
    harness = Harness(tmp_path, [sleeper, {"text": "Next one answered."}], allowed=("Bash(echo:*)", "Bash(sleep:*)"))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "wait")
        await until(pilot, lambda: texts(app, ToolBlock) and texts(app, ToolBlock)[0]._log is not None)
        [block] = texts(app, ToolBlock)
        await until(pilot, lambda: "started" in "\n".join(block._log.lines))
        app.send("also check the logs")  # steering: the command is still running
        app.action_interrupt()  # Esc, and in the same moment, before the run has ended, a new prompt
        app.send("the next one")
        await until(pilot, lambda: idle(app) and len(texts(app, AssistantText)) == 1)
        assert app.prompt_input.text == "also check the logs"  # never read by the model: given back
        assert any("back in the prompt" in n.message for n in texts(app, Notice))
        [_, second] = harness.providers[0].requests
        said = [m.text for m in second.messages if m.role == "user"]
        assert "the next one" in said[-1] and not any("also check the logs" in text for text in said)
        assert [a.source for a in texts(app, AssistantText)] == ["Next one answered."]

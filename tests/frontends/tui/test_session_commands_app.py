"""The everyday commands of issue "the app for a day's work, round two", driven with Pilot: /model (its picker, its
aliases, and what the loopback model server then receives), /agents (list, create and edit sub-agent types),
/add-dir, /rename and /copy; each with the refusals a person meets, in one sentence."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.openai import OpenAIProvider
from agentui.core.session.listing import list_sessions
from agentui.core.session.paths import project_dir
from agentui.core.settings import Overrides, Route, Settings, resolve_settings
from agentui.frontends.tui.app import AgentApp
from agentui.frontends.tui.screens.add_dir import AddDirScreen
from agentui.frontends.tui.screens.agents import AgentEditor, AgentsScreen
from agentui.frontends.tui.screens.model_picker import ModelPicker
from agentui.frontends.tui.screens.permission import PermissionScreen
from agentui.frontends.tui.widgets.transcript import AssistantText, Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream, openai_chunk

ANSWER = "Here it is:\n\n```sh\nmake test\n```\n"


def notices(app: AgentApp) -> list[str]:
    return [n.message for n in texts(app, Notice)]


async def said(pilot: Any, text: str) -> str:
    """Until a notice containing `text` is in the transcript; that notice."""
    await until(pilot, lambda: any(text in message for message in notices(pilot.app)))
    return next(message for message in notices(pilot.app) if text in message)


def anthropic_app(harness: Harness, server: LoopbackServer, model: str = "claude-sonnet-4-5") -> AgentApp:
    settings = Settings(provider="anthropic", model=model, default_model=model, base_url=server.url, api_key="x")
    harness.launch = replace(harness.launch, settings=settings)
    return AgentApp(
        harness.launch, provider_factory=lambda: AnthropicProvider(api_key="x", base_url=server.url), env=harness.env
    )


def answering(server: LoopbackServer) -> None:
    """The model answers every request with a short text."""
    server.responder = lambda request: Reply(chunks=anthropic_stream([{"type": "text", "text": "Done."}]))


def main_requests(server: LoopbackServer) -> list[RecordedRequest]:
    return [r for r in server.requests if r.method == "POST" and "tools" in r.json()]


# /model


async def test_model_alone_offers_claude_codes_aliases_and_the_routes_and_a_pick_reaches_the_next_request(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server)
    harness = Harness(tmp_path, [])
    app = anthropic_app(harness, server)
    harness.launch = replace(
        harness.launch,
        settings=harness.launch.settings.model_copy(
            update={"routes": {"compaction": Route(model="claude-haiku-4-5"), "title": Route.parse("openai:qwen")}}
        ),
    )
    app.launch = harness.launch
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/model")
        await until(pilot, lambda: isinstance(app.screen, ModelPicker))
        picker = app.screen
        shown = [option.name for option in picker.options]
        assert shown[:6] == ["default", "sonnet", "opus", "haiku", "sonnet[1m]", "opusplan"]
        assert "claude-haiku-4-5" in shown and "openai:qwen" in shown  # the routes: one pickable, one not
        meanings = {option.name: option.meaning for option in picker.options}
        assert meanings["opus"] == "Opus 4.8 (claude-opus-4-8)"
        assert meanings["default"] == "the configured model (claude-sonnet-4-5)"
        assert not next(o for o in picker.options if o.name == "openai:qwen").pickable
        assert picker.query_one("#models").highlighted == shown.index("claude-sonnet-4-5")  # (the current one)
        await pilot.press("home", "down", "down", "enter")  # default → sonnet → opus
        await until(pilot, lambda: not isinstance(app.screen, ModelPicker))
        await said(pilot, "Model set to opus (claude-opus-4-8) for the next requests.")
        assert "opus (claude-opus-4-8)" in str(app.status.render())
        await type_and_send(pilot, "hello")
        await until(pilot, lambda: idle(app) and main_requests(server))
        assert main_requests(server)[-1].json()["model"] == "claude-opus-4-8"
        assert app.focused is app.prompt_input


async def test_model_with_an_alias_resolves_it_and_sonnet_1m_asks_for_the_long_context(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server)
    harness = Harness(tmp_path, [])
    app = anthropic_app(harness, server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/model haiku")
        await said(pilot, "Model set to haiku (claude-haiku-4-5-20251001)")
        await type_and_send(pilot, "one")
        await until(pilot, lambda: idle(app) and len(main_requests(server)) == 1)
        first = main_requests(server)[0]
        assert first.json()["model"] == "claude-haiku-4-5-20251001" and "anthropic-beta" not in first.headers
        await type_and_send(pilot, "/model sonnet[1m]")
        await said(pilot, "Model set to sonnet[1m] (claude-sonnet-5[1m])")
        assert app.conversation.window == 1_000_000
        await type_and_send(pilot, "two")
        await until(pilot, lambda: idle(app) and len(main_requests(server)) == 2)
        second = main_requests(server)[1]
        assert second.json()["model"] == "claude-sonnet-5"
        assert "context-1m-2025-08-07" in second.headers["anthropic-beta"].split(",")
        await type_and_send(pilot, "/model default")
        await said(pilot, "Model set to default (claude-sonnet-4-5)")
        await type_and_send(pilot, "/model claude-opus-4-1")  # an id is taken as it is
        await said(pilot, "Model set to claude-opus-4-1 for the next requests.")
        assert "claude-opus-4-1" in str(app.status.render())


async def test_opusplan_plans_with_opus_and_works_with_sonnet(tmp_path: Path, server: LoopbackServer) -> None:
    answering(server)
    harness = Harness(tmp_path, [])
    app = anthropic_app(harness, server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/model opusplan")
        await said(pilot, "Model set to opusplan (claude-sonnet-5)")
        await type_and_send(pilot, "work")
        await until(pilot, lambda: idle(app) and len(main_requests(server)) == 1)
        await pilot.press("shift+tab", "shift+tab")  # default → acceptEdits → plan
        await until(pilot, lambda: app.conversation.mode == "plan")
        assert "opusplan (claude-opus-4-8)" in str(app.status.render())
        await type_and_send(pilot, "plan it")
        await until(pilot, lambda: idle(app) and len(main_requests(server)) == 2)
        await pilot.press("shift+tab")  # plan → default
        await type_and_send(pilot, "do it")
        await until(pilot, lambda: idle(app) and len(main_requests(server)) == 3)
        assert [r.json()["model"] for r in main_requests(server)] == [
            "claude-sonnet-5",
            "claude-opus-4-8",
            "claude-sonnet-5",
        ]


async def test_model_on_an_openai_server_sends_an_alias_as_typed_and_says_the_server_does_not_list_it(
    tmp_path: Path, server: LoopbackServer
) -> None:
    def model(request: RecordedRequest) -> Reply:
        if request.path.endswith("/models"):  # (the loopback server records every method as POST)
            body = {"object": "list", "data": [{"id": "qwen2.5-coder", "object": "model"}]}
            return Reply(chunks=[json.dumps(body).encode()], content_type="application/json")
        return Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Done."}),
                openai_chunk({}, "stop"),
                b"data: [DONE]\n\n",
            ]
        )

    server.responder = model
    harness = Harness(tmp_path, [])
    base = server.url + "/v1"
    settings = Settings(provider="openai", model="qwen2.5-coder", base_url=base)
    harness.launch = replace(harness.launch, settings=settings)
    app = AgentApp(harness.launch, provider_factory=lambda: OpenAIProvider(base_url=base), env=harness.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/model sonnet")
        await said(pilot, "Model set to sonnet for the next requests.")
        warning = await said(pilot, "does not list sonnet")
        assert (
            warning
            == "The server does not list sonnet (it lists qwen2.5-coder); requests will ask for it all the same."
        )
        await type_and_send(pilot, "hi")
        chats = lambda: [r.json()["model"] for r in server.requests if r.path.endswith("/chat/completions")]  # noqa: E731
        await until(pilot, lambda: idle(app) and chats())
        assert chats() == ["sonnet"]
        await type_and_send(pilot, "/model qwen2.5-coder")  # a model it lists: no warning
        await said(pilot, "Model set to qwen2.5-coder")
        await until(pilot, lambda: sum(r.path.endswith("/models") for r in server.requests) == 2)
        assert sum("does not list" in message for message in notices(app)) == 1


def test_the_model_flag_and_setting_take_the_same_aliases(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "x", "AGENTUI_CONFIG_DIR": str(tmp_path)}
    assert resolve_settings(Overrides(model="opus"), env).model == "claude-opus-4-8"
    assert resolve_settings(Overrides(model="OPUS"), env).model == "claude-opus-4-8"  # (as Claude Code: any case)
    assert resolve_settings(Overrides(model="sonnet[1m]"), env).model == "claude-sonnet-5[1m]"
    flagged = resolve_settings(Overrides(model="opusplan"), env)
    assert (flagged.model, flagged.model_alias) == ("claude-sonnet-5", "opusplan")
    assert resolve_settings(Overrides(model="default"), env).model == "claude-sonnet-4-5"  # agentui's default
    assert resolve_settings(Overrides(model="claude-3-7-sonnet-latest"), env).model == "claude-3-7-sonnet-latest"
    (tmp_path / "config.json").write_text(json.dumps({"model": "haiku"}))
    configured = resolve_settings(Overrides(), env)
    assert (configured.model, configured.default_model) == ("claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001")
    assert resolve_settings(Overrides(model="default"), env).model == "claude-haiku-4-5-20251001"
    renamed = {**env, "ANTHROPIC_DEFAULT_OPUS_MODEL": "my-opus"}  # Claude Code's variable names another model
    assert resolve_settings(Overrides(model="opus"), renamed).model == "my-opus"
    openai = {"OPENAI_API_KEY": "x", "AGENTUI_CONFIG_DIR": str(tmp_path / "none")}
    assert resolve_settings(Overrides(model="sonnet"), openai).model == "sonnet"  # sent as typed


# /rename


async def test_rename_names_the_session_for_the_status_bar_and_the_resume_picker(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "Answered."}])
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/rename")
        await said(pilot, "Say the session's name: /rename <name>")
        await type_and_send(pilot, "/rename    ")
        assert sum("Say the session's name" in m for m in notices(app)) == 2
        await type_and_send(pilot, "first prompt")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        await type_and_send(pilot, "/rename  Fix the   flaky test ")
        await said(pilot, "Session renamed to: Fix the flaky test")
        assert "Fix the flaky test" in str(app.status.render())
        path = app.conversation.session.path
        titles = [json.loads(line) for line in path.read_text().splitlines() if '"custom-title"' in line]
        assert titles == [
            {"type": "custom-title", "customTitle": "Fix the flaky test", "sessionId": app.conversation.session_id}
        ]
        [listed] = list_sessions(project_dir(app.conversation.root, harness.env))
        assert listed.title == "Fix the flaky test"


# /copy


async def test_copy_puts_the_last_answer_on_the_clipboard_and_says_when_there_is_none(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "The first answer."}, {"text": ANSWER}])
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/copy")
        await said(pilot, "There is no answer to copy yet.")
        assert app.clipboard == ""
        for prompt in ("one", "two"):
            await type_and_send(pilot, prompt)
            await until(pilot, lambda: idle(app) and app.conversation.messages[-1].role == "assistant")
        await type_and_send(pilot, "/copy")
        await said(pilot, "Copied to the clipboard: the last answer (5 lines).")
        assert app.clipboard == ANSWER
        await type_and_send(pilot, "/copy 2")
        await said(pilot, "answer 2 from the end")
        assert app.clipboard == "The first answer."
        await type_and_send(pilot, "/copy 3")
        await said(pilot, "There are only 2 answers to copy.")
        await type_and_send(pilot, "/copy last")
        await said(pilot, "Say which answer to copy")
        assert app.clipboard == "The first answer."


# /add-dir


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    other = tmp_path / "other"
    (other / "src").mkdir(parents=True)
    (other / "src" / "lib.py").write_text("VALUE = 1\n")
    (tmp_path / "a-file.txt").write_text("x\n")
    return other


async def test_add_dir_refuses_in_one_sentence_what_cannot_be_added(tmp_path: Path, outside: Path) -> None:
    harness = Harness(tmp_path, [])
    home = Path(harness.env["HOME"])
    home.mkdir()
    (tmp_path / "to-root").symlink_to("/")
    (tmp_path / "to-home").symlink_to(home)
    (tmp_path / "to-project").symlink_to(harness.project)
    (harness.project / "sub").mkdir()
    cases = {
        "": "Say which directory to add: /add-dir <path>.",
        "../a-file.txt": f"../a-file.txt is not a directory; did you mean the directory it is in, {tmp_path}?",
        "../missing": f"Path {tmp_path / 'missing'} was not found.",
        "/": "/ cannot be added: it is the whole file system; add the directory you need.",
        "../to-root": "../to-root (which leads to /) cannot be added: it is the whole file system; add the "
        "directory you need.",
        "~": "~ cannot be added: it is your home directory (its start-up files, keys and settings); add a "
        "directory inside it.",
        "../to-home/": f"../to-home/ (which leads to {tmp_path / 'home'}) cannot be added: it is your home directory",
        "..": ".. cannot be added: it holds the project, whose protected files (.git, .claude) must not become "
        "replaceable.",
        "../to-project/sub": f"../to-project/sub is already within the project {harness.project}.",
        "sub": f"sub is already within the project {harness.project}.",
        str(tmp_path / "claude"): "is in agentui's own configuration, which stays protected",  # (Claude's settings)
        "../other/.git": "is a .git directory, which stays protected wherever it is.",
    }
    (tmp_path / "claude").mkdir()
    (outside / ".git").mkdir()
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        for typed, sentence in cases.items():
            await type_and_send(pilot, f"/add-dir {typed}".rstrip())
            found = await said(pilot, sentence)
            assert found.count(".") >= 1 and "\n" not in found, found
            assert not isinstance(app.screen, AddDirScreen)
        assert app.conversation.project.workspace.additional_dirs == ()


async def test_add_dir_for_the_session_opens_the_directory_to_the_tools_and_completion(
    tmp_path: Path, outside: Path
) -> None:
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": str(outside / "src" / "lib.py")}}
    harness = Harness(tmp_path, [{"content": [read]}, {"content": [read]}, {"text": "Again."}])  # (no: the turn ends)
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "read it")  # outside the project: Read asks
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("n")
        await until(pilot, lambda: idle(app))
        await type_and_send(pilot, "/add-dir ../other")
        await until(pilot, lambda: isinstance(app.screen, AddDirScreen))
        assert str(outside) in str(app.screen.query_one("Static").render())
        await pilot.press("1")
        await said(pilot, f"Added {outside} as a working directory for this session")
        assert app.conversation.project.workspace.additional_dirs == (outside,)
        assert not (harness.project / ".claude" / "settings.local.json").exists()
        assert f"Additional working directories: {outside}" in app.conversation.agent.config.environment
        assert str(outside / "src" / "lib.py") in app.conversation.complete_path("lib.py")
        await type_and_send(pilot, "read it again")  # inside a working directory now: no question
        await until(pilot, lambda: idle(app) and app.conversation.messages[-1].text == "Again.")
        assert not isinstance(app.screen, PermissionScreen)
        result = app.conversation.messages[-2].content[0]
        assert "VALUE = 1" in str(result.content)
        await type_and_send(pilot, "/add-dir ../other/src")
        await said(pilot, f"../other/src is already within the added working directory {outside}.")


async def test_add_dir_remember_saves_it_as_claude_code_does_and_no_keeps_nothing(
    tmp_path: Path, outside: Path
) -> None:
    (tmp_path / "third").mkdir()
    harness = Harness(tmp_path, [])
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, f"/add-dir {outside}")
        await until(pilot, lambda: isinstance(app.screen, AddDirScreen))
        await pilot.press("2")
        await said(pilot, "and saved to .claude/settings.local.json")
        local = json.loads((harness.project / ".claude" / "settings.local.json").read_text())
        assert local == {"permissions": {"additionalDirectories": [str(outside)]}}
        await type_and_send(pilot, "/add-dir ../third")
        await until(pilot, lambda: isinstance(app.screen, AddDirScreen))
        await pilot.press("escape")
        await said(pilot, f"Did not add {tmp_path / 'third'} as a working directory.")
        assert app.conversation.project.workspace.additional_dirs == (outside,)
        assert app.focused is app.prompt_input


async def test_add_dir_checks_the_directory_again_as_the_person_answers(tmp_path: Path, outside: Path) -> None:
    """A directory replaced by a link to the home directory while the question was open is not added."""
    harness = Harness(tmp_path, [])
    home = Path(harness.env["HOME"])
    home.mkdir()
    shared = tmp_path / "shared"
    shared.mkdir()
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, f"/add-dir {shared}")
        await until(pilot, lambda: isinstance(app.screen, AddDirScreen))
        shared.rmdir()
        shared.symlink_to(home)
        await pilot.press("1")
        found = await said(pilot, "cannot be added: it is your home directory")
        assert "Added" not in found
        assert app.conversation.project.workspace.additional_dirs == ()


# /agents


def agent_file(root: Path, name: str, text: str) -> Path:
    path = root / ".claude" / "agents" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def type_into(pilot: Any, selector: str, text: str) -> None:
    widget = pilot.app.screen.query_one(selector)
    widget.focus()
    await pilot.pause()
    if hasattr(widget, "value"):
        widget.value = ""
    await pilot.press(*text) if text else None


async def test_agents_lists_each_type_with_where_it_comes_from(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    agent_file(
        harness.project,
        "reviewer",
        "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\n---\nReview.\n",
    )
    user = Path(harness.env["CLAUDE_CONFIG_DIR"]) / "agents"
    user.mkdir(parents=True)
    (user / "helper-bot.md").write_text("---\nname: helper-bot\ndescription: Mine\nmodel: haiku\n---\nHelp.\n")
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/agents")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        screen = app.screen
        assert [(t.name, t.source) for t in screen.types] == [
            ("Explore", "built-in"),
            ("general-purpose", "built-in"),
            ("Plan", "built-in"),
            ("helper-bot", "user"),
            ("reviewer", "project"),
        ]
        await pilot.press("down", "down", "down", "down")
        shown = str(screen.query_one("#agent-text").render())
        assert (
            "Reviews diffs" in shown
            and "tools: Read, Grep" in shown
            and "from: project · .claude/agents/reviewer.md" in shown
        )
        await pilot.press("up", "up", "e")  # a built-in one is not a file to edit
        await pilot.pause()
        assert isinstance(app.screen, AgentsScreen)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, AgentsScreen))
        assert app.focused is app.prompt_input


async def test_agents_creates_a_type_as_claude_code_writes_it_and_the_model_can_use_it_at_once(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server)
    harness = Harness(tmp_path, [])
    app = anthropic_app(harness, server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/agents")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, AgentEditor))
        editor = app.screen
        await pilot.press(*"../evil")
        await pilot.press("tab", *'Checks "tests" pass', "tab", *"Bash, Read", "tab", *"haiku")
        editor.query_one("#prompt").insert("Run the tests and report.")
        await pilot.press("ctrl+s")
        error = str(editor.query_one("#editor-error").render())
        assert error.startswith("“../evil” cannot name an agent type:") and error.count(".") >= 1
        assert isinstance(app.screen, AgentEditor) and not (harness.project / ".claude").exists()
        for bad in ("a.b", "x/y", "..", "ab", "-lead"):
            editor.query_one("#name").value = bad
            await pilot.press("ctrl+s")
            assert "cannot name an agent type" in str(editor.query_one("#editor-error").render())
        editor.query_one("#name").value = "test-runner"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        await said(pilot, "Saved the test-runner agent to .claude/agents/test-runner.md; the model can use it now.")
        written = (harness.project / ".claude" / "agents" / "test-runner.md").read_text()
        assert written == (
            '---\nname: "test-runner"\ndescription: "Checks \\"tests\\" pass"\ntools: Bash, Read\nmodel: haiku\n'
            "---\n\nRun the tests and report.\n"
        )
        assert "test-runner" in [t.name for t in app.screen.types]
        await pilot.press("escape")
        await type_and_send(pilot, "go")
        await until(pilot, lambda: idle(app) and main_requests(server))
        [agent_tool] = [t for t in main_requests(server)[-1].json()["tools"] if t["name"] == "Agent"]
        assert '- test-runner: Checks "tests" pass (Tools: Bash, Read)' in agent_tool["description"]


async def test_agents_edits_a_type_in_its_own_fields_and_keeps_what_it_does_not_show(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    path = agent_file(
        harness.project,
        "reviewer",
        '---\nname: "reviewer"\ndescription: "Reviews\\\\nline two"\ntools: Read\ncolor: blue\nmemory: project\n'
        "---\n\nReview the diff.\n",
    )
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/agents")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        await pilot.press("down", "down", "down", "enter")  # (past the built-in Explore, general-purpose and Plan)
        await until(pilot, lambda: isinstance(app.screen, AgentEditor))
        editor = app.screen
        assert editor.query_one("#name").disabled and editor.query_one("#description").value == "Reviews\\nline two"
        editor.query_one("#tools").value = "Read, Grep, Glob"
        prompt = editor.query_one("#prompt")
        prompt.text = "Review the diff, then say what to fix."
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        assert path.read_text() == (
            '---\nname: "reviewer"\ndescription: "Reviews\\\\nline two"\ntools: Read, Grep, Glob\ncolor: blue\n'
            "memory: project\n---\n\nReview the diff, then say what to fix.\n"
        )
        [reviewer] = [t for t in app.screen.types if t.name == "reviewer"]
        assert reviewer.tools == ("Read", "Grep", "Glob") and reviewer.description == "Reviews\nline two"
        from agentui.core.extend.subagents import Task

        task = app.conversation.project.tools.get(Task.name)
        assert task.types["reviewer"].instructions == "Review the diff, then say what to fix."


async def test_agents_refuses_to_write_through_a_link_out_of_the_project(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (harness.project / ".claude").symlink_to(elsewhere)
    async with harness.app().run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/agents")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, AgentEditor))
        editor = app.screen
        editor.query_one("#name").value = "sneaky"
        editor.query_one("#description").value = "Goes elsewhere"
        editor.query_one("#prompt").text = "Nothing."
        await pilot.press("ctrl+s")
        assert "is a link or a file, so no agent file is written through it." in str(
            editor.query_one("#editor-error").render()
        )
        assert list(elsewhere.iterdir()) == []
        assert os.path.islink(harness.project / ".claude")


PROBE = """
import json, os, sys

other, out = sys.argv[1], {}


def attempt(name, action):
    try:
        out[name] = action()
    except OSError as exc:
        out[name] = type(exc).__name__


def write(path, mode="w"):
    with open(path, mode) as handle:
        handle.write("x")
    return "written"


def read(path):
    with open(path) as handle:
        return handle.read() or "(empty)"


attempt("plain", lambda: write(f"{other}/made.txt"))
attempt("hook", lambda: write(f"{other}/.git/hooks/pre-commit"))
attempt("git config", lambda: write(f"{other}/.git/config", "a"))
attempt("claude settings", lambda: os.makedirs(f"{other}/.claude", exist_ok=True) or write(f"{other}/.claude/x.json"))
attempt("denied", lambda: read(f"{other}/secret.env"))
attempt("credential", lambda: read(f"{other}/creds.json"))
print("PROBE " + json.dumps(out, sort_keys=True))
"""


def bash_call(call_id: str, command: str) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}]}


async def test_a_directory_added_is_writable_in_the_sandbox_at_the_next_command_and_its_protections_hold(
    tmp_path: Path, outside: Path
) -> None:
    """With a real bubblewrap: before /add-dir the sandbox lets no command write the directory; after it the next
    command can, and the directory's own protected paths (.git's hooks and config, .claude), the file a deny rule
    names and a credential file an environment variable points at stay out of reach."""
    import shutil

    assert shutil.which("bwrap"), "bubblewrap is needed for this test (.ci/run installs it)"
    (outside / ".git" / "hooks").mkdir(parents=True)
    (outside / ".git" / "config").write_text("[core]\n")
    (outside / "secret.env").write_text("TOKEN=hunter2\n")
    (outside / "creds.json").write_text('{"private_key": "k"}\n')
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    command = f"python3 {probe} {outside}"
    script = [bash_call("b1", command), {"text": "Before."}, bash_call("b2", command), {"text": "After."}]
    harness = Harness(tmp_path, script, mode="bypassPermissions")
    harness.env["GOOGLE_APPLICATION_CREDENTIALS"] = str(outside / "creds.json")
    settings = Path(harness.env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    settings.parent.mkdir(parents=True)
    deny = f"Read(/{outside}/secret.env)"
    settings.write_text(json.dumps({"sandbox": {"enabled": True}, "permissions": {"deny": [deny]}}))

    def probed(call_id: str) -> dict[str, str]:
        [result] = [b for m in app.conversation.messages for b in m.content if getattr(b, "tool_use_id", "") == call_id]
        line = next(line for line in str(result.content).splitlines() if line.startswith("PROBE "))
        return json.loads(line.removeprefix("PROBE "))

    app = harness.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.conversation.project.engine.sandbox is not None and app.conversation.project.engine.sandbox.active
        await type_and_send(pilot, "probe")
        await until(pilot, lambda: idle(app) and app.conversation.messages[-1].text == "Before.")
        assert probed("b1")["plain"] in ("OSError", "PermissionError") and not (outside / "made.txt").exists()
        await type_and_send(pilot, "/add-dir ../other")
        await until(pilot, lambda: isinstance(app.screen, AddDirScreen))
        await pilot.press("1")
        await said(pilot, "as a working directory for this session")
        await type_and_send(pilot, "probe again")
        await until(pilot, lambda: idle(app) and app.conversation.messages[-1].text == "After.")
        after = probed("b2")
        assert after["plain"] == "written" and (outside / "made.txt").read_text() == "x"
        assert after["hook"] != "written" and not (outside / ".git" / "hooks" / "pre-commit").exists()
        assert after["git config"] != "written" and (outside / ".git" / "config").read_text() == "[core]\n"
        assert after["claude settings"] != "written" and not (outside / ".claude").exists()
        assert after["denied"] in ("(empty)", "PermissionError", "FileNotFoundError"), after
        assert after["credential"] in ("(empty)", "PermissionError", "FileNotFoundError"), after
        assert "hunter2" not in json.dumps(after) and "private_key" not in json.dumps(after)


async def test_agents_writes_a_type_to_your_own_directory_when_chosen(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    async with harness.app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await ready(pilot)
        await type_and_send(pilot, "/agents")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, AgentEditor))
        await pilot.press(*"my-helper", "tab", *"Helps me anywhere", "tab", "tab", "tab", "space", "tab")
        assert app.focused is app.screen.query_one("#prompt")
        await pilot.press(*"Help with whatever is asked.", "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        path = Path(harness.env["CLAUDE_CONFIG_DIR"]) / "agents" / "my-helper.md"
        assert path.read_text().endswith("---\n\nHelp with whatever is asked.\n")
        assert not (harness.project / ".claude").exists()
        assert [(t.name, t.source) for t in app.screen.types if t.name == "my-helper"] == [("my-helper", "user")]

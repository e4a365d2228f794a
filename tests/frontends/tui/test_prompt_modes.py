"""The prompt's modes, driven by Textual's Pilot: vim mode's keys (a table: text and cursor before, keys, text and
cursor after), Esc between vim and the app, /vim remembered, Ctrl+G through a real editor, and thinking (Alt+T and
`ultrathink`) as the loopback model server receives it."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events

from agentui.core.providers.anthropic import AnthropicProvider
from agentui.frontends.tui.app import AgentApp
from agentui.frontends.tui.external_editor import editor_command, run_editor
from agentui.frontends.tui.widgets.prompt_vim import PromptVim
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

ESC = "escape"

# (text before, with | for the cursor; the keys, one a character, else a key's name; text after, with |)
VIM_TABLE: list[tuple[str, list[str], str]] = [
    ("|hello world", ["l", "l"], "he|llo world"),
    ("hello worl|d", ["h", "h", "h"], "hello w|orld"),
    ("he|llo", ["left"], "h|ello"),
    ("he|llo", ["right"], "hel|lo"),
    ("one\ntw|o\nthree", ["k"], "on|e\ntwo\nthree"),
    ("on|e\ntwo", ["j"], "one\ntw|o"),
    ("|one two three", ["w"], "one |two three"),
    ("|one two three", ["w", "w"], "one two |three"),
    ("one two thre|e", ["b"], "one two |three"),
    ("|one two", ["e"], "on|e two"),
    ("|a.b c", ["W"], "a.b |c"),
    ("|a.b c", ["w"], "a|.b c"),
    ("  one tw|o", ["0"], "|  one two"),
    ("  one tw|o", ["^"], "  |one two"),
    ("|one two", ["$"], "one tw|o"),
    ("a\nb\n|c", ["g", "g"], "|a\nb\nc"),
    ("|a\nb\nc", ["G"], "a\nb\n|c"),
    ("|a\nb\nc", ["2", "G"], "a\n|b\nc"),
    ("|a,b,c", ["f", ","], "a|,b,c"),
    ("|a,b,c", ["f", ",", ";"], "a,b|,c"),
    ("|a,b,c", ["t", ","], "|a,b,c"),
    ("a,b,|c", ["F", ","], "a,b|,c"),
    ("|hello", ["x"], "|ello"),
    ("|hello", ["3", "x"], "|lo"),
    ("he|llo", ["delete"], "he|lo"),
    ("a\n|b\nc", ["d", "d"], "a\n|c"),
    ("a\nb\n|c", ["d", "d"], "a\n|b"),
    ("|a\nb\nc", ["2", "d", "d"], "|c"),
    ("hello |world", ["D"], "hello| "),
    ("|one two", ["d", "w"], "|two"),
    ("|one two three", ["d", "2", "w"], "|three"),
    ("hel|lo world", ["d", "i", "w"], "| world"),
    ("|word  next", ["d", "a", "w"], "|next"),
    ('say "hi |there" ok', ["d", "i", '"'], 'say "|" ok'),
    ("f(a, |b)", ["d", "a", "("], "|f"),
    ("|a,b,c", ["d", "t", ","], "|,b,c"),
    ("|a,b,c", ["d", "f", ","], "|b,c"),
    ("one |two", ["d", "$"], "one| "),
    ("one tw|o", ["d", "0"], "|o"),
    ("|a\nb\nc", ["d", "j"], "|c"),
    ("|a\nb\nc", ["d", "G"], "|"),
    ("|foo bar", ["c", "w", "x", "y", ESC], "x|y bar"),
    ("one |two", ["c", "c", "n", "e", "w", ESC], "ne|w"),
    ("|one two", ["C", "z", ESC], "|z"),
    ('a "b|c" d', ["c", "i", '"', "z", ESC], 'a "|z" d'),
    ("|abc", ["i", "x", ESC], "|xabc"),
    ("|abc", ["a", "x", ESC], "a|xbc"),
    ("  a|bc", ["I", "x", ESC], "  |xabc"),
    ("|abc", ["A", "x", ESC], "abc|x"),
    ("|one\ntwo", ["o", "x", ESC], "one\n|x\ntwo"),
    ("one\n|two", ["O", "x", ESC], "one\n|x\ntwo"),
    ("|abc", ["r", "z"], "|zbc"),
    ("|abc", ["~", "~"], "AB|c"),
    ("|one\ntwo", ["J"], "one| two"),
    ("|ab", [">", ">"], "  |ab"),
    ("  |ab", ["<", "<"], "|ab"),
    ("|one\ntwo", ["y", "y", "p"], "one\n|one\ntwo"),
    ("one\n|two", ["y", "y", "P"], "one\n|two\ntwo"),
    ("|one\ntwo", ["Y", "j", "p"], "one\ntwo\n|one"),
    ("|ab", ["x", "p"], "b|a"),
    ("|one two", ["y", "w", "$", "p"], "one twoone| "),
    ("|a b c", ["d", "w", "."], "|c"),
    ("|abc", ["x", ".", "."], "|"),
    ("|ab cd", ["c", "w", "z", ESC, "w", "."], "z |z"),
    ("|abc", ["x", "u"], "|abc"),
    ("one tw|o", ["backspace"], "one t|wo"),
]


def place(app: AgentApp, marked: str) -> None:
    """The prompt holding `marked` without its |, the cursor at the |, in vim's NORMAL mode."""
    prompt = app.prompt_input
    prompt.set_editor_mode(True)
    assert prompt.vim_keys is not None
    prompt.vim_keys = PromptVim(prompt)
    prompt.vim_keys.vim.mode = "NORMAL"
    at = marked.index("|")
    text = marked.replace("|", "", 1)
    prompt.text = text
    prompt.history.clear()
    prompt.move_cursor((text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)))


def marked(app: AgentApp) -> str:
    prompt = app.prompt_input
    row, column = prompt.cursor_location
    lines = prompt.text.split("\n")
    lines[row] = lines[row][:column] + "|" + lines[row][column:]
    return "\n".join(lines)


async def test_vim_normal_mode_keys_edit_the_prompt_as_vim_does(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        wrong = []
        for before, keys, after in VIM_TABLE:
            place(app, before)
            await pilot.press(*keys)
            await pilot.pause()
            if marked(app) != after:
                wrong.append(f"{before!r} {''.join(k if len(k) == 1 else f'<{k}>' for k in keys)}: {marked(app)!r}")
        assert wrong == []


async def test_esc_and_a_key_typed_at_once_are_esc_then_the_key(tmp_path: Path) -> None:
    # A terminal sends Esc and a key typed at once as one Alt+key (Textual's Key "alt+shift+a", character "A").
    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        place(app, "|ab")
        await pilot.press("i", "x")
        app.prompt_input.post_message(events.Key("alt+shift+a", "A"))
        await pilot.pause()
        await pilot.press("y", ESC)
        assert marked(app) == "xab|y"


async def test_vim_mode_shows_insert_and_escape_goes_to_normal_and_enter_sends_in_both(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "One."}, {"text": "Two."}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.prompt_input
        prompt.set_editor_mode(True)
        assert prompt.border_subtitle == "-- INSERT --"  # (as Claude Code: the mode under the prompt)
        await pilot.press("h", "i")
        assert prompt.text == "hi"
        await pilot.press(ESC)
        assert prompt.vim_keys is not None and prompt.vim_keys.mode == "NORMAL"
        assert prompt.border_subtitle == ""  # (NORMAL is shown by nothing, as in vim and Claude Code)
        await pilot.press("x")
        assert prompt.text == "h"
        await pilot.press("enter")  # sends in NORMAL mode
        await until(pilot, lambda: idle(app) and len(app.conversation.messages) >= 2)
        assert app.conversation.messages[0].text == "h"
        await pilot.press("i", "y", "o", "enter")  # and in INSERT mode
        await until(pilot, lambda: idle(app) and len(app.conversation.messages) >= 4)
        assert app.conversation.messages[2].text == "yo"


async def test_vim_k_and_j_at_the_first_and_last_line_walk_the_history(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.history.add("older prompt")
        app.history.add("newer prompt")
        place(app, "two\n|lines")
        await pilot.press("k")  # not yet on the first line: up a line
        assert marked(app) == "|two\nlines"
        await pilot.press("k")
        assert app.prompt_input.text == "newer prompt"
        await pilot.press("up")  # ↑ as well, as in INSERT mode
        assert app.prompt_input.text == "older prompt"
        await pilot.press("j")
        assert app.prompt_input.text == "newer prompt"
        assert app.prompt_input.vim_keys is not None and app.prompt_input.vim_keys.mode == "NORMAL"


def started(app: AgentApp, count: int) -> bool:
    """The `count`th tool block's command has printed its first words."""
    blocks = texts(app, ToolBlock)
    return len(blocks) == count and blocks[-1]._log is not None and "started" in "\n".join(blocks[-1]._log.lines)


async def test_escape_interrupts_a_running_turn_in_either_vim_mode(tmp_path: Path) -> None:
    # The command would run for ten minutes: Esc must stop it whatever mode the prompt is in.
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "echo started; sleep 600"}}
    held = {"content": [call]}
    script = [held, held]  # (an interrupted turn asks nothing more of the model)
    harness = Harness(tmp_path, script, allowed=("Bash(echo:*)", "Bash(sleep:*)"))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.prompt_input
        prompt.set_editor_mode(True)
        for count, mode in enumerate(("INSERT", "NORMAL"), start=1):
            await type_and_send(pilot, "wait")
            await until(pilot, lambda count=count: started(app, count))
            assert prompt.vim_keys is not None
            if mode == "NORMAL":
                prompt.vim_keys.vim.mode = "NORMAL"
                await pilot.press("d")  # (a command half-typed: Esc still interrupts, and ends it)
            else:
                await pilot.press("x")  # (typed in INSERT mode while the model works)
            await pilot.press(ESC)
            await until(pilot, lambda: idle(app))
            assert prompt.vim_keys.mode == "NORMAL" and prompt.vim_keys.vim.pending == ""
            prompt.clear_prompt()
            prompt.vim_keys.vim.to_insert()
        assert len([n for n in texts(app, Notice) if n.message == "Interrupted."]) == 2


async def test_escape_in_normal_mode_on_an_idle_prompt_is_the_apps_esc_esc(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        place(app, "a draft|")
        await pilot.press(ESC, ESC)  # (NORMAL already: the app's Esc Esc clears the prompt into the history)
        assert app.prompt_input.text == ""
        assert app.history.entries[-1] == "a draft"


async def test_slash_vim_switches_and_is_remembered_in_claude_codes_settings(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    settings = tmp_path / "claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["Read"]}}))
    async with harness.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/vim")
        assert pilot.app.prompt_input.vim_keys is not None
        assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Read"]}, "editorMode": "vim"}
    app = harness.app()  # the next run starts in vim mode
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.prompt_input.vim_keys is not None)
        await type_and_send(pilot, "/vim")
        assert app.prompt_input.vim_keys is None
        assert json.loads(settings.read_text())["editorMode"] == "normal"
        assert any(n.message.startswith("Editor mode set to normal") for n in texts(app, Notice))


def test_the_editor_mode_is_read_as_claude_code_reads_it(tmp_path: Path) -> None:
    from agentui.api import editor_mode

    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    assert editor_mode(project, env) == "normal"
    (tmp_path / "claude").mkdir()
    (tmp_path / "claude" / ".claude.json").write_text('{"editorMode": "vim"}')  # (its older place)
    assert editor_mode(project, env) == "vim"
    (tmp_path / "claude" / "settings.json").write_text('{"editorMode": "emacs"}')  # (its old name for normal)
    assert editor_mode(project, env) == "normal"
    (project / ".claude" / "settings.local.json").write_text('{"editorMode": "vim"}')
    assert editor_mode(project, env) == "vim"


def editor_script(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@contextlib.contextmanager
def handed_over(app: AgentApp) -> Iterator[None]:
    """Pilot's headless driver has no terminal to hand over: what App.suspend does around the editor is all that is
    stood in for; the editor itself runs for real."""
    app.suspend = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        del app.suspend


async def test_ctrl_g_edits_the_prompt_in_the_editor_and_sends_the_edited_text(tmp_path: Path) -> None:
    seen = tmp_path / "seen.txt"
    script = editor_script(tmp_path, f'cp "$1" {seen}; printf "rewritten by the editor\\n" > "$1"\n')
    harness = Harness(tmp_path, [{"text": "Done."}])
    harness.env["EDITOR"] = str(script)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert("first draft")
        with handed_over(app):
            await pilot.press("ctrl+g")
        assert seen.read_text() == "first draft"
        assert app.prompt_input.text == "rewritten by the editor"  # (the newline the editor ended with is not kept)
        await pilot.press("enter")
        await until(pilot, lambda: idle(app) and len(app.conversation.messages) >= 2)
        assert app.conversation.messages[0].text == "rewritten by the editor"
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("agentui-run-*/agentui-edit-*/prompt.md"))


async def test_ctrl_g_keeps_the_prompt_when_the_editor_fails_is_missing_or_has_no_terminal(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    failing = editor_script(tmp_path, 'printf "lost" > "$1"; exit 3\n')
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert("keep me")
        said = []
        for editor, fake_terminal in ((str(failing), True), (str(tmp_path / "no-such-editor"), True), ("", False)):
            harness.env["EDITOR"] = editor
            harness.env["PATH"] = str(tmp_path / "empty")  # (no vi or nano to fall back on)
            if fake_terminal:
                with handed_over(app):
                    await pilot.press("ctrl+g")
            else:
                harness.env["EDITOR"] = str(failing)
                await pilot.press("ctrl+g")  # Pilot's driver: no terminal to suspend
            assert app.prompt_input.text == "keep me"
            said.append(texts(app, Notice)[-1].message)
        assert said[0] == "editor.sh exited with status 3; the prompt was kept as it was."
        assert said[1].startswith("The editor no-such-editor could not be started (it was not found;")
        assert said[2] == (
            "This terminal cannot be handed to an editor (Ctrl+G needs a real terminal); the prompt was kept as it was."
        )
        harness.env["EDITOR"] = ""
        with handed_over(app):
            await pilot.press("ctrl+g")
        assert texts(app, Notice)[-1].message.startswith("No editor to open: set $VISUAL or $EDITOR")


def test_the_editor_is_visual_then_editor_with_its_arguments() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_command({"EDITOR": "'/opt/my editor/ed' -n"}) == ["/opt/my editor/ed", "-n"]
    assert editor_command({"PATH": "/nonexistent"}) is None


def test_a_long_paste_goes_to_the_editor_whole_and_comes_back_as_its_chip(tmp_path: Path) -> None:
    # (the prompt's part of this is in the app test above; here the file the editor gets and gives)
    script = editor_script(tmp_path, 'printf "%s\\nmore\\n" "$(cat "$1")" > "$1"\n')
    directory = tmp_path / "edit"
    directory.mkdir()
    edited = run_editor([str(script)], "line one\nline two", directory)
    assert edited.text == "line one\nline two\nmore"


async def test_pastes_left_whole_in_the_editor_come_back_as_chips(tmp_path: Path) -> None:
    script = editor_script(tmp_path, 'printf "%s and after" "$(cat "$1")" > "$1"\n')
    harness = Harness(tmp_path, [])
    harness.env["EDITOR"] = str(script)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        pasted = "\n".join(f"pasted line {n}" for n in range(20))
        app.prompt_input._paste_chip(pasted)
        with handed_over(app):
            await pilot.press("ctrl+g")
        assert app.prompt_input.text == "[Pasted text #1 +19 lines] and after"
        assert app.prompt_input.expanded() == pasted + " and after"


def anthropic_app(harness: Harness, server: LoopbackServer) -> AgentApp:
    return AgentApp(
        harness.launch, provider_factory=lambda: AnthropicProvider(api_key="x", base_url=server.url), env=harness.env
    )


def answer(text: str) -> Reply:
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}]))


async def test_alt_t_turns_thinking_on_and_off_for_the_next_requests(tmp_path: Path, server: LoopbackServer) -> None:
    server.enqueue(answer("one"), answer("two"), answer("three"))
    harness = Harness(tmp_path, [])
    app = anthropic_app(harness, server)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        assert "thinking" not in str(app.status.render())
        await type_and_send(pilot, "first")
        await until(pilot, lambda: idle(app) and len(server.requests) == 1)
        await pilot.press("alt+t")
        assert "Thinking on (8,000 tokens a request)" in str(app.status.render())
        await type_and_send(pilot, "second")
        await until(pilot, lambda: idle(app) and len(server.requests) == 2)
        await until(pilot, lambda: "· thinking" in str(app.status.render()))  # (once the notice has gone)
        await pilot.press("alt+t")
        await type_and_send(pilot, "third")
        await until(pilot, lambda: idle(app) and len(server.requests) == 3)
    bodies: list[dict[str, Any]] = [request.json() for request in server.requests]
    assert "thinking" not in bodies[0]
    assert bodies[1]["thinking"] == {"type": "enabled", "budget_tokens": 8000}
    assert bodies[1]["max_tokens"] > 8000
    assert "thinking" not in bodies[2]


async def test_ultrathink_is_marked_and_gives_that_one_prompt_the_most_thinking(
    tmp_path: Path, server: LoopbackServer
) -> None:
    server.enqueue(answer("deep"), answer("plain"))
    harness = Harness(tmp_path, [])
    app = anthropic_app(harness, server)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        prompt = app.prompt_input
        prompt.insert("please Ultrathink about it")
        await pilot.pause()
        assert "ultrathink" in str(prompt.border_subtitle)
        line = prompt.get_line(0)
        styled = {line.plain[span.start : span.end] for span in line.spans}
        assert set("Ultrathink") <= styled  # (a colour a letter)
        await pilot.press("enter")
        await until(pilot, lambda: idle(app) and len(server.requests) == 1)
        assert prompt.border_subtitle == ""
        await type_and_send(pilot, "think hard, and think harder: megathink")  # (no longer words that count)
        await until(pilot, lambda: idle(app) and len(server.requests) == 2)
    first, second = (request.json() for request in server.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 31999}
    assert first["max_tokens"] == 32000
    assert "thinking" not in second and second["max_tokens"] == 8192


@pytest.mark.parametrize("during", ["unchanged", "on"])
def test_ultrathink_ends_with_its_run_unless_thinking_was_switched_meanwhile(during: str) -> None:
    # (the core's part alone: after the run the budget is the conversation's again, or what it was switched to)
    from agentui.core.loop.agent_config import AgentConfig
    from agentui.core.run_options import ModelOptions
    from agentui.core.thinking import thinking_for

    class Holder:
        config = AgentConfig(model="m")

    agent: Any = Holder()
    with thinking_for(agent, "ULTRATHINK now"):
        assert agent.config.options.thinking_budget == 31999
        if during == "on":  # (Alt+T during the run)
            agent.config = agent.config.model_copy(update={"options": ModelOptions(thinking_budget=8000)})
    assert agent.config.options.thinking_budget == (8000 if during == "on" else None)
    assert agent.config.options.max_tokens == 8192


async def test_thinking_shows_folded_with_about_how_many_tokens_it_is(tmp_path: Path) -> None:
    """The model's thinking is a folded block whose title says about how many tokens it was (four characters a
    token); Enter on it opens it, and the thinking is there."""
    from agentui.frontends.tui.widgets.answer import ThinkingView

    thought = "Let me look at the file first. " * 10  # (310 characters: about 78 tokens)
    script = [
        {"content": [{"type": "thinking", "thinking": thought, "signature": "s"}, {"type": "text", "text": "Done."}]}
    ]
    harness = Harness(tmp_path, script)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "go")
        await until(pilot, lambda: idle(app) and len(app.query(ThinkingView)) == 1)
        (view,) = app.query(ThinkingView)
        assert view.collapsed and str(view.title) == "Thought (78 tokens)"
        view.collapsed = False
        await pilot.pause()
        assert "Let me look at the file first." in str(view._body.render())

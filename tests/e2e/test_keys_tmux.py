"""Keys that mean what a Claude Code user expects (issue 33), in a real terminal at 80x24 and 120x40: the installed
`agentui` in tmux against the loopback Messages API. Each test asserts on the screen and on the requests the model
server received; the ceilings only end a broken run."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.listings import without_listings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def _reply(*blocks: dict[str, object], stop: str = "end_turn") -> Reply:
    return Reply(chunks=anthropic_stream(list(blocks), stop_reason=stop))


def _bash(call_id: str, command: str) -> Reply:
    return _reply({"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}, stop="tool_use")


def _text(text: str) -> Reply:
    return _reply({"type": "text", "text": text})


def _last_user_blocks(request: Any) -> list[dict[str, Any]]:
    """The blocks of the user messages after the last answer of the model, in order."""
    blocks: list[dict[str, Any]] = []
    for message in request.json()["messages"]:
        if message["role"] == "assistant":
            blocks = []
        elif isinstance(message["content"], str):
            blocks.append({"type": "text", "text": message["content"]})
        else:
            blocks += without_listings(message["content"])
    return blocks


def _only_prompt_sent(server: LoopbackServer) -> str:
    """The text of the last user block of the one request sent to the model (there must be exactly one)."""
    (sent,) = [r for r in server.requests if r.path.endswith("/v1/messages") and r.json().get("stream")]
    text: str = _last_user_blocks(sent)[-1]["text"]
    return text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "build").mkdir()
    return root


@pytest.mark.parametrize("size", SIZES)
def test_no_and_esc_to_a_question_end_the_turn(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(
        _bash("b1", "rm -rf build"),
        _text("Understood, build stays."),
        _bash("b2", "rm -rf build"),
        _text("Still here."),
    )
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("clean the build")
        terminal.keys("Enter")
        terminal.wait_for("Yes, once")
        terminal.keys("n")
        terminal.wait_for("Interrupted.")  # the run has ended: the model was not called again
        assert len(server.requests) == 1 and (project / "build").is_dir()
        terminal.type("why not?")
        terminal.keys("Enter")
        terminal.wait_for("Understood, build stays.")
        sent = _last_user_blocks(server.requests[1])
        refused, interrupted, prompt = sent[0], sent[1], sent[2]
        assert refused["type"] == "tool_result" and refused["is_error"]
        assert "doesn't want to proceed" in str(refused["content"])
        assert interrupted["text"] == "[Request interrupted by user for tool use]" and prompt["text"] == "why not?"
        # Esc answers no the same way
        terminal.type("try again")
        terminal.keys("Enter")
        terminal.wait_for("Yes, once")
        terminal.keys("Escape")
        terminal.wait_gone("Yes, once")
        terminal.type("ok")  # (had the model been called after Esc, it would have taken "Still here." first)
        terminal.keys("Enter")
        terminal.wait_for("Still here.")
        assert len(server.requests) == 4 and (project / "build").is_dir()
        sent = _last_user_blocks(server.requests[3])
        assert sent[0]["type"] == "tool_result" and "doesn't want to proceed" in str(sent[0]["content"])
        assert [block.get("text") for block in sent[1:3]] == ["[Request interrupted by user for tool use]", "ok"]
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_an_at_completion_taken_closes_the_list_and_the_file_goes_with_the_prompt(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (project / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (project / "src").mkdir()
    (project / "src" / "parser.py").write_text("x = 1\n")
    (project / "src" / "lexer.py").write_text("y = 2\n")
    server.enqueue(_text("It subtracts."), _text("Noted."), _text("Two modules."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("what does @cal")
        terminal.wait_for("@calc.py")
        terminal.keys("Enter")  # takes the completion
        terminal.wait_for("what does @calc.py")
        terminal.type("do")
        screen = terminal.wait_for("@calc.py do")
        assert screen.count("@calc.py") == 1, screen  # the list has closed
        terminal.keys("Enter")  # and this Enter sends
        terminal.wait_for("It subtracts.")
        blocks = _last_user_blocks(server.requests[0])
        assert blocks[0]["text"] == "what does @calc.py do"
        assert any("Called the Read tool" in b.get("text", "") for b in blocks)
        assert any("return a - b" in b.get("text", "") for b in blocks)
        # a binary file is named in one sentence on screen, and the prompt still goes
        terminal.type("and @blob.bin ")
        terminal.keys("Enter")
        screen = terminal.wait_for("Noted.")
        assert "@blob.bin was not attached" in " ".join(screen.split()), screen
        assert len(server.requests) == 2
        # a directory goes as Claude Code sends one: what `ls` of it lists
        terminal.type("what is in @src/ ")
        terminal.keys("Escape")  # (closes the completion list, if it is open)
        terminal.keys("Enter")
        terminal.wait_for("Two modules.")
        listing = [b["text"] for b in _last_user_blocks(server.requests[2]) if "Called the Bash tool" in b["text"]]
        assert listing and "ls " in listing[0]
        assert any("lexer.py" in b["text"] and "parser.py" in b["text"] for b in _last_user_blocks(server.requests[2]))
        terminal.quit()
    finally:
        terminal.close()


def _running(marker: str) -> bool:
    """A process whose command line holds `marker` is running."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def _until(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.mark.parametrize("size", SIZES)
def test_ctrl_c_interrupts_what_runs_clears_the_prompt_and_quits_only_twice_on_an_empty_one(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    nap = f"{size[0]}.25"  # (sleeps this test alone runs, to find their processes by)
    server.enqueue(_bash("b1", f"echo model-started && sleep {nap}1"), _text("Stopped, then."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        # the person's own command: Ctrl+C stops it, and the keys work while it runs
        terminal.type(f"!echo person-$((40+2)); sleep {nap}")
        terminal.keys("Enter")
        terminal.wait_for("person-42")  # (only its output says so: the typed line would match before it ran)
        terminal.type("half a thought")
        terminal.wait_for("half a thought")  # typed while the command runs
        terminal.keys("C-c")
        terminal.wait_for("Interrupted.")
        _until(lambda: not _running(f"sleep {nap}"), "the person's command went on after Ctrl+C")
        assert "half a thought" in terminal.screen()  # the command was what Ctrl+C stopped, not the text
        terminal.keys("C-c")  # nothing runs: the prompt's text is cleared, and the app stays
        terminal.wait_gone("half a thought")
        assert "Press Ctrl+C again" not in terminal.screen()
        # the model's command: Ctrl+C interrupts the turn (echo and sleep need no question)
        terminal.type("start it")
        terminal.keys("Enter")
        terminal.wait_for("model-started")
        _until(lambda: _running(f"sleep {nap}1"), "the model's command never started")
        terminal.keys("C-c")
        _until(lambda: not _running(f"sleep {nap}1"), "the model's command went on after Ctrl+C")
        assert "EXIT=" not in terminal.screen() and len(server.requests) == 1
        # only twice on an empty, idle prompt does it quit
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_help_lists_every_key_in_two_columns(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    from agentui.frontends.tui.keys_help import KEYS

    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("/help")
        terminal.keys("Enter")
        terminal.wait_for("Quit agentui")  # its last row
        terminal.keys("C-Home")
        terminal.wait_for("Keys")
        for keys, _ in KEYS:  # each in the first column, read down a page at a time
            row = r"^\s*" + re.escape(keys) + r"\s{2}"
            if not any(re.search(row, line) for line in terminal.screen().splitlines()):
                terminal.keys("NPage")
            terminal.wait_for_line(row)
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_note_takes_effect_at_once(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(_text("Hello."), _text("Four spaces it is."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("hello")  # (the conversation is open, its memory read)
        terminal.keys("Enter")
        terminal.wait_for("Hello.")
        terminal.type("#indent with four spaces")
        terminal.keys("Enter")
        terminal.wait_for("Added to")
        terminal.type("/memory")
        terminal.keys("Enter")
        screen = terminal.wait_for("Memory files the model reads")
        assert "- CLAUDE.md: the project's instructions" in screen, screen  # (its short name, and why it is read)
        terminal.wait_for("- indent with four spaces")  # the file, with the note in it
        terminal.type("tidy up")
        terminal.keys("Enter")
        terminal.wait_for("Four spaces it is.")
        sent = json.dumps(server.requests[1].json()["messages"][-2:])
        assert "indent with four spaces" in sent  # the next request carries it
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_compact_on_a_short_conversation_keeps_a_summary_and_the_last_turns(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    server.enqueue(_text("First answer."), _text("Second answer."), _text("The person pasted a log."), _text("On."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("read this log: " + "line of the log " * 150)
        terminal.keys("Enter")
        terminal.wait_for("First answer.")
        terminal.type("and then?")
        terminal.keys("Enter")
        terminal.wait_for("Second answer.")
        terminal.type("/compact")
        terminal.keys("Enter")
        screen = terminal.wait_for_line(r"Conversation compacted: context [\d,]+ → [\d,]+ tokens")
        before, after = (
            int(n.replace(",", ""))
            for n in re.search(r"context ([\d,]+) → ([\d,]+) tokens", screen).groups()  # type: ignore[union-attr]
        )
        assert after < before, screen  # the numbers are the context before and after, counted alike
        terminal.type("go on")
        terminal.keys("Enter")
        terminal.wait_for("On.")
        sent = server.requests[3].json()["messages"]
        flat = json.dumps(sent)
        assert "The person pasted a log." in json.dumps(sent[0]) and "line of the log line" not in flat
        assert "Second answer." in flat and "and then?" in flat  # the last turns, as they were
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_long_diff_scrolls_inside_its_question_and_the_answer_keys_stay_on_screen(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    content = "".join(f"line number {n} of a long new file\n" for n in range(120))
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "big.txt", "content": content}}
    server.enqueue(_reply(write, stop="tool_use"), _text("Written."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("write it")
        terminal.keys("Enter")
        screen = terminal.wait_for("Yes, once")
        for keys in ("y 1", "s 2", "a 3", "n ⎋", "Tab"):  # every answer key is on screen
            assert keys in screen, screen
        assert "line number 0 of" in screen and "line number 119 of" not in screen
        terminal.keys("End")  # the diff scrolls inside the dialog
        screen = terminal.wait_for("line number 119 of")
        assert "n ⎋" in screen and "Yes, once" in screen
        terminal.keys("Tab")  # the box for the reason takes its rows from the diff, not from the keys
        screen = terminal.wait_for("What should the model do instead?")
        assert "n ⎋" in screen and "Yes, once" in screen, screen
        terminal.keys("Escape")
        terminal.wait_for("Interrupted.")
        assert not (project / "big.txt").exists()
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_long_paste_is_a_chip_sent_whole_and_esc_esc_clears_the_prompt_into_the_history(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    log = "".join(f"2026-11-25 07:{n // 60:02}:{n % 60:02} worker {n} finished\n" for n in range(1113))
    server.enqueue(_text("The log is clean."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("what went wrong? ")
        terminal.paste(log)
        screen = terminal.wait_for("[Pasted text #1 +1,113 lines]")
        assert "worker 5 finished" not in screen  # collapsed, not typed out
        terminal.paste("a second paste\n" * 20)
        terminal.wait_for("[Pasted text #2 +20 lines]")
        terminal.keys("BSpace")  # a chip goes whole
        terminal.wait_gone("[Pasted text #2")
        assert "[Pasted text #1 +1,113 lines]" in terminal.screen()
        terminal.keys("Enter")
        terminal.wait_for("The log is clean.")
        sent = _last_user_blocks(server.requests[0])[0]["text"]
        assert sent == "what went wrong? " + log and "a second paste" not in sent  # sent whole, the removed one not
        # Esc Esc on a prompt with text clears it, and ↑ brings it back
        terminal.type("a draft to put aside")
        terminal.wait_for("a draft to put aside")
        terminal.keys("Escape")
        terminal.keys("Escape")
        terminal.wait_gone("a draft to put aside")
        terminal.keys("Up")
        terminal.wait_for("a draft to put aside")
        terminal.keys("C-u")  # Ctrl+U: to the start of the line, as in Claude Code's prompt
        terminal.wait_gone("a draft to put aside")
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_find_scrolls_to_the_match_itself_and_no_typed_key_is_lost(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    lines = [f"paragraph line {n}" for n in range(1, 121)]
    lines[89] = "the zanzibar configuration lives here"
    server.enqueue(_text("First of all.\n\n" + "\n\n".join(lines)))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("explain")
        terminal.keys("Enter")
        terminal.wait_for("paragraph line 120")
        terminal.keys("C-Home")
        terminal.wait_for("First of all.")
        terminal.keys("C-f")
        terminal.type("zanzibar config")  # at once after Ctrl+F, as a person types
        terminal.wait_for("match 1 of 1")  # (every key reached the box: the whole words were found)
        screen = terminal.wait_for("the zanzibar configuration lives here")  # the line of the match itself
        assert "First of all." not in screen and "paragraph line 89" in screen  # not the answer's top
        terminal.keys("Escape")
        terminal.wait_gone("Find: match")
        terminal.quit()
    finally:
        terminal.close()


def _wait_for_words(terminal: Terminal, words: str) -> None:
    """Until `words` are on the screen, wherever its lines wrap them (a long path breaks anywhere): compared with
    every space and line break taken out."""
    wanted = "".join(words.split())
    deadline = time.monotonic() + 60
    while wanted not in "".join(terminal.screen().split()):
        assert time.monotonic() < deadline, f"{words!r} never appeared:\n{terminal.screen()}"
        time.sleep(0.1)


def _top_line(screen: str) -> str:
    """The first numbered line of the answer on screen ("row 123")."""
    return next((m.group(0) for m in re.finditer(r"row \d+\b", screen)), "")


@pytest.mark.parametrize("size", SIZES)
def test_every_page_key_counts_when_held(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Issue 33: 20 PageUps sent at 30 a second move as far as 20 sent one at a time (a page key scrolled from where
    the last scroll had not yet landed, so most of a held key's presses were lost); the same for PageDown."""
    server.enqueue(_text("\n\n".join(f"row {n}: the request is read, checked and answered." for n in range(1, 601))))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("explain")
        terminal.keys("Enter")
        terminal.wait_for("row 600:")
        slow: list[str] = []
        for _ in range(20):  # one at a time: each waits until the screen has moved
            before = _top_line(terminal.screen())
            terminal.keys("PageUp")
            deadline = time.monotonic() + 30
            while _top_line(terminal.screen()) == before and time.monotonic() < deadline:
                time.sleep(0.05)
            slow.append(_top_line(terminal.screen()))
        assert len(set(slow)) == 20, slow  # (each press moved: the answer is long enough for the test to mean it)
        terminal.keys("C-End")
        terminal.wait_for("row 600:")
        terminal.keys(*["PageUp"] * 20)  # held, and faster than any hand: all twenty in one write
        _settled_at(terminal, slow[-1])
        terminal.keys(*["PageDown"] * 10)
        _settled_at(terminal, slow[9])
        terminal.quit()
    finally:
        terminal.close()


def _settled_at(terminal: Terminal, top: str) -> None:
    """Until the screen's first numbered line is `top`; the screen it settled on if it never is."""
    deadline = time.monotonic() + 30
    while _top_line(terminal.screen()) != top:
        if time.monotonic() > deadline:
            raise AssertionError(f"held keys stopped at {_top_line(terminal.screen())!r}, slow ones at {top!r}")
        time.sleep(0.1)


@pytest.mark.parametrize("size", SIZES)
def test_what_is_typed_at_once_into_a_box_just_opened_is_all_there_in_order(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Issue 33: a box opened by a key (Ctrl+R's search, /resume's filter) takes the focus a moment after the key;
    what a person types meanwhile went to the prompt, or nowhere. Each is typed in the same write as the key that
    opens the box, so it always arrives first."""
    server.enqueue(_text("Noted."))
    server.enqueue(_text("Noted again."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        for prompt, answer in (("alpha request about parsers", "Noted."), ("beta request about tokens", "again.")):
            terminal.type(prompt)
            terminal.keys("Enter")
            terminal.wait_for(answer)
        terminal._tmux("send-keys", "-t", "main", "C-r", "a", "l", "p", "h", "a")
        terminal.wait_for_line(r"▊\s+alpha\s*▎")  # all five letters in the search box, in order
        terminal.wait_gone("beta request about tokens  ")  # (filtered: only the alpha prompt is offered)
        terminal.keys("Enter")  # the one match, into the prompt
        terminal.wait_gone("Search earlier prompts")
        terminal.wait_for_line(r"│ alpha request about parsers\s*│")
        terminal.keys("C-c")  # (clears the prompt)
        terminal.wait_for("Ask for something")
        terminal.type("/clear")
        terminal.keys("Enter")
        terminal.wait_for("New session started")
        terminal._tmux("send-keys", "-t", "main", "-l", "/resume\rbeta")
        terminal.wait_for("Resume a session")
        terminal.wait_for_line(r"▊\s+beta\s*▎")  # in the filter, whole
        terminal.keys("Escape")
        terminal.wait_gone("Resume a session")
        terminal.wait_for("Ask for something")  # the prompt is empty: nothing of the filter's text leaked into it
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_every_arrow_counts_in_the_prompt_history_and_in_a_list(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Issue 33: arrows sent faster than any hand (ten in one write) each move one step: ↑ through the prompts sent
    before, ↓ through Ctrl+R's list."""
    from agentui.frontends.tui.history import history_file

    env = app_env(clean_env, server, AGENTUI_DATA_DIR=str(project.parent / "data"))
    history = history_file(project.resolve(), env)
    history.parent.mkdir(parents=True, exist_ok=True)
    history.write_text("".join(json.dumps(f"earlier prompt number {n}") + "\n" for n in range(1, 16)))
    terminal = Terminal(agentui_bin, env, project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.keys(*["Up"] * 10)  # newest first: 15, 14, ... the tenth is 6
        terminal.wait_for_line(r"│ earlier prompt number 6\s*│")
        terminal.keys("C-c")
        terminal.wait_for("Ask for something")
        terminal.keys("C-r", *["Down"] * 10)  # the list lights 15 first; ten down is 5
        terminal.wait_for("Search earlier prompts")
        terminal.keys("Enter")
        terminal.wait_gone("Search earlier prompts")
        terminal.wait_for_line(r"│ earlier prompt number 5\s*│")
        terminal.keys("C-c")
        terminal.wait_for("Ask for something")
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_broken_settings_file_loses_no_prompt_and_its_fix_needs_no_restart(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Issue 33, item 1: a typo in .claude/settings.json is said once with the file; a prompt sent then is shown with
    one sentence saying why it was not sent (what the file denies cannot be known, so nothing goes out without it);
    once the file is fixed, the next prompt reaches the model, with no restart."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": ["Bash(ls:*)"],}}')  # (a trailing comma)
    server.enqueue(_text("Answered after the fix."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        _wait_for_words(terminal, "settings.json is not valid JSON")  # (which file, and what is wrong in it)
        terminal.type("first try")
        terminal.keys("Enter")
        terminal.wait_for("Not sent:")
        assert [r for r in server.requests if r.path.endswith("/v1/messages")] == []
        settings.write_text('{"permissions": {"allow": ["Bash(ls:*)"]}}')
        terminal.type("second try")
        terminal.keys("Enter")
        terminal.wait_for("Trust it and apply them")  # (the project's own allow rule: asked once, as at start-up)
        terminal.keys("y")
        terminal.wait_for("Answered after the fix.")
        assert _only_prompt_sent(server) == "second try"
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_tab_shows_which_block_has_the_focus(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Issue 33, item 6: the block Tab reaches is marked (its header lit, and what Enter and Ctrl+O do there), Enter
    opens and folds it, and typing goes back to the prompt."""
    (project / "notes.txt").write_text("first line of the notes\n")
    server.enqueue(_bash("toolu_cat", "cat notes.txt"))
    server.enqueue(_text("That is the file."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("show the notes")
        terminal.keys("Enter")
        terminal.wait_for("That is the file.")
        assert "‹Enter:" not in terminal.screen()
        terminal.keys("Tab")
        screen = terminal.wait_for("‹Enter:")
        (header,) = [line for line in screen.splitlines() if "‹Enter:" in line]
        assert "Bash" in header and "cat notes.txt" in header
        opened = "‹Enter: fold" in header
        terminal.keys("Enter")
        terminal.wait_for("‹Enter: open" if opened else "‹Enter: fold")
        assert ("first line of the notes" in terminal.screen()) != opened
        terminal.type("x")  # typing goes back to the prompt, and the block is no longer marked
        terminal.wait_gone("‹Enter:")
        terminal.wait_for_line(r"│ x\s*│")
        terminal.keys("C-c")
        terminal.wait_for("Ask for something")
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_keys_sent_in_one_write_with_backspaces_and_arrows_come_out_as_typed(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Keys that reach the app in one read (fast typing on a loaded machine, a held key, tmux): Backspace, Home and End
    are bindings Textual runs only once the key has bubbled up to the app, and the letters after them must not overtake
    them (they did: the prompt showed "worldldhello", the edits run after the letters that followed them)."""
    server.enqueue(_text("Got it."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        keys = [*"world", "BSpace", "BSpace", *"ld", "Home", *"hello", "Space", "End", "!"]
        terminal.keys(*keys)  # (one send-keys: one write to the terminal)
        terminal.wait_for_line(r"│ hello world!\s*│")
        terminal.keys("Enter")
        terminal.wait_for("Got it.")
        assert _only_prompt_sent(server) == "hello world!"
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_ctrl_u_kills_ctrl_y_puts_back_and_the_prompt_sends_what_is_left(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Issue 33, item 9: Ctrl+U, Ctrl+W and Ctrl+K in the real terminal take text out as Claude Code's prompt does,
    say that Ctrl+Y puts it back, and Ctrl+Y does; what is sent is what the prompt then holds."""
    server.enqueue(_text("Got it."))
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("drop this part keep this")
        terminal.wait_for_line(r"│ drop this part keep this\s*│")
        terminal.keys("C-w", "C-w")
        terminal.wait_for_line(r"│ drop this part\s*│")
        terminal.wait_for("Ctrl+Y to paste deleted text")
        terminal.keys("C-u")
        terminal.wait_for("Ask for something")  # (empty)
        terminal.type("please ")
        terminal.keys("C-y")  # the three kills in a row were one piece: all of it comes back
        terminal.wait_for_line(r"│ please drop this part keep this\s*│")
        terminal.keys("Enter")
        terminal.wait_for("Got it.")
        assert _only_prompt_sent(server) == "please drop this part keep this"
        terminal.quit()
    finally:
        terminal.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_failed_edit_s_error_and_the_code_around_it_keep_their_own_rows(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    """Issue 33's small things: after a failed Edit, its error was drawn on the same row as a line of the answer's
    code block. An answer with code, a failing Edit, then code again: every line of each on a row of its own."""
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    edit = {"file_path": "calc.py", "old_string": "return a * b", "new_string": "return a + b"}
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "calc.py"}}
    server.enqueue(_reply(read, stop="tool_use"))
    server.enqueue(
        _reply(
            {"type": "text", "text": "I will edit it:\n\n```python\nprevious_total = 1\n```\n"},
            {"type": "tool_use", "id": "e1", "name": "Edit", "input": edit},
            stop="tool_use",
        )
    )
    server.enqueue(
        _text("It failed; the fix:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\nApply it by hand.")
    )
    terminal = Terminal(f"{agentui_bin} --permission-mode acceptEdits", app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("fix add")
        terminal.keys("Enter")
        screen = terminal.wait_for("Apply it by hand.")
        rows = screen.splitlines()
        (error,) = [row for row in rows if "old_string was not found" in row]
        assert "✗ Edit" in error and not any(code in error for code in ("previous_total", "def add", "return a +"))
        for code in ("previous_total = 1", "def add(a, b):", "return a + b"):
            (row,) = [row for row in rows if code in row]
            assert row.strip() == code, row
        terminal.quit()
    finally:
        terminal.close()

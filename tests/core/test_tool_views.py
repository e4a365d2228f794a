"""Tools describe how their calls and results are shown, and front ends draw from those descriptions alone: every
tool a conversation has is found by its name (live, resumed, by an old name), and no front end names a tool."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from agentui.api import (
    Launch,
    SessionRequest,
    Settings,
    describe_call,
    describe_result,
    open_conversation,
    proposed_change,
)
from agentui.core.extend.mcp.resource_tools import ListMcpResources, ReadMcpResource
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.reader import load_session
from agentui.core.tool_views import _WHERE, tool_class
from agentui.core.tools.base import Tool
from agentui.core.tools.lsp import Lsp
from agentui.core.tools.retired import RETIRED
from agentui.core.tools.web_fetch import WebFetch
from agentui.core.tools.web_search import WebSearch

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "claude-projects"


def _conversation_tools(tmp_path: Path) -> list[Tool[Any]]:
    root = tmp_path / "project"
    root.mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(Settings(provider="scripted", model="scripted"), cwd=root, session=SessionRequest(persist=False))
    conversation = open_conversation(launch, provider=ScriptedProvider([]), env=env)
    try:
        return list(conversation.project.tools)
    finally:
        conversation.session.writer.close()


def test_every_tool_a_conversation_has_is_shown_by_its_own_hints_under_each_of_its_names(tmp_path: Path) -> None:
    tools = _conversation_tools(tmp_path)
    classes = {type(tool) for tool in tools} | {WebFetch, WebSearch, ListMcpResources, ReadMcpResource, Lsp, *RETIRED}
    assert len(classes) > 20 and any(tool.name == "Agent" for tool in tools)
    for cls in classes:
        for name in (cls.name, *cls.aliases):
            assert tool_class(name) is cls, name
    assert tool_class("mcp__github__create_issue") is Tool  # (a name no built-in tool has: the defaults)
    assert set(_WHERE) == {name for cls in classes for name in (cls.name, *cls.aliases)}  # (and no other name)


def test_calls_are_described_by_what_their_tool_says_of_them(tmp_path: Path) -> None:
    bash = describe_call("Bash", {"command": "pytest -q\nls", "description": "Run the tests"}, tmp_path)
    assert (bash.title, bash.shown, bash.command, bash.purpose) == (
        "pytest -q …",
        "execute",
        "pytest -q\nls",
        "Run the tests",
    )
    assert bash.opens and bash.tail and bash.asks == "permission"
    edit = describe_call(
        "Edit", {"file_path": str(tmp_path / "src/a.py"), "old_string": "a", "new_string": "b"}, tmp_path
    )
    assert (edit.title, edit.shown, edit.locations, edit.command) == (
        "src/a.py",
        "edit",
        (str(tmp_path / "src/a.py"),),
        None,
    )
    assert describe_call("Read", {"file_path": "a.py"}).opens is False
    assert describe_call("ExitPlanMode", {"plan": "# Fix the bug\n1. …"}).asks == "plan"
    assert describe_call("AskUserQuestion", {"questions": [{"question": "Which?"}, {}]}).title == "Which? (+1 more)"
    assert describe_call("KillBash", {"shell_id": "b1"}).title == "b1"  # (Claude Code 1.0's name)
    assert describe_call("Task", {"description": "Find the bug"}).title == "Find the bug"  # (2.0's name for Agent)
    unknown = describe_call("mcp__calc__add", {"a": 1, "b": 2})
    assert (unknown.title, unknown.shown, unknown.opens) == ('{"a": 1, "b": 2}', "other", False)
    assert describe_call("mcp__x__y", {"v": "x" * 200}).title.endswith("…")


def test_results_are_described_by_their_tool_and_refusals_errors_and_stops_alike() -> None:
    todos = [{"content": "Write tests", "status": "in_progress", "activeForm": "Writing tests"}]
    assert describe_result("TodoWrite", "ok", False, {"newTodos": todos}).todos == todos
    assert describe_result("TodoWrite", "bad", True, {"newTodos": todos}).todos is None
    created = describe_result("Write", "ok", False, {"type": "create", "content": "a\nb\n", "structuredPatch": []})
    assert created.summary == "created: +2 −0" and created.patch[0]["lines"] == ["+a", "+b"]
    unrecorded = describe_result("Write", "ok", False, {"type": "create", "content": "a\n"})  # (no structuredPatch)
    assert unrecorded.summary == "done" and unrecorded.patch[0]["lines"] == ["+a"]
    hunk = {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}
    multi = describe_result("MultiEdit", "ok", False, {"structuredPatch": [hunk]})  # (Claude Code 1.0's tool)
    assert (multi.summary, multi.patch) == ("changed: +1 −1", [hunk])
    assert describe_result("Bash", "a\nb", False, {"exitCode": 2, "stdout": "a\nb"}).summary == "exit 2 · 2 lines"
    assert describe_result("Bash", "", False, {"backgroundTaskId": "b7"}).summary == "running in the background as b7"
    # (what the model reads of a silent command is "(no output)", one line: the block says what it printed)
    assert describe_result("Bash", "(no output)", False, {"exitCode": 0, "stdout": ""}).summary == "no output"
    assert describe_result("Bash", "Exit code 1", True, {"exitCode": 1, "stdout": ""}).summary == "Exit code 1"
    assert describe_result("Bash", "(no output)", False, {"exitCode": 3, "stdout": ""}).summary == "exit 3 · no output"
    content = {"mode": "content", "numFiles": 0, "filenames": [], "content": "a.py:1:x\na.py:2:y", "numLines": 2}
    assert describe_result("Grep", "a.py:1:x\na.py:2:y", False, content).summary == "2 lines"  # (not "0 files")
    assert describe_result("TaskOutput", "", False, {"task": {"status": "completed", "output": "x\n"}}).summary == (
        "completed · 1 new line"
    )
    refused = "The user doesn't want to proceed with this tool use. The user said: use uv instead"
    assert describe_result("Bash", refused, True, {}, denied=True).summary == "denied — you said: use uv instead"
    assert describe_result("Bash", "Interrupted by user", True, {}).summary == "stopped (Esc)"
    assert describe_result("Edit", "String not found\nmore", True, {}).summary == "String not found"
    assert describe_result("mcp__calc__add", "3", False, {}).summary == "done"


def test_a_permission_question_shows_the_change_against_the_file_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\ntwo\n")
    edit = {"file_path": "a.py", "old_string": "two", "new_string": "2", "replace_all": True}
    assert proposed_change("Edit", edit, tmp_path) == ("one\ntwo\ntwo\n", "one\n2\n2\n")
    assert proposed_change("Edit", {**edit, "replace_all": False}, tmp_path) == ("one\ntwo\ntwo\n", "one\n2\ntwo\n")
    assert proposed_change("Edit", {**edit, "file_path": "gone.py"}, tmp_path) == ("two", "2")
    assert proposed_change("Write", {"file_path": "new.py", "content": "x\n"}, tmp_path) == ("", "x\n")
    assert proposed_change("Bash", {"command": "rm a.py"}, tmp_path) is None
    assert proposed_change("Read", {"file_path": "a.py"}, tmp_path) is None


def test_every_call_in_claude_codes_sessions_gets_a_title_and_its_result_a_line() -> None:
    """Resumed sessions are drawn by the same descriptions: each of the real transcripts' calls has a title
    (never the raw arguments, for a tool agentui knows) and each answered call's result says something."""
    seen: set[str] = set()
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        loaded = load_session(path)
        for message in loaded.messages:
            for block in message.content:
                name = getattr(block, "name", None)
                if name is None or name.startswith("mcp__"):
                    continue
                seen.add(name)
                view = describe_call(name, block.input)
                if _own_title(tool_class(name)):
                    assert view.title and not view.title.startswith("{"), (name, view.title)
                else:
                    assert view.title.startswith("{"), (name, view.title)
    assert {"Bash", "Read", "Edit", "Write", "Grep", "Glob", "TodoWrite"} <= seen


def test_no_front_end_names_a_tool() -> None:
    """Front ends draw calls from their tools' descriptions: a tool's name as a literal in one would be a branch
    on it (cli.py included)."""
    tool_names = {name for cls in _all_tool_classes() for name in (cls.name, *cls.aliases)}
    found = []
    for path in sorted([*(ROOT / "agentui" / "frontends").rglob("*.py"), ROOT / "agentui" / "cli.py"]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in tool_names:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert len(tool_names) > 20
    assert found == []


def _own_title(cls: type[Tool[Any]]) -> bool:
    return any("title" in vars(k) for k in cls.__mro__ if k is not Tool)


def _all_tool_classes() -> set[type[Tool[Any]]]:
    return {tool_class(name) for name in _WHERE}

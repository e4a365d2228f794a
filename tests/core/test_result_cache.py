"""Repeated read-only calls answered from what the model already holds, in a real project with the real tools: a
Read of an unchanged file and an identical Grep or Glob are not run again, until an Edit, a Write, a command that may
write, a change to the file, a compaction or a running background command makes the earlier result stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.events import Event, ToolEnd
from agentui.core.loop.result_cache import FILE_UNCHANGED
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.settings import Settings
from tests.core.test_file_history import use
from tests.support.sessions import lines


def run(tmp_path: Path, calls: list[dict[str, Any]], between: dict[str, Any] | None = None) -> dict[str, ToolEnd]:
    """The calls, one per model turn, in a project with calc.py and notes.txt; each call's ToolEnd by id."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "notes.txt").write_text("return to sender\n")
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    script = [use(call["name"], call["id"], **call["input"]) for call in calls] + [{"text": "Done."}]
    launch = Launch(Settings(provider="scripted", model="scripted"), cwd=root,
                    permissions=PermissionOptions(mode="bypassPermissions"))  # fmt: skip
    conversation = open_conversation(launch, provider=ScriptedProvider(script), env=env)
    ended: dict[str, ToolEnd] = {}

    def seen(event: Event) -> None:
        if isinstance(event, ToolEnd):
            ended[event.tool_call_id] = event
            if between and event.tool_call_id in between:
                between[event.tool_call_id](root)

    conversation.on(seen)
    import asyncio

    async def go() -> None:
        try:
            await conversation.send("look around")
        finally:
            await conversation.aclose()

    asyncio.run(go())
    ended["session"] = lines(conversation.session.path)  # type: ignore[assignment]
    return ended


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "input": arguments}


def test_a_second_read_of_an_unchanged_file_is_not_sent_again(tmp_path: Path) -> None:
    ended = run(tmp_path, [call("r1", "Read", file_path="calc.py"), call("r2", "Read", file_path="calc.py"),
                           call("r3", "Read", file_path="calc.py", offset=2)])  # fmt: skip
    assert not ended["r1"].cached and "return a - b" in str(ended["r1"].content)
    assert ended["r2"].cached and ended["r2"].content == FILE_UNCHANGED
    assert ended["r2"].details == {
        "type": "file_unchanged",
        "file": {"filePath": str(tmp_path / "project" / "calc.py")},
    }
    assert not ended["r3"].cached  # (another part of it)
    written = {e["message"]["content"][0]["tool_use_id"]: e for e in ended["session"] if "toolUseResult" in e}  # type: ignore[attr-defined]
    assert written["r2"]["toolUseResult"]["type"] == "file_unchanged"  # as Claude Code 2.1 records it


def test_an_edit_a_write_or_a_change_from_outside_makes_a_read_fresh(tmp_path: Path) -> None:
    def change(root: Path) -> None:
        (root / "notes.txt").write_text("changed by someone else, and longer\n")

    ended = run(tmp_path, [
        call("r1", "Read", file_path="calc.py"),
        call("e1", "Edit", file_path="calc.py", old_string="a - b", new_string="a + b"),
        call("r2", "Read", file_path="calc.py"),
        call("n1", "Read", file_path="notes.txt"),
        call("n2", "Read", file_path="notes.txt"),
    ], between={"n1": change})  # fmt: skip
    assert not ended["r2"].cached and "return a + b" in str(ended["r2"].content)
    assert not ended["n2"].cached and "changed by someone else" in str(ended["n2"].content)


def test_searches_are_answered_again_until_something_may_have_written(tmp_path: Path) -> None:
    grep = {"pattern": "return", "output_mode": "content"}
    ended = run(tmp_path, [
        call("g1", "Grep", **grep), call("g2", "Grep", **grep),
        call("b1", "Bash", command="ls -la"), call("g3", "Grep", **grep),  # (only reads: nothing changes)
        call("w1", "Write", file_path="more.py", content="return 1\n"), call("g4", "Grep", **grep),
        call("f1", "Glob", pattern="*.py"), call("f2", "Glob", pattern="*.py"),
        call("b2", "Bash", command="touch made.py"), call("f3", "Glob", pattern="*.py"),
        call("f4", "Glob", pattern="*.py"),
    ])  # fmt: skip
    assert [ended[c].cached for c in ("g1", "g2", "g3", "g4")] == [False, True, True, False]
    assert "more.py" in str(ended["g4"].content) and "Grep call earlier" in str(ended["g2"].content)
    assert [ended[c].cached for c in ("f1", "f2", "f3", "f4")] == [False, True, False, True]
    assert "made.py" in str(ended["f3"].content)


def test_a_running_background_command_keeps_searches_fresh(tmp_path: Path) -> None:
    ended = run(tmp_path, [
        call("b1", "Bash", command="sleep 30", run_in_background=True),
        call("f1", "Glob", pattern="*.py"), call("f2", "Glob", pattern="*.py"),
    ])  # fmt: skip
    assert not ended["f2"].cached


async def test_after_a_compaction_the_model_is_sent_the_file_again(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    script = [use("Read", "r1", file_path="calc.py"), {"text": "Read."}, {"text": "Summary."},
              use("Read", "r2", file_path="calc.py"), {"text": "Again."}]  # fmt: skip
    launch = Launch(Settings(provider="scripted", model="scripted"), cwd=root,
                    permissions=PermissionOptions(mode="bypassPermissions"))  # fmt: skip
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    conversation = open_conversation(launch, provider=ScriptedProvider(script), env=env)
    ended: list[ToolEnd] = []
    conversation.on(lambda event: ended.append(event) if isinstance(event, ToolEnd) else None)
    try:
        await conversation.send("read it")
        await conversation.compact()
        await conversation.send("read it again")
    finally:
        await conversation.aclose()
    assert [e.cached for e in ended] == [False, False] and "return a - b" in str(ended[-1].content)

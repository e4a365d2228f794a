"""File history as Claude Code keeps it: a backup of each file before its first change, again at each prompt if it
changed, named by the SHA-256 of its path, and `file-history-snapshot` lines that say which backup is whose."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation as assemble
from agentui.core.conversation import Conversation, Launch
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.file_history import FileHistory, backup_name
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from tests.support.sessions import claude_code_log_reads, lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-projects"


def use(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]}


def open_conversation(
    tmp_path: Path, script: list[dict[str, Any]], session: SessionRequest = SessionRequest()
) -> Conversation:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        Settings(provider="scripted", model="scripted"),
        cwd=root,
        permissions=PermissionOptions(mode="acceptEdits"),
        session=session,
    )
    return assemble(launch, provider=ScriptedProvider(script), env=env)


async def one_edit(tmp_path: Path) -> Conversation:
    """A conversation whose one prompt changed calc.py from `x = 1` to `x = 2` (open, to go on with)."""
    script = [
        use("Read", "r1", file_path="calc.py"),
        use("Edit", "e1", file_path="calc.py", old_string="1", new_string="2"),
        {"text": "Done."},
    ]
    conversation = open_conversation(tmp_path, script)
    (conversation.root / "calc.py").write_text("x = 1\n")
    try:
        await conversation.agent.prompt("change it")
    except BaseException:
        await conversation.aclose()
        raise
    return conversation


def test_a_backup_is_named_as_claude_code_names_it() -> None:
    # From a Claude Code 2.0.55 session in the fixtures: the plan file it wrote, backed up as its second version.
    plan = Path("/home/cboos/.claude/plans/humble-doodling-wolf.md")
    assert backup_name(plan, 2) == "b1a2df0b90ad6c58@v2"
    assert backup_name(plan, 2) == hashlib.sha256(str(plan).encode()).hexdigest()[:16] + "@v2"


async def test_edits_are_backed_up_before_they_happen_and_snapshotted_at_each_prompt(tmp_path: Path) -> None:
    script = [
        use("Read", "r1", file_path="calc.py"),
        use("Edit", "e1", file_path="calc.py", old_string="return 1", new_string="return 2"),
        use("Write", "w1", file_path="new.py", content="print('new')\n"),
        {"text": "Changed calc.py and wrote new.py."},
        use("Edit", "e2", file_path="calc.py", old_string="return 2", new_string="return 3"),
        {"text": "Again."},
        {"text": "Nothing to change."},
    ]
    conversation = open_conversation(tmp_path, script)
    root = conversation.root
    calc = root / "calc.py"
    calc.write_text("def f():\n    return 1\n")
    try:
        await conversation.agent.prompt("change it")
        await conversation.agent.prompt("change it again")
        await conversation.agent.prompt("look at it")
    finally:
        await conversation.aclose()
    assert calc.read_text() == "def f():\n    return 3\n"

    written = lines(conversation.session.path)
    backups = tmp_path / "claude" / "file-history" / conversation.session_id
    name = hashlib.sha256(str(calc.resolve()).encode()).hexdigest()[:16]
    snapshots = [entry for entry in written if entry["type"] == "file-history-snapshot"]
    prompts = [entry for entry in written if entry["type"] == "user" and isinstance(entry["message"]["content"], str)]
    assert [entry["isSnapshotUpdate"] for entry in snapshots] == [False, True, True, False, False]

    # A snapshot line comes right before each prompt's line and names it
    for prompt in prompts:
        before = written[written.index(prompt) - 1]
        assert before["type"] == "file-history-snapshot" and not before["isSnapshotUpdate"]
        assert before["messageId"] == before["snapshot"]["messageId"] == prompt["uuid"]
    first, edit, write, second, third = snapshots
    assert first["snapshot"]["trackedFileBackups"] == {}

    # The first change of a file in the session: backed up as it was, under the line holding the call
    calls = {entry["message"]["content"][0].get("id"): entry for entry in written if entry["type"] == "assistant"}
    assert edit["messageId"] == calls["e1"]["uuid"] and edit["snapshot"]["messageId"] == prompts[0]["uuid"]
    assert edit["snapshot"]["trackedFileBackups"]["calc.py"]["backupFileName"] == f"{name}@v1"
    assert (backups / f"{name}@v1").read_text() == "def f():\n    return 1\n"
    assert write["snapshot"]["trackedFileBackups"]["new.py"] == {
        "backupFileName": None,  # it did not exist
        "version": 1,
        "backupTime": write["snapshot"]["trackedFileBackups"]["new.py"]["backupTime"],
    }
    # At the next prompt, what changed since is backed up again; the second edit of calc.py adds no line
    tracked = second["snapshot"]["trackedFileBackups"]
    assert tracked["calc.py"]["backupFileName"] == f"{name}@v2" and tracked["calc.py"]["version"] == 2
    assert (backups / f"{name}@v2").read_text() == "def f():\n    return 2\n"
    new_name = hashlib.sha256(str((root / "new.py").resolve()).encode()).hexdigest()[:16]
    assert tracked["new.py"]["backupFileName"] == f"{new_name}@v2"
    assert third["snapshot"]["trackedFileBackups"]["new.py"] == tracked["new.py"]  # unchanged: the same backup
    assert third["snapshot"]["trackedFileBackups"]["calc.py"]["version"] == 3
    assert {path.name for path in backups.iterdir()} == {f"{name}@v1", f"{name}@v2", f"{name}@v3", f"{new_name}@v2"}
    assert all(path.stat().st_mode & 0o077 == 0 for path in backups.iterdir())
    claude_code_log_reads(conversation.session.path)


async def test_a_resumed_session_carries_on_its_file_history(tmp_path: Path) -> None:
    conversation = await one_edit(tmp_path)
    await conversation.aclose()
    resumed = open_conversation(tmp_path, [{"text": "Fine."}], SessionRequest(resume=conversation.session_id))
    try:
        await resumed.agent.prompt("and now?")
    finally:
        await resumed.aclose()
    last = [entry for entry in lines(resumed.session.path) if entry["type"] == "file-history-snapshot"][-1]
    assert last["snapshot"]["trackedFileBackups"]["calc.py"]["version"] == 2  # it went on from version 1


def test_a_claude_code_sessions_history_is_taken_up_where_it_ends(tmp_path: Path) -> None:
    session = FIXTURES / "-src-deep-manifest" / "a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"
    snapshots = [json.loads(line) for line in session.read_text().splitlines() if "file-history-snapshot" in line]
    snapshots = [entry for entry in snapshots if entry.get("type") == "file-history-snapshot"]
    history = FileHistory(tmp_path / "backups", Path("/src/deep-manifest"), lambda: "2026-11-23T00:00:00.000Z")
    history.resume(snapshots[-1])
    expected = snapshots[-1]["snapshot"]["trackedFileBackups"]
    assert {key: backup.as_json() for key, backup in history.tracked.items()} == expected
    assert history.before_change(Path("/src/deep-manifest/.gitignore"), "m1") is None  # tracked already


async def test_rewind_restores_the_files_and_the_conversation_on_a_new_branch(tmp_path: Path) -> None:
    from agentui.core.rewind import RewindError, prompt_points
    from agentui.core.session.reader import load_session

    script = [
        use("Read", "r1", file_path="calc.py"),
        use("Edit", "e1", file_path="calc.py", old_string="return 1", new_string="return 2"),
        {"text": "Turn one."},
        use("Edit", "e2", file_path="calc.py", old_string="return 2", new_string="return 3"),
        use("Write", "w1", file_path="made.py", content="made = True\n"),
        {"text": "Turn two."},
        {"text": "Turn two again, differently."},
    ]
    conversation = open_conversation(tmp_path, script)
    calc, made = conversation.root / "calc.py", conversation.root / "made.py"
    calc.write_text("def f():\n    return 1\n")
    try:
        await conversation.agent.prompt("one")
        await conversation.agent.prompt("two")
        first, second = conversation.prompts()
        assert (first.text, second.text) == ("one", "two")
        assert calc.read_text().endswith("return 3\n") and made.exists()

        rewound = conversation.rewind(second.uuid)  # back to before "two": its edit and its new file undone
        assert rewound.prompt == "two"
        assert {change.path.name for change in rewound.changes} == {"calc.py", "made.py"}
        assert calc.read_text() == "def f():\n    return 2\n" and not made.exists()
        assert [message.text for message in conversation.messages if message.role == "user"][:1] == ["one"]
        assert conversation.messages[-1].text == "Turn one."
        assert [point.text for point in conversation.prompts()] == ["one"]
        # Resumed now, before anything else is said, the conversation is the rewound one (as Claude Code marks it)
        resumed_at_rewind = load_session(conversation.session.path)
        assert (
            resumed_at_rewind.messages == conversation.messages and resumed_at_rewind.messages[-1].text == "Turn one."
        )

        await conversation.agent.prompt("two, but differently")
        with_nothing_to_undo = conversation.rewind(conversation.prompts()[-1].uuid, code=True, conversation=False)
        assert with_nothing_to_undo.changes == []  # the second "two" changed no file
        try:
            conversation.rewind("not-a-prompt")
        except RewindError as exc:
            assert str(exc) == "That prompt is not in this session."
        else:
            raise AssertionError("rewinding to an unknown prompt was not refused")
    finally:
        await conversation.aclose()

    # The session file keeps both branches; a reader (agentui's, claude-code-log) follows the newest
    resumed = load_session(conversation.session.path)
    assert [point.text for point in prompt_points(resumed.chain)] == ["one", "two, but differently"]
    assert resumed.messages[-1].text == "Turn two again, differently."
    claude_code_log_reads(conversation.session.path)


async def test_a_rewind_whose_backup_is_gone_changes_nothing(tmp_path: Path) -> None:
    from agentui.core.rewind import RewindError

    conversation = await one_edit(tmp_path)
    calc = conversation.root / "calc.py"
    try:
        [point] = conversation.prompts()
        for backup in (tmp_path / "claude" / "file-history" / conversation.session_id).iterdir():
            backup.unlink()  # (a session from another machine)
        before = list(conversation.messages)
        try:
            conversation.rewind(point.uuid)
        except RewindError as exc:
            assert "is missing" in str(exc) and "nothing was restored" in str(exc)
        else:
            raise AssertionError("a rewind without its backup went ahead")
        assert calc.read_text() == "x = 2\n" and conversation.messages == before
    finally:
        await conversation.aclose()


async def test_a_fork_can_rewind_what_happened_before_it(tmp_path: Path) -> None:
    conversation = await one_edit(tmp_path)
    await conversation.aclose()
    fork = open_conversation(tmp_path, [], SessionRequest(resume=conversation.session_id, fork=True))
    try:
        assert fork.session_id != conversation.session_id
        [point] = fork.prompts()
        rewound = fork.rewind(point.uuid)
        assert [change.path.name for change in rewound.changes] == ["calc.py"]
        assert (fork.root / "calc.py").read_text() == "x = 1\n"
    finally:
        await fork.aclose()
    claude_code_log_reads(fork.session.path)


async def test_a_file_deleted_since_is_brought_back_and_a_corrupt_backup_is_one_sentence(tmp_path: Path) -> None:
    from agentui.core.rewind import RewindError

    conversation = await one_edit(tmp_path)
    calc = conversation.root / "calc.py"
    try:
        [point] = conversation.prompts()
        calc.unlink()  # (deleted since, by hand)
        [backup] = (tmp_path / "claude" / "file-history" / conversation.session_id).iterdir()
        backup.chmod(0)  # unreadable: as good as corrupt
        if os.access(backup, os.R_OK):  # (root reads it anyway: make it something that cannot be read as a file)
            backup.unlink()
            backup.mkdir()
        unreadable = r"The backup of calc\.py \(.*\) cannot be read \(.*\), so nothing was restored\."
        with pytest.raises(RewindError, match=unreadable):
            conversation.rewind(point.uuid, conversation=False)
        assert not calc.exists()
        backup.chmod(0o600) if backup.is_file() else backup.rmdir()
        if not backup.exists():
            backup.write_text("x = 1\n")
        plan = conversation.changes_since(point.uuid)
        assert [(change.path.name, change.now, change.content) for change in plan.changes] == [
            ("calc.py", None, b"x = 1\n")
        ]
        conversation.rewind(point.uuid, conversation=False)
        assert calc.read_text() == "x = 1\n"
    finally:
        await conversation.aclose()

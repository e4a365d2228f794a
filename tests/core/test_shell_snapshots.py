"""Snapshots of a git work tree before Bash commands: taken without touching the person's index, branches or stash,
and restored byte for byte, with files over the size limit left alone and said to be."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentui.core.session.file_history import restore
from agentui.core.session.shell_snapshots import ShellSnapshots
from tests.support.work_tree import committed, files, git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    committed(root, {".gitignore": "*.log\n", "src/calc.py": "def add(a, b):\n    return a + b\n"})
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    git(root, "add", "run.sh")
    git(root, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-q", "-m", "a script")
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a + b  # staged\n")
    git(root, "add", "src/calc.py")  # staged, so the index differs from HEAD
    (root / "notes.txt").write_text("untracked, not ignored\n")
    (root / "debug.log").write_text("ignored\n")
    return root


def test_a_snapshot_leaves_the_index_branches_and_stash_alone_and_restores_every_change(repo: Path) -> None:
    index_before = (repo / ".git" / "index").read_bytes()
    status_before = git(repo, "status", "--porcelain")
    before = files(repo)
    snapshots = ShellSnapshots.find(repo, "f2b1c3d4-0000-4000-8000-000000000001")
    assert snapshots is not None

    taken = snapshots.take("2026-11-23T10:00:00.000Z")

    assert (repo / ".git" / "index").read_bytes() == index_before
    assert git(repo, "status", "--porcelain") == status_before
    assert git(repo, "stash", "list") == ""
    assert git(repo, "branch", "--list").split() == ["*", "main"]
    assert git(repo, "rev-parse", snapshots.ref).strip() == taken.commit
    assert "notes.txt" in git(repo, "ls-tree", "-r", "--name-only", taken.commit).split()
    assert "debug.log" not in git(repo, "ls-tree", "-r", "--name-only", taken.commit).split()

    # what a `sed -i`, an `rm`, a new file and a `chmod` do
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "notes.txt").unlink()
    (repo / "new.txt").write_text("made by the command\n")
    (repo / "run.sh").chmod(0o644)
    (repo / "debug.log").write_text("ignored, changed\n")

    assert snapshots.since("2026-11-23T09:59:59.000Z") == taken
    assert snapshots.since("2026-11-23T10:00:00.001Z") is None
    plan = snapshots.restore_plan(taken)
    assert {change.path.name for change in plan.changes} == {"calc.py", "notes.txt", "new.txt", "run.sh"}
    assert plan.notes == []
    restore(plan.changes)

    after = files(repo)
    assert after.pop("debug.log") == b"ignored, changed\n"  # (git ignores it, so the snapshot does too)
    before.pop("debug.log")
    assert after == before
    assert os.access(repo / "run.sh", os.X_OK)
    assert (repo / ".git" / "index").read_bytes() == index_before


def test_files_over_the_limit_are_left_alone_and_named(repo: Path) -> None:
    snapshots = ShellSnapshots.find(repo, "f2b1c3d4-0000-4000-8000-000000000002")
    assert snapshots is not None
    snapshots.limit = 100
    (repo / "big.bin").write_bytes(b"\0" * 200)
    taken = snapshots.take("2026-11-23T10:00:00.000Z")
    assert taken.skipped == ("big.bin",)
    (repo / "big.bin").write_bytes(b"\1" * 300)
    (repo / "src" / "calc.py").write_text("changed\n")

    plan = snapshots.restore_plan(taken, leave=[repo / "src" / "calc.py"])  # (the file history restores it)

    assert plan.changes == []
    assert plan.notes == ["big.bin is larger than 100 bytes, so it was not snapshotted and is left as it is."]


def test_a_repository_without_commits_and_a_second_snapshot_chain_on_one_ref(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    snapshots = ShellSnapshots.find(tmp_path, "f2b1c3d4-0000-4000-8000-000000000003")
    assert snapshots is not None
    first = snapshots.take("2026-11-23T10:00:00.000Z")
    (tmp_path / "a.txt").write_text("two\n")
    second = snapshots.take("2026-11-23T10:05:00.000Z")
    (tmp_path / "a.txt").write_text("three\n")

    assert snapshots.taken() == [first, second]
    assert snapshots.since("2026-11-23T10:01:00.000Z") == second
    restore(snapshots.restore_plan(first).changes)
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert git(tmp_path, "status", "--porcelain") == "?? a.txt\n"  # (still no commit, nothing staged)


def test_outside_a_git_work_tree_there_are_no_snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert ShellSnapshots.find(tmp_path, "f2b1c3d4-0000-4000-8000-000000000004") is None

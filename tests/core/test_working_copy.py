"""Working copies for parallel attempts, on real git repositories and plain directories: the person's uncommitted
work comes along, what a branch changes comes back as a patch that applies whole or not at all, and nothing is left
behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentui.core.parallel import working_copy
from agentui.core.parallel.working_copy import WorkingCopy, WorkingCopyError
from tests.support.work_tree import committed, git


def branch_work(root: Path) -> None:
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "new.txt").write_text("made by the branch\n")
    (root / "blob.bin").write_bytes(bytes(range(256)))
    (root / "notes.txt").unlink()


def test_a_worktree_holds_uncommitted_work_and_gives_back_only_the_branchs_changes(tmp_path: Path) -> None:
    root = tmp_path / "project"
    committed(root, {"calc.py": "def add(a, b):\n    return a - b\n", "notes.txt": "notes\n", ".gitignore": "*.log\n"})
    (root / "calc.py").write_text("def add(a, b):\n    return a - b  # mine\n")  # uncommitted
    (root / "draft.md").write_text("untracked\n")
    (root / "debug.log").write_text("ignored\n")
    copy = WorkingCopy.create(root, tmp_path / "branch")
    try:
        assert copy.kind == "worktree" and copy.root == tmp_path / "branch"
        assert (copy.root / "calc.py").read_text().endswith("# mine\n") and (copy.root / "draft.md").exists()
        assert not (copy.root / "debug.log").exists()
        assert copy.diff() == ""
        branch_work(copy.root)
        patch = copy.diff()
        assert "+    return a + b" in patch and "made by the branch" in patch and "GIT binary patch" in patch
        assert "draft.md" not in patch  # (the person's own work is the starting point, not a change)
        copy.apply()
        assert (root / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        assert (root / "blob.bin").read_bytes() == bytes(range(256)) and not (root / "notes.txt").exists()
        assert (root / "draft.md").exists() and (root / "debug.log").exists()
        assert git(root, "log", "--all", "--format=%s") == "first\n"  # nothing committed in the person's repository
    finally:
        copy.remove()
    assert not (tmp_path / "branch").exists()
    assert "branch" not in git(root, "worktree", "list")


def test_changes_that_no_longer_apply_write_nothing(tmp_path: Path) -> None:
    root = tmp_path / "project"
    committed(root, {"calc.py": "def add(a, b):\n    return a - b\n", "other.txt": "one\n"})
    copy = WorkingCopy.create(root, tmp_path / "branch")
    try:
        (copy.root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
        (copy.root / "other.txt").write_text("two\n")
        (root / "calc.py").write_text("def add(a, b):\n    return b - a\n")  # the person changed it meanwhile
        with pytest.raises(WorkingCopyError, match="no longer apply"):
            copy.apply()
        assert (root / "other.txt").read_text() == "one\n"  # not half of them
    finally:
        copy.remove()


def test_a_project_inside_a_repository_is_that_part_of_the_worktree(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    committed(top, {"app/main.py": "x = 1\n", "README": "hi\n"})
    copy = WorkingCopy.create(top / "app", tmp_path / "branch")
    try:
        assert copy.root == tmp_path / "branch" / "app" and (copy.root / "main.py").exists()
        (copy.root / "main.py").write_text("x = 2\n")
        copy.apply()
        assert (top / "app" / "main.py").read_text() == "x = 2\n"
    finally:
        copy.remove()


def test_outside_git_a_copy_is_made_under_a_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "notes.txt").write_text("notes\n")
    copy = WorkingCopy.create(root, tmp_path / "branch")
    try:
        assert copy.kind == "copy"
        branch_work(copy.root)
        copy.apply()
        assert (root / "new.txt").exists() and not (root / "notes.txt").exists() and not (root / ".git").exists()
    finally:
        copy.remove()
    assert not (tmp_path / "branch").exists()
    monkeypatch.setattr(working_copy, "COPY_LIMIT_BYTES", 10)
    with pytest.raises(WorkingCopyError, match="too much to copy"):
        WorkingCopy.create(root, tmp_path / "branch")
    assert not (tmp_path / "branch").exists()

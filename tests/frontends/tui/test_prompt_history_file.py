"""Prompt history is per project: two projects whose paths sanitize alike (/work/a-b and /work/a/b) recall only their
own prompts, and a history kept under the old, sanitized-only name is carried over the first time."""

from __future__ import annotations

import json
from pathlib import Path

from agentui.api import canonical, sanitize
from agentui.frontends.tui.history import PromptHistory, history_file


def test_projects_whose_paths_sanitize_alike_keep_their_own_prompts(tmp_path: Path) -> None:
    env = {"AGENTUI_DATA_DIR": str(tmp_path / "data")}
    dashed, nested = tmp_path / "work" / "a-b", tmp_path / "work" / "a" / "b"
    for project in (dashed, nested):
        project.mkdir(parents=True)
    assert sanitize(canonical(dashed)) == sanitize(canonical(nested))
    PromptHistory(history_file(dashed, env)).add("the secret plan of project a-b")
    assert history_file(dashed, env) != history_file(nested, env)
    assert PromptHistory(history_file(nested, env)).entries == []
    assert PromptHistory(history_file(dashed, env)).entries == ["the secret plan of project a-b"]


def test_a_history_under_the_old_name_is_carried_over(tmp_path: Path) -> None:
    env = {"AGENTUI_DATA_DIR": str(tmp_path / "data")}
    project = tmp_path / "project"
    project.mkdir()
    legacy = tmp_path / "data" / "history" / f"{sanitize(canonical(project))}.jsonl"
    legacy.parent.mkdir(parents=True)
    legacy.write_text(json.dumps("asked before the rename") + "\n")
    history = PromptHistory(history_file(project, env))
    history.add("asked after")
    assert PromptHistory(history_file(project, env)).entries == ["asked before the rename", "asked after"]

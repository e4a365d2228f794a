"""Rules files (`.claude/rules/`) beside the real Claude Code: the same project, the same played model (a Read of a
file a scoped rule matches, then an answer), and from both the InstructionsLoaded hooks' inputs and the requests: an
unscoped rule is memory from the start, a rule scoped with `paths:` joins with the result of the read that matches
it, and one whose globs match nothing never reaches the model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.interop.test_hook_inputs import recorded, recording
from tests.support.loopback import LoopbackServer

RULES = {
    "always.md": "Rule A: name things plainly.\n",
    "python/py.md": "---\npaths: src/**/*.py\n---\nRule P: type every function.\n",
    "docs.md": '---\npaths:\n  - "docs/**"\n  - "*.rst"\n---\nRule D: write short sentences.\n',
}


def run(cli: str, server: LoopbackServer, home: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The InstructionsLoaded inputs (file relative to the project, type, reason, globs) and each model request's
    text, of one `-p go` run that reads src/app.py."""
    project = home / "project"
    for name, body in RULES.items():
        (project / ".claude" / "rules" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / ".claude" / "rules" / name).write_text(body)
    (home / ".claude" / "rules").mkdir(parents=True)
    (home / ".claude" / "rules" / "mine.md").write_text("Rule U: answer in English.\n")
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hi')\n")
    requests = played(server, [[tool("t1", "Read", file_path=str(project / "src" / "app.py"))], [text("Done.")]])
    settings = {"hooks": {"InstructionsLoaded": [recording(home)]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--allowedTools", "Read"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    loaded = [
        {
            "file": str(Path(i["file_path"]).relative_to(home)),
            "type": i["memory_type"],
            "reason": i["load_reason"],
            "globs": i.get("globs"),
        }
        for i in recorded(home)
    ]
    return loaded, [json.dumps(request.json()) for request in requests]


def test_rules_load_and_scoped_rules_join_on_a_matching_read_as_in_claude_code(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    theirs, their_requests = run(claude_bin, server, tmp_path / "claude")
    ours, our_requests = run(agentui_bin, server, tmp_path / "agentui")
    key = lambda item: item["file"]  # noqa: E731  (Claude Code does not wait for these hooks: their order varies)
    assert sorted(ours, key=key) == sorted(theirs, key=key)
    assert {"file": "project/.claude/rules/python/py.md", "type": "Project", "reason": "path_glob_match",
            "globs": ["src/**/*.py"]} in ours  # fmt: skip
    assert not any(item["file"].endswith("docs.md") for item in ours)
    for requests in (their_requests, our_requests):
        first, after_read = requests
        assert "Rule A: name things plainly." in first and "Rule U: answer in English." in first
        assert "Rule P" not in first and "paths:" not in first
        assert "Rule P: type every function." in after_read
        assert "Rule D" not in after_read

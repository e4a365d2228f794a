"""Settings of the wrong type are said in one sentence naming the file and the key, never taken quietly: a `sandbox`
that is not an object (or whose `enabled` is not true or false) would leave the sandbox off without a word. An env
value that is a number is taken as text, as Claude Code does, and said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_print_mode import assert_one_clean_sentence, run


def scripted(tmp_path: Path) -> list[str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "Answered."}]}]))
    return ["-p", "hi", "--provider", "scripted", "--script", str(script)]


def user_settings(env: dict[str, str], settings: object) -> Path:
    path = Path(env["HOME"]) / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))
    return path


@pytest.mark.parametrize(
    ("settings", "where", "said"),
    [
        ({"sandbox": "yes"}, "sandbox", "it should be an object"),
        ({"sandbox": {"enabled": "yes"}}, "sandbox.enabled", "it should be true or false"),
        (
            {"sandbox": {"enabled": True, "network": {"allowedDomains": "x.com"}}},
            "sandbox.network.allowedDomains",
            "it should be a list",
        ),
        ({"env": {"A": {"nested": 1}}}, "env.A", "must be text"),
        ({"env": ["A=1"]}, "env", "it should be an object"),
        ({"permissions": {"deny": "Read(.env)"}}, "permissions.deny", "it should be a list"),
        ({"enableAllProjectMcpServers": "true"}, "enableAllProjectMcpServers", "it should be true or false"),
    ],
)
def test_a_wrongly_typed_setting_is_one_sentence_naming_the_key(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path, settings: object, where: str, said: str
) -> None:
    path = user_settings(clean_env, settings)
    done = run(agentui_bin, scripted(tmp_path), clean_env)
    assert done.returncode != 0 and done.stdout == ""
    assert_one_clean_sentence(done.stderr)
    last = done.stderr.strip().splitlines()[-1]
    assert str(path) in last and f"'{where}'" in last and said in last, last


def test_a_number_in_env_is_taken_as_text_and_said(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path) -> None:
    path = user_settings(clean_env, {"env": {"BASH_DEFAULT_TIMEOUT_MS": 300000, "FLAG": True}})
    done = run(agentui_bin, scripted(tmp_path), clean_env)
    assert done.returncode == 0 and done.stdout == "Answered.\n", done.stderr
    assert "Traceback" not in done.stderr
    assert str(path) in done.stderr and "env.BASH_DEFAULT_TIMEOUT_MS ('300000')" in done.stderr
    assert "env.FLAG ('true')" in done.stderr


@pytest.mark.parametrize("name", [".claude/settings.json", ".claude/settings.local.json", ".mcp.json"])
def test_a_settings_file_that_is_a_fifo_is_one_sentence_not_a_hang(tmp_path: Path, name: str) -> None:
    """Nothing waits for ever: a FIFO where a settings file goes was opened and read, which blocks until something
    writes to it. It is refused by its type, in one sentence, at once."""
    import os
    import subprocess
    import sys

    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    os.mkfifo(project / name)
    code = (
        "import sys; from pathlib import Path; from agentui.core.project import open_project, ProjectError\n"
        "from agentui.core.extend.mcp.config import load_servers, McpConfigError\n"
        f"root = Path({str(project)!r})\n"
        "try:\n    open_project(root, env={'HOME': sys.argv[1]}); load_servers(root, {'HOME': sys.argv[1]})\n"
        "except (ProjectError, McpConfigError) as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "home")], capture_output=True, text=True, timeout=60
    )
    said = done.stdout.strip()
    assert done.returncode == 0 and str(project / name) in said and "\n" not in said, (said, done.stderr)

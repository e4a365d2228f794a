"""What reaches the model from the project: `agentui -p` in a real git repository with CLAUDE.md files, against a
model server on loopback; the assertions are on the request body the server received."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e.test_print_mode import anthropic_env, run
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def project(clean_env: dict[str, str]) -> Path:
    root = Path(clean_env["HOME"]).parent / "project"
    (root / "src").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# Project\nTests run with `make check`. See @docs/conventions.md\n")
    (root / "docs").mkdir()
    (root / "docs" / "conventions.md").write_text("Name things for what they do.\n")
    (root / "CLAUDE.local.md").write_text("My scratch directory is /tmp/me.\n")
    (root / "src" / "CLAUDE.md").write_text("Code in src/ never prints.\n")
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )
    return root


def test_claude_md_and_the_environment_reach_the_model_with_the_cache_mark_between(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    root = project(clean_env)
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}])))
    done = run(agentui_bin, ["-p", "hello"], anthropic_env(clean_env, server), cwd=root)
    assert done.returncode == 0, done.stderr
    stable, volatile = server.requests[0].json()["system"]
    assert stable["cache_control"] == {"type": "ephemeral"} and "cache_control" not in volatile
    text = stable["text"]
    assert "Tests run with `make check`." in text
    assert "Name things for what they do." in text  # imported
    assert "My scratch directory is /tmp/me." in text  # the local file
    assert text.index("make check") < text.index("Name things") < text.index("scratch directory")
    assert "Code in src/ never prints." not in text  # nested: only once a tool goes there
    assert f"Working directory: {root}" in volatile["text"]
    assert "Git repository: yes, main; clean" in volatile["text"]


def test_a_read_in_a_subdirectory_brings_its_claude_md_into_the_tool_result(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    root = project(clean_env)
    read = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "src/app.py"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([read], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "done"}])),
    )
    done = run(agentui_bin, ["-p", "read the app"], anthropic_env(clean_env, server), cwd=root)
    assert done.returncode == 0, done.stderr
    result = server.requests[1].json()["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "def main()" in result["content"]
    assert "Code in src/ never prints." in result["content"]


def test_system_prompt_flags_replace_and_extend_the_instructions(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    root = project(clean_env)
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}])))
    done = run(
        agentui_bin,
        ["-p", "hi", "--system-prompt", "You are terse.", "--append-system-prompt", "Use metric."],
        anthropic_env(clean_env, server),
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    text = server.requests[0].json()["system"][0]["text"]
    assert text.startswith("You are terse.\n\nUse metric.")
    assert "careful coding assistant" not in text and "Tests run with `make check`." in text

"""Sub-agent type files as Claude Code writes and reads them: what /agents writes reads back the same (quotes, line
breaks, tools), front matter it does not write is kept, a block list of tools is read, and a project's agent file
that is a link to a file elsewhere is not read at all."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from agentui.core.extend.agent_files import AgentFileError, agent_file, agent_types, check_name, save_agent_type
from agentui.core.extend.subagents import Task, agent_type_from_file, load_agent_types
from agentui.core.frontmatter import parse_front_matter
from agentui.core.project import open_project


def test_what_is_written_reads_back_the_same(tmp_path: Path) -> None:
    description = 'Use it when "tests" fail\\ or\nwhen asked'
    path = tmp_path / "runner.md"
    path.write_text(agent_file("runner", description, ["Bash", "Read"], "haiku", "Run them.\n\nThen report."))
    assert path.read_text().splitlines()[:5] == [
        "---",
        'name: "runner"',
        'description: "Use it when \\"tests\\" fail\\\\ or\\\\nwhen asked"',  # (as Claude Code escapes it)
        "tools: Bash, Read",
        "model: haiku",
    ]
    kind = agent_type_from_file(path)
    assert kind is not None
    assert (kind.name, kind.description, kind.tools, kind.instructions) == (
        "runner",
        description,
        ("Bash", "Read"),
        "Run them.\n\nThen report.",
    )


def test_a_block_list_of_tools_and_quoted_values_are_read_as_yaml_reads_them() -> None:
    meta, body = parse_front_matter("---\nname: 'it''s'\ntools:\n  - Read\n  - Grep\nmodel: sonnet\n---\nBody\n")
    assert meta == {"name": "it's", "tools": "Read, Grep", "model": "sonnet"} and body == "Body"


@pytest.mark.parametrize("name", ["../evil", "a/b", "a.b", "..", "x", "-lead", "trail-", "sp ace", "a" * 51, ""])
def test_a_name_that_is_not_a_plain_identifier_is_refused(name: str) -> None:
    with pytest.raises(AgentFileError) as raised:
        check_name(name)
    assert str(raised.value).endswith("(no slashes, dots or spaces).")


def test_an_edit_keeps_the_front_matter_it_does_not_show(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    (tmp_path / "p").mkdir()
    project = open_project(tmp_path / "p", trusted=True, env=env)
    agents = project.root / ".claude" / "agents"
    agents.mkdir(parents=True)
    path = agents / "rev.md"
    path.write_text("---\nname: rev\ndescription: Reviews\ncolor: blue\nhooks:\n  - one\n---\nOld.\n")
    task = Task(SimpleNamespace(), load_agent_types(project.root, env), transcript_dir=None)  # type: ignore[arg-type]
    project.tools.register(task)
    conversation = SimpleNamespace(project=project, env=env)
    [info] = [t for t in agent_types(conversation) if t.name == "rev"]
    save_agent_type(
        conversation, name="rev", description="Reviews diffs", tools=None, model="", prompt="New.", editing=info
    )
    assert path.read_text() == (
        '---\nname: "rev"\ndescription: "Reviews diffs"\ncolor: blue\nhooks:\n  - one\n---\n\nNew.\n'
    )
    assert task.types["rev"].instructions == "New." and task.types["rev"].tools is None


def test_a_project_agent_file_that_links_out_of_the_project_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("---\nname: leak\ndescription: x\n---\nPRIVATE KEY\n")
    project = tmp_path / "project"
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "leak.md").symlink_to(secret)
    (agents / "fine.md").write_text("---\nname: fine\ndescription: ok\n---\nFine.\n")
    found = load_agent_types(project, {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    assert "fine" in found and "leak" not in found

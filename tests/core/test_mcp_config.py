"""Where MCP servers come from, and which definition of a name wins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentui.core.extend.mcp.config import (
    McpConfigError,
    ServerConfig,
    load_servers,
    project_server_approved,
)
from agentui.core.extend.mcp.tools import tool_name


def write(path: Path, data: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return str(path)


def by_name(servers: list[ServerConfig]) -> dict[str, ServerConfig]:
    return {server.name: server for server in servers}


def test_the_most_local_definition_wins_and_variables_expand(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "claude"
    env = {"CLAUDE_CONFIG_DIR": str(home), "TOKEN": "s3cret"}
    write(
        home / ".claude.json",
        {
            "mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}, "c": {"command": "user-c"}},
            "projects": {str(root): {"mcpServers": {"b": {"command": "local-b"}}}},
        },
    )
    write(
        root / ".mcp.json",
        {
            "mcpServers": {
                "b": {"command": "project-b"},
                "c": {"command": "project-c"},
                "web": {
                    "type": "streamable-http",
                    "url": "https://example.test/${PATH_PART:-mcp}",
                    "headers": {"Authorization": "Bearer ${TOKEN}"},
                },
                "d": {"command": "run", "args": ["--key", "${TOKEN}", "${MISSING}"], "env": {"K": "${TOKEN}"}},
            }
        },
    )
    flag = write(tmp_path / "flag.json", {"mcpServers": {"c": {"command": "flag-c"}}})
    found = by_name(load_servers(root, env, (flag, '{"mcpServers": {"e": {"command": "inline"}}}')))
    assert {name: s.command for name, s in found.items() if s.type == "stdio"} == {
        "a": "user-a",
        "b": "local-b",
        "c": "flag-c",
        "d": "run",
        "e": "inline",
    }
    assert [found[n].scope for n in "abcde"] == ["user", "local", "flag", "project", "flag"]
    assert found["web"].type == "http" and found["web"].url == "https://example.test/mcp"
    assert found["web"].headers == {"Authorization": "Bearer s3cret"}
    assert found["d"].args == ["--key", "s3cret", ""] and found["d"].env == {"K": "s3cret"}


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "could not be read as JSON"),
        ('{"mcpServers": {"x": {"args": ["a"]}}}', "the MCP server 'x' has no command"),
        ('{"mcpServers": {"x": {"type": "http"}}}', "has no url"),
        ('{"mcpServers": {"x": {"command": "a", "type": "carrier-pigeon"}}}', "is not valid (type"),
        ('{"mcpServers": []}', "must be an object"),
        ("[1, 2]", "is not an object"),
        ("\u00ff\u00fe binary", "could not be read as JSON"),
    ],
)
def test_a_bad_file_is_one_sentence(tmp_path: Path, content: str, says: str) -> None:
    (tmp_path / ".mcp.json").write_text(content)
    with pytest.raises(McpConfigError, match=r".*") as raised:
        load_servers(tmp_path, {"CLAUDE_CONFIG_DIR": str(tmp_path / "none")})
    assert says in str(raised.value) and str(tmp_path / ".mcp.json") in str(raised.value)


def test_project_servers_need_an_approval_and_a_refusal_wins() -> None:
    server = ServerConfig(name="tiny", command="x", scope="project")
    assert project_server_approved(server, {}) is None
    assert project_server_approved(server, {"enabledMcpjsonServers": ["tiny"]}) is True
    assert project_server_approved(server, {"enableAllProjectMcpServers": True}) is True
    assert (
        project_server_approved(server, {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["tiny"]})
        is False
    )


def test_tool_names_are_safe_for_the_api() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("my server", "do.it/now") == "mcp__my_server__do_it_now"
    assert len(tool_name("s" * 40, "t" * 40)) == 64

"""One plugin, two tools, one config directory: the real Claude Code 2.1.197 adds a folder marketplace and installs
its plugin, and agentui sees and uses all of it (the command `/hello:hi`, the agent `hello:greeter`, the skill
`hello:greet`, the hook, the MCP server `plugin:hello:hellosrv`); and the other way round, agentui installs it and
Claude Code lists it enabled and runs its command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.interop.test_round_trips import World, text
from tests.support.plugins import write_marketplace

ID = "hello@local-mkt"


@pytest.fixture
def plugged(world: World, tmp_path: Path) -> tuple[World, Path, Path]:
    """The world with the marketplace written (not yet added), and the file its hook writes to."""
    log = tmp_path / "hook.log"
    mkt = write_marketplace(tmp_path / "mkt", log)
    world.play(lambda body: [text("Hi.")])
    return world, mkt, log


def cli(world: World, tool: str, *args: str) -> str:
    done = subprocess.run(
        [world.bins[tool], "plugin", *args], env={**world.env, "IS_SANDBOX": "1"}, cwd=world.project,
        capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, f"{tool} plugin {args}: {done.stdout[-1000:]} {done.stderr[-2000:]}"
    return done.stdout


def first_request(world: World) -> dict[str, Any]:
    return next(r.json() for r in world.server.requests if "tools" in r.json())


def init_plugins(world: World, tool: str, *flags: str) -> list[dict[str, str]]:
    """The plugins stream-json's init message names."""
    done = subprocess.run(
        [world.bins[tool], "-p", "hello", "--model", "claude-sonnet-4-5", "--output-format=stream-json", "--verbose",
         *flags],
        env=world.env, cwd=world.project, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    init = next(line for line in lines if line.get("subtype") == "init")
    return list(init["plugins"])


def test_a_plugin_claude_code_installed_is_seen_and_used_by_agentui(plugged: tuple[World, Path, Path]) -> None:
    world, mkt, log = plugged
    cli(world, "claude", "marketplace", "add", str(mkt))
    cli(world, "claude", "install", ID)
    root = mkt / "plugins" / "hello"  # (a folder marketplace's plugin is read where it is, by both)
    settings = world.home / ".claude" / "settings.json"  # (the person approves its server, as a .mcp.json's)
    settings.write_text(
        json.dumps({**json.loads(settings.read_text()), "enabledMcpjsonServers": ["plugin:hello:hellosrv"]})
    )

    world.server.requests.clear()
    world.run("agentui", "/hello:hi bob")
    body = first_request(world)
    sent = json.dumps(body["messages"])
    assert f"Say hi to bob from {root}" in sent  # (the command, with its directory written in)
    tools = [tool["name"] for tool in body["tools"]]
    assert "mcp__plugin_hello_hellosrv__shout" in tools  # (its MCP server started, named as Claude Code's)
    listed = json.dumps(body["messages"]) + json.dumps(body.get("system"))
    assert "- hello:greeter: A greeter agent" in listed and "- hello:greet: Greets people" in listed
    assert f"hook {root} {root}" in log.read_text()  # (its hook ran, with CLAUDE_PLUGIN_ROOT both ways)
    expected = [{"name": "hello", "path": str(root), "source": ID}]
    assert init_plugins(world, "agentui") == init_plugins(world, "claude") == expected

    cli(world, "claude", "disable", ID)
    log.write_text("")
    world.server.requests.clear()
    world.run("agentui", "hello")
    assert "hello:greeter" not in json.dumps(first_request(world)) and log.read_text() == ""


def test_a_plugin_agentui_installed_is_listed_and_used_by_claude_code(plugged: tuple[World, Path, Path]) -> None:
    world, mkt, log = plugged
    cli(world, "agentui", "marketplace", "add", str(mkt))
    cli(world, "agentui", "install", ID)
    (listed,) = json.loads(cli(world, "claude", "list", "--json"))
    root = world.home / ".claude" / "plugins" / "cache" / "local-mkt" / "hello" / "1.0.0"
    assert listed["id"] == ID and listed["enabled"] is True and listed["installPath"] == str(root)
    assert listed["version"] == "1.0.0" and listed["scope"] == "user"
    (market,) = json.loads(cli(world, "claude", "marketplace", "list", "--json"))
    assert market == json.loads(cli(world, "agentui", "marketplace", "list", "--json"))[0]
    world.server.requests.clear()
    world.run("claude", "/hello:hi bob")
    assert f"Say hi to bob from {mkt / 'plugins' / 'hello'}" in json.dumps(first_request(world)["messages"])
    assert "hook " in log.read_text()
    cli(world, "agentui", "uninstall", ID)
    assert json.loads(cli(world, "claude", "list", "--json")) == []


@pytest.mark.parametrize("tool", ["claude", "agentui"])
def test_a_plugin_directory_is_loaded_for_one_session_as_claude_code_loads_it(
    plugged: tuple[World, Path, Path], tool: str
) -> None:
    world, mkt, log = plugged
    root = mkt / "plugins" / "hello"
    world.run(tool, "/hello:hi bob", "--plugin-dir", str(root))
    assert f"Say hi to bob from {root}" in json.dumps(first_request(world)["messages"])
    assert f"hook {root} {root}" in log.read_text()  # (its hook ran, with CLAUDE_PLUGIN_ROOT both ways)
    assert init_plugins(world, tool, "--plugin-dir", str(root)) == [
        {"name": "hello", "path": str(root), "source": "hello@inline"}
    ]
    world.server.requests.clear()
    world.run(tool, "hello")  # (for that session only: nothing is installed or enabled)
    assert "hello:greeter" not in json.dumps(first_request(world))

"""A marketplace of one plugin, `hello`, in Claude Code's format, bringing one of each thing a plugin can: the
command `/hello:hi`, the agent `hello:greeter`, the skill `hello:greet`, a UserPromptSubmit hook that writes what it
is given (and `${CLAUDE_PLUGIN_ROOT}`) to a file, and the MCP server `hellosrv` (tests/support/mcp_server.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MCP_SERVER = Path(__file__).with_name("mcp_server.py")


def plugin_world(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """A project, an environment whose config directories are all under `tmp_path`, and the marketplace (its hook
    writing to tmp_path/hook.log)."""
    root = tmp_path / "project"
    root.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "HOME": str(tmp_path / "home"),
           "AGENTUI_CONFIG_DIR": str(tmp_path / "agentui"), "PATH": os.environ["PATH"]}  # fmt: skip
    return root, env, write_marketplace(tmp_path / "mkt", tmp_path / "hook.log")


def write_marketplace(where: Path, hook_log: Path, name: str = "local-mkt") -> Path:
    """The marketplace's directory, `where`; the hook appends a line to `hook_log` for each prompt."""
    plugin = where / "plugins" / "hello"
    files = {
        where / ".claude-plugin" / "marketplace.json": json.dumps(
            {
                "name": name,
                "owner": {"name": "Test"},
                "plugins": [
                    {"name": "hello", "source": "./plugins/hello", "description": "Hello plugin", "version": "1.0.0"}
                ],
            }
        ),
        plugin / ".claude-plugin" / "plugin.json": '{"name":"hello","version":"1.0.0","description":"Hello plugin"}',
        plugin
        / "commands"
        / "hi.md": "---\ndescription: Say hi\n---\nSay hi to $ARGUMENTS from ${CLAUDE_PLUGIN_ROOT}\n",
        plugin / "agents" / "greeter.md": "---\nname: greeter\ndescription: A greeter agent\n---\nYou greet.\n",
        plugin / "skills" / "greet" / "SKILL.md": "---\nname: greet\ndescription: Greets people\n---\nGreet warmly.\n",
        plugin / "hooks" / "hooks.json": json.dumps(
            {
                "hooks": {
                    "UserPromptSubmit": [
                        {
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": f'echo "hook ${{CLAUDE_PLUGIN_ROOT}} $CLAUDE_PLUGIN_ROOT" >> {hook_log}',
                                }
                            ]
                        }
                    ]
                }
            }
        ),
        plugin / ".mcp.json": json.dumps(
            {
                "mcpServers": {
                    "hellosrv": {
                        "command": sys.executable,
                        "args": [str(MCP_SERVER)],
                        "env": {"TINY_GREETING": "from ${CLAUDE_PLUGIN_ROOT}"},
                    }
                }
            }
        ),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return where


def git_repository(directory: Path) -> Path:
    """`directory` made a git repository of what is in it, committed (with a hook that must never run)."""

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=directory, check=True, capture_output=True)

    git("init", "--quiet", "--initial-branch=main")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "marketplace")
    return directory

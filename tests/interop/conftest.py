"""The other side of agentui's compatibility claims, for real: Claude Code's CLI, pinned, installed from npm once per
machine into a cache, and run against the loopback model server (never the internet)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.loopback import LoopbackServer

if TYPE_CHECKING:
    from tests.interop.test_round_trips import World

CLAUDE_CODE = "2.1.197"
"""The Claude Code release agentui is compared with (the one ../shared/docs/claude-code-tools.json was recorded
from)."""
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agentui-tests" / f"claude-code-{CLAUDE_CODE}"
)


CCUSAGE = "20.0.24"
"""The ccusage release the sessions are checked with (the newest with a native binary for linux-x64)."""


def _npm_installed(package: str, command: str, where: Path) -> str:
    """`command` of the npm `package` (pinned), installed into `where` on first use."""
    binary = where / "node_modules" / ".bin" / command
    if not binary.exists():
        npm = shutil.which("npm")
        assert npm, f"npm is needed to install {package} for the interop tests (apt-get install nodejs npm)"
        where.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(where), "--no-audit", "--no-fund", package],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0 and binary.exists(), f"npm could not install {package}: {done.stderr[-2000:]}"
    return str(binary)


@pytest.fixture(scope="session")
def claude_bin() -> str:
    """The `claude` command of the pinned release, installed on first use."""
    return _npm_installed(f"@anthropic-ai/claude-code@{CLAUDE_CODE}", "claude", CACHE)


TS_AGENT_SDK = "0.3.197"
"""The TypeScript Agent SDK release that goes with CLAUDE_CODE (its claudeCodeVersion)."""


@pytest.fixture(scope="session")
def ts_sdk() -> Path:
    """The node_modules of the pinned TypeScript Agent SDK (with zod, which its tool() takes), installed on first
    use."""
    where = CACHE.parent / f"ts-agent-sdk-{TS_AGENT_SDK}"
    sdk = where / "node_modules" / "@anthropic-ai" / "claude-agent-sdk" / "sdk.mjs"
    if not sdk.exists() or not (where / "node_modules" / "zod" / "index.js").exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the TypeScript Agent SDK for the interop tests (apt-get install npm)"
        where.mkdir(parents=True, exist_ok=True)
        packages = [f"@anthropic-ai/claude-agent-sdk@{TS_AGENT_SDK}", "@modelcontextprotocol/sdk@1.29.0", "zod@4.1.12"]
        done = subprocess.run(
            [npm, "install", "--prefix", str(where), "--no-audit", "--no-fund", *packages],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert done.returncode == 0 and sdk.exists(), f"npm could not install the Agent SDK: {done.stderr[-2000:]}"
    return where / "node_modules"


ACP_TS = "2.4.0"
"""The TypeScript ACP library's release the agent side is checked with (it validates every message)."""


@pytest.fixture(scope="session")
def ts_acp() -> Path:
    """The pinned TypeScript ACP library's module (its unstable entry point: sessions' list, fork, resume, close),
    installed on first use."""
    where = CACHE.parent / f"ts-acp-{ACP_TS}"
    module = where / "node_modules" / "@agentclientprotocol" / "sdk" / "dist" / "v1" / "unstable" / "acp.js"
    if not module.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the TypeScript ACP library for the interop tests (apt-get install npm)"
        where.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(where), "--no-audit", "--no-fund", f"@agentclientprotocol/sdk@{ACP_TS}"],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert done.returncode == 0 and module.exists(), f"npm could not install the ACP library: {done.stderr[-2000:]}"
    return module


ZED_ACP = "0.23.1"
"""Zed's Claude Code adapter (`@zed-industries/claude-agent-acp`): the reference for what an ACP agent sends. It
drives the pinned Claude Code (CLAUDE_CODE_EXECUTABLE), not the one its Agent SDK would fetch."""


@pytest.fixture(scope="session")
def zed_acp_bin() -> str:
    return _npm_installed(
        f"@zed-industries/claude-agent-acp@{ZED_ACP}", "claude-agent-acp", CACHE.parent / f"zed-acp-{ZED_ACP}"
    )


@pytest.fixture(scope="session")
def ccusage_bin() -> str:
    return _npm_installed(f"ccusage@{CCUSAGE}", "ccusage", CACHE.parent / f"ccusage-{CCUSAGE}")


def claude_env(home: Path, base_url: str) -> dict[str, str]:
    """Claude Code against the loopback server, with a home of its own and nothing sent anywhere else."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-loopback",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
    }


@pytest.fixture
def world(
    tmp_path: Path, server: LoopbackServer, agentui_bin: str, claude_bin: str, ccusage_bin: str
) -> Iterator[World]:
    """A project and home both tools share, and a played model; afterwards, every session written is checked with
    claude-code-log and ccusage."""
    from tests.interop.test_round_trips import World, readers_read

    made = World(tmp_path, server, agentui_bin, claude_bin)
    yield made
    readers_read(made, ccusage_bin)

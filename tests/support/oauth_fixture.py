"""Starting tests/support/mcp_oauth_server.py for a test (an MCP server behind a loopback OAuth authorisation
server) and reading what it granted; and the environment in which agentui signs in through
tests/support/oauth_browser.py as its browser."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SUPPORT = Path(__file__).resolve().parent


@dataclass
class OAuthServer:
    url: str
    issuer: str
    state: Path

    def grants(self) -> list[dict[str, object]]:
        """Each registration and token grant so far, in order."""
        log = self.state / "grants.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def kinds(self) -> list[object]:
        return [grant["grant"] for grant in self.grants()]

    def forget_tokens(self) -> None:
        """From now on the server refuses every access token it granted (as one restarted without them)."""
        (self.state / "forget").touch()

    def token_lifetime(self, seconds: int) -> None:
        """The lifetime of the access tokens granted from now on."""
        (self.state / "lifetime").write_text(str(seconds))


@contextmanager
def oauth_server(directory: Path, transport: str = "http", *flags: str) -> Iterator[OAuthServer]:
    directory.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, str(SUPPORT / "mcp_oauth_server.py"), str(directory), transport, *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())
        yield OAuthServer(first["url"], first["issuer"], directory)
    finally:
        process.kill()
        process.wait()


def browser_env(home: Path, log: Path | None = None) -> dict[str, str]:
    """An environment whose browser is the test's (it consents by following the redirects with httpx), and whose
    Claude Code configuration directory is `home`/.claude."""
    import os

    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "BROWSER": f"{sys.executable} {SUPPORT / 'oauth_browser.py'}",
    }
    if log is not None:
        env["OAUTH_BROWSER_LOG"] = str(log)
    return env

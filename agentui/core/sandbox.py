"""The operating-system sandbox for Bash, as Claude Code's `sandbox` settings describe it: on Linux every command runs
inside bubblewrap, with the project, the additional directories and a private temporary directory writable, the rest
of the file system read-only, the project's own configuration (`.git/hooks`, `.git/config`, `.claude/`, `.mcp.json`
and the other files that run code later) read-only even inside it, no network but the domains the settings allow
(through agentui's filtering proxy, `sandbox_proxy.py`), and its own process namespace (so agentui's own
environment, with the provider keys, cannot be read through /proc).

macOS would do the same with Seatbelt (`sandbox-exec` and a generated profile: `(deny default)`, file-write allowed
under the same directories, network only to the proxy); see CONTRIBUTING.md. Elsewhere, or where bubblewrap
cannot create its namespaces, the sandbox says so once and Bash falls back to asking before each command.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.workspace import Workspace

if TYPE_CHECKING:
    from agentui.core.sandbox_proxy import DomainProxy

PROXY_PORT = 3128

# Inside the writable directories, these stay read-only: what they hold runs later, outside any check.
READ_ONLY_INSIDE = (".git/hooks", ".git/config", ".claude", ".mcp.json", ".envrc", ".vscode", ".husky")
# In the home directory, these are hidden altogether: credentials a command has no business reading, since what it
# prints goes to the model.
HIDDEN_IN_HOME = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".config/gh/hosts.yml",
    ".claude.json",
    ".claude/.credentials.json",
)


@dataclass(frozen=True)
class SandboxConfig:
    """Claude Code's `sandbox` settings block (the keys it has that agentui uses)."""

    enabled: bool = False
    auto_allow: bool = True
    """`autoAllowBashIfSandboxed`: a sandboxed command runs without a question unless a deny or ask rule matches."""
    excluded_commands: tuple[str, ...] = ()
    """`excludedCommands`: programs that run outside the sandbox (through the usual permission checks)."""
    allow_unsandboxed: bool = True
    """`allowUnsandboxedCommands`: whether `dangerouslyDisableSandbox` may take a command out (it always asks)."""
    allowed_domains: tuple[str, ...] = ()
    """`network.allowedDomains`: hosts reachable through agentui's filtering proxy; none means no network."""

    @classmethod
    def merged(cls, blocks: Sequence[Any]) -> SandboxConfig:
        """From the `sandbox` blocks of the settings files, lowest precedence first; a later key wins."""
        values: dict[str, Any] = {}
        for block in blocks:
            if isinstance(block, dict):
                values.update(block)
        excluded = values.get("excludedCommands")
        network = values.get("network")
        domains = network.get("allowedDomains") if isinstance(network, dict) else None
        return cls(
            allowed_domains=tuple(d for d in domains if isinstance(d, str)) if isinstance(domains, list) else (),
            enabled=values.get("enabled") is True,
            auto_allow=values.get("autoAllowBashIfSandboxed", True) is not False,
            excluded_commands=tuple(c for c in excluded if isinstance(c, str)) if isinstance(excluded, list) else (),
            allow_unsandboxed=values.get("allowUnsandboxedCommands", True) is not False,
        )


@functools.cache
def _probe(bwrap: str) -> str | None:
    """None if bubblewrap can make its namespaces here, else why not (one sentence)."""
    try:
        done = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "/bin/true"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not be started ({exc})"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot create its namespaces here ({said[-1] if said else 'exit ' + str(done.returncode)})"
    return None


class Sandbox:
    def __init__(self, config: SandboxConfig, workspace: Workspace, *, home: Path | None = None) -> None:
        self.config = config
        self.workspace = workspace
        self.home = home or Path.home()
        self._bwrap = shutil.which("bwrap")
        self.proxy: DomainProxy | None = None

    async def start_network(self, scratch: Path) -> None:
        """With allowed domains, the filtering proxy the sandbox reaches them through (started once)."""
        if self.config.allowed_domains and self.proxy is None:
            from agentui.core.sandbox_proxy import DomainProxy

            proxy = DomainProxy(self.config.allowed_domains, scratch / "proxy.sock")
            await proxy.start()
            self.proxy = proxy

    @property
    def enabled(self) -> bool:
        return self.config.enabled

    def problem(self) -> str | None:
        """Why the sandbox, though enabled, cannot run commands here; None if it can (or is off)."""
        if not self.config.enabled:
            return None
        if not sys.platform.startswith("linux"):
            return f"the sandbox is not available on {sys.platform} yet"
        if self._bwrap is None:
            return "bubblewrap (bwrap) is not installed; install it (apt install bubblewrap) to use the sandbox"
        return _probe(self._bwrap)

    @property
    def active(self) -> bool:
        """Commands run sandboxed: enabled, and it works here."""
        return self.config.enabled and self.problem() is None

    def excluded(self, command: str) -> bool:
        """`excludedCommands` names a program the command runs (by base name or as written)."""
        if not self.config.excluded_commands:
            return False
        from agentui.core.permissions.shell import analyze

        names = {entry.split()[0] for entry in self.config.excluded_commands if entry.split()}
        analysis = analyze(command)
        return any(
            sub.name in names or os.path.basename(sub.name) in names for sub in [*analysis.commands, *analysis.hidden]
        )

    def runs_inside(self, command: str, *, disable: bool = False) -> bool:
        """Whether this command runs sandboxed: the sandbox works here, the command is not excluded, and it did not
        ask (with `dangerouslyDisableSandbox`, where the settings let it) to run outside."""
        if not self.active or (disable and self.config.allow_unsandboxed):
            return False
        return not self.excluded(command)

    def wrap(self, argv: Sequence[str], *, cwd: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
        """The bubblewrap command line that runs `argv` in the sandbox, and environment additions for it."""
        assert self._bwrap is not None
        ws = self.workspace
        tmp = scratch / "tmp"
        tmp.mkdir(exist_ok=True)
        args = [self._bwrap, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev"]
        args += ["--proc", "/proc"]
        writable = [*ws.directories, scratch]
        for directory in writable:
            args += ["--bind", str(directory), str(directory)]
        for directory in ws.directories:
            for name in READ_ONLY_INSIDE:
                path = directory / name
                if os.path.lexists(path):
                    args += ["--ro-bind", str(path), str(path)]
            if not os.path.lexists(directory / ".claude"):  # settings the command could create: an empty,
                args += ["--ro-bind", str(_empty_dir(scratch)), str(directory / ".claude")]  # read-only stand-in
        for name in HIDDEN_IN_HOME:
            path = self.home / name
            if os.path.isdir(path) and not os.path.islink(path):
                args += ["--tmpfs", str(path)]
            elif os.path.lexists(path):
                args += ["--ro-bind", "/dev/null", str(path)]
        env = {"TMPDIR": str(tmp)}
        if self.proxy is not None:  # the command's loopback port leads to the proxy, and only there
            bridge = Path(__file__).with_name("sandbox_bridge.py")
            argv = [sys.executable, "-I", "-S", str(bridge), str(self.proxy.socket_path), str(PROXY_PORT), *argv]
            address = f"http://127.0.0.1:{PROXY_PORT}"
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
                env[name] = address
            env["NO_PROXY"] = env["no_proxy"] = ""
        args += ["--chdir", str(cwd), "--", *argv]
        return args, env


def _empty_dir(scratch: Path) -> Path:
    empty = scratch / "empty"
    empty.mkdir(exist_ok=True)
    return empty

"""The session's language servers as the settings ask for them: none when they are off ("lsp": false,
AGENTUI_LSP=0) or no server agentui knows is installed; each server started under the guard where it can run, with
the environment Bash's commands get (no secrets)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.lsp.manager import LanguageServers
from agentui.core.lsp.server import Confine
from agentui.core.lsp.servers import any_server
from agentui.core.safety.confined import Confined
from agentui.core.safety.environ import child_environment

if TYPE_CHECKING:
    from agentui.core.safety.guard import Guard


def open_servers(
    on: bool, wait: float, root: Path, env: Mapping[str, str], guard: Guard | None, trusted: Callable[[], bool]
) -> LanguageServers | None:
    """None when off or none is installed. A server in the project's own virtual environment, or one
    that runs the project's programs (servers.ServerSpec.runs_project_code), runs only once the project is trusted,
    as its hooks do (an edit then says so, once: hence servers are opened where any is installed, whether or not
    it may run); every server runs under the guard."""
    if not on or not any_server(root, env, trusted=True):  # (whether one may run is asked of `trusted` at each start)
        return None
    return LanguageServers(root, child_environment(env), _confiner(root, guard), wait=wait, trusted=trusted)


def _confiner(root: Path, guard: Guard | None) -> Confine:
    def confine(argv: list[str], env: dict[str, str]) -> Confined:
        if guard is None or not guard.available:
            return Confined(argv, env)
        return guard.wrap_read_only(argv, cwd=root, env=env)  # (it writes nothing: no stand-in in the project)

    return confine

"""Where MCP servers are configured, read as Claude Code reads them: `~/.claude.json` (`mcpServers` for every project,
`projects[<root>].mcpServers` for this one), the project's `.mcp.json`, and `--mcp-config` files. A name defined in
more than one place takes the most local definition: the flag, then this project in `~/.claude.json`, then
`.mcp.json`, then the user's. `${VAR}` and `${VAR:-default}` are expanded in commands, arguments, URLs, headers and
environment values.

Servers from a project's `.mcp.json` come from whoever wrote the repository: they start only once approved
(`enableAllProjectMcpServers` or `enabledMcpjsonServers` in the settings, or the person's answer), and never when
`disabledMcpjsonServers` names them. The person's answers are kept outside the repository, in agentui's data
directory; answers given in Claude Code (`projects.<root>` in `~/.claude.json`) count too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentui.core.claude_json import claude_json_path, project_entry
from agentui.core.errors import AgentuiError

Scope = Literal["user", "project", "local", "flag"]
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpConfigError(AgentuiError):
    """An MCP configuration file cannot be used; one sentence says which and why."""


class ServerConfig(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    name: str = ""
    type: Literal["stdio", "http", "sse", "sdk"] = "stdio"
    """sdk: a server inside the Agent SDK program that started agentui, reached through its control protocol."""
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    scope: Scope = "user"
    source: str = ""
    """The file it came from, for messages."""


def _expand(value: str, env: Mapping[str, str]) -> str:
    return _VARIABLE.sub(lambda match: env.get(match.group(1), match.group(2) or ""), value)


def _servers(raw: Any, scope: Scope, source: str, env: Mapping[str, str]) -> dict[str, ServerConfig]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise McpConfigError(f"{source}: mcpServers must be an object of servers by name.")
    found: dict[str, ServerConfig] = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict):
            raise McpConfigError(f"{source}: the MCP server {name!r} must be an object.")
        entry = dict(entry)
        if "type" not in entry:
            entry["type"] = "http" if "url" in entry and "command" not in entry else "stdio"
        elif entry["type"] == "streamable-http":
            entry["type"] = "http"
        try:
            server = ServerConfig.model_validate({**entry, "name": name, "scope": scope, "source": source})
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            raise McpConfigError(
                f"{source}: the MCP server {name!r} is not valid ({where}: {problem['msg']})."
            ) from None
        if server.type == "sdk":
            found[name] = server
            continue
        if server.type == "stdio" and not server.command:
            raise McpConfigError(f"{source}: the MCP server {name!r} has no command.")
        if server.type != "stdio" and not server.url:
            raise McpConfigError(f"{source}: the MCP server {name!r} has no url.")
        found[name] = server.model_copy(
            update={
                "command": _expand(server.command, env),
                "args": [_expand(arg, env) for arg in server.args],
                "env": {key: _expand(value, env) for key, value in server.env.items()},
                "url": _expand(server.url, env),
                "headers": {key: _expand(value, env) for key, value in server.headers.items()},
            }
        )
    return found


def servers_one_by_one(
    raw: Mapping[str, Any], source: str, env: Mapping[str, str]
) -> tuple[dict[str, ServerConfig], dict[str, str]]:
    """Servers given at run time (an SDK program's `setMcpServers`, as --mcp-config's scope): those that are valid,
    and why each other one is not."""
    valid: dict[str, ServerConfig] = {}
    errors: dict[str, str] = {}
    for name, entry in raw.items():
        try:
            valid.update(_servers({name: entry}, "flag", source, env))
        except McpConfigError as exc:
            errors[name] = str(exc)
    return valid, errors


def _read(path: Path) -> Any:
    """The JSON object in `path`, None if there is no such file; anything else is a McpConfigError."""
    from agentui.core.jsonfile import regular_file_text  # (a FIFO there is refused, never waited on)

    try:
        data = json.loads(regular_file_text(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise McpConfigError(f"{path} could not be read as JSON ({exc}).") from None
    if not isinstance(data, dict):
        raise McpConfigError(f"{path} holds JSON that is not an object, so it was not read.")
    return data


def load_servers(root: Path, env: Mapping[str, str] | None = None, flags: tuple[str, ...] = ()) -> list[ServerConfig]:
    """Every configured server, the most local definition of each name winning. `flags` are `--mcp-config`
    values: files, or JSON written out."""
    env = os.environ if env is None else env
    servers: dict[str, ServerConfig] = {}
    user_file = claude_json_path(env)
    user = _read(user_file)
    if isinstance(user, dict):
        servers.update(_servers(user.get("mcpServers"), "user", str(user_file), env))
    project = _read(root / ".mcp.json")
    if isinstance(project, dict):
        given = project.get("mcpServers")
        if isinstance(given, dict):  # (`plugin:…` names a plugin's server: a project's would take its approval)
            given = {name: entry for name, entry in given.items() if not name.startswith("plugin:")}
        servers.update(_servers(given, "project", str(root / ".mcp.json"), env))
    from agentui.core.extend.plugins.enabled import mcp_server_entries

    for name, entry, source, plugin in mcp_server_entries(root, env):  # (approved as a .mcp.json's: "project")
        servers.update(_servers({name: entry}, "project", source, {**env, **plugin.variables()}))
    if (here := project_entry(user, root)) is not None:
        servers.update(_servers(here.get("mcpServers"), "local", str(user_file), env))
    for value in flags:
        if value.lstrip().startswith("{"):
            try:
                data, source = json.loads(value), "--mcp-config"
            except ValueError as exc:
                raise McpConfigError(f"--mcp-config was given JSON that does not parse ({exc}).") from None
        else:
            path = Path(value).expanduser()
            data, source = _read(path), str(path)
            if data is None:
                raise McpConfigError(f"The MCP config file {path} does not exist.")
        servers.update(_servers(data.get("mcpServers") if isinstance(data, dict) else data, "flag", source, env))
    return list(servers.values())


APPROVAL_KEYS = ("enabledMcpjsonServers", "disabledMcpjsonServers")


def approvals_file(env: Mapping[str, str] | None = None) -> Path:
    from agentui.core.dirs import data_dir

    return data_dir(env) / "mcp-approvals.json"


def stored_approvals(root: Path, env: Mapping[str, str]) -> dict[str, list[str]]:
    """The person's earlier answers for this project: ours, and Claude Code's (`projects.<root>`)."""
    found: dict[str, list[str]] = {key: [] for key in APPROVAL_KEYS}
    ours, claude = _read_or_none(approvals_file(env)), _read_or_none(claude_json_path(env))
    entries = [
        ours.get(str(root)) if isinstance(ours, dict) else None,
        project_entry(claude, root),
    ]
    for entry in entries:
        if isinstance(entry, dict):
            for key in APPROVAL_KEYS:
                names = entry.get(key)
                found[key] += [name for name in names if isinstance(name, str)] if isinstance(names, list) else []
    return found


def _read_or_none(path: Path) -> Any:
    """A file of answers that cannot be read counts as no answers (it is asked again), not as an error."""
    try:
        return _read(path)
    except McpConfigError:
        return None


def remember_approval(root: Path, name: str, enabled: bool, env: Mapping[str, str]) -> None:
    from agentui.core.atomic_write import atomic_write

    path = approvals_file(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _read_or_none(path)  # (an unreadable file of our own answers is started again)
    data = data if isinstance(data, dict) else {}
    entry = data.setdefault(str(root), {})
    keep, drop = APPROVAL_KEYS if enabled else APPROVAL_KEYS[::-1]
    entry[keep] = sorted({*entry.get(keep, []), name})
    entry[drop] = [other for other in entry.get(drop, []) if other != name]
    atomic_write(Path(os.path.realpath(path)), (json.dumps(data, indent=2) + "\n").encode())


def project_server_approved(server: ServerConfig, settings: Mapping[str, Any]) -> bool | None:
    """For a `.mcp.json` server: True or False if the settings decide, None if the person must be asked."""
    if server.name in (settings.get("disabledMcpjsonServers") or []):
        return False
    if settings.get("enableAllProjectMcpServers") or server.name in (settings.get("enabledMcpjsonServers") or []):
        return True
    return None

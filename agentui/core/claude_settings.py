"""Claude Code's settings files, read as Claude Code reads them: managed, user (`~/.claude/settings.json`), project
(`.claude/settings.json`) and local (`.claude/settings.local.json`), each with `permissions`, `hooks`, `env` and
`statusLine`.

A file that cannot be read is an error, not a file to skip: skipping it could silently drop someone's deny rules.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictStr

from agentui.core.dirs import claude_config_dir
from agentui.core.errors import AgentuiError
from agentui.core.jsonfile import read_json_model

SourceName = Literal["managed", "user", "project", "local", "flag"]


class SettingsError(AgentuiError):
    """A settings file cannot be used; the message says which and why in one sentence."""


class HookCommand(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str = "command"
    command: str = ""
    prompt: str = ""
    """A "prompt" or "agent" hook's question for the model ($ARGUMENTS: the hook's input)."""
    model: str | None = None
    """The model a "prompt" or "agent" hook asks (else the small fast model)."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds (Claude Code's unit)."""


class HookMatcher(BaseModel):
    model_config = ConfigDict(extra="allow")

    matcher: str = ""
    hooks: list[HookCommand] = Field(default_factory=list)


class PermissionsBlock(BaseModel):
    model_config = ConfigDict(extra="allow")

    allow: list[StrictStr] = Field(default_factory=list)
    ask: list[StrictStr] = Field(default_factory=list)
    deny: list[StrictStr] = Field(default_factory=list)
    defaultMode: StrictStr | None = None
    additionalDirectories: list[StrictStr] = Field(default_factory=list)


class SandboxNetworkBlock(BaseModel):
    model_config = ConfigDict(extra="allow")

    allowedDomains: list[StrictStr] | None = None
    allowAllUnixSockets: StrictBool | None = None


class SandboxBlock(BaseModel):
    """Claude Code's `sandbox` block: the keys agentui uses are typed strictly (`"enabled": "yes"` is an error, not
    a sandbox quietly left off); the others are kept."""

    model_config = ConfigDict(extra="allow")

    enabled: StrictBool | None = None
    autoAllowBashIfSandboxed: StrictBool | None = None
    excludedCommands: list[StrictStr] | None = None
    allowUnsandboxedCommands: StrictBool | None = None
    network: SandboxNetworkBlock | None = None


def _env_value(value: Any) -> str | bool | int | float:
    if not isinstance(value, str | bool | int | float):
        raise ValueError("an environment variable's value must be text (a number or true/false is taken as text)")
    return value


EnvValue = Annotated[Any, AfterValidator(_env_value)]
"""Claude Code coerces an env value to text (`z.coerce.string()`): a number or true/false is taken as it would write
it, with a notice; an object, a list or null is an error."""


class SettingsFile(BaseModel):
    """The parts agentui uses, with their types checked (a wrong type is one sentence naming the key); everything
    else in the file is kept and ignored."""

    model_config = ConfigDict(extra="allow")

    permissions: PermissionsBlock = Field(default_factory=PermissionsBlock)
    hooks: dict[str, list[HookMatcher]] = Field(default_factory=dict)
    env_values: dict[str, EnvValue] = Field(default_factory=dict, alias="env")
    sandbox: SandboxBlock | None = None
    enableAllProjectMcpServers: StrictBool | None = None
    enabledMcpjsonServers: list[StrictStr] = Field(default_factory=list)
    disabledMcpjsonServers: list[StrictStr] = Field(default_factory=list)
    statusLine: Any = None
    """Kept as written: one that is not a command is a notice (`core.extend.status_line`), not a file that cannot
    be used, since it grants nothing and denies nothing."""

    @property
    def env(self) -> dict[str, str]:
        return {name: _as_text(value) for name, value in self.env_values.items()}

    def coerced_env(self) -> list[str]:
        """`env.NAME` of each value that was not text, with the text it is used as."""
        return [
            f"env.{name} ({_as_text(value)!r})" for name, value in self.env_values.items() if not isinstance(value, str)
        ]

    def sandbox_block(self) -> dict[str, Any] | None:
        """The `sandbox` block as written (only the keys it sets), None if there is none."""
        return None if self.sandbox is None else self.sandbox.model_dump(exclude_unset=True)


def _as_text(value: str | bool | int | float) -> str:
    """As JavaScript's String() writes it: true, 5, 2.5 (a whole float without its .0)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class SettingsSource:
    name: SourceName
    path: Path
    settings: SettingsFile

    @property
    def from_project(self) -> bool:
        """Project and local files arrive with the code: what they grant applies only once the project is trusted."""
        return self.name in ("project", "local")


_REPORTED_AS = {"managed": "policySettings", "user": "userSettings", "project": "projectSettings",
                "local": "localSettings", "flag": "flagSettings"}  # fmt: skip


def settings_report(sources: Sequence[SettingsSource]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The settings in force as Claude Code's `get_settings` reports them: merged in the sources' order, later over
    earlier (lists joined without repeats, objects merged key by key), and each source's own as its file says it
    (a conversation's are `conversation.project.sources`)."""
    reported = []
    effective: dict[str, Any] = {}
    for source in sources:
        own = source.settings.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_defaults=True)
        reported.append({"source": _REPORTED_AS.get(source.name, source.name), "settings": own})
        effective = _merged(effective, own)
    return effective, reported


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        before = merged.get(key)
        if isinstance(before, dict) and isinstance(value, dict):
            merged[key] = _merged(before, value)
        elif isinstance(before, list) and isinstance(value, list):
            merged[key] = [*before, *(item for item in value if item not in before)]
        else:
            merged[key] = value
    return merged


def managed_settings_path() -> Path:
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    return Path("/etc/claude-code/managed-settings.json")


def local_settings_path(project_root: Path) -> Path:
    return project_root / ".claude" / "settings.local.json"


def read_settings_file(path: Path) -> SettingsFile | None:
    """The file's settings, None if it does not exist; SettingsError if it exists and cannot be used."""
    return read_json_model(
        path,
        SettingsFile,
        name="The settings file",
        error=SettingsError,
        advice="fix it, since its permission rules cannot be applied until then",
    )


def flag_settings(value: str) -> SettingsSource:
    """--settings: a settings file, or settings as JSON written out. Raises SettingsError."""
    import json

    from pydantic import ValidationError

    if value.lstrip().startswith("{"):
        try:
            return SettingsSource("flag", Path("--settings"), SettingsFile.model_validate(json.loads(value)))
        except (ValueError, ValidationError) as exc:
            reason = str(exc).splitlines()[0]
            raise SettingsError(f"--settings was given JSON that is not a settings file ({reason}).") from None
    path = Path(value).expanduser()
    settings = read_settings_file(path)
    if settings is None:
        raise SettingsError(f"The settings file {path} given with --settings does not exist.")
    return SettingsSource("flag", path, settings)


PRECEDENCE: dict[SourceName, int] = {"managed": 4, "flag": 3, "local": 2, "project": 1, "user": 0}
"""Which settings file wins where two set the same key: the higher."""


def most_specific_first(sources: Sequence[SettingsSource]) -> list[SettingsSource]:
    """The settings files in the order they are asked for a key: the one that wins first."""
    return sorted(sources, key=lambda source: PRECEDENCE[source.name], reverse=True)


def load_sources(project_root: Path, env: Mapping[str, str] | None = None) -> list[SettingsSource]:
    """Every settings file that exists, lowest precedence first: user, project, local, managed."""
    candidates: list[tuple[SourceName, Path]] = [
        ("user", claude_config_dir(env) / "settings.json"),
        ("project", project_root / ".claude" / "settings.json"),
        ("local", local_settings_path(project_root)),
        ("managed", managed_settings_path()),
    ]
    sources = []
    for name, path in candidates:
        settings = read_settings_file(path)
        if settings is not None:
            sources.append(SettingsSource(name, path, settings))
    return sources


def add_rule(project_root: Path, behavior: str, rule: str) -> Path:
    """Append `rule` to `permissions.<behavior>` in the project's settings.local.json (see `add_permission_entry`)."""
    return add_permission_entry(project_root, behavior, rule)


def add_permission_entry(project_root: Path, key: str, value: str) -> Path:
    """Append `value` to the list `permissions.<key>` (a rule, an additional directory) in the project's
    settings.local.json, creating it with the right shape and keeping everything else in it. Written atomically;
    returns the file's path."""

    def append(data: dict[str, Any]) -> None:
        entries = data.setdefault("permissions", {}).setdefault(key, [])
        if value not in entries:
            entries.append(value)

    return change_settings_file(local_settings_path(project_root), append, within=project_root, checked=True)


def add_allow_rule(project_root: Path, rule: str) -> Path:
    return add_rule(project_root, "allow", rule)


def set_user_setting(keys: tuple[str, ...], value: Any, env: Mapping[str, str] | None = None) -> Path:
    """Set one setting in the person's own settings file (`~/.claude/settings.json`), where Claude Code's /config
    writes it: `keys` is its path (("permissions", "defaultMode")), and None removes it. Everything else in the file
    stays as it is; a file that cannot be read is left alone (SettingsError, one sentence). Returns the file."""
    path = claude_config_dir(env) / "settings.json"

    def put(data: dict[str, Any]) -> None:
        node = data
        for depth, key in enumerate(keys[:-1]):
            child = node.setdefault(key, {})
            if not isinstance(child, dict):
                where = ".".join(keys[: depth + 1])
                raise SettingsError(f"{path} has '{where}' as something other than an object, so nothing was written.")
            node = child
        if value is None:
            node.pop(keys[-1], None)
        else:
            node[keys[-1]] = value

    return change_settings_file(path, put)


def change_settings_file(
    path: Path, change: Callable[[dict[str, Any]], None], *, within: Path | None = None, checked: bool = False
) -> Path:
    """Let `change` change the JSON object in a settings file ({} where there is no file) and write it back whole
    (atomically, through a link to it), keeping everything else in it and its order: the one way agentui writes a
    setting into Claude Code's files. A file that cannot be read as an object, or with `checked` as settings, is left
    alone (SettingsError, one sentence: rewriting it would lose what is in it); a FIFO is refused, not waited on; with
    `within`, a file that really lies outside it (a repository's link to the person's own settings) is refused."""
    from agentui.core.atomic_write import atomic_write
    from agentui.core.jsonfile import regular_file_text

    real = Path(os.path.realpath(path))
    if within is not None and not real.is_relative_to(os.path.realpath(within)):
        raise SettingsError(f"{path} is a link out of the project (to {real}), so nothing was written to it.")
    try:
        text = regular_file_text(path)
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise SettingsError(f"{path} could not be read ({why}), so nothing was written to it.") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno}: {exc.msg})" if isinstance(exc, json.JSONDecodeError) else ""
        raise SettingsError(
            f"{path} is not valid JSON{where}, so nothing was written to it; fix it and try again."
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} does not hold a JSON object, so nothing was written to it.")
    if checked and text.strip():
        read_settings_file(path)  # (settings it cannot apply: rewriting the file would lose what is in it)
    change(data)
    real.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(real, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
    return path

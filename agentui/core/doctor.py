"""/doctor: a health check of agentui's install and setup, one line per item, each ok, a warning or a problem with
what to do about it: agentui itself, ripgrep, the sandbox (bubblewrap and libseccomp, really tried), the settings
files, the model server (a real request, bounded to a few seconds), tiktoken's encoding, and the MCP servers.

Every check is bounded: programs run with a timeout, the request to the model server has one, and the checks that
block (programs, files) run on worker threads, so a front end's loop goes on while they run and can cancel them.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation, Launch
    from agentui.core.settings import Settings

Level = Literal["ok", "warning", "problem"]

SERVER_SECONDS = 3.0
"""How long the model server has to answer (connecting included)."""
PROGRAM_SECONDS = 5.0
UNUSABLE = "agentui opens no conversation until it is fixed."


@dataclass(frozen=True)
class HealthCheck:
    item: str
    """What was checked ("ripgrep", "Model server")."""
    level: Level
    said: str
    """What was found, in one sentence."""
    advice: str = ""
    """What to do about it (for a warning or a problem)."""


async def health_checks(
    conversation: Conversation | None,
    launch: Launch | None,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    problem: str | None = None,
) -> list[HealthCheck]:
    """Every check, in order. `launch` is what the front end started with (None when no model is configured, and
    `problem` says why); `conversation` the open one, if any (a broken settings file keeps one from opening)."""
    env = os.environ if env is None else env
    root = conversation.root if conversation is not None else cwd
    checks = [_install()]
    checks.append(await asyncio.to_thread(_ripgrep))
    checks.append(await asyncio.to_thread(_sandbox, root, env, conversation))
    checks.append(await asyncio.to_thread(mount_helper_check, root, env))
    checks += await asyncio.to_thread(_settings_files, root, env, launch)
    settings = conversation.launch.settings if conversation is not None else launch.settings if launch else None
    checks.append(await _model_server(settings, problem))
    checks.append(await asyncio.to_thread(_tokens, env))
    checks += _mcp(conversation)
    return checks


def _install() -> HealthCheck:
    import agentui

    where = Path(agentui.__file__).parent
    python = ".".join(str(part) for part in sys.version_info[:3])
    return HealthCheck("agentui", "ok", f"{agentui.__version__} on Python {python} ({sys.executable}), from {where}.")


def _ripgrep() -> HealthCheck:
    from agentui.core.tools.search import ripgrep_path

    install = "install ripgrep (apt install ripgrep, brew install ripgrep, or pip install ripgrep)"
    if (path := ripgrep_path()) is None:
        said = "not found: Grep searches with its Python engine, which is slower."
        return HealthCheck("ripgrep", "warning", said, f"For faster searches, {install}.")
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, timeout=PROGRAM_SECONDS, stdin=subprocess.DEVNULL, env={}
        )
        version = (done.stdout.decode(errors="replace").splitlines() or [""])[0].strip()
        failed = f"exit {done.returncode}" if done.returncode != 0 or not version else None
    except (OSError, subprocess.TimeoutExpired) as exc:
        version, failed = "", str(exc)
    if failed is not None:
        said = f"{path} does not run ({failed}); Grep uses its Python engine."
        return HealthCheck("ripgrep", "warning", said, f"Reinstall it: {install}.")
    return HealthCheck("ripgrep", "ok", f"{version} at {path}: Grep searches with it.")


def sandbox_problem(root: Path, env: Mapping[str, str]) -> str | None:
    """Why the sandbox could not run commands here, whether or not it is on; None if it can (bubblewrap is started
    with the seccomp filter's library loaded: the check is the real thing)."""
    from agentui.core.safety.sandbox import Sandbox, SandboxConfig
    from agentui.core.workspace import Workspace

    return Sandbox(SandboxConfig(enabled=True), Workspace(root=root), env=env).problem()


def _sandbox(root: Path, env: Mapping[str, str], conversation: Conversation | None) -> HealthCheck:
    sandbox = conversation.project.engine.sandbox if conversation is not None else None
    on = sandbox is not None and sandbox.enabled
    if (why := sandbox_problem(root, env)) is None:
        state = (
            "the sandbox is on." if on else "the sandbox can run (it is off; sandbox.enabled in settings turns it on)."
        )
        return HealthCheck("Sandbox", "ok", f"bubblewrap and libseccomp work here: {state}")
    if on:
        advice = "Until it can, every Bash command asks first; fix the cause, or turn the sandbox off."
        return HealthCheck("Sandbox", "problem", f"on, but it cannot run here: {why}.", advice)
    return HealthCheck("Sandbox", "warning", f"it could not run here: {why}.", "Only needed to turn the sandbox on.")


def mount_helper_check(root: Path, env: Mapping[str, str]) -> HealthCheck:
    """Whether the sandbox's and the guard's mounts are made by agentui's mount helper (built here with the system's
    C compiler) or by bubblewrap alone (the same protection, ~15 ms more per command)."""
    from agentui.core.safety.guard import Guard
    from agentui.core.safety.mount_helper import SYSTEM_PATH
    from agentui.core.workspace import Workspace

    guard = Guard(Workspace(root=root), env=env)
    if not guard.available:
        return HealthCheck("Mount helper", "ok", "not needed: bubblewrap cannot run here (see Sandbox).")
    helper = guard.mount_helper()
    if helper is not None:
        return HealthCheck("Mount helper", "ok", f"{shown(Path(helper), root, env)} makes the sandbox's mounts.")
    said = (
        f"not built: no C compiler in {SYSTEM_PATH.replace(':', ', ')}, or this Linux is older than 5.12; bubblewrap "
        "makes the sandbox's and the guard's mounts itself (the same protection, ~15 ms more per command)."
    )
    return HealthCheck("Mount helper", "warning", said, "Install a C compiler (apt install gcc) for faster commands.")


def _settings_files(root: Path, env: Mapping[str, str], launch: Launch | None) -> list[HealthCheck]:
    """Each settings file that exists, read as it would be: a broken one is named with what is wrong in it."""
    from agentui.core.claude_settings import SettingsError, managed_settings_path, read_settings_file
    from agentui.core.dirs import claude_config_dir, config_dir
    from agentui.core.extend.mcp.config import McpConfigError, load_servers
    from agentui.core.settings import ConfigError, load_config_file

    files = [
        claude_config_dir(env) / "settings.json",
        root / ".claude" / "settings.json",
        root / ".claude" / "settings.local.json",
        managed_settings_path(),
    ]
    flag = launch.permissions.settings_flag if launch is not None else None
    if flag is not None and not flag.lstrip().startswith("{"):
        files.append(Path(flag).expanduser())
    broken: list[HealthCheck] = []
    read: list[Path] = []
    for path in files:
        try:
            if read_settings_file(path) is not None:
                read.append(path)
        except SettingsError as exc:
            broken.append(HealthCheck("Settings", "problem", str(exc), UNUSABLE))
    config = config_dir(env) / "config.json"
    try:
        load_config_file(config)
        if config.is_file():
            read.append(config)
    except ConfigError as exc:
        broken.append(HealthCheck("Settings", "problem", str(exc), UNUSABLE))
    try:
        load_servers(root, env, launch.mcp_configs if launch is not None else ())
    except McpConfigError as exc:
        broken.append(HealthCheck("MCP config", "problem", str(exc), "Fix the file it names."))
    if broken:
        return broken
    if not read:
        return [HealthCheck("Settings", "ok", "no settings files; the defaults are in force.")]
    return [
        HealthCheck(
            "Settings",
            "ok",
            f"{len(read)} file{'s' if len(read) > 1 else ''} valid: "
            + ", ".join(shown(path, root, env) for path in read)
            + ".",
        )
    ]


def server_url(settings: Settings) -> str | None:
    """The base URL the provider sends its requests to (its own default unless one is set); None for the scripted
    provider, which has none."""
    if settings.provider == "anthropic":
        from agentui.core.providers.anthropic import DEFAULT_BASE_URL

        return (settings.base_url or DEFAULT_BASE_URL).rstrip("/")
    if settings.provider in ("openai", "openai-responses"):
        from agentui.core.providers.openai import DEFAULT_BASE_URL as OPENAI_URL

        return (settings.base_url or OPENAI_URL).rstrip("/")
    if _gemini_on_vertex(settings):
        from agentui.core.providers.gemini_vertex import DEFAULT_LOCATION, VertexTarget

        server = os.environ.get("GOOGLE_VERTEX_BASE_URL") or settings.base_url  # (as the provider reads it)
        return VertexTarget(settings.project or "", settings.region or DEFAULT_LOCATION, server).server
    if settings.provider == "gemini":
        from agentui.core.providers.gemini import DEFAULT_BASE_URL as GEMINI_URL

        return (settings.base_url or GEMINI_URL).rstrip("/")
    if settings.provider == "bedrock":
        from agentui.core.providers.bedrock import DEFAULT_REGION, endpoint

        return (settings.base_url or endpoint(settings.region or DEFAULT_REGION)).rstrip("/")
    return None


async def _model_server(settings: Settings | None, problem: str | None) -> HealthCheck:
    """A real request to the configured server: its list of models, which costs nothing and needs the key."""
    if settings is None:
        return HealthCheck(
            "Model server",
            "problem",
            problem or "no model is configured.",
            "Set ANTHROPIC_API_KEY or OPENAI_API_KEY, or a base URL (see the README).",
        )
    if settings.provider == "vertex" or _gemini_on_vertex(settings):
        return await _vertex(settings)
    url = server_url(settings)
    if url is None:
        return HealthCheck("Model server", "ok", f"the {settings.provider} provider needs none.")
    if settings.provider == "bedrock":
        return await _bedrock(settings, url)
    from agentui.core.providers._httpx import httpx

    if settings.provider == "anthropic":
        from agentui.core.providers.anthropic import API_VERSION

        probe, headers = f"{url}/v1/models?limit=1", {"anthropic-version": API_VERSION}
        if settings.api_key:
            headers["x-api-key"] = settings.api_key
        if settings.auth_token:
            headers["authorization"] = f"Bearer {settings.auth_token}"
    elif settings.provider == "gemini":
        from agentui.core.providers.gemini import API_VERSION as GEMINI_VERSION

        probe = f"{url}/{GEMINI_VERSION}/models?pageSize=1"
        headers = {"x-goog-api-key": settings.api_key} if settings.api_key else {}
    else:
        probe = f"{url}/models"
        headers = {"authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    where = f"{settings.provider} at {url}"
    fix = "Start the server, or fix the base URL (ANTHROPIC_BASE_URL, OPENAI_BASE_URL or base_url in config.json)."
    try:
        async with asyncio.timeout(SERVER_SECONDS + 1):  # (httpx's timeouts are per step: this bounds the whole)
            async with httpx.AsyncClient(timeout=SERVER_SECONDS, follow_redirects=False, trust_env=True) as client:
                response = await client.get(probe, headers=headers)
    except (TimeoutError, httpx.TimeoutException):
        return HealthCheck("Model server", "problem", f"{where} did not answer within {SERVER_SECONDS:g} s.", fix)
    except (httpx.HTTPError, OSError, ValueError) as exc:
        reason = str(exc).strip() or type(exc).__name__
        return HealthCheck("Model server", "problem", f"{where} cannot be reached ({reason}).", fix)
    status = response.status_code
    if status in (401, 403) or (status == 400 and settings.provider == "gemini"):  # (Gemini: 400 for a bad key)
        return HealthCheck(
            "Model server",
            "problem",
            f"{where} refused the key (HTTP {status}).",
            "Check the API key (ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY).",
        )
    if status >= 500:
        return HealthCheck(
            "Model server",
            "warning",
            f"{where} answered with an error (HTTP {status}).",
            "The server may be overloaded or starting; try again shortly.",
        )
    said = f"{where} answers" + ("." if status < 300 else f" (HTTP {status} for its list of models).")
    return HealthCheck("Model server", "ok", said)


def _gemini_on_vertex(settings: Settings) -> bool:
    """Gemini reached through Vertex AI (GOOGLE_GENAI_USE_VERTEXAI), not its own API."""
    from agentui.core.provider_env import gemini_on_vertex

    env = settings.provider_config().env
    return settings.provider == "gemini" and gemini_on_vertex(os.environ if env is None else env)


async def _vertex(settings: Settings) -> HealthCheck:
    """Vertex AI, for Claude or Gemini: the project, the region and a real access token, as the first request would
    get them."""
    from agentui.core.providers.base import ProviderError
    from agentui.core.providers.gemini import GeminiProvider
    from agentui.core.providers.vertex import VertexProvider

    config = settings.provider_config()
    provider = (
        GeminiProvider.from_config(config) if settings.provider == "gemini" else VertexProvider.from_config(config)
    )
    try:
        async with asyncio.timeout(SERVER_SECONDS * 3):  # (google-auth may try the metadata server first)
            said = await provider.describe(settings.model)
    except TimeoutError:
        return HealthCheck("Model server", "problem", "Google's credentials gave no access token in time.")
    except ProviderError as error:
        fix = "Run `gcloud auth application-default login`, or set the variables the sentence names."
        return HealthCheck("Model server", "problem", str(error), fix)
    finally:
        await provider.aclose()
    return HealthCheck("Model server", "ok", said)


async def _bedrock(settings: Settings, url: str) -> HealthCheck:
    """Bedrock's runtime lists no models and every call costs, so its check is the credentials, found as a request
    finds them (the chain may ask a metadata service: bounded like the other servers' requests)."""
    from agentui.core.providers.base import ProviderError
    from agentui.core.providers.bedrock import BedrockProvider

    provider = BedrockProvider.from_config(settings.provider_config())
    where = f"bedrock at {url} ({settings.region})"
    try:
        async with asyncio.timeout(SERVER_SECONDS + 1):
            source = await provider.credentials()
    except TimeoutError:
        return HealthCheck(
            "Model server", "problem", f"{where}: its credentials took longer than {SERVER_SECONDS:g} s."
        )
    except ProviderError as exc:
        return HealthCheck(
            "Model server", "problem", f"{where}: {exc}", "Set AWS_PROFILE or AWS keys, or AWS_BEARER_TOKEN_BEDROCK."
        )
    finally:
        await provider.aclose()
    return HealthCheck(
        "Model server", "ok", f"{where}: credentials from {source}; no request was sent (each one costs)."
    )


def _tokens(env: Mapping[str, str]) -> HealthCheck:
    import importlib.util

    from agentui.core.context.window import ENCODING, encoding_file
    from agentui.core.dirs import cache_dir

    path = encoding_file(env)
    if path is not None and importlib.util.find_spec("tiktoken") is None:
        return HealthCheck(
            "Token counts",
            "warning",
            f"{ENCODING}'s file is on disk but tiktoken is not installed: token counts are estimates.",
            "pip install tiktoken (agentui depends on it).",
        )
    if path is not None:
        return HealthCheck("Token counts", "ok", f"tiktoken's {ENCODING} encoding is on disk (in {path.parent}).")
    return HealthCheck(
        "Token counts",
        "warning",
        f"tiktoken's {ENCODING} encoding is not on disk: token counts are estimates (4 characters a "
        "token) until the provider reports them.",
        f"pip install bpe-openai, or put {ENCODING}.tiktoken in {cache_dir(env) / 'tiktoken'}.",
    )


def _mcp(conversation: Conversation | None) -> list[HealthCheck]:
    if conversation is None:
        return [HealthCheck("MCP servers", "ok", "not started: no conversation is open.")]
    if not (servers := conversation.mcp_status()):
        return [HealthCheck("MCP servers", "ok", "none in use.")]
    checks = []
    if connected := [server.name for server in servers if server.state == "connected"]:
        checks.append(HealthCheck("MCP servers", "ok", f"{len(connected)} connected: {', '.join(connected)}."))
    for server in servers:
        if server.state == "failed":
            said = f"failed: {server.error or 'no reason given'}."
            log = f" (log: {server.log_path})" if server.log_path else ""
            advice = f"Fix its configuration ({server.scope}){log}; /mcp shows them all."
            checks.append(HealthCheck(f"MCP {server.name}", "problem", said, advice))
        elif server.state != "connected":
            checks.append(HealthCheck(f"MCP {server.name}", "warning", f"{server.state}.", "/mcp shows its state."))
    return checks


def shown(path: Path, root: Path, env: Mapping[str, str]) -> str:
    """`path` relative to the project, or under ~, or whole."""
    home = Path(env.get("HOME") or Path.home())
    for base, prefix in ((root, ""), (home, "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)

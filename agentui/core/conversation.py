"""A conversation, ready to use: the project (tools, permissions, hooks), its session file, the provider, and the
agent wired to them. Every front end (print mode, the app) opens one the same way and closes it when done."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.agent import Agent, AgentConfig
from agentui.core.context import TokenCounter
from agentui.core.memory import MemoryLoader
from agentui.core.project import PermissionOptions, Project, open_project
from agentui.core.prompt import build_system_prompt
from agentui.core.providers.base import Provider
from agentui.core.providers.retry import RetryPolicy
from agentui.core.session.store import OpenSession, SessionRequest, open_session
from agentui.core.settings import Settings
from agentui.core.skills import load_skills

if TYPE_CHECKING:
    from agentui.core.mcp.tools import McpHub


@dataclass(frozen=True)
class Launch:
    """What a front end was asked to start with."""

    settings: Settings
    cwd: Path
    system_prompt: str | None = None
    """Replaces the built-in instructions (--system-prompt); memory and environment facts still follow."""
    append_system_prompt: str | None = None
    permissions: PermissionOptions = field(default_factory=PermissionOptions)
    session: SessionRequest = field(default_factory=SessionRequest)
    max_turns: int | None = None
    mcp_configs: tuple[str, ...] = ()
    """--mcp-config values: files, or JSON written out."""


class Conversation:
    def __init__(
        self, launch: Launch, project: Project, session: OpenSession, provider: Provider, agent: Agent
    ) -> None:
        self.launch = launch
        self.project = project
        self.session = session
        self.provider = provider
        self.agent = agent
        self.mcp: McpHub | None = None

    @classmethod
    def open(
        cls,
        launch: Launch,
        *,
        project: Project | None = None,
        provider: Provider | None = None,
        on_error: Callable[[str], object] = lambda message: None,
        env: Mapping[str, str] | None = None,
    ) -> Conversation:
        """Open the project (unless given), the session the launch asks for, and an agent on them."""
        project = project or open_project(launch.cwd, launch.permissions, env=env)
        session = open_session(launch.session, project.root, env=env, on_error=on_error)
        project.hooks.transcript_path = lambda: str(session.path)
        memory = MemoryLoader(project.root, env, trusted=project.trusted)
        skills = load_skills(project.root, env)
        for directory in {skill.path.parent.parent for skill in skills}:
            # A skill's files are read without asking, wherever the skill lives (deny rules still apply).
            project.engine.add_rule(f"Read(//{str(directory).lstrip('/')}/**)", "allow", "skills")
        memory_files = memory.load()
        for notice in memory.notices:
            on_error(notice)
        prompt = build_system_prompt(
            project.root, memory_files, skills=skills, base=launch.system_prompt, append=launch.append_system_prompt
        )
        if provider is None:
            from agentui.core.providers import create_provider

            provider = create_provider(launch.settings)
        settings = launch.settings
        config = AgentConfig(
            model=settings.model,
            system_prompt=prompt.stable,
            environment=prompt.volatile,
            max_turns=launch.max_turns,
            max_tokens=settings.max_tokens,
            thinking_budget=settings.thinking_budget,
            context_window=settings.context_window,
            auto_compact=settings.auto_compact,
            compact_threshold=settings.compact_threshold,
            cwd=project.root,
        )
        agent = Agent(
            provider,
            config,
            tools=project.tools,
            gate=project.engine,
            hooks=project.hooks,
            retry=RetryPolicy(max_attempts=settings.max_attempts),
            session_id=session.session_id,
            messages=session.messages,
            memory=memory,
            counter=TokenCounter(env, exact=False),
        )
        session.writer.attach(agent.bus)
        from agentui.core.subagents import Task, load_agent_types

        project.tools.unregister(Task.name)  # (a project reopened for a new conversation had the old one's)
        project.tools.register(
            Task(
                agent,
                load_agent_types(project.root, env),
                transcript_dir=session.path.parent / session.session_id / "subagents",
                env=env,
            )
        )
        return cls(launch, project, session, provider, agent)

    @property
    def session_id(self) -> str:
        return self.session.session_id

    async def start_mcp(
        self, env: Mapping[str, str] | None = None, approve: Callable[[str, str], Awaitable[bool | None]] | None = None
    ) -> list[str]:
        """Start the configured MCP servers and register their tools; a sentence for each that did not start or
        is waiting for approval. `approve(name, description)` asks the person about a `.mcp.json` server no
        setting decides (True or False is remembered for this project, outside it; None is "not now"). Nothing is
        imported or started when no server is configured."""
        from agentui.core.mcp.config import (
            McpConfigError,
            load_servers,
            project_server_approved,
            remember_approval,
            stored_approvals,
        )

        env = os.environ if env is None else env
        try:
            configs = load_servers(self.project.root, env, self.launch.mcp_configs)
        except McpConfigError as exc:
            return [f"{exc} No MCP servers were started."]
        # Approvals count from the person's own settings, and from the project's only once it is trusted: a
        # repository must not be able to approve its own servers.
        approvals: dict[str, Any] = dict(stored_approvals(self.project.root, env))
        for source in self.project.sources:
            if not source.from_project or self.project.trusted:
                extra = source.settings.model_extra or {}
                approvals["enableAllProjectMcpServers"] = approvals.get("enableAllProjectMcpServers") or extra.get(
                    "enableAllProjectMcpServers"
                )
                for key in ("enabledMcpjsonServers", "disabledMcpjsonServers"):
                    approvals[key] = [*approvals.get(key, []), *(extra.get(key) or [])]
        chosen, notices = [], []
        for config in configs:
            if config.scope == "project":
                approved = project_server_approved(config, approvals)
                if approved is None and approve is not None:
                    what = " ".join([config.command, *config.args]) if config.type == "stdio" else config.url
                    approved = await approve(config.name, what)
                    if approved is not None:
                        remember_approval(self.project.root, config.name, approved, env)
                if approved is None:
                    notices.append(
                        f"The MCP server {config.name} from this project's .mcp.json is not started: "
                        "approve it in the app, or add its name to enabledMcpjsonServers in your "
                        "settings."
                    )
                if not approved:
                    continue
            chosen.append(config)
        if not chosen:
            return notices
        from agentui.core.dirs import cache_dir
        from agentui.core.mcp.tools import McpHub

        self.mcp = McpHub(chosen, self.project.tools, cache_dir(env) / "mcp-logs", env)
        return notices + await self.mcp.start()

    async def aclose(self) -> None:
        """Stop what runs, then close the session file (its last lines synced), the MCP servers and the
        provider's connections."""
        if self.agent.running:
            self.agent.cancel()
        self.session.writer.close()
        if self.mcp is not None:
            await self.mcp.aclose()
        await self.provider.aclose()

"""Sub-agents: the `Task` tool runs a child agent loop on a task of its own, with its own context, a restricted tool
set and the parent's permission engine (rules, and the answers given this session), and returns its final answer.

Agent types come from `.claude/agents/*.md` and `~/.claude/agents/*.md` (front matter: name, description, tools,
disallowedTools, model; the body is the child's instructions), plus the built-in `general-purpose`, `Explore` and
`Plan` (builtin_agents.py). At most so many run at once, the others wait their turn (background_agents.py); with
`run_in_background` one goes on while the parent does, a task the model reads with TaskOutput, is told of when it
ends, and can stop with TaskStop. The child's transcript is
written as Claude Code writes it, `<session>/subagents/agent-<id>.jsonl` with `isSidechain: true`. Its permission
questions reach the front end through the parent's bus, and the answers find their way back; cancelling the parent
cancels the child.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.background_agents import MAX_SUBAGENTS, AgentTask, BackgroundAgents, Slots
from agentui.core.dirs import claude_config_dir
from agentui.core.events import Event, PermissionRequest, PermissionResolved, ToolEnd, ToolStart
from agentui.core.extend.builtin_agents import BUILT_IN, GENERAL_PURPOSE, small_fast_model
from agentui.core.extend.extension_files import extension_text, in_project
from agentui.core.frontmatter import listed, parse_front_matter
from agentui.core.tools.base import (
    Tool,
    ToolArgs,
    ToolContext,
    ToolRegistry,
    ToolResult,
)

if TYPE_CHECKING:
    from agentui.core.loop.agent import Agent
    from agentui.core.providers.base import Provider

__all__ = [
    "GENERAL_PURPOSE",
    "AgentType",
    "Task",
    "agent_type_from_file",
    "agent_types_from",
    "listing_line",
    "load_agent_types",
]

NOT_IN_BACKGROUND = ("TodoWrite", "TaskCreate", "TaskUpdate", "TaskGet", "TaskList")
"""The task list's tools, which Claude Code 2.1.197 gives no background sub-agent (the list is the parent's)."""
MODEL_ALIASES = ("sonnet", "opus", "haiku", "inherit")
"""Front-matter model names that mean "the parent's model" here (agentui does not map families to model ids)."""
WRAP_UP_AT = 0.8
"""Of a sub-agent's time limit, when it is asked to wrap up."""
WRAP_UP = (
    "<system-reminder>Your time is nearly up: stop starting new work, and answer now with what you found and what "
    "is left.</system-reminder>"
)


@dataclass(frozen=True)
class AgentType:
    name: str
    description: str
    instructions: str
    tools: tuple[str, ...] | None = None
    """The tools it may use; None for all of the parent's (but Task)."""
    model: str | None = None
    path: Path | None = None
    disallowed: tuple[str, ...] = ()
    """Tools it may not use, of those `tools` gives it."""
    small: bool = False
    """It runs on the small, fast model (Explore), unless a route or the call names another."""
    builtin: bool = False


def agent_types_from(definitions: Mapping[str, Any]) -> tuple[list[AgentType], list[str]]:
    """Sub-agent types by name, each with `description` and `prompt`, and optionally `tools` and `model`, as Claude
    Code takes them from --agents or an SDK's initialize; and a sentence for each one that is not usable."""
    kinds, problems = [], []
    for name, spec in definitions.items():
        if not isinstance(spec, Mapping) or not isinstance(spec.get("prompt"), str):
            problems.append(f"the agent {name!r} needs a prompt (its instructions); it is left out.")
            continue
        tools = spec.get("tools")
        model = spec.get("model")
        kinds.append(
            AgentType(
                name,
                str(spec.get("description") or ""),
                spec["prompt"],
                tuple(str(t) for t in tools) if isinstance(tools, list) else None,
                None if model in (None, "inherit") else str(model),
            )
        )
    return kinds, problems


def load_agent_types(project_root: Path, env: Mapping[str, str] | None = None) -> dict[str, AgentType]:
    types = {
        kind.name: AgentType(kind.name, kind.description, kind.instructions, None, None, None, kind.disallowed,
                             kind.small, builtin=True)
        for kind in BUILT_IN
    }  # fmt: skip
    for directory in (claude_config_dir(env) / "agents", project_root / ".claude" / "agents"):
        for path in sorted(directory.glob("*.md")) if directory.is_dir() else []:
            # (a project's file is read only where it lies in the project: see extension_files)
            if (kind := agent_type_from_file(path, in_project(directory, project_root))) is not None:
                types[kind.name] = kind
    from agentui.core.extend.plugins.enabled import part_directories

    for plugin, directory in part_directories("agents", project_root, env):  # (named `hello:greeter`)
        for path in sorted(directory.glob("*.md")):
            if (kind := agent_type_from_file(path, plugin.root)) is not None:
                types[f"{plugin.name}:{kind.name}"] = replace(kind, name=f"{plugin.name}:{kind.name}")
    return types


def agent_type_from_file(path: Path, project_root: Path | None = None) -> AgentType | None:
    """The agent type an `.md` file defines (None if it cannot be read, or is a project's link out of `project_root`).
    As Claude Code reads it: the name from the front matter (else the file's), the description's `\\n` a line break,
    `tools` a list, the body the prompt."""
    if (text := extension_text(path, project_root)) is None:
        return None
    meta, body = parse_front_matter(text)
    tools = tuple(tool for tool in listed(meta, "tools") if tool != "*") or None
    denied = listed(meta, "disallowedTools")
    model = meta.get("model") or None
    return AgentType(
        meta.get("name") or path.stem,
        meta.get("description", "").replace("\\n", "\n"),
        body.strip() or GENERAL_PURPOSE,
        tools,
        None if model in MODEL_ALIASES else model,
        path,
        denied,
    )


class TaskArgs(ToolArgs):
    description: str = Field(description="A short (3-5 word) description of the task")
    prompt: str = Field(description="The task for the agent to perform, with everything it needs to know")
    subagent_type: str = Field(default="general-purpose", description="The type of agent to use")
    model: str | None = Field(
        default=None,
        description="A model for this agent; sonnet, opus and haiku (Claude Code's names) keep the current model",
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Set to true to run this agent in the background. You will be notified when it completes.",
    )


class AgentDetails(TypedDict):
    """Claude Code's shape, then agentui's own (the child's turns and why it stopped)."""

    status: str
    prompt: str
    agentId: str
    agentType: str
    content: list[dict[str, str]]
    resolvedModel: str
    totalDurationMs: int
    totalTokens: int
    totalToolUseCount: int
    usage: dict[str, Any]
    subagentType: str
    turns: int
    stop: str


class Task(Tool[TaskArgs]):
    """Claude Code 2.1 calls it Agent; 2.0 called it Task, which sessions and some models still use."""

    name = "Agent"
    aliases = ("Task",)
    Args = TaskArgs
    Details = AgentDetails
    kind = "read"  # the Task call itself changes nothing: every tool call the child makes is checked on its own

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return str(arguments.get("description") or "")

    def __init__(
        self,
        parent: Agent,
        types: dict[str, AgentType],
        *,
        transcript_dir: Path | None,
        env: Mapping[str, str] | None = None,
        agents: BackgroundAgents | None = None,
        small_model: str | None = None,
    ) -> None:
        self.parent = parent
        self.types = types
        self.transcript_dir = transcript_dir
        """Where `agent-<id>.jsonl` files go (`<session>/subagents`); None writes none."""
        self.env = env
        self.agents = agents if agents is not None else BackgroundAgents()
        """The workspace's: its slots cap the sub-agents running at once, and it holds the background ones."""
        self.small_model = small_model
        """The configured small model (settings.small_model), for Explore off Anthropic's API."""
        self.watchers: list[Callable[[str, Event], None]] = []
        """Told of every event of every sub-agent, with the id of the call that started it (stream-json shows a
        sub-agent's messages under that id)."""
        self._describe()

    def add_type(self, kind: AgentType) -> None:
        """One more agent type (a front end's): the model is offered it from its next request."""
        self.types[kind.name] = kind
        self._describe()

    def _describe(self) -> None:
        listed = "\n".join(listing_line(kind) for kind in self.types.values())
        self.description = (  # type: ignore[misc]
            "Launch a sub-agent to handle a task on its own, with a fresh context: searches across many files, "
            "research, or a self-contained piece of work. It returns one final report. Calls in one response run "
            "at the same time. With run_in_background it works on while you go on; you are notified when it "
            f"completes: do not poll it. Agent types:\n{listed}"
        )
        self.__dict__.pop("spec", None)  # (the spec the model sees is made again from the new description)

    async def run(self, args: TaskArgs, ctx: ToolContext) -> ToolResult:
        kind = self.types.get(args.subagent_type)
        if kind is None:
            return ToolResult.error(
                f"There is no agent type {args.subagent_type!r}; the types are: {', '.join(self.types)}."
            )
        agent_id = uuid.uuid4().hex[:17]
        if args.run_in_background:
            from agentui.core.extend.subagent_background import launch

            transcript = self.transcript(agent_id)
            task = AgentTask(agent_id, args.description, kind.name, ctx.tool_call_id, str(transcript or ""))
            run = partial(self.run_child, kind, args, agent_id=agent_id)
            model = self.model_for(kind, args.model)[1]
            return launch(self.agents, self.slots, run, task, (args.prompt, model), ctx)
        slots = self.slots()
        async with slots.slot(lambda: ctx.progress(waiting(slots))):
            return await self.run_child(kind, args, ctx, agent_id)

    def slots(self) -> Slots:
        """The workspace's sub-agent slots, as many as the limits allow now."""
        self.agents.slots.limit = self.parent.config.limits.max_subagents or MAX_SUBAGENTS
        return self.agents.slots

    def transcript(self, agent_id: str) -> Path | None:
        return self.transcript_dir / f"agent-{agent_id}.jsonl" if self.transcript_dir is not None else None

    async def run_child(self, kind: AgentType, args: TaskArgs, ctx: ToolContext, agent_id: str) -> ToolResult:
        """Run a sub-agent of `kind` on the call's prompt until it answers (its slot already held)."""
        child, writer = self._child(kind, ctx, args.model, agent_id, bool(args.run_in_background))
        hooks = self.parent.services.hooks
        if hooks:
            await hooks.subagent_start(self.parent.session_id, agent_id, kind.name)
        self.parent.children.append(child)
        forward = child.bus.on(self._forward)
        report = child.bus.on(lambda event: _report(event, ctx.progress))
        watched = child.bus.on(partial(self._watch, ctx.tool_call_id))
        limit = self.parent.config.limits.subagent_seconds
        timed_out: list[bool] = []
        timer = asyncio.ensure_future(self._time_limit(child, kind.name, limit, timed_out)) if limit else None
        try:
            run = asyncio.ensure_future(child.prompt(args.prompt))
            try:
                result = await asyncio.shield(run)
            except asyncio.CancelledError:
                child.cancel()  # the parent was cancelled: so is the child, which ends its run cleanly first
                await asyncio.wait([run], timeout=5)
                raise
        finally:
            if timer is not None:
                timer.cancel()
            forward()
            report()
            watched()
            self.parent.children.remove(child)
            if self.parent.services.hooks is not None:
                self.parent.services.hooks.notify = (
                    self.parent.warn
                )  # (the child took the hooks' warnings while it ran)
            if writer is not None:
                writer.close()
        if hooks:
            transcript = str(getattr(writer, "path", "") or "")
            await hooks.subagent_stop(self.parent.session_id, (agent_id, kind.name, transcript), result.text)
        usage = result.usage
        details: AgentDetails = {
            "status": "completed" if result.stop == "end_turn" else "failed",
            "prompt": args.prompt,
            "agentId": agent_id,
            "agentType": kind.name,
            "content": [{"type": "text", "text": result.text}] if result.text else [],
            "resolvedModel": child.config.model,
            "totalDurationMs": result.duration_ms,
            "totalTokens": usage.total_tokens,
            "totalToolUseCount": sum(len(m.tool_uses) for m in child.messages if m.role == "assistant"),
            "usage": usage.model_dump(),
            "subagentType": kind.name,
            "turns": result.num_turns,
            "stop": result.stop,
        }
        if timed_out:
            said = f" Its last words: {result.text}" if result.text else ""
            return ToolResult.error(
                f"The {kind.name} agent was stopped at its time limit ({limit:g} s).{said}", **details
            )
        if result.error:
            return ToolResult.error(f"The {kind.name} agent stopped: {result.error}", **details)
        return ToolResult(content=result.text or "(the agent gave no final answer)", details=details)

    async def _time_limit(self, child: Agent, name: str, seconds: float, timed_out: list[bool]) -> None:
        """A sub-agent's own wall-clock limit: asked to wrap up at 80% of it, stopped at it."""
        await asyncio.sleep(seconds * WRAP_UP_AT)
        child.inject(WRAP_UP)
        self.parent.warn(f"The {name} agent is near its time limit ({seconds:g} s) and was asked to wrap up.")
        await asyncio.sleep(seconds * (1 - WRAP_UP_AT))
        timed_out.append(True)
        child.cancel()

    def _child(
        self, kind: AgentType, ctx: ToolContext, requested: str | None, agent_id: str, background: bool
    ) -> tuple[Agent, Any]:
        from agentui.core.loop.spawn import spawn
        from agentui.core.tools.findings import finding_tools

        parent = self.parent
        allowed, denied = kind.tools, {*kind.disallowed, *(NOT_IN_BACKGROUND if background else ())}
        member = parent.member.spawn(f"{kind.name} agent {agent_id[:6]}", parent.config.cwd)
        tools = ToolRegistry(
            [
                *(
                    tool
                    for tool in parent.services.tools
                    if tool.name != self.name
                    and not tool.main_only
                    and (allowed is None or {tool.name, *tool.aliases} & set(allowed))
                    and not {tool.name, *tool.aliases} & denied
                ),
                *(finding_tools(member) if allowed is None else ()),  # (a type that lists its tools gets those)
            ],
            parent.services.tools.withheld,
        )
        provider, routed = self.model_for(kind, requested)
        config = parent.config.model_copy(
            update={
                "model": routed,
                "system_prompt": kind.instructions,
                "max_turns": None,
                # (a fallback is a model of the parent's provider: not one to ask another provider for)
                "fallback_model": parent.config.fallback_model if provider is parent.services.provider else None,
            }
        )
        # The parent's hooks too: a PreToolUse hook that guards tool calls must see the child's.
        child = spawn(
            parent,
            provider,
            config,
            tools=tools,
            gate=parent.services.gate,
            hooks=parent.services.hooks,
            sub_agent=True,
            member=member,
        )
        child.back_up_into(parent)
        writer = None
        if (transcript := self.transcript(agent_id)) is not None:
            from agentui.core.session.writer import SessionWriter

            writer = SessionWriter(
                transcript,
                parent.session_id,
                config.cwd,
                sidechain=True,
                agent_id=agent_id,
            )
            writer.attach(child.bus)
        return child, writer

    def model_for(self, kind: AgentType, requested: str | None) -> tuple[Provider, str]:
        """A model the call or the agent type names; else the route for this type or for sub-agents; else the
        parent's (Explore's: the small, fast model)."""
        parent = self.parent
        model = None if requested in MODEL_ALIASES else requested
        provider, routed = parent.router.route("subagent", parent.config.model, subagent_type=kind.name)
        if model or kind.model:
            return parent.services.provider, model or kind.model or routed
        if kind.small and provider is parent.services.provider and routed == parent.config.model:
            env = os.environ if self.env is None else self.env
            return provider, small_fast_model(provider.name, env, self.small_model, routed)
        return provider, routed

    def _watch(self, call_id: str, event: Event) -> None:
        for watcher in self.watchers:
            watcher(call_id, event)

    def _forward(self, event: Event) -> None:
        """The child's permission questions (and their answers) go to whoever watches the parent."""
        match event:
            case PermissionRequest() | PermissionResolved():
                self.parent.bus.emit(event)
            case _:
                pass


def waiting(slots: Slots) -> str:
    """A queued sub-agent's live output, until a slot frees."""
    return f"Queued: {slots.running} sub-agents are running, at most {slots.limit} at once.\n"


def listing_line(kind: AgentType) -> str:
    """The type's line in the Agent tool's listing: its name, when to use it and its tools, in Claude Code's
    words."""
    if kind.disallowed:
        tools = f" (Tools: All tools except {', '.join(kind.disallowed)})"
    else:
        tools = f" (Tools: {', '.join(kind.tools)})" if kind.tools else " (Tools: *)" if kind.builtin else ""
    return f"- {kind.name}: {kind.description}{tools}"


def _report(event: Event, progress: Callable[[str], None]) -> None:
    """The child's tool calls as the Task call's live output: the app shows them in the Task's block."""
    match event:
        case ToolStart():
            progress(f"{event.name} {_brief(event.input)}\n")
        case ToolEnd(is_error=True):
            content = event.content if isinstance(event.content, str) else "an error"
            progress(f"  ✗ {content.splitlines()[0][:120] if content else 'an error'}\n")
        case _:
            pass


def _brief(arguments: dict[str, Any]) -> str:
    for key in ("file_path", "command", "pattern", "path", "url", "description"):
        if isinstance(arguments.get(key), str):
            return " ".join(arguments[key].split())[:100]
    return ""

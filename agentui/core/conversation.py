"""A conversation, ready to use: the project (tools, permissions, hooks), its session file, the provider, and the
agent wired to them. Every front end (print mode, the app) opens one the same way and closes it when done."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.context.pins import toggle_pin
from agentui.core.context.titles import write_model_title
from agentui.core.extend.command_prompt import for_prompt
from agentui.core.extend.servers import McpStatus, ToolServers
from agentui.core.extend.skills import load_skills
from agentui.core.limit_question import answer_limit_question
from agentui.core.loop.agent import Agent
from agentui.core.mode_cycle import next_mode
from agentui.core.model_choice import choose_model
from agentui.core.output_tokens import model_output_tokens
from agentui.core.project import PermissionOptions, Project
from agentui.core.providers.base import Provider
from agentui.core.run_options import RunLimits
from agentui.core.safety.permissions.grants import RunGrants
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.store import OpenSession
from agentui.core.settings import Settings

if TYPE_CHECKING:
    from agentui.core.background import ShellInfo
    from agentui.core.completion import PathCompleter
    from agentui.core.context.memory import MemoryFile
    from agentui.core.continuation import ContinueKind, Opener
    from agentui.core.control import Command
    from agentui.core.editor_files import EditorFiles
    from agentui.core.events import Event, ModelSpend, PermissionDecision, Subscription, TaskItem
    from agentui.core.extend.hooks import HookCallback
    from agentui.core.extend.mcp.client import SdkBridge
    from agentui.core.extend.mcp.tools import McpHub
    from agentui.core.loop.run import RunResult
    from agentui.core.messages import ImageBlock, Message, Usage
    from agentui.core.model_aliases import Resolved
    from agentui.core.parallel.attempts import AttemptConfig, Attempts, BranchMaker, Verdict
    from agentui.core.parallel.working_copy import WorkingCopy
    from agentui.core.rewind import PromptPoint, Restore, Rewound
    from agentui.core.safety.permissions.engine import Mode
    from agentui.core.safety.permissions.rules import Behavior
    from agentui.core.telemetry import Telemetry
    from agentui.core.tools.person_command import ShellOutcome

TITLE_WAIT = 10.0
"""Seconds closing waits for a model's title on its way (then the session keeps the prompt's first line)."""


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
    strict_mcp: bool = False
    """--strict-mcp-config: only the servers of mcp_configs, none from the settings files."""
    tools: tuple[str, ...] | None = None
    """--tools: the built-in tools the model may use (None: all of them)."""
    name: str | None = None
    """-n/--name: the session's title."""
    limits: RunLimits = field(default_factory=RunLimits)
    """--max-budget-usd, --max-total-tokens, --max-duration and --subagent-timeout: in place of the settings'."""
    fallback_model: str | None = None
    """--fallback-model: the model to go on with when the model stays overloaded."""
    agents: Mapping[str, Any] | None = None
    """--agents: sub-agent types by name, as Claude Code takes them."""
    json_schema: dict[str, Any] | None = None
    """--json-schema: the final answer is a StructuredOutput call whose arguments follow this schema."""
    editor: EditorFiles | None = None
    """The client's editor, where it offers its files (ACP's `fs/*`): Read, Edit and Write go through its buffers."""
    idle_rotate: float | None = None
    """--idle-rotate MINUTES: a prompt after an idle gap longer than this goes on in a new session, with a summary of
    this one (see `core.idle_rotation`)."""
    answers_elicitation: bool = False
    """The front end shows MCP servers' elicitation requests (ElicitationRequest events) and answers them; else
    they are declined, as where no one is there to answer."""


@dataclass(frozen=True)
class Resumed:
    """What a resumed conversation continues: for the front end to draw its history and say what it resumed."""

    session_id: str
    title: str | None
    """Its title, else (as the session picker names it) its first prompt."""
    message_lines: int
    """The conversation's lines (user and assistant), counted as the session picker counts them."""
    tool_details: dict[str, dict[str, Any]]
    """Each tool call's recorded result details (a diff, an exit code), by tool_use id."""
    leaf_uuid: str | None
    """The line the conversation continues from (a preview of the file's end shows the same branch if it has it)."""


def _pin(self: Conversation, prompt: str | None = None, tool_call_id: str | None = None) -> bool:
    """Pin the person's `prompt` or the result of `tool_call_id`, or unpin it: every compaction carries a pinned
    message verbatim (context/pins.py). True when it is pinned now; LookupError when the session has no such line."""
    return toggle_pin(self.session_id, self.session.writer.path, prompt=prompt, tool_call_id=tool_call_id)


class Conversation:
    def __init__(
        self,
        launch: Launch,
        project: Project,
        session: OpenSession,
        provider: Provider,
        agent: Agent,
        env: Mapping[str, str] | None = None,
        branches: BranchMaker | None = None,
        telemetry: Telemetry | None = None,
        opener: Opener | None = None,
    ) -> None:
        self.launch, self.opener = launch, opener  # (how a branch's or a rotation's conversation is opened)
        self._branches = branches or _no_branches
        """Makes the agent of each branch of parallel attempts (the assembly gives it)."""
        self.env = env
        self.restored_at = 0.0
        """When a rewind last wrote files (what it wrote is agentui's doing, not someone else's)."""
        self.project, self.session, self.provider, self.agent = project, session, provider, agent
        self.servers = _tool_servers(launch, project, agent)
        self.telemetry = telemetry
        self._grants = RunGrants(project.engine)
        self._attempting: Attempts | None = None
        self._completer: PathCompleter | None = None
        self._titling: asyncio.Future[None] | None = None
        """The model naming the session (the "title" route), after the first answer."""

    @property
    def session_id(self) -> str:
        return self.session.session_id

    # What a front end does to a conversation, as commands (DESIGN: the front-end surface). A front end calls these
    # and reads events; it does not set attributes on the objects behind them.

    @property
    def root(self) -> Path:
        return self.project.root

    def subscribe(self) -> Subscription:
        """The conversation's events, from now on, as an async iterator."""
        return self.agent.bus.subscribe()

    def on(self, listener: Callable[[Event], None]) -> None:
        """Call `listener` with each event as it is emitted, in order (print mode writes as it goes)."""
        self.agent.bus.on(listener)

    @property
    def tool_names(self) -> list[str]:
        return self.agent.services.tools.names()

    def add_hook(self, event: str, matcher: str, callback: HookCallback, *, name: str, timeout: float = 60.0) -> None:
        """A hook run by the front end (an Agent SDK program's callback), as a settings file's hook for `event`
        whose `matcher` names the tools (for tool events)."""
        from agentui.core.extend.hooks import HookSpec

        hooks = self.project.hooks
        hooks.specs.append(HookSpec(event, matcher or "", name, timeout, "sdk", callback))

    def on_subagent(self, watcher: Callable[[str, Event], None]) -> None:
        """Call `watcher` with each event of each sub-agent, and the id of the Agent call that started it."""
        from agentui.core.extend.subagents import Task

        task = self.project.tools.get(Task.name)
        if isinstance(task, Task):
            task.watchers.append(watcher)

    def on_hook(self, observer: Callable[[str, dict[str, Any]], None]) -> None:
        """Call `observer` as each hook starts ("hook_started") and ends ("hook_response", with its output), with
        Claude Code's fields (hook_id, hook_name, hook_event...)."""
        self.project.hooks.observer = observer

    def add_agent_types(self, definitions: Mapping[str, Any]) -> list[str]:
        """Sub-agent types from a front end (--agents, an SDK's initialize), as Claude Code takes them (see
        `agent_types_from`); a sentence for each one that is not usable (it is left out)."""
        from agentui.core.extend.subagents import Task, agent_types_from

        kinds, problems = agent_types_from(definitions)
        if isinstance(task := self.project.tools.get(Task.name), Task):
            for kind in kinds:
                task.add_type(kind)
        return problems

    def command_names(self) -> list[str]:
        """The slash commands a prompt may start with: the custom ones of this project and of the person."""
        from agentui.core.extend.commands import load_custom_commands

        return sorted(load_custom_commands(self.root, self.env))

    def agent_names(self) -> list[str]:
        """The sub-agent types the model may start."""
        from agentui.core.extend.subagents import Task

        task = self.project.tools.get(Task.name)
        return list(task.types) if isinstance(task, Task) else []

    def skill_names(self) -> list[str]:
        return [skill.name for skill in load_skills(self.root, self.env)]

    @property
    def structured_output(self) -> dict[str, Any] | None:
        """With --json-schema: the final answer's structured form, once the model has given it."""
        from agentui.core.tools.structured_output import StructuredOutput

        tool = self.project.tools.get(StructuredOutput.name)
        return tool.value if isinstance(tool, StructuredOutput) else None

    @property
    def max_output_tokens(self) -> int:
        return model_output_tokens(self.agent.config.model, self.agent.config.output_tokens)  # (the model's own)

    @property
    def resumed(self) -> Resumed | None:
        loaded = self.session.resumed_from
        if loaded is None:
            return None
        lines = sum(1 for entry in loaded.chain if entry.get("type") in ("user", "assistant"))
        return Resumed(loaded.session_id, loaded.name, lines, loaded.tool_details, loaded.leaf_uuid)

    def replay(self) -> Iterator[Event]:
        """The history so far (what it resumed, and what was said since), as the events a live run emits (see
        `core.replay`), for a front end to draw with its live handlers."""
        from agentui.core.replay import replay

        loaded = self.session.resumed_from
        return replay(self.agent.messages, loaded.tool_details if loaded is not None else {}, self.session_id)

    @property
    def messages(self) -> list[Message]:
        """The history as the model sees it (read it; change it through these commands)."""
        return self.agent.messages

    @property
    def running(self) -> bool:
        return self.agent.running or self._attempting is not None

    async def send(self, text: str, images: Sequence[ImageBlock] = ()) -> RunResult:
        """A prompt (with the images pasted into it): runs until the model has answered and its calls are done."""
        with for_prompt(self, text):  # (`ultrathink`'s thinking, a custom command's model: for this run only)
            result = await self.agent.prompt(text, images)
        if self._titling is None and self.agent.router.routes("title") and result.stop == "end_turn":
            self._titling = asyncio.ensure_future(write_model_title(self.agent, self.session.writer, text, result.text))
        return result

    async def continue_(self, kind: ContinueKind = "default", text: str = "", at: str | None = None) -> object:
        """A new prompt ("default"), the last prompt again with its answer dropped ("rerun"), or `text` on a new
        session forked at the message `at` ("branch": a `Branched`, whose conversation the caller goes on with)."""
        from agentui.core.continuation import continue_conversation

        return await continue_conversation(self, self.opener, kind, text, at)

    def steer(self, text: str, images: Sequence[ImageBlock] = (), *, with_tool_results: bool = False) -> None:
        """A message sent while a run goes on: it follows the current tool calls (see `Agent.inject`)."""
        self.agent.inject(text, images, with_tool_results=with_tool_results)

    def interrupt(self) -> None:
        """Esc: stop the running step now (the run ends "cancelled")."""
        if self.agent.running:
            self.agent.cancel()
        if self._attempting is not None:  # parallel attempts: every branch stops
            self._attempting.cancel()

    def answer(self, request_id: str, decision: PermissionDecision) -> bool:
        """The person's answer to a PermissionRequest event; False if nothing was waiting for it. An allow that
        names a mode (an approved plan) switches to it at once."""
        answered = self.agent.respond_permission(request_id, decision) or self.servers.answer(request_id, decision)
        answered = answered or answer_limit_question(self.agent.services.retry, request_id, decision)
        if answered and decision.behavior == "allow" and decision.mode is not None:
            self.set_mode(decision.mode)
        return answered

    async def handle(self, command: Command) -> object:
        """Do what `command` says (a command of `core.control`, as data); what the method it stands for returns."""
        from agentui.core.control import handle

        return await handle(self, command)

    def follow_up(self, text: str) -> None:
        """The next prompt, once the model ends its turn."""
        self.agent.follow_up(text)

    async def attempt(
        self, prompt: str, configs: Sequence[AttemptConfig], evaluate: str = "judge"
    ) -> tuple[Attempts, Verdict]:
        """Parallel attempts: `prompt` run by a branch per config at once, each in its own working copy, and the
        choice of the strategy named `evaluate` (first, tokens, elaborate or judge). Then `attempts.apply(id)` writes
        the chosen one's changes and goes on with its conversation; `attempts.close()` removes the copies either
        way. Raises WorkingCopyError (one sentence) when the copies cannot be made."""
        from agentui.core.parallel.attempts import STRATEGIES, Attempts
        from agentui.core.process_dir import current

        if evaluate not in STRATEGIES:
            raise ValueError(f"There is no evaluation {evaluate!r}; choose one of {', '.join(STRATEGIES)}.")
        self.agent.budget = self.agent.config.budget()  # (one pool for every branch and the judge)
        scratch = current().temporary("agentui-attempts-")
        sidechains = self.session.path.parent / self.session_id / "subagents"
        attempts = Attempts(self.agent, self.root, scratch, self._branches, transcript_dir=sidechains)
        if self.running:
            raise RuntimeError("The conversation is working; try once it has finished.")
        self._attempting = attempts
        try:
            verdict = await attempts.run(prompt, configs, STRATEGIES[evaluate](self.agent))
        except BaseException:  # (cancelled, or the copies could not be made: nothing is left behind)
            attempts.close()
            raise
        finally:
            self._attempting = None
        return attempts, verdict

    async def compact(self, instructions: str | None = None) -> RunResult:
        """/compact: summarise all but the recent turns now."""
        return await self.agent.compact(instructions)

    pin = _pin

    def prompts(self) -> list[PromptPoint]:
        """The person's prompts in this branch, oldest first: the points `rewind` can go back to."""
        from agentui.core.rewind import branch_prompts

        return branch_prompts(self)

    def changes_since(self, to: str) -> Restore:
        """The files `rewind(to)` would restore, and how (nothing is written). Raises RewindError."""
        from agentui.core.rewind import changes_since

        return changes_since(self, to)

    def rewind(self, to: str, *, code: bool = True, conversation: bool = True, overwrite: bool = False) -> Rewound:
        """Back to before the prompt `to` (a PromptPoint's uuid): the files changed since (`code`) and the
        conversation (`conversation`, on a new branch). Files someone else changed since agentui last did anything
        are overwritten only with `overwrite` (`changes_since(to).outside`). Raises RewindError, changing nothing."""
        from agentui.core.rewind import rewind

        return rewind(self, to, code=code, history=conversation, overwrite=overwrite)

    @property
    def window(self) -> int | None:
        """The model's context window, if known."""
        return self.agent.window

    @property
    def memory_files(self) -> list[MemoryFile]:
        """The CLAUDE.md files the model reads, in order (those below the project once a tool reached them)."""
        return list(self.agent.services.memory.files) if self.agent.services.memory is not None else []

    @property
    def usage(self) -> tuple[Usage, float]:
        """Tokens used by this session so far, and their cost at list prices in USD."""
        return self.agent.ledger.usage, self.agent.ledger.cost_usd

    @property
    def routes(self) -> dict[str, str]:
        """Where the config's routes send each kind of call ("compaction": "openai:qwen2.5-coder")."""
        return self.agent.router.describe()

    @property
    def usage_by_model(self) -> dict[str, ModelSpend]:
        """Each model's share of the session, when calls went to several (routes, a fallback)."""
        return dict(self.agent.ledger.by_model)

    @property
    def mode(self) -> Mode:
        return self.project.engine.mode

    def set_mode(self, mode: Mode) -> None:
        self.project.engine.mode = mode

    def cycle_mode(self) -> Mode:
        """Shift+Tab: default → acceptEdits → plan (→ bypassPermissions, if the launch allowed it) and round."""
        self.set_mode(next_mode(self.mode, self.launch.permissions))
        return self.mode

    @property
    def model(self) -> str:
        return self.agent.config.model

    def set_model(self, model: str) -> Resolved:
        """The model for the requests from now on (this conversation only): an id, or Claude Code's alias."""
        return choose_model(self, model)

    def rules(self) -> list[tuple[str, str, str]]:
        """Every permission rule in force: (behavior, rule, where it came from)."""
        return [(rule.behavior, rule.text, rule.source) for rule in self.project.engine.rules]

    def add_rule(self, behavior: Behavior, rule: str) -> Path:
        """A rule the person adds (/permissions): in force now and saved to the project's local settings; returns
        that file. Raises RuleError (a sentence) for a rule that cannot be parsed."""
        from agentui.core.claude_settings import add_rule

        self.project.engine.add_rule(rule, behavior, "local")
        return add_rule(self.project.root, behavior, rule)

    def grant_for_run(self, rules: list[str], source: str) -> list[str]:
        """Allow `rules` until the next run ends (a custom command's `allowed-tools`); a sentence for each rule that
        could not be parsed."""
        return self._grants.grant(rules, source)

    def expand_command(self, text: str) -> tuple[str, list[str]] | None:
        """A prompt that starts with a custom command (`/name arguments`): its prompt, with its `allowed-tools`
        granted until the run ends, and the command as typed recorded before it (see `expand_custom_command`); None
        if no custom command has that name."""
        from agentui.core.extend.commands import expand_custom_command

        grant, record = self.grant_for_run, self.agent.add_context
        return expand_custom_command(text, self.project, self.env, self.running, grant, record)

    def end_grants(self) -> None:
        """Take back what `grant_for_run` allowed (when the run it was for has ended)."""
        self._grants.end()

    async def run_shell(self, command: str, progress: Callable[[str], None] = lambda text: None) -> ShellOutcome:
        """`!command`: the person's own command, run now in the project (their command: no permission question);
        its output joins the conversation as context, as Claude Code records it."""
        from agentui.core.tools.person_command import ShellOutcome, run_person_command

        outcome = await run_person_command(self.project.tools, self.root, self.session_id, command, progress)
        if outcome is None:
            return ShellOutcome("there is no Bash tool", True, {})
        self.agent.add_context(f"<bash-input>{command}</bash-input>\n<bash-stdout>{outcome.output}</bash-stdout>")
        return outcome

    def complete_path(self, typed: str) -> list[str]:
        """`@` completion: the project's files containing `typed`, best first (the tree is walked once)."""
        if self._completer is None:
            from agentui.core.completion import PathCompleter

            self._completer = PathCompleter(self.root, lambda: self.project.workspace.additional_dirs, self.servers)
        return self._completer.complete(typed)

    def export(self, name: str = "") -> Path:
        """/export: the conversation as Markdown, to `name` (relative to the project) or a dated file in the data
        directory; returns the file. Raises ExportError (a ValueError) when there is nothing to export, OSError when
        it cannot be written."""
        from agentui.core.session.export import export_conversation

        return export_conversation(self.messages, name, self.root, self.session_id, self.env)

    def mcp_status(self) -> list[McpStatus]:
        """Each configured MCP server: its state, its tools, and what went wrong."""
        return self.servers.mcp_status()

    async def start_mcp(
        self,
        env: Mapping[str, str] | None = None,
        approve: Callable[[str, str], Awaitable[bool | None]] | None = None,
        sdk_bridge: SdkBridge | None = None,
        sdk_servers: Sequence[str] = (),
    ) -> list[str]:
        """Start the configured MCP servers and the config's OpenAPI APIs, and register their tools; a sentence for
        each that did not start or is waiting for approval (see `ToolServers.start`)."""
        return await self.servers.start(os.environ if env is None else env, approve, sdk_bridge, sdk_servers)

    @property
    def mcp(self) -> McpHub | None:
        return self.servers.mcp

    # Tasks and background shells

    @property
    def tasks(self) -> list[TaskItem]:
        """The model's task list as it stands (a resumed session's, rebuilt from its calls)."""
        return self.project.workspace.tasks.items()

    def background_shells(self) -> list[ShellInfo]:
        """The background shells of this conversation, running or ended, oldest first."""
        return self.project.workspace.shells.all()

    def background_output(self, shell_id: str, chars: int = 4000) -> str:
        """The last `chars` characters a background shell printed ("" for an unknown id)."""
        return self.project.workspace.shells.tail(shell_id, chars)

    async def stop_background(self, task_id: str) -> bool:
        """Stop a background shell (and what it started) or sub-agent; False if no such task is running."""
        return await self.project.workspace.stop_task(task_id)

    def background_foreground(self) -> bool:
        """Ctrl+B: the Bash command running now goes on in the background, and the model is told its id; False
        if no command is running."""
        return self.project.workspace.shells.detach_foreground()

    async def aclose(self) -> None:
        """Stop what runs (background shells and sub-agents too), then close the session file (its last lines
        synced), the MCP servers and the provider's connections."""
        if self.agent.running:
            self.agent.cancel()
        if self._titling is not None:  # (a title on its way is written, unless the model takes too long)
            await asyncio.wait([self._titling], timeout=TITLE_WAIT)
            self._titling.cancel()
        await self.project.hooks.session_end(self.session_id)  # (a hook's failure is a notice, never raised)
        await self.project.workspace.stop_background()
        self.session.close(keep=self.launch.session.persist)
        await self.servers.aclose()
        await self.provider.aclose()
        await self.agent.router.aclose()
        if self.telemetry is not None:  # (the last spans and metrics go out, within a few seconds at most)
            await asyncio.to_thread(self.telemetry.close)
            self.telemetry = None


def _tool_servers(launch: Launch, project: Project, agent: Agent) -> ToolServers:
    """The conversation's MCP servers and APIs; their elicitation requests go to the front end if it answers them."""
    from agentui.core.extend.mcp.elicitation import Elicitations

    asks = Elicitations(agent.bus, lambda: agent.session_id, launch.answers_elicitation, project.hooks)
    return ToolServers(project, launch.mcp_configs, launch.strict_mcp, launch.settings.openapi, asks)


def _no_branches(branch_id: str, config: AttemptConfig, copy: WorkingCopy) -> Agent:
    raise RuntimeError("this conversation was not opened to make parallel attempts")

"""The one assembly of the core: a conversation opened from its launch options, the project, session, provider and
agent made and wired to each other here and nowhere else."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from agentui.core.context.history import History
from agentui.core.context.memory import MemoryLoader
from agentui.core.context.prompt import build_system_prompt
from agentui.core.context.window import TokenCounter
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import EventBus
from agentui.core.extend.output_styles import output_style
from agentui.core.extend.skills import load_skills
from agentui.core.instructions import system_prompt
from agentui.core.limit_question import LimitQuestion
from agentui.core.loop.agent import Agent
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.loop.services import Services
from agentui.core.loop.spawn import spawn
from agentui.core.project import Project, open_project
from agentui.core.providers import CLAUDE_PLATFORMS
from agentui.core.providers.retry import RetryPolicy
from agentui.core.session.store import open_session
from agentui.core.session.writer import timestamp

if TYPE_CHECKING:
    from pathlib import Path

    from agentui.core.background import ShellInfo
    from agentui.core.background_agents import AgentTask
    from agentui.core.context.memory import MemoryFile
    from agentui.core.context.prompt import SystemPrompt
    from agentui.core.messages import Message
    from agentui.core.parallel.attempts import AttemptConfig, BranchMaker
    from agentui.core.parallel.working_copy import WorkingCopy
    from agentui.core.profile import ProfileKeeper
    from agentui.core.providers.base import Provider
    from agentui.core.session.store import OpenSession
    from agentui.core.settings import Settings


def _work_as_launched(project: Project, launch: Launch) -> None:
    """What the launch says of how the tools work: through the front end's editor, and queueing plan mode's changes
    (the setting; the command line's `plan-queue` came with the permission options)."""
    project.workspace.editor = launch.editor
    if launch.settings.plan_queue and project.workspace.changes is not None:
        project.workspace.changes.enabled = True


def _with_claude_choices(launch: Launch, project: Project, env: Mapping[str, str] | None) -> Launch:
    """The launch with the model and effort Claude Code's settings choose where nothing else named them."""
    from dataclasses import replace

    from agentui.core.claude_choices import with_claude_choices

    chosen = with_claude_choices(launch.settings, project.sources, os.environ if env is None else env)
    return launch if chosen is launch.settings else replace(launch, settings=chosen)


def _retry_policy(settings: Settings, ask: LimitQuestion) -> RetryPolicy:
    return RetryPolicy(
        max_attempts=settings.max_attempts,
        max_retry_after=settings.max_retry_wait,
        wait_for_limits=bool(settings.wait_for_limits),
        max_limit_wait=settings.max_limit_wait_hours * 3600,
        confirm_long_wait=ask,
    )


def open_conversation(
    launch: Launch,
    *,
    project: Project | None = None,
    provider: Provider | None = None,
    on_error: Callable[[str], object] = lambda message: None,
    env: Mapping[str, str] | None = None,
) -> Conversation:
    """A conversation from its launch options: the project (unless given), the session the launch asks for, the
    provider (unless given), and an agent wired to them, its tools, hooks, telemetry and task list."""
    project = project or open_project(launch.cwd, launch.permissions, env=env)
    launch = _with_claude_choices(launch, project, env)
    session = open_session(launch.session, project.root, env=env, on_error=on_error)
    project.hooks.transcript_path = lambda: str(session.path)
    _work_as_launched(project, launch)
    memory = _memory(project, launch, env, on_error)
    skills = load_skills(project.root, env)
    for directory in {skill.path.parent.parent for skill in skills}:
        # A skill's files are read without asking, wherever the skill lives (deny rules still apply).
        project.engine.add_rule(f"Read(//{str(directory).lstrip('/')}/**)", "allow", "skills")
    prompt, keeper = _prompt(launch, project, list(memory.files), session.session_id, env)
    if provider is None:
        from agentui.core.providers import create_provider

        provider = create_provider(launch.settings.provider_config())
    settings = launch.settings
    config = _agent_config(launch, prompt.stable, prompt.volatile, project.root, bool(session.messages))
    from agentui.core.extend.command_prompt import take_command
    from agentui.core.extend.listings import Listings
    from agentui.core.telemetry import start as start_telemetry
    from agentui.core.tools.plan import plan_mode_reminders

    telemetry = start_telemetry(os.environ if env is None else env, session.session_id, on_error)
    router = None
    if settings.routes:
        from agentui.core.loop.routing import Router

        router = Router(provider, settings, env, on_error)
    shells = project.workspace.shells
    bus = EventBus()  # (a long limit wait asks the person on it)
    services = Services(
        provider,
        project.tools,
        project.engine,
        bus=bus,
        retry=_retry_policy(settings, LimitQuestion(bus, lambda: agent.session_id, launch.answers_elicitation)),
        router=router,
        hooks=project.hooks,
        memory=memory,
        reminders=plan_mode_reminders(project.engine),
        notices=project.workspace.notices.take_reminder,
        listings=Listings(project.tools, skills),
        command=lambda: take_command(project),
        quiet=lambda: not shells.running(),  # (a background command may write at any time)
        round_cost=keeper.cost_per_round,
    )
    history = History(session.messages, TokenCounter(env, exact=False))
    agent = Agent(config, services, history, session_id=session.session_id)
    if telemetry is not None:  # (first on the bus: its spans start before a front end's work on an event)
        agent.bus.on(telemetry.on_event)
    session.writer.attach(agent.bus)
    _wire_profile(agent, keeper, project, settings)
    agent.on_write(session.writer.before_change)
    session.writer.on_error = agent.warn  # (from now on, as events: a front end shows them as they happen)
    from agentui.core.session.shell_snapshots import BeforeBash

    agent.on_shell(BeforeBash(project.root, session.session_id, timestamp, agent.warn))
    _wire_task_state(project, agent, session.messages, env)
    _wire_learnings(launch, project, agent, env)
    _wire_tools(launch, project, session, agent, provider, env)
    branches = _branch_maker(launch, project, agent, provider, env)
    opener = partial(open_conversation, on_error=on_error, env=env)  # (a branch's: on a fork, its own provider)
    conversation = Conversation(launch, project, session, provider, agent, env, branches, telemetry, opener)
    if telemetry is not None:
        conversation.on_subagent(telemetry.on_subagent_event)
    for problem in conversation.add_agent_types(launch.agents or {}):
        on_error(f"--agents: {problem}")
    if settings.model_alias == "opusplan":  # (Opus while planning, Sonnet otherwise: the mode is watched)
        conversation.set_model(settings.model_alias)
    return conversation


def _task_summary(shell: ShellInfo) -> dict[str, Any]:
    """A background shell as Claude Code's Stop hook input lists its background work."""
    said = shell.description or shell.command
    return {"id": shell.id, "type": "shell", "status": shell.status, "description": said[:1000],
            "command": shell.command[:1000]}  # fmt: skip


def _agent_summary(task: AgentTask) -> dict[str, Any]:
    """A background sub-agent (running, or waiting for a slot) as Claude Code's Stop hook input lists it."""
    return {"id": task.id, "type": "subagent", "status": task.status, "description": task.description[:1000],
            "agent_type": task.agent_type}  # fmt: skip


def _wire_learnings(launch: Launch, project: Project, agent: Agent, env: Mapping[str, str] | None) -> None:
    """Memory that learns (context/learner.py), unless the settings turn it off."""
    if not launch.settings.learnings:
        return
    from agentui.core.context.learner import Learner

    agent.bus.on(Learner(agent, project.root, env, lambda: project.trusted).on_event)


def _wire_task_state(
    project: Project, agent: Agent, history: list[Message], env: Mapping[str, str] | None = None
) -> None:
    """A new task list for the conversation (rebuilt from a resumed one's calls), and events for it and for the
    background shells and sub-agents (and the Stop hooks' list of them). A session that kept its list with TodoWrite
    goes on being offered TodoWrite. A task list `CLAUDE_CODE_TASK_LIST_ID` names is shared: its tasks are on disk."""
    from agentui.core.dirs import claude_config_dir
    from agentui.core.events import BackgroundAgentUpdate, BackgroundShellUpdate, TaskListUpdate
    from agentui.core.tools.tasks import TASK_LIST_TOOLS

    workspace, session_id = project.workspace, agent.session_id
    workspace.new_conversation()
    board = workspace.tasks
    from agentui.core.task_files import TaskFiles, shared_list

    environ = os.environ if env is None else env
    if (shared := shared_list(environ, claude_config_dir(environ))) is not None:
        board.share(TaskFiles(shared))  # (goals kept across sessions: CLAUDE_CODE_TASK_LIST_ID)
    board.replay(history)
    used = {block.name for message in history for block in message.tool_uses}
    todo_write = "TodoWrite" in used and not used & {"TaskCreate", "TaskUpdate"}  # (the calls that keep a list)
    for tool in project.tools:
        if tool.name == "TodoWrite":
            tool.offered = todo_write
        elif tool.name in TASK_LIST_TOOLS:
            tool.offered = not todo_write
    board.on_change = lambda tasks: agent.bus.emit(TaskListUpdate(session_id=session_id, tasks=tasks))
    shells, agents = workspace.shells, workspace.agents  # (what a Stop hook is told is in flight)
    project.hooks.background_tasks = lambda: [
        *(_task_summary(shell.info()) for shell in shells.running()),
        *(_agent_summary(task) for task in agents.running()),
    ]
    workspace.notices.listen(agent.bus.on)
    workspace.shells.on_change = lambda info: agent.bus.emit(
        BackgroundShellUpdate(
            session_id=session_id,
            shell_id=info.id,
            command=info.command,
            description=info.description,
            status=info.status,
            exit_code=info.exit_code,
            output_path=str(info.output_path),
        )
    )
    workspace.agents.on_change = lambda task: agent.bus.emit(
        BackgroundAgentUpdate(
            session_id=session_id, task_id=task.id, tool_call_id=task.tool_use_id, description=task.description,
            agent_type=task.agent_type, status=task.status, output_path=task.output_path, result=task.result,
            error=task.error, total_tokens=task.total_tokens, tool_uses=task.tool_uses, duration_ms=task.duration_ms,
        )
    )  # fmt: skip


def _wire_lsp(launch: Launch, project: Project, env: Mapping[str, str] | None) -> None:
    """Diagnostics after each edit and the LSP tool, where a language server is installed and the settings allow."""
    from agentui.core.lsp.setup import open_servers
    from agentui.core.tools.lsp import Lsp

    settings, workspace = launch.settings, project.workspace
    if workspace.lsp is None or not settings.lsp:  # (a project reopened keeps its servers, restarted when wanted)
        where = os.environ if env is None else env
        workspace.lsp = open_servers(
            settings.lsp, settings.lsp_wait, project.root, where, project.hooks.guard, lambda: project.trusted
        )
    project.tools.unregister(Lsp.name)
    if workspace.lsp is not None:
        project.tools.register(Lsp(workspace))


def _register_web_tools(project: Project, agent: Agent, settings: Settings) -> None:
    """WebFetch, answering over a page with the small model, and WebSearch where the provider searches (on the
    conversation's provider, in its cost)."""
    from agentui.core.loop.side_call import side_call, side_search
    from agentui.core.tools.web_fetch import ANSWER_SYSTEM, WebFetch
    from agentui.core.tools.web_search import SearchOutcome, WebSearch

    model = settings.small_model or settings.model

    async def answer(text: str) -> str:
        return await side_call(agent, "webfetch", model, ANSWER_SYSTEM, text)

    async def search(query: str, allowed: list[str] | None, blocked: list[str] | None) -> SearchOutcome:
        return await side_search(agent, agent.config.model, query, allowed, blocked)

    searches = agent.services.provider.name == "anthropic"  # (the Messages API's server-side search; no other has one)
    for tool in (
        WebFetch(project.engine, answer),
        WebSearch(search if searches else None, agent.services.provider.name),
    ):
        project.tools.unregister(tool.name)  # (a project reopened for a new conversation had the old one's)
        project.tools.register(tool)


def _register_skill_tool(project: Project, agent: Agent, env: Mapping[str, str] | None, settings: Settings) -> None:
    """The Skill tool, reading the skills afresh at each call; what a skill allows, and the model it names, hold
    until the run ends."""
    from agentui.core.events import AgentEnd, Event
    from agentui.core.extend.command_prompt import expand_shell
    from agentui.core.extend.skills import Skill, load_skills
    from agentui.core.loop.prompt_message import unseen_bash
    from agentui.core.safety.permissions.grants import RunGrants
    from agentui.core.tools.skill import Skill as SkillTool

    grants = RunGrants(project.engine)
    models: list[tuple[str, str]] = []  # (the conversation's model, and the skill's answering the run instead)

    def use_model(typed: str) -> None:
        from agentui.core.model_aliases import resolve

        chosen = resolve(
            typed, settings.provider, os.environ if env is None else env, settings.default_model or settings.model
        ).model
        models.append((models[0][0] if models else agent.config.model, chosen))
        agent.config = agent.config.model_copy(update={"model": chosen})

    def ended(event: Event) -> None:
        if isinstance(event, AgentEnd) and event.loop_id is None:
            grants.end()
            if models and agent.config.model == models[-1][1]:  # (unless it was changed meanwhile)
                agent.config = agent.config.model_copy(update={"model": models[0][0]})
            models.clear()

    agent.bus.on(ended)

    def skills() -> dict[str, Skill]:
        return {skill.name: skill for skill in load_skills(project.root, env)}

    project.tools.unregister(SkillTool.name)  # (a project reopened for a new conversation had the old one's)

    def shell(name: str, text: str) -> Awaitable[tuple[str, str | None]]:
        return expand_shell(text, lambda line: unseen_bash(agent, f"{name} skill", line))

    project.tools.register(SkillTool(skills, grants.grant, lambda: project.trusted, shell, use_model))


def _keep_tools(project: Project, names: tuple[str, ...]) -> None:
    """--tools: only these built-in tools (by either of their names) stay; "default" keeps them all."""
    if "default" in names:
        return
    wanted = set(names)
    for tool in list(project.tools):
        if not tool.name.startswith(("mcp__", "openapi__")) and not ({tool.name, *tool.aliases} & wanted):
            project.tools.unregister(tool.name)


def _branch_maker(
    launch: Launch, project: Project, agent: Agent, provider: Provider, env: Mapping[str, str] | None
) -> BranchMaker:
    """What makes each branch of the conversation's parallel attempts: the conversation so far (as it is when the
    branch is made), under the same rules, working in the branch's copy."""

    def branch(branch_id: str, config: AttemptConfig, copy: WorkingCopy) -> Agent:
        own = open_project(copy.root, launch.permissions, env=env, trusted=project.trusted)
        own.engine.mode = project.engine.mode  # (as the conversation is now, not as it was launched)
        parent = agent.config
        system = parent.system_prompt + (f"\n\n{config.system_append}" if config.system_append else "")
        agent_config = parent.model_copy(
            update={
                "model": config.model or parent.model,
                "system_prompt": system,
                "environment": build_system_prompt(own.root).volatile,  # (its working directory is the copy)
                "options": parent.options.model_copy(
                    update={"thinking_budget": config.thinking_budget or parent.options.thinking_budget}
                ),
                "cwd": own.root,
            }
        )
        chosen = provider
        if config.settings is not None:  # (a branch on another provider: its own client, closed after its run)
            from agentui.core.providers import create_provider

            chosen = create_provider(config.settings.provider_config())
            agent_config = agent_config.model_copy(update={"model": config.settings.model})
        from agentui.core.tools.findings import finding_tools

        member = agent.member.spawn(f"attempt {branch_id}", own.root)  # (claims are on the copy's own paths)
        for tool in finding_tools(member):  # (what one attempt finds, the others may read)
            own.tools.register(tool)
        return spawn(
            agent,
            chosen,
            agent_config,
            tools=own.tools,
            gate=own.engine,
            hooks=own.hooks,
            sub_agent=False,
            messages=list(agent.messages),
            member=member,
        )

    return branch


def _memory(
    project: Project, launch: Launch, env: Mapping[str, str] | None, on_error: Callable[[str], object]
) -> MemoryLoader:
    """The memory files of the conversation's start, read, each notice about them told."""
    memory = MemoryLoader(
        project.root,
        env,
        trusted=project.trusted,
        denied=project.engine.read_denied,
        agents_md=launch.settings.agents_md,
    )
    memory.load()
    for notice in memory.notices:
        on_error(notice)
    return memory


def _agent_config(launch: Launch, stable: str, volatile: str, root: Path, resumed: bool) -> AgentConfig:
    """The agent's configuration: the model and its limits from the settings, each limit the command line gives
    taking the place of the settings' own."""
    settings = launch.settings
    return AgentConfig(
        model=settings.model,
        system_prompt=stable,
        environment=volatile,
        max_turns=launch.max_turns,
        limits=launch.limits.over(settings.limits),
        fallback_model=launch.fallback_model,
        options=settings.options,
        cwd=root,
        resumed=resumed,
    )


def _prompt(
    launch: Launch, project: Project, memory: list[MemoryFile], session_id: str, env: Mapping[str, str] | None
) -> tuple[SystemPrompt, ProfileKeeper]:
    """The system prompt, with the project's standing instructions, and the agent profile they come from."""
    from agentui.core.profile import ProfileKeeper

    keeper = ProfileKeeper(project.root, session_id, env)
    style = output_style(project.root, env, project.trusted)
    return system_prompt(launch, project.root, memory, style, keeper.profile.instructions), keeper


def _wire_profile(agent: Agent, keeper: ProfileKeeper, project: Project, settings: Settings) -> None:
    """What listens to the agent: hooks that ask its model; the agent profile, which learns from each run; the
    context advisories; the tool filter, which ranks by the profile."""
    from agentui.core.context.advisory import ContextAdvisor
    from agentui.core.loop.hook_models import AgentHookModels

    project.hooks.last_answer = agent.history.last_answer
    project.hooks.models = AgentHookModels(agent, settings.small_model)  # (prompt and agent hooks ask its model)
    from agentui.core.events import Event, UserMessage
    from agentui.core.tools.question import AskUserQuestion
    from agentui.core.tools.tool_filter import ToolFilter
    from agentui.core.tools.tool_search import ToolSearch

    agent.bus.on(keeper)
    agent.bus.on(ContextAdvisor(agent.session_id, agent.bus.emit))
    chooser = ToolFilter(settings.tool_filter_limit, lambda: keeper.profile.tools)
    chooser.search = ToolSearch(project.tools, chooser)
    project.tools.unregister(ToolSearch.name)  # (a project reopened for a new conversation had the old one's)
    project.tools.register(chooser.search)
    project.tools.chooser = chooser.choose
    if project.tools.get(AskUserQuestion.name) is not None:
        project.tools.unregister(AskUserQuestion.name)  # (with the setting's wait, question_timeout)
        project.tools.register(AskUserQuestion(settings.question_timeout))

    def prompted(event: Event) -> None:
        if isinstance(event, UserMessage) and event.source == "prompt" and event.loop_id is None:
            chooser.note(event.message.text)

    agent.bus.on(prompted)


def _wire_tools(
    launch: Launch,
    project: Project,
    session: OpenSession,
    agent: Agent,
    provider: Provider,
    env: Mapping[str, str] | None,
) -> None:
    """The tools that need the agent or the launch: plan mode's reminders, sub-agents (Task), the web tools, the
    launch's choice of tools, structured output; the session's name, and the input filters."""
    from agentui.core.extend.subagents import Task, load_agent_types

    project.hooks.input_filters = launch.settings.input_filters  # (each prompt the person sends is read first)
    project.tools.unregister(Task.name)  # (a project reopened for a new conversation had the old one's)
    project.tools.register(
        Task(
            agent,
            load_agent_types(project.root, env),
            transcript_dir=session.path.parent / session.session_id / "subagents",
            env=env,
            agents=project.workspace.agents,
            small_model=launch.settings.small_model,
        )
    )
    _register_web_tools(project, agent, launch.settings)
    _register_skill_tool(project, agent, env, launch.settings)
    _wire_lsp(launch, project, env)
    if launch.tools is not None:
        _keep_tools(project, launch.tools)
    if launch.name:
        session.writer.rename(launch.name)
    project.workspace.reads_documents = provider.name in CLAUDE_PLATFORMS
    if launch.json_schema is not None:
        from agentui.core.tools.structured_output import StructuredOutput

        project.tools.unregister(StructuredOutput.name)
        project.tools.register(StructuredOutput(launch.json_schema))

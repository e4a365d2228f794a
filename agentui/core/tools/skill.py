"""The Skill tool, as Claude Code 2.1.197 has it: the model loads a skill by name; the result says "Launching skill:
NAME", and the skill's instructions (its base directory first, so its supporting files can be read) follow the
result in the same message, recorded as a line of their own as Claude Code records them. A skill's `allowed-tools`
hold until the run ends, a project's only once the project is trusted (as a project's custom commands)."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar, Protocol, TypedDict

from pydantic import Field

from agentui.core.call_views import ResultView, Shown
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolKind, ToolResult

SKILL_LOADED = "Base directory for this skill: "
"""How the instructions a loaded skill gives the model begin (Claude Code's words)."""

DESCRIPTION = """Execute a skill within the main conversation

When users ask you to perform tasks, check if any of the available skills match. Skills provide specialized \
capabilities and domain knowledge.

When users reference a "slash command" or "/<something>", they are referring to a skill. Use this tool to invoke it.

How to invoke:
- Set `skill` to the exact name of an available skill (no leading slash). For plugin-namespaced skills use the fully \
qualified `plugin:skill` form.
- Set `args` to pass optional arguments.

Important:
- Available skills are listed in system-reminder messages in the conversation
- Only invoke a skill that appears in that list, or one the user explicitly typed as `/<name>` in their message. \
Never guess or invent a skill name from training data; otherwise do not call this tool
- When a skill matches the user's request, this is a BLOCKING REQUIREMENT: invoke the relevant Skill tool BEFORE \
generating any other response about the task
- NEVER mention a skill without actually calling this tool
- Do not invoke a skill that is already running
- Do not use this tool for built-in CLI commands (like /help, /clear, etc.)
- If you see a <command-name> tag in the current conversation turn, the skill has ALREADY been loaded - follow the \
instructions directly instead of calling this tool again
"""


class Loadable(Protocol):
    """A skill as the tool sees it (`extend.skills.Skill` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def allowed_tools(self) -> tuple[str, ...]: ...

    @property
    def model_invocable(self) -> bool: ...

    @property
    def model(self) -> str: ...

    @property
    def needs_trust(self) -> bool: ...

    def prompt(self, arguments: str, session_id: str) -> str | None: ...


class SkillArgs(ToolArgs):
    skill: str = Field(description="The name of a skill from the available-skills list. Do not guess names.")
    args: str | None = Field(default=None, description="Optional arguments for the skill")


class SkillDetails(TypedDict, total=False):
    """Claude Code's toolUseResult of a skill loaded in the conversation."""

    success: bool
    commandName: str
    allowedTools: list[str]
    model: str


class Skill(Tool[SkillArgs]):
    name = "Skill"
    description = DESCRIPTION
    Args = SkillArgs
    Details = SkillDetails
    kind: ClassVar[ToolKind] = "read"
    shown: ClassVar[Shown] = "read"

    def __init__(
        self,
        skills: Callable[[], Mapping[str, Loadable]],
        grant: Callable[[list[str], str], list[str]],
        trusted: Callable[[], bool],
        shell: Callable[[str, str], Awaitable[tuple[str, str | None]]] | None = None,
        use_model: Callable[[str], None] | None = None,
    ) -> None:
        self.skills = skills
        """The skills there are now, by name (read again at each call: a skill added meanwhile is found)."""
        self.grant = grant
        """Allows rules until the run ends; a sentence for each that could not be parsed."""
        self.trusted = trusted
        self.shell = shell
        self.use_model = use_model
        """Has the model a skill names answer the rest of the run."""
        """Runs a skill's shell commands (`!`cmd``), each checked as a Bash call: (skill, text) -> (the text with their
        output, or as it was with the sentence saying which was refused or failed)."""

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Any) -> str:
        return str(arguments.get("skill") or "")

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        tools = details.get("allowedTools") or []
        allowed = f", {len(tools)} tool{'s' if len(tools) != 1 else ''} allowed" if tools else ""
        return ResultView(f"Successfully loaded skill{allowed}")

    def grants(self, args: SkillArgs) -> tuple[str, ...]:
        """The rules loading this skill would grant (Claude Code asks before loading a skill that grants any)."""
        found = self.skills().get(_name(args.skill))
        return found.allowed_tools if found is not None else ()

    async def run(self, args: SkillArgs, ctx: ToolContext) -> ToolResult:
        name = _name(args.skill)
        if not name:
            return ToolResult.error(f"Invalid skill format: {args.skill}")
        skills = self.skills()
        found = skills.get(name)
        if found is None:
            close = difflib.get_close_matches(name, list(skills), n=1, cutoff=0.75)
            return ToolResult.error(f"Unknown skill: {name}" + (f". Did you mean {close[0]}?" if close else ""))
        if not found.model_invocable:
            return ToolResult.error(f"Skill {name} cannot be used with Skill tool due to disable-model-invocation")
        prompt = found.prompt(args.args or "", ctx.session_id)
        if prompt is None:
            return ToolResult.error(f"The skill {name}'s SKILL.md could not be read.")
        details: dict[str, Any] = {"success": True, "commandName": name}
        if found.allowed_tools:
            details["allowedTools"] = list(found.allowed_tools)
            self._grant(found)  # (before its shell commands run: they are allowed by it too, as Claude Code's)
        if self.shell is not None and "!" in prompt:
            prompt, refused = await self.shell(name, prompt)
            if refused is not None:
                return ToolResult.error(refused)
        if found.model:
            details["model"] = found.model
            if self.use_model is not None:
                self.use_model(found.model)
        return ToolResult(f"Launching skill: {name}", details, context=(prompt,))

    def _grant(self, found: Loadable) -> None:
        """A project's skill grants nothing until the project is trusted: its tools are asked for as usual."""
        if found.needs_trust and not self.trusted():
            return
        self.grant(list(found.allowed_tools), f"skill {found.name}")


def _name(typed: str) -> str:
    return typed.strip().removeprefix("/")

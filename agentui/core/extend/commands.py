"""Custom slash commands from `.claude/commands/**/*.md` and `~/.claude/commands/`
(Claude Code's format: optional front matter with `description`, `argument-hint`, `allowed-tools`; the body is the
prompt, with `$ARGUMENTS` and `$1`..`$9` filled in)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.dirs import claude_config_dir
from agentui.core.extend.extension_files import extension_text, in_project
from agentui.core.frontmatter import body_of, listed, parse_front_matter

if TYPE_CHECKING:
    from agentui.core.project import Project


@dataclass(frozen=True)
class CustomCommand:
    name: str
    body: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = field(default=())
    path: Path | None = None
    project_plugin: bool = False
    """A plugin's that only the project's own settings turn on: what it grants waits for trust, as theirs does."""
    model: str = ""
    """The model its run uses ("" or "inherit": the conversation's)."""

    def expand(self, arguments: str) -> str:
        """The prompt, with the arguments filled in as Claude Code fills them (`$ARGUMENTS`, `$0`, `$1`...)."""
        from agentui.core.extend.arguments import fill_arguments

        return fill_arguments(self.body, arguments)


def load_custom_commands(project_root: Path, env: Mapping[str, str] | None = None) -> dict[str, CustomCommand]:
    """User commands first, then the project's (which win on a clash); `a/b.md` is `/a:b`."""
    from agentui.core.extend.plugins.enabled import part_directories

    commands: dict[str, CustomCommand] = {}
    plugins = [(directory, plugin) for plugin, directory in part_directories("commands", project_root, env)]
    for directory, plugin in [*plugins, *((d, None) for d in (claude_config_dir(env) / "commands",
                                                               project_root / ".claude" / "commands"))]:  # fmt: skip
        for path in sorted(directory.rglob("*.md")) if directory.is_dir() else []:
            held = plugin.root if plugin is not None else in_project(directory, project_root)
            if (text := extension_text(path, held)) is None:
                continue  # (not a regular file, or a project's link out of it: see extension_files)
            meta, body = parse_front_matter(text)[0], body_of(text)
            name = ":".join(path.relative_to(directory).with_suffix("").parts)
            if plugin is not None:  # (`/hello:hi`, with the plugin's directory written in, as Claude Code's)
                name, body = f"{plugin.name}:{name}", plugin.expand(body)
            tools = listed(meta, "allowed-tools")
            commands[name] = CustomCommand(
                name, body, meta.get("description", ""), meta.get("argument-hint", ""), tools, path,
                plugin is not None and plugin.from_project, meta.get("model", ""),
            )  # fmt: skip
    return commands


def skill_command(name: str, root: Path, env: Mapping[str, str] | None) -> CustomCommand | None:
    """A skill typed as a command (`/greet Bob`), as Claude Code runs one: its instructions, base directory first,
    are the prompt, and its allowed-tools hold as a command's do."""
    from agentui.core.extend.skills import load_skills, skill_text

    skill = next((skill for skill in load_skills(root, env) if skill.name == name), None)
    if skill is None or (body := skill_text(skill)) is None:
        return None
    plugin = skill.source == "plugin"  # (a plugin's may be one only the project turned on: its grants wait for trust)
    return CustomCommand(name, body, skill.description, "", skill.allowed_tools, skill.path, plugin, skill.model)


def expand_custom_command(
    text: str,
    project: Project,
    env: Mapping[str, str] | None,
    running: bool,
    grant: Callable[[list[str], str], list[str]],
    record: Callable[[str], None] = lambda text: None,
) -> tuple[str, list[str]] | None:
    """A prompt that starts with a custom command (`/name arguments`): the command's prompt, with its
    `allowed-tools` granted (by `grant`) until the run ends, a project's command's only once the `project` is trusted,
    like its settings; and a sentence for each thing not granted. None if no custom command has that name. The
    command as typed goes to `record` first, as Claude Code records it before the prompt (the model reads both; a
    viewer shows the command, not its expansion). The run it starts tells the UserPromptExpansion hooks first."""
    name, _, arguments = text.strip()[1:].partition(" ")
    root = project.root
    if not text.strip().startswith("/"):
        return None
    command = load_custom_commands(root, env).get(name) or skill_command(name, root, env)
    if command is None:
        return None
    notices: list[str] = []
    if command.allowed_tools and not running:
        from_project = command.project_plugin or (command.path is not None and root in command.path.parents)
        if from_project and not project.trusted:
            notices.append(
                f"/{command.name} asks for {', '.join(command.allowed_tools)}; this project is not trusted, "
                "so they are asked for as usual."
            )
        else:
            problems = grant(list(command.allowed_tools), f"command /{command.name}")
            notices += [f"/{command.name}: {problem}" for problem in problems]
    from agentui.core.messages import command_record

    record(command_record(name, arguments.strip()))
    if not running:  # (a command sent while a run goes on steers it: no prompt of its own)
        from_project = command.path is not None and root in command.path.parents
        project.hooks.expansion = (name, arguments.strip(), "projectSettings" if from_project else "userSettings")
    prompt = command.expand(arguments.strip())
    if not running:  # (its shell commands run, and its model answers, with the run of this prompt)
        from agentui.core.extend.command_prompt import CommandPrompt

        project.next_command = CommandPrompt(command.name, prompt, command.model)
    return prompt, notices

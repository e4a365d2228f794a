"""Skills, as Claude Code has them: a `SKILL.md` in each directory of `~/.claude/skills/`, the project's
`.claude/skills/` and enabled plugins', whose front matter names and describes it. The model is told what skills
exist in Claude Code's listing reminder (extend.listings) and loads one with the Skill tool (tools.skill) when a task
calls for it, so a skill costs a line of context until it is used."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.dirs import claude_config_dir
from agentui.core.extend.extension_files import extension_text, in_project
from agentui.core.frontmatter import listed, parse_front_matter

if TYPE_CHECKING:
    from agentui.core.extend.plugins.enabled import Plugin

MAX_DESCRIPTION = 500


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    """The SKILL.md file."""
    source: str = "user"
    """Where it comes from: "user", "project" or "plugin" (as /skills says)."""
    allowed_tools: tuple[str, ...] = ()
    """Rules its `allowed-tools` grants while it runs (a skill with some asks before it loads, as Claude Code's)."""
    model_invocable: bool = True
    """False when its front matter says `disable-model-invocation: true`: the person's to run, not the model's."""
    plugin: Plugin | None = None
    """The enabled plugin it comes with."""
    model: str = ""
    """The model that answers the rest of the run once it is loaded ("" or "inherit": the conversation's)."""

    @property
    def needs_trust(self) -> bool:
        """What it grants waits for the project's trust: the project's own, or a plugin only the project turns on."""
        return self.source == "project" or (self.plugin is not None and self.plugin.from_project)

    def prompt(self, arguments: str, session_id: str) -> str | None:
        return skill_prompt(self, arguments, session_id)

    @property
    def directory(self) -> Path:
        """Its base directory, where its supporting files are."""
        return self.path.parent


def skill_directories(project_root: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """The person's skills, then the project's (which win on a clash of names)."""
    return [claude_config_dir(env) / "skills", project_root / ".claude" / "skills"]


def load_skills(project_root: Path, env: Mapping[str, str] | None = None) -> list[Skill]:
    from agentui.core.extend.plugins.enabled import part_directories

    skills: dict[str, Skill] = {}
    plugins = [(directory, plugin) for plugin, directory in part_directories("skills", project_root, env)]
    for directory, plugin in [*plugins, *((d, None) for d in skill_directories(project_root, env))]:
        for path in sorted(directory.glob("*/SKILL.md")) if directory.is_dir() else []:
            held = plugin.root if plugin is not None else in_project(directory, project_root)
            if (text := extension_text(path, held)) is None:
                continue  # (not a regular file, or a project's link out of it: see extension_files)
            meta, body = parse_front_matter(text)
            name = meta.get("name") or path.parent.name
            name = f"{plugin.name}:{name}" if plugin is not None else name  # (`hello:greet`, as Claude Code's)
            description = " ".join((meta.get("description") or _first_line(body)).split())[:MAX_DESCRIPTION]
            source = "plugin" if plugin is not None else "project" if held is not None else "user"
            tools = listed(meta, "allowed-tools")
            tools = tuple(t.replace("${CLAUDE_SKILL_DIR}", str(path.parent)) for t in tools)
            invocable = meta.get("disable-model-invocation", "").strip().lower() != "true"
            model = "" if meta.get("model", "").strip() == "inherit" else meta.get("model", "").strip()
            skills[name] = Skill(name, description, path, source, tools, invocable, plugin, model)
    return list(skills.values())


def skill_text(skill: Skill) -> str | None:
    """What loading `skill` tells the model, as Claude Code words it, before its arguments go in: its base directory
    (so its supporting files can be read), then its instructions, its directories written in. None when its file can
    no longer be read."""
    from agentui.core.frontmatter import body_of
    from agentui.core.tools.skill import SKILL_LOADED

    root = skill.path.parents[3] if skill.source == "project" else None  # (project/.claude/skills/name/SKILL.md)
    if (text := extension_text(skill.path, skill.plugin.root if skill.plugin else root)) is None:
        return None
    prompt = f"{SKILL_LOADED}{skill.directory}\n\n{body_of(text)}"
    prompt = skill.plugin.expand(prompt) if skill.plugin else prompt  # (its ${CLAUDE_PLUGIN_ROOT}, as Claude Code's)
    return prompt.replace("${CLAUDE_SKILL_DIR}", str(skill.directory))


def skill_prompt(skill: Skill, arguments: str, session_id: str) -> str | None:
    """`skill_text` with the arguments filled in and the session named, as the Skill tool gives it."""
    from agentui.core.extend.arguments import fill_arguments

    if (text := skill_text(skill)) is None:
        return None
    return fill_arguments(text, arguments).replace("${CLAUDE_SESSION_ID}", session_id)


def render_skills(skills: list[Skill]) -> str:
    """The skills as Claude Code's listing reminder names them to the model."""
    from agentui.core.session.attachments import reminder, skill_listing

    listing = skill_listing({skill.name: skill.description for skill in skills}, set())
    return (reminder(listing) or "") if listing is not None else ""


def _first_line(body: str) -> str:
    return next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "")

"""Skills, as Claude Code has them: a `SKILL.md` in each directory of `~/.claude/skills/` and the project's
`.claude/skills/`, whose front matter names and describes it. The model is told what skills exist (name,
description, file) in its system prompt, and as Claude Code tells it in a listing reminder (extend.listings), and
reads a skill's file itself when a task calls for it, so a skill costs a line or two of context until it is used."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentui.core.dirs import claude_config_dir
from agentui.core.extend.extension_files import extension_text, in_project
from agentui.core.frontmatter import parse_front_matter

MAX_DESCRIPTION = 500


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    """The SKILL.md file."""


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
            skills[name] = Skill(name, description, path)
    return list(skills.values())


def render_skills(skills: list[Skill]) -> str:
    lines = [f"- {skill.name}: {skill.description} ({skill.path})" for skill in skills]
    return (
        "Skills: instructions for particular kinds of task, each in a SKILL.md file. When a task matches a "
        "skill's description, Read its file first and follow it (files it mentions are relative to its "
        "directory). A reminder may list them as for a Skill tool; there is none here: Read the skill's file "
        "instead.\n" + "\n".join(lines)
    )


def _first_line(body: str) -> str:
    return next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "")

"""/skills: the skills the model can load with its Skill tool, each with where it comes from and what it is for."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


class Skills(SlashCommand):
    name, description = "skills", "List the skills the model can load"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import load_skills

        root = app.conversation.root if app.conversation else (app.launch.cwd if app.launch else Path.cwd())
        skills = sorted(load_skills(root, app.env), key=lambda skill: skill.name.casefold())
        if not skills:
            app.say(
                "No skills yet: a skill is a SKILL.md in a folder of .claude/skills/ (this project's) or "
                "~/.claude/skills/ (yours), or comes with a plugin."
            )
            return
        lines = [f"Skills ({len(skills)}), which the model loads with its Skill tool:"]
        lines += [f"  {skill.name} · {skill.source} — {skill.description}" for skill in skills]
        app.say("\n".join(lines))

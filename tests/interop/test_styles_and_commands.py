"""Output styles and custom commands against the real Claude Code 2.1.197, on one project and home: for the same
`outputStyle` setting both put the same "# Output Style" part in the system prompt; for the same custom command both
send the model the same expansion (arguments filled in, shell commands' output in place, `ARGUMENTS:` appended)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.interop.test_round_trips import World, text

PIRATE = "---\nname: Pirate\ndescription: Talks like a pirate\n---\nAlways answer like a pirate.\n"
KEEPER = "---\nname: Keeper\ndescription: Keeps coding\nkeep-coding-instructions: true\n---\nBe terse.\n"


def style_part(body: dict[str, Any]) -> str:
    """The output style's part of a request's system prompt: from its heading to the next heading of the same level
    (Claude Code's own sections follow it), or to agentui's environment block (its style is the last instruction)."""
    system = (
        "\n".join(block["text"] for block in body["system"]) if isinstance(body["system"], list) else body["system"]
    )
    start = system.index("# Output Style: ")
    ends = [at for at in (system.find("\n\n# ", start), system.find("\n<env>", start)) if at != -1]
    return system[start : min(ends, default=len(system))].rstrip("\n")


@pytest.mark.parametrize("style", ["Explanatory", "Learning", "Pirate", "Keeper"])
def test_an_output_style_is_the_same_part_of_both_system_prompts(world: World, style: str) -> None:
    (world.project / ".claude" / "output-styles").mkdir(parents=True)
    (world.project / ".claude" / "output-styles" / "pirate.md").write_text(PIRATE)
    (world.project / ".claude" / "output-styles" / "keeper.md").write_text(KEEPER)
    (world.project / ".claude" / "settings.local.json").write_text(json.dumps({"outputStyle": style}))
    world.env["AGENTUI_DATA_DIR"] = str(world.home / "agentui-data")
    from agentui.core.safety.trust import trust

    trust(world.project, world.env)  # (a project's styles count once it is trusted: Claude Code's -p trusts it)
    world.play(lambda body: [text("Arr.")])
    parts = {}
    for maker in ("claude", "agentui"):
        world.server.requests.clear()
        world.run(maker, "hello")
        parts[maker] = style_part(next(r.json() for r in world.server.requests if "tools" in r.json()))
    assert parts["agentui"] == parts["claude"]
    assert parts["claude"].startswith(f"# Output Style: {style}\n")


def test_a_custom_commands_expansion_is_the_same_in_both(world: World) -> None:
    commands = world.project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "args.md").write_text("A=$1 Z=$0 ALL=$ARGUMENTS\nNow: !`echo hi there`\n")
    (commands / "plain.md").write_text("Plain body.\n")
    world.play(lambda body: [text("Done.")])
    said: dict[str, list[str]] = {}
    for maker in ("claude", "agentui"):
        said[maker] = []
        for typed in ("/args x y", "/plain foo bar", "/plain"):
            world.server.requests.clear()
            world.run(maker, typed)
            first = next(r.json() for r in world.server.requests if "tools" in r.json())
            blocks = [b for m in first["messages"] if isinstance(m["content"], list) for b in m["content"]]
            said[maker] += [b["text"].rstrip("\n") for b in blocks if not b["text"].startswith("<system-reminder>")]
    assert said["agentui"] == said["claude"]
    assert said["claude"][1::2] == [
        "A=y Z=x ALL=x y\nNow: hi there",
        "Plain body.\n\n\nARGUMENTS: foo bar",
        "Plain body.",
    ]
    assert said["claude"][4] == "<command-message>plain</command-message>\n<command-name>/plain</command-name>"


def test_the_init_message_names_the_style_as_claude_codes_does(world: World) -> None:
    import subprocess

    (world.home / ".claude" / "output-styles").mkdir(parents=True)
    (world.home / ".claude" / "output-styles" / "pirate.md").write_text(PIRATE)
    (world.home / ".claude" / "settings.json").write_text(json.dumps({"outputStyle": "Pirate"}))
    world.play(lambda body: [text("Arr.")])
    named = {}
    for maker in ("claude", "agentui"):
        done = subprocess.run(
            [world.bins[maker], "-p", "hello", "--model", "claude-sonnet-4-5", "--output-format", "stream-json",
             "--verbose"], env=world.env, cwd=world.project, capture_output=True, text=True, timeout=180,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        named[maker] = json.loads(done.stdout.splitlines()[0])["output_style"]
    assert named["agentui"] == named["claude"] == "Pirate"

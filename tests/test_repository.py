"""The repository keeps its promises: the README's test command is what CI runs (with lint and types before
the tests), and the themes are valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)\n```", (ROOT / "README.md").read_text(), flags=re.S)
    return [block.strip() for block in blocks[:2]]


def test_the_readme_has_two_set_up_commands_and_ci_runs_the_second_with_lint_and_types_before_the_tests() -> None:
    install_and_start, install_and_test = readme_commands()
    assert install_and_start.endswith("&& agentui")
    assert "'.[test]'" in install_and_test and install_and_test.endswith(" && python -m pytest")
    ci = [
        line
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]
    system_packages = [line for line in ci if line.startswith("need=()")]  # tools tests need, if missing
    install, tests = install_and_test.removesuffix(" && python -m pytest"), "python -m pytest"
    # (`|| exit 1`: under `set -e`, a check that fails before the last `&&` would not stop the run)
    checks = "ruff check . && ruff format --check . && mypy || exit 1"
    lines = [line.split("  #")[0] for line in ci]
    assert lines == [*system_packages, install, checks, tests] and len(system_packages) == 1
    assert all(tool in system_packages[0] for tool in ("tmux:tmux", "bwrap:bubblewrap", "tree:tree", 'npm:"nodejs'))


def test_every_theme_file_is_a_valid_textual_theme() -> None:
    from textual.theme import Theme

    files = sorted((ROOT / "themes").glob("*.json"))
    assert len(files) >= 2
    for path in files:
        data = json.loads(path.read_text())
        theme = Theme(**data)
        assert theme.name == path.stem
        assert theme.to_color_system().generate()["primary"]  # Textual can build a full palette from it


def test_the_example_memory_file_exists_with_commands() -> None:
    text = (ROOT / "CLAUDE.md.example").read_text()
    assert "## Commands" in text and "pytest" in text


def _table(heading: str) -> list[str]:
    """The rows of the README's table whose header row is `heading`."""
    lines = (ROOT / "README.md").read_text().splitlines()
    start = lines.index(heading) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_readme_keys_and_commands_are_what_help_shows() -> None:
    from agentui.frontends.tui.keys_help import KEYS
    from agentui.frontends.tui.slash_commands import COMMANDS

    assert _table("| key | does |") == [f"| {keys} | {does} |" for keys, does in KEYS]
    assert _table("| command | does |") == [f"| `/{name}` | {c.description} |" for name, c in COMMANDS.items()]


def test_every_seed_designs_part_is_in_agentui_with_a_test_that_exists() -> None:
    """The README's table of the seed designs' parts: each row says yes and names tests that are there to run."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Where the design comes from", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| seed")]
    assert len(rows) >= 25
    for row in rows:
        seed, _part, built, tests = (cell.strip() for cell in row.strip("|").split("|"))
        assert seed in ("Cersei", "attocode", "phi-core", "cinch-rs") and built == "yes", row
        named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", tests)
        assert named, row
        for path, name in named:
            source = (ROOT / path).read_text()
            assert re.search(rf"^(async )?def {name}\(", source, re.M), f"{path}::{name} is not there"

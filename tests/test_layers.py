"""The house's import rules hold: no circles among agentui's modules, nothing imports a layer above its own (the
core never a front end or the surface; the surface never a front end), tools never import the loop and guards never
import tools. CONTRIBUTING.md, "The layers", says why."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.layers import circles, imports, wrong_arrows

ROOT = Path(__file__).resolve().parents[1]


def test_agentui_has_no_circles_and_no_arrow_against_the_layers() -> None:
    graph = imports(ROOT)
    assert len(graph) > 150 and sum(map(len, graph.values())) > 500  # (the whole package was read)
    assert circles(graph) == []
    assert wrong_arrows(graph) == []


def test_a_planted_circle_and_planted_wrong_imports_are_found(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "agentui", tmp_path / "agentui", ignore=shutil.ignore_patterns("__pycache__"))
    plant = {
        "agentui/core/tools/read.py": "from agentui.core.loop.agent import Agent\n",  # a tool imports the loop
        "agentui/core/safety/permissions/rules.py": "from agentui.core import tools\n",  # a guard imports a tool
        "agentui/core/events.py": "def f():\n    from agentui.frontends.tui.app import AgentApp\n",  # up
        "agentui/core/dirs.py": "from agentui.core.errors import AgentuiError\n",
        "agentui/core/errors.py": "if False:\n    import agentui.core.dirs\n",  # a circle, however hidden
    }
    for name, text in plant.items():
        path = tmp_path / name
        path.write_text(path.read_text() + "\n" + text)
    graph = imports(tmp_path)
    assert ["agentui.core.dirs", "agentui.core.errors"] in circles(graph)
    wrong = wrong_arrows(graph)
    assert "agentui.core.tools.read -> agentui.core.loop.agent: a tool imports the loop" in wrong
    assert "agentui.core.safety.permissions.rules -> agentui.core.tools: a guard imports a tool" in wrong
    assert "agentui.core.events -> agentui.frontends.tui.app: core import front ends" in wrong
    assert len(wrong) == 3


def test_agents_are_made_in_two_places_and_given_their_services_at_construction() -> None:
    """The assembly makes the conversation's agent; spawn() makes every agent that works for another (a sub-agent,
    a branch of attempts). Neither is wired afterwards by setting what it shares on it."""
    import ast

    made, wired = set(), []
    shared = {"services", "lineage", "router", "reminders", "quiet", "parent", "telemetry"}
    for path in sorted((ROOT / "agentui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Agent":
                made.add(path.relative_to(ROOT / "agentui").as_posix())
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr in shared:
                        owner = target.value
                        if not (isinstance(owner, ast.Name) and owner.id == "self"):
                            wired.append(f"{path.name}:{node.lineno} {ast.unparse(target)}")
    assert made == {"core/assembly.py", "core/loop/spawn.py"}
    assert wired == []


def test_the_loop_and_the_conversation_stay_small() -> None:
    """What is not the loop lives beside it (history, inbox, steps, compaction, the ledger), and what is not the
    conversation's own in the assembly, the commands' dispatch and the tool servers."""
    import ast

    sizes = {}
    for path, name in (("core/loop/agent.py", "Agent"), ("core/conversation.py", "Conversation")):
        tree = ast.parse((ROOT / "agentui" / path).read_text())
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
        assert node.end_lineno is not None
        sizes[name] = node.end_lineno - node.lineno + 1
    assert sizes["Agent"] < 300 and sizes["Conversation"] < 400, sizes


def test_no_function_in_agentui_is_over_80_lines() -> None:
    import ast

    long = [
        f"{path.relative_to(ROOT)}: {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in sorted((ROOT / "agentui").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > 80
    ]
    assert long == []

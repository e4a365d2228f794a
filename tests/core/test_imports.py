"""The engine imports no UI library, and `--version` imports nothing heavy."""

from __future__ import annotations

import subprocess
import sys

CORE_IS_UI_FREE = """
import importlib, pkgutil, sys
import agentui.core
for module in pkgutil.walk_packages(agentui.core.__path__, "agentui.core."):
    importlib.import_module(module.name)
import agentui.headless
ui = sorted(name for name in sys.modules if name.split(".")[0] in ("textual", "rich"))
assert not ui, ui
print(len([m for m in sys.modules if m.startswith("agentui.core")]))
"""


def test_every_core_module_and_print_mode_import_without_textual_or_rich() -> None:
    done = subprocess.run([sys.executable, "-c", CORE_IS_UI_FREE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 15  # the walk really imported the package's modules


def test_version_answers_without_importing_the_engine() -> None:
    code = (
        "import sys; from agentui.cli import main; main(['--version']); "
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'httpx', 'agentui.core'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    version_line, modules = done.stdout.splitlines()
    assert version_line.endswith("(agentui)")
    assert modules == "[]"


def test_the_core_package_exports_what_it_lists() -> None:
    import importlib

    import agentui.core as core

    assert sorted(core.__all__) == sorted(core._EXPORTS)
    for name, module in core._EXPORTS.items():  # each resolves, lazily, to the object its module defines
        assert getattr(core, name) is getattr(importlib.import_module(module), name)


SURFACE = {"agentui.core.frontend", "agentui.core.conversation", "agentui.core.events", "agentui.core.messages"}


def test_the_front_ends_use_only_the_front_end_surface_of_the_core() -> None:
    # DESIGN: a front end (the app, print mode) imports the surface (core.frontend, which includes the
    # conversation), the events and the messages, and nothing else of the core; everything it does goes through them.
    import ast
    from pathlib import Path

    import agentui.headless
    import agentui.tui

    front_ends = [*Path(agentui.tui.__file__).parent.rglob("*.py"), Path(agentui.headless.__file__)]
    assert len(front_ends) > 20
    beyond = []
    for path in sorted(front_ends):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agentui.core"):
                names = {alias.name for alias in node.names}
                if node.module == "agentui.core" and names <= {"events", "messages"}:
                    continue  # (the modules themselves)
                if node.module not in SURFACE:
                    beyond.append(f"{path.name}: from {node.module} import {', '.join(sorted(names))}")
            elif isinstance(node, ast.Import):
                beyond += [
                    f"{path.name}: import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("agentui.core") and alias.name not in SURFACE
                ]
    assert beyond == []


def test_the_app_class_stays_small() -> None:
    # Issue 14: AgentApp does start-up, opening conversations and the prompt; what else it did lives in its parts
    # (the conversation view, the permission queue, the slash commands, the main screen).
    import ast
    from pathlib import Path

    import agentui.tui

    tree = ast.parse((Path(agentui.tui.__file__).parent / "app.py").read_text())
    (app,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "AgentApp"]
    assert app.end_lineno is not None and app.end_lineno - app.lineno + 1 < 300

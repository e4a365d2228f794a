"""The engine imports no UI library, and `--version` imports nothing heavy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

CORE_IS_UI_FREE = """
import importlib, pkgutil, sys
import agentui.core
for module in pkgutil.walk_packages(agentui.core.__path__, "agentui.core."):
    importlib.import_module(module.name)
import agentui.frontends.print.mode
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


def test_the_app_imports_without_the_engine() -> None:
    """The app draws its first frame before the engine loads (on a worker thread): the app and what it imports to
    draw it (the transcript, the tool blocks, the permission queue) pull in neither pydantic nor the tools."""
    code = (
        "import sys, agentui.frontends.tui.app, agentui.frontends.tui.permission_queue\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'agentui.core.tools'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_core_package_exports_what_it_lists() -> None:
    import importlib

    import agentui.core as core

    assert sorted(core.__all__) == sorted(core._EXPORTS)
    for name, module in core._EXPORTS.items():  # each resolves, lazily, to the object its module defines
        assert getattr(core, name) is getattr(importlib.import_module(module), name)


def imports_past_the_surface(paths: list[Path]) -> list[str]:
    """Every import of agentui in these files that is not the front-end surface (`agentui.api` and its events and
    messages), a front end, or the package's version."""
    allowed = ("agentui.api", "agentui.frontends")
    beyond = []
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [alias.name for alias in node.names]
                if node.module == "agentui" and names == ["__version__"]:
                    continue
                taken = [f"{node.module}.{name}" for name in names] if node.module == "agentui" else [node.module]
            elif isinstance(node, ast.Import):
                taken = [alias.name for alias in node.names]
            else:
                continue
            beyond += [
                f"{path.name}: {name}"
                for name in taken
                if name.split(".")[0] == "agentui" and not any(name == a or name.startswith(a + ".") for a in allowed)
            ]
    return beyond


def test_every_front_end_and_the_cli_use_only_the_front_end_surface() -> None:
    # DESIGN: a front end imports agentui.api (with its events and messages) and nothing else of the core;
    # everything it does goes through them. cli.py, which picks the front end, is held to the same.
    import agentui.cli
    import agentui.frontends

    package = Path(agentui.frontends.__file__).parent
    front_ends = [*package.rglob("*.py"), Path(agentui.cli.__file__)]
    kinds = {path.relative_to(package).parts[0] for path in front_ends if path.is_relative_to(package)}
    assert {"tui", "print", "claude_code", "acp", "eval"} <= kinds and len(front_ends) > 40
    assert imports_past_the_surface(front_ends) == []


def test_the_surface_check_finds_an_import_past_it(tmp_path: Path) -> None:
    planted = tmp_path / "front.py"
    planted.write_text(
        "from agentui import __version__\nfrom agentui.api import Conversation\nfrom agentui.api.events import Event\n"
        "def f():\n    from agentui.core.settings import Settings\n    import agentui.core.tools.bash\n"
        "from agentui import core\n"
    )
    assert sorted(imports_past_the_surface([planted])) == [
        "front.py: agentui.core",
        "front.py: agentui.core.settings",
        "front.py: agentui.core.tools.bash",
    ]


def test_the_app_class_stays_small() -> None:
    # Issue 14: AgentApp does start-up, opening conversations and the prompt; what else it did lives in its parts
    # (the conversation view, the permission queue, the slash commands, the main screen).
    import ast
    from pathlib import Path

    import agentui.frontends.tui

    tree = ast.parse((Path(agentui.frontends.tui.__file__).parent / "app.py").read_text())
    (app,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "AgentApp"]
    assert app.end_lineno is not None and app.end_lineno - app.lineno + 1 < 300


def test_the_front_end_surface_exports_what_it_lists() -> None:
    import importlib

    import agentui.api as api

    assert sorted(api.__all__) == sorted(api._EXPORTS)
    for name, where in api._EXPORTS.items():  # each resolves, lazily, to the object its module defines
        module, _, attribute = where.partition(":")
        assert getattr(api, name) is getattr(importlib.import_module(module), attribute or name)
    assert api.run_git is importlib.import_module("agentui.core.safety.confined_git").run


INTERNAL_ERRORS = {
    "agentui.core.safety.permissions.bash_words.NotUnderstood",  # (the allowlist's "ask": never reaches a front end)
    "agentui.core.safety.permissions.git_repository.CannotCheck",  # (a check that could not finish: it asks instead)
    "agentui.core.loop.steps.Cancelled",  # (out of a cancelled step to the loop, which ends the run "cancelled")
    "agentui.core.jsonfile.NotRegularError",  # (an OSError its readers turn into their own sentence)
}


def test_every_error_the_core_raises_has_one_root() -> None:
    import importlib
    import inspect
    import pkgutil

    import agentui.core
    from agentui.api import AgentuiError

    found = {}
    for info in pkgutil.walk_packages(agentui.core.__path__, "agentui.core."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            public = not name.startswith("_") and inspect.isclass(value) and value.__module__ == info.name
            if public and issubclass(value, Exception):
                found[f"{info.name}.{name}"] = value
    assert len(found) > 25  # (the walk found the core's errors)
    outside = sorted(name for name, error in found.items() if not issubclass(error, AgentuiError))
    assert outside == sorted(INTERNAL_ERRORS)


@pytest.mark.parametrize("name", ["events", "messages", "control"])
def test_the_surface_names_every_public_name_of_the_core_modules_it_stands_for(name: str) -> None:
    # (a new event, block or command is a front end's without an edit here being forgotten)
    import importlib

    core = importlib.import_module(f"agentui.core.{name}")
    api = importlib.import_module(f"agentui.api.{name}")
    defined = {
        key
        for key, value in vars(core).items()
        if not key.startswith("_")
        and getattr(value, "__module__", core.__name__) == core.__name__
        and not isinstance(value, type(importlib))
    }
    assert defined - {"annotations"} <= set(api.__all__)
    assert all(getattr(api, key) is getattr(core, key) for key in api.__all__)

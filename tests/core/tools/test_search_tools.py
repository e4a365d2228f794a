"""Grep (both engines, same results) and Glob on a real tree with .gitignore files, hidden files and binaries."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agentui.core.tools.base import ToolContext
from agentui.core.tools.glob import Glob, GlobArgs
from agentui.core.tools.globs import expand_braces
from agentui.core.tools.grep import Grep, GrepArgs
from agentui.core.tools.search import ripgrep_path
from agentui.core.workspace import Workspace

FILES: dict[str, bytes] = {
    ".gitignore": b"build/\n*.log\n!keep.log\n",
    "src/app.py": b"def main():\n    print('hello world')\n    return 0\n\n\ndef helper():\n    return 'Hello again'\n",
    "src/util.py": b"import os\n\nHELLO = 1\n",
    "src/sub/.gitignore": b"generated.py\n",
    "src/sub/generated.py": b"hello = 'generated'\n",
    "src/sub/real.py": b"x = 'hello'\ny = 2\nz = 3\nw = 'hello'\n",
    "build/out.py": b"hello from build\n",
    "debug.log": b"hello log\n",
    "keep.log": b"hello kept log\n",
    ".github/workflows/ci.yml": b"name: hello ci\n",
    ".git/config": b"[core] hello\n",
    "blob.bin": b"\x00\x01hello\x00",
    "crlf.txt": b"first\r\nsay hello\r\nlast\r\n",
    "utf16.txt": "hello in utf-16\n".encode("utf-16"),
    "docs/readme.md": b"# Title\nHello docs\n",
    "web/index.ts": b"const hello = 1;\n",
    "web/view.tsx": b"export const Hello = () => null;\n",
}


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "proj"
    for position, (name, data) in enumerate(sorted(FILES.items())):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (1_700_000_000 + position, 1_700_000_000 + position))  # distinct, known ages
    (root / "link.py").symlink_to(root / "src/app.py")
    return Workspace(root=root)


def ctx() -> ToolContext:
    return ToolContext(cwd=Path("."), session_id="s", tool_call_id="t")


async def grep(ws: Workspace, engine: str, **arguments: Any) -> str:
    tool = Grep(ws, use_ripgrep=(engine == "ripgrep"))
    assert tool.backend == engine
    result = await tool.run(GrepArgs.model_validate(arguments), ctx())
    assert isinstance(result.content, str)
    return result.content


def test_ripgrep_is_installed_for_the_tests() -> None:
    # The test extras install it (PyPI's `ripgrep`), so both engines are always exercised; no test is skipped.
    assert ripgrep_path() is not None


QUERIES: list[dict[str, Any]] = [
    {"pattern": "hello"},
    {"pattern": "hello", "-i": True},
    {"pattern": "hello", "output_mode": "content"},
    {"pattern": "hello", "output_mode": "count", "-i": True},
    {"pattern": "hello", "output_mode": "content", "-C": 1, "path": "src"},
    {"pattern": "hello", "output_mode": "content", "-A": 1, "-n": False, "path": "src/sub/real.py"},
    {"pattern": "return", "output_mode": "content", "-B": 2},
    {"pattern": "hello$", "output_mode": "content"},
    {"pattern": "hello", "glob": "*.py", "output_mode": "content"},
    {"pattern": "hello", "glob": "*.{ts,tsx}", "-i": True},
    {"pattern": "hello", "type": "py", "-i": True},
    {"pattern": "def main\\(\\):\\n\\s+print", "multiline": True, "output_mode": "content"},
    {"pattern": "hello", "head_limit": 2, "output_mode": "content"},
    {"pattern": "nothing-matches-this"},
    {"pattern": "nothing-matches-this", "output_mode": "content"},
]


@pytest.mark.parametrize("arguments", QUERIES, ids=[str(q) for q in QUERIES])
async def test_both_engines_give_the_same_text(ws: Workspace, arguments: dict[str, Any]) -> None:
    assert await grep(ws, "python", **arguments) == await grep(ws, "ripgrep", **arguments)


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
async def test_files_mode_respects_gitignore_and_skips_binaries_git_and_links(ws: Workspace, engine: str) -> None:
    text = await grep(ws, engine, pattern="hello")
    files = set(text.splitlines()[1:])
    assert files == {
        "utf16.txt",
        "src/sub/real.py",
        "src/app.py",
        "keep.log",
        "crlf.txt",
        "web/index.ts",
        ".github/workflows/ci.yml",
    }
    assert text.splitlines()[0] == "Found 7 files"
    # newest first: the fixture gives the files increasing modification times in name order
    assert text.splitlines()[1:] == sorted(files, key=lambda name: -FILE_ORDER[name])


FILE_ORDER = {name: position for position, name in enumerate(sorted(FILES))}


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
async def test_content_with_context_and_separators(ws: Workspace, engine: str) -> None:
    text = await grep(ws, engine, pattern="hello", output_mode="content", path="src/sub", **{"-C": 0, "-A": 1})
    assert text == "src/sub/real.py:1:x = 'hello'\nsrc/sub/real.py-2-y = 2\n--\nsrc/sub/real.py:4:w = 'hello'"


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
async def test_count_mode_and_bad_input(ws: Workspace, engine: str) -> None:
    text = await grep(ws, engine, pattern="hello", output_mode="count", path="src")
    assert text == "src/app.py:1\nsrc/sub/real.py:2\n\nFound 3 matching lines in 2 files."
    bad = await Grep(ws, use_ripgrep=(engine == "ripgrep")).run(GrepArgs(pattern="(unclosed"), ctx())
    assert bad.is_error and bad.content.startswith("Grep failed:")
    unknown = await Grep(ws, use_ripgrep=(engine == "ripgrep")).run(GrepArgs(pattern="x", type="cobol"), ctx())
    assert unknown.is_error and "unknown file type 'cobol'" in unknown.content


async def test_grep_arguments_use_claude_code_names(ws: Workspace) -> None:
    schema = Grep(ws).spec.input_schema
    assert {"-i", "-n", "-A", "-B", "-C", "output_mode", "head_limit", "multiline"} <= set(schema["properties"])
    assert schema["additionalProperties"] is False


# Glob


async def glob(ws: Workspace, pattern: str, path: str | None = None) -> list[str]:
    result = await Glob(ws).run(GlobArgs(pattern=pattern, path=path), ctx())
    assert isinstance(result.content, str) and not result.is_error
    return [] if result.content == "No files found" else result.content.splitlines()


async def test_glob_matches_like_a_shell_and_lists_newest_first(ws: Workspace) -> None:
    assert await glob(ws, "**/*.py") == ["src/util.py", "src/sub/real.py", "src/app.py"]
    assert await glob(ws, "*.py") == []  # only the top level, and link.py is a symlink
    assert await glob(ws, "*.log") == ["keep.log"]  # debug.log is ignored
    assert await glob(ws, "web/*.{ts,tsx}") == ["web/view.tsx", "web/index.ts"]
    assert await glob(ws, "*.py", path="src") == ["src/util.py", "src/app.py"]
    assert await glob(ws, "**/*.yml") == [".github/workflows/ci.yml"]
    assert await glob(ws, f"{ws.root}/src/**/*.py") == ["src/util.py", "src/sub/real.py", "src/app.py"]
    assert await glob(ws, "**/nothing") == []


async def test_glob_caps_results(ws: Workspace) -> None:
    for i in range(150):
        (ws.root / "many" / f"f{i:03}.txt").parent.mkdir(exist_ok=True)
        (ws.root / "many" / f"f{i:03}.txt").write_text("x")
    lines = await glob(ws, "many/*.txt")
    assert (
        len(lines) == 101 and lines[-1] == "(Showing the 100 most recently modified of 150 files; narrow the pattern.)"
    )


def test_brace_expansion() -> None:
    assert expand_braces("src/*.{ts,tsx}") == ["src/*.ts", "src/*.tsx"]
    assert expand_braces("{a,b}/{c,d}") == ["a/c", "a/d", "b/c", "b/d"]
    assert expand_braces("plain") == ["plain"]

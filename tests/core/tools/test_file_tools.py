"""Read, Write and Edit on real files in a temporary project."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from agentui.core.messages import ImageBlock
from agentui.core.tools.base import ToolContext
from agentui.core.tools.edit import Edit, EditArgs
from agentui.core.tools.read import Read, ReadArgs
from agentui.core.tools.write import Write, WriteArgs
from agentui.core.workspace import Workspace

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f2a0000000049454e44ae426082"
)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    project = tmp_path / "proj"
    project.mkdir()
    return Workspace(root=project)


def ctx(ws: Workspace, checked: Path | None = None) -> ToolContext:
    return ToolContext(cwd=ws.root, session_id="s", tool_call_id="t", checked_path=checked)


async def read(ws: Workspace, path: str, **kw: int) -> str:
    result = await Read(ws).run(ReadArgs(file_path=path, **kw), ctx(ws))
    assert isinstance(result.content, str)
    return result.content


async def edit(ws: Workspace, path: str, old: str, new: str, replace_all: bool = False):  # type: ignore[no-untyped-def]
    return await Edit(ws).run(
        EditArgs(file_path=path, old_string=old, new_string=new, replace_all=replace_all), ctx(ws)
    )


# Read


async def test_read_numbers_lines_like_cat_n(ws: Workspace) -> None:
    (ws.root / "a.py").write_text("import os\n\nprint(os.getcwd())\n")
    assert await read(ws, "a.py") == "     1\timport os\n     2\t\n     3\tprint(os.getcwd())"


async def test_read_offset_limit_and_a_note_when_more_follows(ws: Workspace) -> None:
    (ws.root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    text = await read(ws, "long.txt", offset=10, limit=3)
    assert text.splitlines()[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert text.splitlines()[3].startswith("… more lines follow") and "offset=13" in text
    result = await Read(ws).run(ReadArgs(file_path="long.txt", offset=500), ctx(ws))
    assert result.is_error and result.content == "long.txt has only 100 lines; offset 500 is past the end."


async def test_read_cuts_long_lines_and_handles_empty_files(ws: Workspace) -> None:
    (ws.root / "wide.txt").write_text("x" * 5000 + "\nshort\n")
    first, second = (await read(ws, "wide.txt")).splitlines()
    assert first == "     1\t" + "x" * 2000 + "… [3,000 more characters]" and second == "     2\tshort"
    (ws.root / "empty.txt").write_text("")
    assert await read(ws, "empty.txt") == "(the file empty.txt exists but is empty)"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "one line",
        "a\n\nb\n",
        "x\n" * 2500,
        "\tindented\n  spaces \n",
        "long " * 500 + "\n",
        "ends without newline\nlast",
        "\u00e9t\u00e9\n\u2028sep\n",
        "form\x0cfeed\n",
    ],
)
def test_the_quick_path_for_small_files_numbers_lines_as_the_stream_does(text: str) -> None:
    import io

    from agentui.core.tools.read import _numbered_lines, _whole_small_file

    streamed = _numbered_lines(io.StringIO(text, newline=""), 1, 2000)
    quick = _whole_small_file(text, 1, 2000)
    assert quick is None or quick == streamed  # the quick path declines what it cannot do exactly
    if text in ("", "a\n\nb\n", "ends without newline\nlast"):
        assert quick is not None


async def test_read_crlf_utf16_and_invalid_utf8(ws: Workspace) -> None:
    (ws.root / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    assert await read(ws, "crlf.txt") == "     1\tone\n     2\ttwo"
    (ws.root / "utf16.txt").write_bytes("h\u00e9llo\nw\u00f6rld\n".encode("utf-16"))  # with BOM
    assert await read(ws, "utf16.txt") == "     1\th\u00e9llo\n     2\tw\u00f6rld"
    (ws.root / "utf8bom.txt").write_bytes(b"\xef\xbb\xbfbom\n")
    assert await read(ws, "utf8bom.txt") == "     1\tbom"
    (ws.root / "latin1.txt").write_bytes("caf\u00e9\n".encode("latin-1"))
    assert await read(ws, "latin1.txt") == "     1\tcaf\ufffd"


async def test_read_refuses_binaries_and_missing_files_clearly(ws: Workspace) -> None:
    (ws.root / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    result = await Read(ws).run(ReadArgs(file_path="blob.bin"), ctx(ws))
    assert (
        result.is_error
        and result.content == "blob.bin is a binary file (300 bytes), not text; Read shows text files and images only."
    )
    (ws.root / "config.yaml").write_text("a: 1\n")
    missing = await Read(ws).run(ReadArgs(file_path="config.yml"), ctx(ws))
    assert missing.is_error and missing.content == "File does not exist: config.yml. Did you mean config.yaml?"
    folder = await Read(ws).run(ReadArgs(file_path="."), ctx(ws))
    assert folder.is_error and "is a directory" in folder.content


async def test_read_returns_images_as_image_blocks(ws: Workspace) -> None:
    (ws.root / "dot.png").write_bytes(PNG)
    result = await Read(ws).run(ReadArgs(file_path="dot.png"), ctx(ws))
    [block] = result.content  # type: ignore[misc]
    assert isinstance(block, ImageBlock)
    assert block.source["media_type"] == "image/png" and base64.b64decode(block.source["data"]) == PNG


async def test_read_of_a_50_mb_file_returns_the_first_lines_only(ws: Workspace) -> None:
    line = "0123456789" * 10 + "\n"
    (ws.root / "big.log").write_text(line * 520_000)  # about 52 MB
    text = await read(ws, "big.log")
    *numbered, note = text.splitlines()
    last = int(numbered[-1].split("\t")[0])
    assert last == len(numbered) and 500 < last <= 2000  # stops at the line limit or the output budget
    assert len(text) <= 101_000
    assert note.startswith("… more lines follow (file is 52,520,000 bytes)") and f"offset={last + 1}" in note
    short = await read(ws, "big.log", offset=1000, limit=5)
    assert [line.split("\t")[0].strip() for line in short.splitlines()[:5]] == ["1000", "1001", "1002", "1003", "1004"]


# Write


async def test_write_creates_parents_and_refuses_to_overwrite_unread_files(ws: Workspace) -> None:
    result = await Write(ws).run(WriteArgs(file_path="src/pkg/new.py", content="x = 1\n"), ctx(ws))
    assert not result.is_error and result.content == "Created src/pkg/new.py (1 lines)."
    assert (ws.root / "src/pkg/new.py").read_text() == "x = 1\n"
    assert result.details["type"] == "create"

    (ws.root / "existing.txt").write_text("keep me\n")
    refused = await Write(ws).run(WriteArgs(file_path="existing.txt", content="gone"), ctx(ws))
    assert (
        refused.is_error
        and refused.content == "existing.txt has not been read yet; Read it first, then write; nothing was written."
    )
    await read(ws, "existing.txt")
    os.utime(ws.root / "existing.txt", ns=(1, 1))  # changed on disk after the read
    stale = await Write(ws).run(WriteArgs(file_path="existing.txt", content="gone"), ctx(ws))
    assert stale.is_error and "changed on disk since it was read" in stale.content
    assert (ws.root / "existing.txt").read_text() == "keep me\n"


async def test_write_keeps_the_files_format_and_mode(ws: Workspace) -> None:
    target = ws.root / "script.sh"
    target.write_bytes(b"#!/bin/sh\r\necho old\r\n")
    target.chmod(0o755)
    await read(ws, "script.sh")
    result = await Write(ws).run(WriteArgs(file_path="script.sh", content="#!/bin/sh\necho new\n"), ctx(ws))
    assert result.content == "Overwrote script.sh (2 lines)."
    assert target.read_bytes() == b"#!/bin/sh\r\necho new\r\n"
    assert target.stat().st_mode & 0o777 == 0o755
    assert result.details["structuredPatch"][0]["lines"] == [" #!/bin/sh", "-echo old", "+echo new"]
    assert not list(ws.root.glob(".*.tmp"))  # no temp file left behind


async def test_write_after_a_symlink_swap_writes_nothing(ws: Workspace, tmp_path: Path) -> None:
    inside = ws.root / "inside.txt"
    inside.write_text("inside\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret\n")
    link = ws.root / "link.txt"
    link.symlink_to(inside)
    approved = ws.real("link.txt")  # what the permission check saw: inside the project
    assert approved == inside
    await read(ws, "link.txt")
    link.unlink()
    link.symlink_to(outside)  # swapped between the check and the write
    result = await Write(ws).run(WriteArgs(file_path="link.txt", content="pwned\n"), ctx(ws, approved))
    assert result.is_error and "nothing was written" in result.content
    assert outside.read_text() == "secret\n" and inside.read_text() == "inside\n"


# Edit


async def test_edit_replaces_once_and_shows_the_result(ws: Workspace) -> None:
    (ws.root / "m.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    await read(ws, "m.py")
    result = await edit(ws, "m.py", "    return 1", "    return 10")
    assert not result.is_error
    assert (ws.root / "m.py").read_text() == "def f():\n    return 10\n\ndef g():\n    return 2\n"
    assert result.content.startswith("Edited m.py: 1 replacement.\n     1\tdef f():\n     2\t    return 10")
    patch = result.details["structuredPatch"]
    assert patch[0]["oldStart"] == 1 and "-    return 1" in patch[0]["lines"] and "+    return 10" in patch[0]["lines"]


async def test_edit_errors_name_the_lines_or_the_closest_candidate(ws: Workspace) -> None:
    (ws.root / "c.py").write_text("x = 1\ny = 2\nx = 1\nprint(x + y)\n")
    await read(ws, "c.py")
    many = await edit(ws, "c.py", "x = 1", "x = 3")
    assert many.is_error and many.content == (
        "old_string occurs 2 times in c.py (lines 1, 3); add surrounding lines to make it unique, "
        "or set replace_all to true."
    )
    missing = await edit(ws, "c.py", "print(x+z)", "print(0)")
    assert (
        missing.is_error
        and missing.content == "old_string was not found in c.py. The closest line is 4: 'print(x + y)'."
    )
    spaced = await edit(ws, "c.py", "y  =  2", "y = 4")
    assert (
        "matches if whitespace is ignored" in spaced.content or "does match if whitespace is ignored" in spaced.content
    )
    same = await edit(ws, "c.py", "y = 2", "y = 2")
    assert same.is_error and "the same" in same.content
    assert (ws.root / "c.py").read_text() == "x = 1\ny = 2\nx = 1\nprint(x + y)\n"
    everywhere = await edit(ws, "c.py", "x = 1", "x = 3", replace_all=True)
    assert everywhere.content.startswith("Edited c.py: 2 replacements.")
    assert (ws.root / "c.py").read_text() == "x = 3\ny = 2\nx = 3\nprint(x + y)\n"


async def test_edit_keeps_crlf_bom_and_utf16(ws: Workspace) -> None:
    (ws.root / "w.txt").write_bytes(b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma\r\n")
    (ws.root / "u.txt").write_bytes("one\r\ntwo\r\n".encode("utf-16"))
    await read(ws, "w.txt")
    await read(ws, "u.txt")
    await edit(ws, "w.txt", "alpha\nbeta", "alpha\nBETA\nbeta2")
    assert (ws.root / "w.txt").read_bytes() == b"\xef\xbb\xbfalpha\r\nBETA\r\nbeta2\r\ngamma\r\n"
    await edit(ws, "u.txt", "two", "deux")
    data = (ws.root / "u.txt").read_bytes()
    assert data.startswith(b"\xff\xfe") and data.decode("utf-16") == "one\r\ndeux\r\n"


async def test_edit_preserves_bytes_that_are_not_utf8(ws: Workspace) -> None:
    (ws.root / "legacy.txt").write_bytes(b"caf\xe9 = 1\nother = 2\n")
    await read(ws, "legacy.txt")
    await edit(ws, "legacy.txt", "other = 2", "other = 3")
    assert (ws.root / "legacy.txt").read_bytes() == b"caf\xe9 = 1\nother = 3\n"


async def test_edit_requires_a_read_and_creates_with_empty_old_string(ws: Workspace) -> None:
    (ws.root / "r.txt").write_text("a\n")
    unread = await edit(ws, "r.txt", "a", "b")
    assert unread.is_error and "has not been read yet" in unread.content
    created = await edit(ws, "new/file.txt", "", "hello\n")
    assert created.content == "Created new/file.txt." and (ws.root / "new/file.txt").read_text() == "hello\n"
    missing = await edit(ws, "nope.txt", "x", "y")
    assert missing.is_error and missing.content.startswith("File does not exist: nope.txt")
    (ws.root / "b.bin").write_bytes(b"\x00\x00")
    ws.record_read(ws.root / "b.bin")
    binary = await edit(ws, "b.bin", "x", "y")
    assert binary.is_error and "binary" in binary.content


# TodoWrite and the registry


async def test_todo_write_keeps_the_list_in_the_session(ws: Workspace) -> None:
    from agentui.core.tools.todo import TodoWrite, TodoWriteArgs

    tool = TodoWrite(ws)
    first = TodoWriteArgs.model_validate(
        {
            "todos": [
                {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
                {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
                {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
            ]
        }
    )
    result = await tool.run(first, ctx(ws))
    assert result.content == "Todo list updated: 1 pending, 1 in progress, 1 completed."
    assert [t["status"] for t in ws.todos] == ["completed", "in_progress", "pending"]
    second = await tool.run(TodoWriteArgs.model_validate({"todos": []}), ctx(ws))
    assert second.details["oldTodos"][1]["content"] == "Fix the bug" and ws.todos == []


def test_builtin_tools_have_claude_code_names_and_argument_shapes(ws: Workspace) -> None:
    from agentui.core.tools import builtin_tools

    registry = builtin_tools(ws)
    assert registry.names() == [
        "Bash", "Read", "Write", "Edit", "NotebookEdit", "Grep", "Glob",
        "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskOutput", "TaskStop", "AskUserQuestion",
    ]  # fmt: skip
    # 2.0's names run when called, without being offered.
    assert [registry.get(name).name for name in ("TodoWrite", "BashOutput", "KillShell", "KillBash")] == [  # type: ignore[union-attr]
        "TodoWrite", "BashOutput", "KillShell", "KillShell",
    ]  # fmt: skip
    shapes = {
        spec.name: (set(spec.input_schema["properties"]), set(spec.input_schema.get("required", [])))
        for spec in registry.specs()
    }
    assert shapes["Read"] == ({"file_path", "offset", "limit", "pages"}, {"file_path"})
    assert shapes["Write"] == ({"file_path", "content"}, {"file_path", "content"})
    assert shapes["Edit"] == (
        {"file_path", "old_string", "new_string", "replace_all"},
        {"file_path", "old_string", "new_string"},
    )
    assert shapes["Glob"] == ({"pattern", "path"}, {"pattern"})
    assert all(spec.input_schema["additionalProperties"] is False for spec in registry.specs())
    kinds = {tool.name: tool.kind for tool in registry}
    assert kinds["Bash"] == "execute" and kinds["Write"] == kinds["Edit"] == kinds["NotebookEdit"] == "write"
    assert {kind for name, kind in kinds.items() if name not in ("Bash", "Write", "Edit", "NotebookEdit")} == {"read"}

"""A long Claude Code–format session for the resume benchmarks: 2,000 turns and about 21 MB, each turn a prompt, a
Read of a sizeable file, an Edit with its patch, and a Markdown answer, chained by parentUuid as Claude Code
writes them."""

from __future__ import annotations

from pathlib import Path

from tests.support.chain import SessionChain

TURNS = 2000


def write_long_session(path: Path, session_id: str, cwd: Path, turns: int = TURNS) -> int:
    """Writes the session to `path`; returns its size in bytes."""
    source = "".join(f"def function_{n}(value):\n    return value * {n}  # {'x' * 40}\n\n" for n in range(33))
    numbered = "\n".join(f"{n + 1:6}\t{line}" for n, line in enumerate(source.splitlines()))
    chain = SessionChain(session_id, cwd)
    line = chain.add

    for turn in range(turns):
        file_path = str(cwd / f"module_{turn % 50}.py")
        line("user", {"role": "user", "content": f"prompt {turn}: make function_{turn % 33} handle None"})
        read = {"type": "tool_use", "id": f"toolu_r{turn}", "name": "Read", "input": {"file_path": file_path}}
        usage = {"input_tokens": 12, "output_tokens": 40, "cache_read_input_tokens": 30_000}
        text = {"type": "text", "text": "Let me read the module first."}
        line(
            "assistant",
            {"id": f"msg_{turn}a", "role": "assistant", "model": "m", "content": [text, read], "usage": usage},
        )
        result = {"type": "tool_result", "tool_use_id": f"toolu_r{turn}", "content": numbered}
        line(
            "user",
            {"role": "user", "content": [result]},
            toolUseResult={
                "type": "text",
                "file": {"filePath": file_path, "content": source, "numLines": 99, "startLine": 1, "totalLines": 99},
            },
        )
        old, new = f"    return value * {turn % 33}", f"    return None if value is None else value * {turn % 33}"
        edit = {
            "type": "tool_use",
            "id": f"toolu_e{turn}",
            "name": "Edit",
            "input": {"file_path": file_path, "old_string": old, "new_string": new},
        }
        line("assistant", {"id": f"msg_{turn}b", "role": "assistant", "model": "m", "content": [edit], "usage": usage})
        patch = [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1, "lines": [f"-{old}", f"+{new}"]}]
        line(
            "user",
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_e{turn}",
                        "content": f"The file {file_path} has been updated.",
                    }
                ],
            },
            toolUseResult={"filePath": file_path, "oldString": old, "newString": new, "structuredPatch": patch},
        )
        answer = (
            f"Done: `function_{turn % 33}` now returns `None` for `None`.\n\n"
            + "".join(f"- point {n}: the change keeps the other callers as they were\n" for n in range(6))
            + "\n```python\n"
            + new.strip()
            + "\n```\n"
        )
        line(
            "assistant",
            {
                "id": f"msg_{turn}c",
                "role": "assistant",
                "model": "m",
                "content": [{"type": "text", "text": answer}],
                "usage": usage,
            },
        )
    return chain.write(path)

"""Session search: indexing 2,000 sessions (~500 MB) into the FTS5 index, the first query once indexed, and how soon
a line appended to a session can be found.

    python -m bench.search
    AGENTUI_BENCH_SEARCH_MB=50 python -m bench.search    # a lighter variant
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, run_alone, summary

SESSIONS = 2_000
TOTAL_MB = int(os.environ.get("AGENTUI_BENCH_SEARCH_MB", "500"))
_RANDOM = random.Random(39)
_WORDS = ["".join(_RANDOM.choices("abcdefghijklmnopqrstuvwxyz", k=_RANDOM.randint(3, 10))) for _ in range(20_000)]


def _sentence(words: int) -> str:
    return " ".join(_RANDOM.choices(_WORDS, k=words))


_PROMPTS = [_sentence(_RANDOM.randint(8, 40)) for _ in range(3_000)]
_ANSWERS = [_sentence(_RANDOM.randint(30, 150)) for _ in range(3_000)]
_OUTPUTS = [("\n".join(_sentence(12) for _ in range(40))) for _ in range(300)]


def _line(kind: str, content: object, session: str, parent: str | None, **extra: object) -> tuple[str, str]:
    line_id = str(uuid.uuid4())
    entry = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/bench",
        "sessionId": session,
        "version": "2.1.114",
        "gitBranch": "main",
        "type": kind,
        "message": {"role": kind, "content": content},
        "uuid": line_id,
        "timestamp": "2026-11-28T10:00:00.000Z",
        **extra,
    }
    return json.dumps(entry, separators=(",", ":")) + "\n", line_id


def session_text(session: str, size: int) -> str:
    """A Claude Code transcript of about `size` bytes: turns of a prompt, an answer with a tool call, and the
    tool's result (most of the bytes, as in real sessions)."""
    parts: list[str] = []
    parent: str | None = None
    written = 0
    while written < size:
        steps: list[tuple[str, object, dict[str, object]]] = [
            ("user", _RANDOM.choice(_PROMPTS), {}),
            ("assistant", [{"type": "text", "text": _RANDOM.choice(_ANSWERS)}], {}),
            (
                "assistant",
                [{"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": {"command": _sentence(6)}}],
                {},
            ),
            (  # (a file written whole: a large tool input, read in full, of which only the name is indexed)
                "assistant",
                [
                    {"type": "thinking", "thinking": _RANDOM.choice(_ANSWERS), "signature": "x" * 200},
                    {
                        "type": "tool_use",
                        "id": "toolu_y",
                        "name": "Write",
                        "input": {
                            "file_path": f"/work/bench/{_RANDOM.choice(_WORDS)}.py",
                            "content": _RANDOM.choice(_OUTPUTS),
                        },
                    },
                ],
                {},
            ),
            (
                "user",
                [{"type": "tool_result", "tool_use_id": "toolu_x", "content": _RANDOM.choice(_OUTPUTS)}],
                {"toolUseResult": {"stdout": _RANDOM.choice(_OUTPUTS), "stderr": "", "interrupted": False}},
            ),
        ]
        for kind, content, extra in steps:
            text, parent = _line(kind, content, session, parent, **extra)
            parts.append(text)
            written += len(text)
    return "".join(parts)


def _make(root: Path) -> tuple[int, list[Path]]:
    project = root / "-work-bench"
    project.mkdir(parents=True)
    each = TOTAL_MB * 1_000_000 // SESSIONS
    total, paths = 0, []
    for n in range(SESSIONS):
        session = str(uuid.UUID(int=n + 1, version=4))
        path = project / f"{session}.jsonl"
        data = session_text(session, _RANDOM.randint(each // 2, each * 3 // 2)).encode()
        path.write_bytes(data)
        total += len(data)
        paths.append(path)
    return total, paths


def search() -> Iterator[Result]:
    from agentui.core.search.index import SessionIndex

    with tempfile.TemporaryDirectory() as scratch:
        root, database = Path(scratch) / "projects", Path(scratch) / "state" / "sessions.db"
        total, paths = _make(root)
        os.sync()
        index = SessionIndex(database, root)
        started = time.perf_counter()
        index.update()
        took = time.perf_counter() - started
        index.close()
        rate = total / 1e6 / took
        yield Result(
            "search.index_rate",
            round(rate, 1),
            "MB/s",
            target="≥ 50 MB/s",
            met=rate >= 50,
            note=f"{SESSIONS:,} sessions, {total / 1e6:.0f} MB in {took:.1f} s;"
            f" index {database.stat().st_size / 1e6:.0f} MB",
        )
        firsts = []
        queries = [("payment handler", False), (_WORDS[7], False), (f"{_WORDS[11]} {_WORDS[12]}", False)]
        queries += [("a", True), (_WORDS[3][:2], True)]  # (the picker's type-ahead: "a*" matches most rows)
        for words, prefix in queries:
            fresh = SessionIndex(database, root)  # a new process's first query: open, look at every file, search
            started = time.perf_counter()
            fresh.update()
            fresh.search(words, limit=20, prefix=prefix)
            firsts.append(time.perf_counter() - started)
            fresh.close()
        yield summary(
            "search.first_query",
            firsts,
            "s",
            target=1.0,
            target_text="< 1 s",
            note=f"a fresh open, a stat of {SESSIONS:,} files and one query (rare words, two words, the prefixes `a*`"
            f" and a two-letter one), over {total / 1e6:.0f} MB",
        )
        delays = []
        live = SessionIndex(database, root)
        for n in range(5):
            word = f"freshword{n}x"
            text, _ = _line("user", f"please look at {word} now", "x", None)
            started = time.perf_counter()
            with paths[n * 7].open("a") as handle:
                handle.write(text)
            while True:
                live.update()
                if live.search(word):
                    break
            delays.append(time.perf_counter() - started)
        live.close()
        yield summary(
            "search.new_line_found",
            delays,
            "s",
            target=1.0,
            target_text="< 1 s",
            note="a line appended to one session until a search finds it (update, then query)",
        )


def benchmarks() -> Iterator[Result]:
    return emit_all(search)


if __name__ == "__main__":
    run_alone(benchmarks)

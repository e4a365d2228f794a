"""The session search index on real transcript files: what it finds, that it reads only what was appended, that it
survives damage, and that secrets never reach it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agentui.core.search.index import SearchHit, SessionIndex, search_sessions
from agentui.core.session.paths import project_dir
from tests.support.search_sessions import answer, prompt, tool_call, tool_result, uuid_of, write

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-projects"
SESSION = "11111111-2222-4333-8444-555555555555"
OTHER = "66666666-7777-4888-8999-aaaaaaaaaaaa"


def new_index(tmp_path: Path) -> tuple[SessionIndex, Path]:
    root = tmp_path / "claude" / "projects"
    root.mkdir(parents=True, exist_ok=True)
    return SessionIndex(tmp_path / "state" / "search" / "sessions.db", root), root


def found(index: SessionIndex, query: str, **options: object) -> list[SearchHit]:
    index.update()
    return index.search(query, **options)  # type: ignore[arg-type]


@pytest.fixture
def fixtures_index(tmp_path: Path) -> SessionIndex:
    index, root = new_index(tmp_path)
    shutil.copytree(FIXTURES, root, dirs_exist_ok=True)
    return index


def test_the_real_transcripts_are_found_by_prompt_answer_tool_input_and_file_name(fixtures_index: SessionIndex) -> None:
    def kinds(query: str) -> set[tuple[str, str]]:
        return {(hit.session_id[:8], hit.kind) for hit in found(fixtures_index, query)}

    assert ("5c0375b4", "prompt") in kinds('"Examine the package.json"')
    assert ("fe5e1c67", "tool") in kinds('"Create README for types"')
    assert ("7acd37a8", "file") in kinds("recorder")
    assert {"answer"} <= {kind for _, kind in kinds('"HTML and markdown renderers"')}
    hit = found(fixtures_index, '"Examine the package.json"')[0]
    assert hit.project == "sample-project" and hit.cwd == "/path/to/Demo" and hit.uuid and hit.timestamp
    assert hit.marked.count("\x02") == 1 and "[examine the package.json]" in hit.snippet().lower()


def test_a_sub_agent_transcript_says_it_is_one(fixtures_index: SessionIndex) -> None:
    hits = found(fixtures_index, '"HTML and markdown renderers"')
    assert hits and all(hit.sidechain for hit in hits)
    assert {hit.session_id for hit in hits} == {"29ccd257-68b1-427f-ae5f-6524b7cb6f20"}  # (the parent session)
    assert all("subagents" in hit.path.parts for hit in hits)


def test_only_the_bytes_appended_since_the_last_look_are_read(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    path = root / "-work-app" / f"{SESSION}.jsonl"
    write(path, prompt("make the parser faster", session=SESSION, cwd="/work/app"))
    assert found(index, "parser")
    first = path.stat().st_size
    assert index.progress.bytes_read == first
    with path.open("r+b") as handle:  # the old part turned to garbage in place: a re-read would lose "parser"
        handle.write(b"\x00" * first)
    later = answer("the tokenizer was the slow part", session=SESSION, cwd="/work/app")
    write(path, later)
    assert [hit.kind for hit in found(index, "tokenizer")] == ["answer"]
    assert index.progress.bytes_read == first + len(later.encode())
    assert [hit.kind for hit in found(index, "parser")] == ["prompt"]  # kept from the first look
    index.update()
    assert index.progress.bytes_read == first + len(later.encode())  # unchanged: a stat, no read


def test_a_line_still_being_written_waits_for_its_end(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    path = root / "-work-app" / f"{SESSION}.jsonl"
    whole = prompt("rename the frobnicator module", session=SESSION, cwd="/work/app")
    write(path, whole[:40])
    assert found(index, "frobnicator") == []
    write(path, whole[40:])
    assert [hit.kind for hit in found(index, "frobnicator")] == ["prompt"]


def test_a_file_cut_shorter_or_replaced_is_read_again_alone(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    path = root / "-work-app" / f"{SESSION}.jsonl"
    other = root / "-work-app" / f"{OTHER}.jsonl"
    write(path, prompt("alpha words", session=SESSION, cwd="/w"), prompt("beta words", session=SESSION, cwd="/w"))
    write(other, prompt("gamma words", session=OTHER, cwd="/w"))
    assert len(found(index, "words")) == 3
    before = index.progress.bytes_read
    write(path, prompt("delta words", session=SESSION, cwd="/w"), mode="w")  # shorter, same inode
    assert sorted(hit.snippet() for hit in found(index, "words")) == ["delta [words]", "gamma [words]"]
    assert index.progress.bytes_read - before == path.stat().st_size  # the other file was not read again
    replacement = root / "-work-app" / "new.tmp"
    write(
        replacement, prompt("epsilon words", session=SESSION, cwd="/w"), prompt("zeta words", session=SESSION, cwd="/w")
    )
    os.replace(replacement, path)  # a new inode, longer than before
    assert sorted(hit.snippet() for hit in found(index, "words")) == [
        "epsilon [words]",
        "gamma [words]",
        "zeta [words]",
    ]


def test_a_deleted_transcript_leaves_the_index(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    path = root / "-work-app" / f"{SESSION}.jsonl"
    write(path, prompt("ephemeral thought", session=SESSION, cwd="/w"))
    assert found(index, "ephemeral")
    path.unlink()
    assert found(index, "ephemeral") == []
    counts = sqlite3.connect(index.path).execute("SELECT (SELECT count(*) FROM rows), (SELECT count(*) FROM files)")
    assert counts.fetchone() == (0, 0)


def _two_sessions(root: Path) -> None:
    write(root / "-w" / f"{SESSION}.jsonl", prompt("persistent marmalade", session=SESSION, cwd="/w"))


def test_a_deleted_index_is_made_again(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    _two_sessions(root)
    assert found(index, "marmalade")
    index.close()
    for name in ("sessions.db", "sessions.db-wal", "sessions.db-shm"):
        (index.path.parent / name).unlink(missing_ok=True)
    again = SessionIndex(index.path, root)
    assert found(again, "marmalade") and again.notices == []


def test_a_file_that_is_not_an_index_is_made_again_with_one_sentence(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    _two_sessions(root)
    index.path.parent.mkdir(parents=True)
    index.path.write_bytes(b"this is not an SQLite database at all\n" * 200)
    assert found(index, "marmalade")
    assert len(index.notices) == 1 and "made again from the session files" in index.notices[0]


def test_an_index_of_another_schema_version_is_made_again(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    _two_sessions(root)
    assert found(index, "marmalade")
    index.close()
    sqlite3.connect(index.path, isolation_level=None).execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    again = SessionIndex(index.path, root)
    assert found(again, "marmalade")
    assert len(again.notices) == 1 and "another schema version" in again.notices[0]


def test_a_malformed_index_is_made_again(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    for n in range(300):  # enough pages that damage in the middle is inside the tables
        session = f"{n:08x}-2222-4333-8444-555555555555"
        write(
            root / "-w" / f"{session}.jsonl",
            prompt(f"marmalade number{n} " + "filler " * 60, session=session, cwd="/w"),
        )
    assert len(found(index, "marmalade", limit=500)) == 300
    index.close()
    sqlite3.connect(index.path).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    data = bytearray(index.path.read_bytes())
    page = 4096
    for start in range(2 * page, len(data) - page, 2 * page):  # every other page past the schema's, overwritten
        data[start : start + page] = b"\xff" * page
    index.path.write_bytes(bytes(data))
    again = SessionIndex(index.path, root)
    assert len(found(again, "marmalade", limit=500)) == 300
    assert len(again.notices) == 1 and "malformed" in again.notices[0]


def test_a_secret_in_a_prompt_is_neither_findable_nor_in_the_index_file(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    secret = "sk-ant-api03-" + "Zq7" * 12
    write(
        root / "-w" / f"{SESSION}.jsonl",
        prompt(f"use the key {secret} for the deploy", session=SESSION, cwd="/w"),
        tool_call(
            "Bash", {"command": f"curl -H 'x-api-key: {secret}' https://example.invalid"}, session=SESSION, cwd="/w"
        ),
    )
    assert found(index, "deploy")[0].snippet() == "use the key [REDACTED anthropic-key] for the [deploy]"
    assert found(index, secret) == [] and found(index, "Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7") == []
    index.close()
    stored = b"".join(p.read_bytes() for p in index.path.parent.iterdir())
    assert b"Zq7Zq7" not in stored and b"REDACTED" in stored


@pytest.mark.parametrize(
    "query", ['"unbalanced quote', "AND", "OR OR", "NOT", "-", "*", "NEAR(", "a:b", "src/main.py", "(", "^", "   "]
)
def test_odd_queries_are_plain_words_never_an_error(tmp_path: Path, query: str) -> None:
    index, root = new_index(tmp_path)
    write(
        root / "-w" / f"{SESSION}.jsonl",
        prompt('an "unbalanced quote and or not near a:b in src/main.py', session=SESSION, cwd="/w"),
    )
    hits = found(index, query)
    words = [word for word in query.split() if any(char.isalnum() for char in word)]
    assert (len(hits) == 1) == bool(words) or query == "NEAR("


def test_the_better_match_comes_first_and_the_newer_session_breaks_a_tie(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    early, late = "2026-01-01T10:00:00.000Z", "2026-03-01T10:00:00.000Z"
    write(root / "-w" / f"{SESSION}.jsonl", prompt("the widget broke", session=SESSION, cwd="/w", stamp=early))
    write(root / "-w" / f"{OTHER}.jsonl", prompt("the widget broke", session=OTHER, cwd="/w", stamp=late))
    third = "99999999-2222-4333-8444-555555555555"
    write(root / "-w" / f"{third}.jsonl", prompt("widget widget widget", session=third, cwd="/w", stamp=early))
    assert [hit.session_id for hit in found(index, "widget")] == [third, OTHER, SESSION]


def test_tool_results_are_not_indexed_and_the_message_uuid_is_kept(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    call = tool_call("Grep", {"pattern": "def quux", "path": "/w/src"}, session=SESSION, cwd="/w")
    write(
        root / "-w" / f"{SESSION}.jsonl",
        call,
        tool_result("quux appears in the output only", session=SESSION, cwd="/w"),
    )
    assert [(hit.kind, hit.uuid) for hit in found(index, "quux")] == [("tool", uuid_of(call))]
    assert [hit.kind for hit in found(index, "src")] == ["file"]


def test_search_sessions_keeps_to_the_project_unless_asked_for_all(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "AGENTUI_STATE_DIR": str(tmp_path / "state")}
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    write(project_dir(here, env) / f"{SESSION}.jsonl", prompt("shared word here", session=SESSION, cwd=str(here)))
    write(project_dir(there, env) / f"{OTHER}.jsonl", prompt("shared word there", session=OTHER, cwd=str(there)))
    assert [hit.session_id for hit in search_sessions("shared", cwd=here, env=env).hits] == [SESSION]
    assert {hit.session_id for hit in search_sessions("shared", env=env).hits} == {SESSION, OTHER}
    assert (tmp_path / "state" / "search" / "sessions.db").is_file()


_UPDATER = """
import sys
from pathlib import Path
from agentui.core.search.index import SessionIndex
index = SessionIndex(Path(sys.argv[1]), Path(sys.argv[2]))
for _ in range(5):
    index.update()
print(len(index.search("concurrent", limit=10000)), index.notices)
"""


def test_processes_updating_at_once_index_each_line_once(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    for n in range(200):
        session = f"{n:08x}-2222-4333-8444-555555555555"
        write(
            root / "-w" / f"{session}.jsonl",
            *(prompt(f"concurrent {n} {k}", session=session, cwd="/w") for k in range(20)),
        )
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _UPDATER, str(index.path), str(root)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    for child in children:
        child.communicate(timeout=300)
        assert child.returncode == 0
    assert len(found(index, "concurrent", limit=10000)) == 4000
    connection = sqlite3.connect(index.path)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert connection.execute("SELECT count(*) FROM rows").fetchone() == (4000,)
    assert json.loads(json.dumps(connection.execute("SELECT count(*) FROM files").fetchone())) == [200]


def test_the_index_is_the_persons_alone(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    _two_sessions(root)
    assert found(index, "marmalade")
    assert index.path.stat().st_mode & 0o777 == 0o600 and index.path.parent.stat().st_mode & 0o777 == 0o700


def test_another_projects_directory_neither_wipes_the_index_nor_shows_in_it(tmp_path: Path) -> None:
    """One index in the state directory, two Claude Code config directories (CLAUDE_CONFIG_DIR): a look at the
    second keeps the first's rows (no reindex when it comes back) and shows only its own sessions."""
    database = tmp_path / "state" / "search" / "sessions.db"
    first, second = tmp_path / "one" / "projects", tmp_path / "two" / "projects"
    write(first / "-work-app" / f"{SESSION}.jsonl", prompt("the walrus plan", session=SESSION, cwd="/work/app"))
    write(second / "-work-app" / f"{OTHER}.jsonl", prompt("the otter plan", session=OTHER, cwd="/work/app"))
    one = SessionIndex(database, first)
    assert [hit.session_id for hit in found(one, "plan")] == [SESSION]
    one.close()
    two = SessionIndex(database, second)
    assert [hit.session_id for hit in found(two, "plan")] == [OTHER]
    two.close()
    again = SessionIndex(database, first)
    assert [hit.session_id for hit in found(again, "plan")] == [SESSION]
    assert again.progress.bytes_read == 0  # (its rows were kept: a stat of each file, nothing read)


def test_a_search_while_this_process_is_already_updating_searches_what_is_there_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picker searches on a thread per keystroke: while one look is under way past a short wait (a long first
    indexing), the next searches the index as it stands instead of queueing behind it on SQLite's lock."""
    from agentui.core.search import index as search_index

    monkeypatch.setattr(search_index, "UPDATE_WAIT_SECONDS", 0.05)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "AGENTUI_STATE_DIR": str(tmp_path / "state")}
    path = tmp_path / "claude" / "projects" / "-w" / f"{SESSION}.jsonl"
    write(path, prompt("the walrus plan", session=SESSION, cwd="/w"))
    assert search_sessions("walrus", env=env).hits
    write(path, answer("the otter answer", session=SESSION, cwd="/w"))
    with search_index._UPDATING:
        behind = search_sessions("otter", env=env)
        assert behind.hits == [] and behind.notices == [
            "The search index is still being brought up to date; the newest lines may be missing."
        ]
        assert search_sessions("walrus", env=env).hits
    assert search_sessions("otter", env=env).hits


def test_a_search_waits_for_a_short_update_under_way_and_finds_what_it_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picker's last keystroke searched while the previous keystroke's update was under way, skipped its own,
    and found nothing (`walr` in an e2e run): a short update is now waited for."""
    import threading

    from agentui.core.search import index as search_index

    monkeypatch.setattr(search_index, "UPDATE_WAIT_SECONDS", 60.0)  # a ceiling: the other update ends long before

    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "AGENTUI_STATE_DIR": str(tmp_path / "state")}
    path = tmp_path / "claude" / "projects" / "-w" / f"{SESSION}.jsonl"
    write(path, prompt("the walrus plan", session=SESSION, cwd="/w"))
    search_index._UPDATING.acquire()
    threading.Timer(0.3, search_index._UPDATING.release).start()  # another keystroke's update, ending soon
    found = search_sessions("walr", env=env, prefix=True)
    assert found.hits and found.notices == []

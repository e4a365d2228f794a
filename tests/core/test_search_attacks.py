"""The session index under attack and careless use: hostile transcript lines, queries FTS5 cannot parse, secrets
cut short before their redaction, and links planted where the index lives."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from agentui.core.search.index import SessionIndex
from tests.support.search_sessions import prompt, write

SESSION = "11111111-2222-4333-8444-555555555555"


def new_index(tmp_path: Path) -> tuple[SessionIndex, Path]:
    root = tmp_path / "claude" / "projects"
    root.mkdir(parents=True, exist_ok=True)
    return SessionIndex(tmp_path / "state" / "search" / "sessions.db", root), root


def test_a_deeply_nested_line_is_skipped_and_the_rest_is_still_found(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    nested = '{"type":"user","x":' + "[" * 100_000 + "]" * 100_000 + "}\n"
    write(root / "-w" / f"{SESSION}.jsonl", prompt("before the bomb", session=SESSION, cwd="/w"), nested)
    write(root / "-w" / f"{SESSION}.jsonl", prompt("after the bomb", session=SESSION, cwd="/w"))
    index.update()
    assert {hit.kind for hit in index.search("bomb")} == {"prompt"} and len(index.search("bomb")) == 2


def test_a_secret_at_the_end_of_a_long_first_prompt_is_not_cut_into_the_title_unredacted(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    key = "sk-ant-api03-" + "Q" * 40
    text = "deploy " + "x" * 170 + " " + key  # (the key starts at 178: a cut at 200 leaves 22 of its characters)
    write(root / "-w" / f"{SESSION}.jsonl", prompt(text, session=SESSION, cwd="/w"))
    index.update()
    (hit,) = index.search("deploy")
    assert "QQQQ" not in hit.title and "QQQQ" not in hit.marked
    rows = sqlite3.connect(index.path).execute("SELECT title FROM files").fetchall()
    assert all("QQQQ" not in (title or "") for (title,) in rows)


def test_a_query_too_deeply_nested_for_fts5_is_searched_as_words(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    write(root / "-w" / f"{SESSION}.jsonl", prompt("the parser overflowed", session=SESSION, cwd="/w"))
    index.update()
    assert [hit.kind for hit in index.search("(" * 3000 + "parser")] == ["prompt"]


def test_a_link_planted_at_the_index_path_is_not_written_through(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    other = tmp_path / "someone-elses.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE kept(a)")
    connection.commit()
    connection.close()
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    index.path.parent.mkdir(parents=True)
    index.path.symlink_to(other)
    Path(f"{index.path}-wal").symlink_to(victim)
    write(root / "-w" / f"{SESSION}.jsonl", prompt("find the link", session=SESSION, cwd="/w"))
    index.update()
    assert [hit.kind for hit in index.search("link")] == ["prompt"]
    index.close()
    assert victim.read_text() == "precious\n"
    assert sqlite3.connect(other).execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not index.path.is_symlink() and not Path(f"{index.path}-wal").is_symlink()


def test_a_link_planted_at_the_index_directory_is_refused_with_one_sentence(tmp_path: Path) -> None:
    from agentui.core.search.index import SearchError

    index, root = new_index(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    index.path.parent.parent.mkdir(parents=True)
    index.path.parent.symlink_to(outside)
    write(root / "-w" / f"{SESSION}.jsonl", prompt("find the link", session=SESSION, cwd="/w"))
    try:
        index.update()
    except SearchError as exc:
        assert "link" in str(exc)
    else:
        raise AssertionError("the index was opened through a planted link")
    assert os.listdir(outside) == []


def test_processes_opening_a_new_index_at_once_all_search_it_and_none_takes_it_for_damaged(tmp_path: Path) -> None:
    root = tmp_path / "claude" / "projects"
    write(root / "-w" / f"{SESSION}.jsonl", prompt("a race to make the index", session=SESSION, cwd="/w"))
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from agentui.core.search.index import SessionIndex, SearchError\n"
        "go = Path(sys.argv[3])\n"
        "print(flush=True)\n"
        "while not go.exists(): pass\n"
        "index = SessionIndex(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "try:\n"
        "    index.update()\n"
        "    print(len(index.search('race')), index.notices)\n"
        "except SearchError as exc:\n"
        "    print(exc)\n"
    )
    failures = []
    for round_ in range(6):  # (a race: on the code before, one round in three went wrong)
        db, go = tmp_path / f"state{round_}" / "search" / "sessions.db", tmp_path / f"go{round_}"
        command = [sys.executable, "-c", script, str(db), str(root), str(go)]
        children = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(3)]
        for child in children:  # (each says it is ready, its imports done, before any of them starts)
            assert child.stdout is not None and child.stdout.readline() == "\n"
        go.touch()
        failures += [out for child in children if (out := child.communicate(timeout=120)[0].strip()) != "1 []"]
    assert failures == []


def test_a_subagents_link_out_of_the_projects_directory_is_not_followed(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    outside = tmp_path / "outside"
    write(outside / "agent-x.jsonl", prompt("a secret from elsewhere", session=SESSION, cwd="/o"))
    write(root / "-w" / f"{SESSION}.jsonl", prompt("the session itself", session=SESSION, cwd="/w"))
    (root / "-w" / SESSION).mkdir()
    (root / "-w" / SESSION / "subagents").symlink_to(outside)
    index.update()
    assert index.search("elsewhere") == [] and len(index.search("session")) == 1


def test_an_unfinished_last_line_that_does_not_grow_is_not_read_again_at_every_look(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    path = root / "-w" / f"{SESSION}.jsonl"
    write(path, prompt("before the zeros", session=SESSION, cwd="/w"))
    with path.open("ab") as handle:  # (a crash's tail: zeros, no newline)
        handle.write(b"\x00" * (1 << 20))
    index.update()
    first = index.progress.bytes_read
    assert first == path.stat().st_size
    index.update()
    index.update()
    assert index.progress.bytes_read == first  # a stat, no read: nothing changed
    with path.open("ab") as handle:
        handle.write(b"\n" + prompt("after the zeros", session=SESSION, cwd="/w").encode())
    index.update()
    assert len(index.search("zeros")) == 2


def test_a_full_disk_is_said_as_such_not_as_another_process_holding_the_index(tmp_path: Path) -> None:
    root = tmp_path / "claude" / "projects"
    path = root / "-w" / f"{SESSION}.jsonl"
    write(path, prompt("a small start", session=SESSION, cwd="/w"))
    script = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "from agentui.core.search.index import SessionIndex\n"
        "index = SessionIndex(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "if sys.argv[3] == 'full':  # (files may grow no more: the disk is full as far as SQLite can tell)\n"
        "    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))\n"
        "index.update()\n"
        "print(index.notices)\n"
    )
    db = tmp_path / "state" / "search" / "sessions.db"
    run = [sys.executable, "-c", script, str(db), str(root)]
    assert subprocess.run([*run, "room"], capture_output=True, text=True, timeout=120).stdout.strip() == "[]"
    many = [f"word{n * 7919 % 1_000_003}x{n}" for n in range(60_000)]
    write(path, *(prompt(" ".join(many[k : k + 100]), session=SESSION, cwd="/w") for k in range(0, 60_000, 100)))
    said = subprocess.run([*run, "full"], capture_output=True, text=True, timeout=120).stdout
    assert "Another agentui process" not in said and "could not be brought up to date" in said


def test_a_snippet_of_a_word_megabytes_long_is_clipped_around_the_match(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    blob = "QUJD" + "x" * (4 << 20)  # (a pasted base64 blob: one token, four megabytes)
    write(root / "-w" / f"{SESSION}.jsonl", prompt(f"{blob} then the needle, {blob}", session=SESSION, cwd="/w"))
    index.update()
    (hit,) = index.search("needle")
    assert len(hit.marked) <= 1000 and "\x02needle\x03" in hit.marked
    (hit,) = index.search("quj", prefix=True)
    assert len(hit.marked) <= 1000 and hit.marked.startswith("\x02QUJD")


def test_a_lone_surrogate_and_a_file_name_that_is_not_utf8_leave_the_rest_searchable(tmp_path: Path) -> None:
    index, root = new_index(tmp_path)
    write(
        root / "-w" / f"{SESSION}.jsonl",
        prompt("a good line", session=SESSION, cwd="/w"),
        prompt("an emoji cut \ud83d in half", session=SESSION, cwd="/w\udc80"),  # (JSON writes it as \\ud83d)
    )
    with open(os.fsencode(root / "-w") + b"/agent-\xff.jsonl", "wb") as handle:
        handle.write(prompt("a stray file", session=SESSION, cwd="/w").encode())
    index.update()
    assert len(index.search("good")) == 1
    (hit,) = index.search("emoji")
    assert hit.marked.startswith("an \x02emoji\x03 cut")

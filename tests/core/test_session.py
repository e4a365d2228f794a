"""Sessions in Claude Code's format: where they live, what is written, how they are read back and resumed."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from agentui.core.messages import Message, TextBlock, ToolResultBlock
from agentui.core.run_options import ModelOptions
from agentui.core.session.listing import describe, list_sessions
from agentui.core.session.lookup import SessionError, SessionRequest
from agentui.core.session.paths import MAX_SANITIZED_LENGTH, project_dir, sanitize
from agentui.core.session.reader import RESUME_PLACEHOLDER, load_session
from agentui.core.session.store import open_session
from tests.conftest import assert_valid_history
from tests.support.agents import new_agent
from tests.support.sessions import claude_code_log_reads, lines, run_session
from tests.support.tools import Echo, WriteNote

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-projects"
ALL_FIXTURES = sorted(FIXTURES.glob("**/*.jsonl"))
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ENVELOPE_HEAD = ["parentUuid", "isSidechain", "type"]
ENVELOPE_TAIL = ["uuid", "timestamp", "userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch"]
"""Claude Code 2.1's order (recorded from 2.1.197): the line's own fields come between the two."""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    project = tmp_path / "my.project"
    project.mkdir()
    return project


# Where


def test_sanitizing_matches_claude_code() -> None:
    assert sanitize("/Users/foo/my.proj") == "-Users-foo-my-proj"
    assert sanitize("/home/joe/.claude") == "-home-joe--claude"
    assert sanitize("/tmp/caf\u00e9/\U0001f600") == "-tmp-caf----"  # é is one UTF-16 unit, the emoji two
    long = "/" + "/".join(["segment"] * 40)
    name = sanitize(long)
    assert len(long) > MAX_SANITIZED_LENGTH and name[:MAX_SANITIZED_LENGTH] == sanitize(long[:MAX_SANITIZED_LENGTH])
    assert re.fullmatch(r"-[0-9a-z]+", name[MAX_SANITIZED_LENGTH:])
    assert sanitize(long) == name and sanitize(long + "x") != name  # stable, and tells paths apart


def test_a_long_project_path_finds_claude_codes_directory_by_prefix(tmp_path: Path, env: dict[str, str]) -> None:
    deep = tmp_path.joinpath(*["nested-directory"] * 14)
    deep.mkdir(parents=True)
    ours = project_dir(deep, env)
    theirs = ours.parent / (ours.name[:MAX_SANITIZED_LENGTH] + "-bunhash1")  # Claude Code's CLI hashes differently
    theirs.mkdir(parents=True)
    assert project_dir(deep, env) == theirs


# Writing


async def test_a_session_is_written_as_claude_code_writes_it(cwd: Path, env: dict[str, str]) -> None:
    script = [
        {
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "Echo", "input": {"text": "pong"}},
                {"type": "tool_use", "id": "toolu_2", "name": "Echo", "input": {"text": "pang"}},
            ],
            "usage": {"input_tokens": 120, "output_tokens": 30},
        },
        {"text": "Both answered."},
    ]
    opened, _agent = await run_session(cwd, env, script, ["ping twice"], Echo())
    path = opened.path
    assert path.parent == Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / sanitize(str(cwd.resolve()))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    written = lines(path)
    chain = [e for e in written if "uuid" in e]
    for entry in chain:
        head = [key for key in entry if key != "promptId"][:3]  # (a user line's promptId comes after isSidechain)
        assert head == ENVELOPE_HEAD and list(entry)[-8:] == ENVELOPE_TAIL
        assert ("promptId" in entry) == (entry["type"] == "user") and list(entry).index(
            "promptId" if "promptId" in entry else "type"
        ) == 2
        assert entry["entrypoint"] == "cli"
        assert UUID4.match(entry["uuid"]) and TIMESTAMP.match(entry["timestamp"])
        assert (
            entry["sessionId"] == opened.session_id
            and entry["userType"] == "external"
            and entry["isSidechain"] is False
        )
    kinds = [
        (e["type"], e["message"]["content"][0]["type"] if isinstance(e["message"]["content"], list) else "prompt")
        for e in chain
    ]
    assert kinds == [
        ("user", "prompt"),
        ("assistant", "text"),
        ("assistant", "tool_use"),
        ("assistant", "tool_use"),
        ("user", "tool_result"),
        ("user", "tool_result"),
        ("assistant", "text"),
    ]
    first_message = chain[1:4]
    assert len({e["message"]["id"] for e in first_message}) == 1 and len({e["requestId"] for e in first_message}) == 1
    assert all(
        e["message"]["usage"]["input_tokens"] == 120 and e["message"]["stop_reason"] == "tool_use"
        for e in first_message
    )
    result_1, result_2 = chain[4], chain[5]
    assert result_1["parentUuid"] == result_1["sourceToolAssistantUUID"] == chain[2]["uuid"]
    assert result_2["parentUuid"] == result_2["sourceToolAssistantUUID"] == chain[3]["uuid"]
    assert result_1["toolUseResult"] == {"length": 4}
    assert chain[6]["parentUuid"] == result_2["uuid"]
    assert [e for e in written if e["type"] == "summary"] == [
        {"type": "summary", "summary": "ping twice", "leafUuid": chain[6]["uuid"]}
    ]
    claude_code_log_reads(path)


async def test_errors_interrupts_and_titles_are_written_and_readable(cwd: Path, env: dict[str, str]) -> None:
    script = [
        {"error": {"status": 400, "message": "bad request"}},
        {
            "content": [{"type": "tool_use", "id": "t1", "name": "WriteNote", "input": {"note": "x"}}],
            "cut_after_blocks": 1,
        },
        {"text": "fine"},
    ]
    opened, _agent = await run_session(cwd, env, script, ["first", "second", "third"], WriteNote())
    written = lines(opened.path)
    errors = [e for e in written if e["type"] == "system"]
    assert [e["subtype"] for e in errors] == ["api_error", "api_error"] and errors[0]["level"] == "error"
    reopened = open_session(SessionRequest(resume=opened.session_id), cwd, env=env)
    reopened.writer.rename("My renamed session")
    reopened.writer.close()
    assert describe(opened.path).title == "My renamed session"
    claude_code_log_reads(opened.path)


async def test_tool_output_secrets_are_redacted_in_the_file_not_for_the_model(cwd: Path, env: dict[str, str]) -> None:
    key = "sk-ant-api03-" + "A" * 40
    script = [
        {"content": [{"type": "tool_use", "id": "t1", "name": "Echo", "input": {"text": f"KEY={key}"}}]},
        {"text": "done"},
    ]
    opened, agent = await run_session(cwd, env, script, ["show the key"], Echo())
    assert key not in opened.path.read_text() and "[REDACTED anthropic-key]" in opened.path.read_text()
    result = next(b for m in agent.messages for b in m.content if isinstance(b, ToolResultBlock))
    assert result.content == f"KEY={key}"


# Reading and resuming


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: f"{p.parent.name[:24]}/{p.name[:14]}")
def test_every_claude_code_fixture_loads_into_a_valid_history(path: Path) -> None:
    session = load_session(path)
    assert session.skipped == 0 and session.messages, path
    assert session.messages[0].role == "user"
    assert_valid_history(session.messages)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    main = [r for r in rows if not r.get("isSidechain")] or rows
    calls_in_file = {
        b["id"]
        for r in main
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if b.get("type") == "tool_use"
    }
    assert {call.id for m in session.messages for call in m.tool_uses} == calls_in_file
    results = [b for m in session.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert len(results) == len(calls_in_file)


def test_resume_follows_the_newest_branch_after_a_rewind() -> None:
    session = load_session(FIXTURES / "-experiments-ideas" / "03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl")
    prompts = [m.text for m in session.messages if m.role == "user"]
    assert any(p.startswith("I actually don't like much this idea") for p in prompts)
    assert not any(p.startswith("I very much like this idea") for p in prompts)  # the abandoned branch


def test_a_rewind_mark_decides_where_resuming_starts_until_something_comes_after_it(tmp_path: Path) -> None:
    def line(uuid: str, parent: str | None, role: str, text: str) -> dict[str, object]:
        content = text if role == "user" else [{"type": "text", "text": text}]
        when = f"2026-01-01T00:00:0{uuid[1]}.000Z"
        return {"parentUuid": parent, "isSidechain": False, "type": role, "uuid": uuid, "timestamp": when,
                "message": {"role": role, "content": content}}  # fmt: skip

    def mark(leaf: str | None, explicit: bool = True) -> dict[str, object]:
        return {"type": "last-prompt", "leafUuid": leaf, "sessionId": "s"} | ({"explicit": True} if explicit else {})

    talk = [line("u1", None, "user", "one"), line("a2", "u1", "assistant", "One."),
            line("u3", "a2", "user", "two"), line("a4", "u3", "assistant", "Two.")]  # fmt: skip
    cases = [
        ([mark("a2")], ["one", "One."]),
        ([mark("a2"), mark("a2", explicit=False)], ["one", "One."]),  # (Claude Code's own line at exit)
        ([mark("a2"), mark("a4", explicit=False)], ["one", "One.", "two", "Two."]),
        ([mark(None)], []),  # rewound to before the first prompt
        ([mark("a2"), line("u5", "a2", "user", "again")], ["one", "One.", "again"]),
        ([mark("gone")], ["one", "One.", "two", "Two."]),  # (a leaf that is not in the file is no leaf)
    ]
    for after, texts in cases:
        path = tmp_path / "s.jsonl"
        path.write_text("".join(json.dumps(entry) + "\n" for entry in [*talk, *after]))
        assert [m.text for m in load_session(path).messages] == texts, after


def test_lines_a_tombstone_deleted_are_passed_over(tmp_path: Path) -> None:
    """Cersei's soft delete: `{"type": "tombstone", "deleted_uuid": ...}` appended later; the chain goes on through
    the nearest line kept, and a deleted tool call takes its result with it."""

    def line(uuid: str, parent: str | None, role: str, content: object) -> dict[str, object]:
        return {"parentUuid": parent, "isSidechain": False, "type": role, "uuid": uuid,
                "timestamp": f"2026-01-01T00:00:{uuid[1:]:0>2}.000Z",
                "message": {"role": role, "id": f"msg_{uuid}", "content": content}}  # fmt: skip

    call = [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a.py"}}]
    result = [{"type": "tool_result", "tool_use_id": "t1", "content": "x = 1"}]
    entries = [
        line("u1", None, "user", "one"), line("a2", "u1", "assistant", [{"type": "text", "text": "One."}]),
        line("u3", "a2", "user", "a secret"), line("a4", "u3", "assistant", [{"type": "text", "text": "Noted."}]),
        line("u5", "a4", "user", "read a.py"), line("a6", "u5", "assistant", call), line("u7", "a6", "user", result),
        line("a8", "u7", "assistant", [{"type": "text", "text": "Read."}]),
        {"type": "tombstone", "deleted_uuid": "u3", "timestamp": "2026-01-01T00:01:00Z"},
        {"type": "tombstone", "deleted_uuid": "a4", "timestamp": "2026-01-01T00:01:00Z"},
        {"type": "tombstone", "deleted_uuid": "a6", "timestamp": "2026-01-01T00:01:00Z"},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    loaded = load_session(path)
    said = [block for message in loaded.messages for block in message.content]
    assert "a secret" not in json.dumps([b.model_dump() for b in said]) and "Noted." not in loaded.messages[1].text
    assert [m.text for m in loaded.messages if m.text][:3] == ["one", "One.", "read a.py"]
    assert not any(isinstance(b, ToolResultBlock) for b in said)  # (its call was deleted: the result goes too)
    assert loaded.messages[-1].text == "Read."
    assert_valid_history(loaded.messages)


def test_parallel_results_on_side_branches_are_spliced_back() -> None:
    path = FIXTURES / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    session = load_session(path)
    biggest = max((m for m in session.messages if m.role == "assistant"), key=lambda m: len(m.tool_uses))
    position = session.messages.index(biggest)
    answers = [b.tool_use_id for b in session.messages[position + 1].content if isinstance(b, ToolResultBlock)]
    assert len(biggest.tool_uses) >= 3 and answers == [call.id for call in biggest.tool_uses]


def test_a_history_that_starts_mid_conversation_gets_a_placeholder(tmp_path: Path) -> None:
    entry = {
        "parentUuid": "missing",
        "isSidechain": False,
        "type": "assistant",
        "uuid": "a1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "Continuing."}]},
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(entry) + "\n")
    assert load_session(path).messages == [
        Message.user(RESUME_PLACEHOLDER),
        Message(role="assistant", content=[TextBlock(text="Continuing.")], id="msg_1"),
    ]


async def test_resume_appends_to_the_same_file_parented_on_the_leaf(cwd: Path, env: dict[str, str]) -> None:
    first, _ = await run_session(cwd, env, [{"text": "One."}], ["hi"])
    leaf = [e for e in lines(first.path) if "uuid" in e][-1]["uuid"]
    second, agent = await run_session(
        cwd, env, [{"text": "Two."}], ["again"], request=SessionRequest(continue_last=True)
    )
    assert second.path == first.path and second.session_id == first.session_id
    chain = [e for e in lines(first.path) if "uuid" in e]
    assert chain[2]["parentUuid"] == leaf and chain[2]["message"]["content"] == "again"
    assert [m.text for m in agent.messages] == ["hi", "One.", "again", "Two."]
    assert len([e for e in lines(first.path) if e["type"] == "summary"]) == 1
    claude_code_log_reads(first.path)


async def test_fork_copies_the_history_into_a_new_session(cwd: Path, env: dict[str, str]) -> None:
    first, _ = await run_session(cwd, env, [{"text": "One."}], ["hi"])
    before = first.path.read_bytes()
    fork, _agent = await run_session(
        cwd, env, [{"text": "Forked."}], ["branch off"], request=SessionRequest(resume=first.session_id, fork=True)
    )
    assert fork.session_id != first.session_id and first.path.read_bytes() == before
    assert {e["sessionId"] for e in lines(fork.path) if "sessionId" in e} == {fork.session_id}
    assert [m.text for m in load_session(fork.path).messages] == ["hi", "One.", "branch off", "Forked."]
    claude_code_log_reads(fork.path)


async def test_a_chosen_session_id(cwd: Path, env: dict[str, str]) -> None:
    chosen = "12345678-1234-4234-8234-123456789abc"
    opened, _ = await run_session(cwd, env, [{"text": "ok"}], ["hi"], request=SessionRequest(session_id=chosen))
    assert opened.path.name == f"{chosen}.jsonl"
    with pytest.raises(SessionError, match="already exists; use --resume"):
        open_session(SessionRequest(session_id=chosen), cwd, env=env)
    with pytest.raises(SessionError, match="must be a UUID"):
        open_session(SessionRequest(session_id="not-a-uuid"), cwd, env=env)


def test_one_writer_per_session(cwd: Path, env: dict[str, str]) -> None:
    first = open_session(SessionRequest(), cwd, env=env)
    assert not first.path.exists()  # a session that never said anything leaves no file
    first.writer.rename("in use")  # its first line creates the file, locked
    with pytest.raises(SessionError, match=r"is open in another agentui; add --fork-session"):
        open_session(SessionRequest(resume=first.session_id), cwd, env=env)
    forked = open_session(SessionRequest(resume=first.session_id, fork=True), cwd, env=env)
    forked.writer.close()
    first.writer.close()
    open_session(SessionRequest(resume=first.session_id), cwd, env=env).writer.close()


def test_two_agentuis_starting_the_same_new_session_id_the_second_goes_on_unsaved(
    cwd: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Both open before either has written (the file is made by the first line): the loser is told once, writes
    nothing more, and never writes to a descriptor number it closed (issue 31: EBADF, and lines could land in
    whatever file reused the number)."""
    from agentui.core.events import UserMessage

    chosen = "12345678-1234-4234-8234-123456789abd"
    said: list[str] = []
    winner = open_session(SessionRequest(session_id=chosen), cwd, env=env)
    loser = open_session(SessionRequest(session_id=chosen), cwd, env=env, on_error=said.append)
    winner.writer.rename("the winner")
    prompt = UserMessage(session_id=chosen, message=Message.user("hello"), source="prompt")
    loser.writer.handle(prompt)
    assert said == [
        f"Session {chosen} was started by another agentui at the same time; this conversation goes on unsaved."
    ]
    bystander = tmp_path / "bystander.txt"
    with bystander.open("w") as handle:  # (takes the lowest free number: the one the loser closed)
        loser.writer.handle(prompt)
        loser.writer.rename("the loser")
        loser.writer.close()
        handle.write("mine\n")
    assert bystander.read_text() == "mine\n"
    assert said == said[:1]
    assert [e.get("customTitle") for e in lines(winner.path) if e.get("type") == "custom-title"] == ["the winner"]
    winner.writer.close()


def test_unknown_sessions_are_named(cwd: Path, env: dict[str, str]) -> None:
    with pytest.raises(SessionError, match="No session 00000000-0000-4000-8000-000000000000 was found"):
        open_session(SessionRequest(resume="00000000-0000-4000-8000-000000000000"), cwd, env=env)
    with pytest.raises(SessionError, match="neither a session id"):
        open_session(SessionRequest(resume="yesterday"), cwd, env=env)


# Corrupt files


def test_corrupt_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    source = FIXTURES / "-src-experiments-claude_p" / "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl"
    good = source.read_bytes().splitlines(keepends=True)
    cases = {
        "truncated-last-line": b"".join(good) + good[3][: len(good[3]) // 2],
        "garbage-in-the-middle": b"".join(good[:3]) + b"{not json at all\n" + b"".join(good[3:]),
        "nul-padding": b"".join(good) + b"\x00" * 4096,
        "nul-run-mid-line": b"".join(good[:2]) + b"\x00" * 100 + b'{"type":"us\n' + b"".join(good[2:]),
        # (nested past the JSON decoder's depth: a RecursionError, not a ValueError)
        "nested-too-deep": b"".join(good[:3]) + b'{"type":"user","x":' + b"[" * 200_000 + b"\n" + b"".join(good[3:]),
    }
    expected = load_session(source).messages
    for name, data in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(data)
        session = load_session(path)
        assert session.messages == expected, name
        assert session.skipped == (0 if name == "nul-padding" else 1), name
        if name == "nested-too-deep":
            listing = tmp_path / "listing"
            listing.mkdir()
            (listing / source.name).write_bytes(data)
            [listed] = list_sessions(listing)
            assert listed.messages > 0
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert load_session(empty).messages == [] and load_session(empty).leaf_uuid is None


def test_an_unreadable_session_file_is_a_clear_error(cwd: Path, env: dict[str, str], tmp_path: Path) -> None:
    not_a_file = tmp_path / "odd.jsonl"
    not_a_file.mkdir()
    with pytest.raises(SessionError, match=rf"^There is no session file at {re.escape(str(not_a_file))}\.$"):
        open_session(SessionRequest(resume=str(not_a_file)), cwd, env=env)
    cannot_read = project_dir(cwd, env) / "0a0a0a0a-0000-4000-8000-000000000000.jsonl"
    cannot_read.mkdir(parents=True)
    with pytest.raises(SessionError, match=r"cannot be read \(Is a directory\)\.$"):
        open_session(SessionRequest(resume=cannot_read.stem), cwd, env=env)


async def test_a_session_file_with_loose_permissions_is_made_private(cwd: Path, env: dict[str, str]) -> None:
    first, _ = await run_session(cwd, env, [{"text": "One."}], ["hi"])
    first.path.chmod(0o644)  # copied in from elsewhere
    await run_session(cwd, env, [{"text": "Two."}], ["again"], request=SessionRequest(continue_last=True))
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o600


# Listing


async def test_listing_from_head_and_tail(cwd: Path, env: dict[str, str]) -> None:
    await run_session(cwd, env, [{"text": "a"}], ["first session prompt"])
    _second, _ = await run_session(cwd, env, [{"text": "b"}, {"text": "c"}], ["second session", "its last prompt"])
    big = project_dir(cwd, env) / "0f0f0f0f-0000-4000-8000-000000000000.jsonl"
    line = json.dumps(
        {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "uuid": "u",
            "timestamp": "t",
            "gitBranch": "feature",
            "message": {"role": "user", "content": "x" * 500},
        }
    )
    big.write_text("\n".join([line] * 2000) + "\n")
    os.utime(big, (1, 1))  # the oldest
    sessions = list_sessions(project_dir(cwd, env))
    assert [s.title for s in sessions] == ["second session", "first session prompt", "x" * 500]
    assert sessions[0].last_prompt == "its last prompt" and sessions[0].messages == 4 and not sessions[0].approximate
    assert sessions[2].approximate and 1500 < sessions[2].messages < 2500 and sessions[2].git_branch == "feature"
    (project_dir(cwd, env) / "agent-1234abcd.jsonl").write_text(line + "\n")  # a sub-agent file is not a session
    assert len(list_sessions(project_dir(cwd, env))) == 3


async def test_compaction_lines_start_a_new_root_that_resume_honours(cwd: Path, env: dict[str, str]) -> None:
    from agentui.core.events import CompactionEnd, CompactionStart

    opened, _agent = await run_session(cwd, env, [{"text": "Old answer."}], ["old question"])
    resumed = open_session(SessionRequest(resume=opened.session_id), cwd, env=env)
    sid = resumed.session_id
    resumed.writer.handle(CompactionStart(session_id=sid, trigger="auto", pre_tokens=150_000))
    resumed.writer.handle(
        CompactionEnd(
            session_id=sid,
            summary="This session is being continued from a previous "
            "conversation that ran out of context. Summary: asked an old question.",
            post_tokens=2_000,
        )
    )
    resumed.writer.close()
    boundary, summary = [e for e in lines(opened.path) if "uuid" in e][-2:]
    assert boundary["subtype"] == "compact_boundary" and boundary["parentUuid"] is None
    assert boundary["logicalParentUuid"] == [e for e in lines(opened.path) if "uuid" in e][-3]["uuid"]
    assert boundary["compactMetadata"] == {"trigger": "auto", "preTokens": 150_000}
    assert summary["isCompactSummary"] is True and summary["parentUuid"] == boundary["uuid"]
    messages = load_session(opened.path).messages
    assert [m.text for m in messages] == [summary["message"]["content"]]  # only what follows the boundary
    claude_code_log_reads(opened.path)


async def test_a_compacted_session_resumes_to_exactly_what_the_model_saw(cwd: Path, env: dict[str, str]) -> None:
    from agentui.core.loop.agent import AgentConfig
    from agentui.core.providers.scripted import ScriptedProvider
    from agentui.core.tools.base import ToolRegistry

    def echo(call_id: str, text: str) -> dict:
        return {
            "content": [
                {"type": "text", "text": f"Echoing {text}."},
                {"type": "tool_use", "id": call_id, "name": "Echo", "input": {"text": text}},
            ]
        }

    script = [echo(f"t{n}", f"word{n} " + "w" * 3000) for n in range(6)] + [
        {"text": "Echoed them all."},
        {"text": "SUMMARY: echoed six words."},
        {"text": "After."},
    ]
    opened = open_session(SessionRequest(), cwd, env=env)
    agent = new_agent(
        ScriptedProvider(script),
        AgentConfig(model="claude-test", cwd=cwd, options=ModelOptions(context_window=60_000)),
        tools=ToolRegistry([Echo()]),
        session_id=opened.session_id,
    )
    opened.writer.attach(agent.bus)
    await agent.prompt("echo six words")
    await agent.compact()
    await agent.prompt("and now?")
    opened.writer.close()

    entries = [e for e in lines(opened.path) if "uuid" in e]
    boundary = next(e for e in entries if e.get("subtype") == "compact_boundary")
    assert boundary["compactMetadata"]["trigger"] == "manual"
    resumed = load_session(opened.path).messages
    assert (
        resumed[0].text == "This session is being continued from a previous conversation that ran out of "
        "context. The summary below covers the earlier portion of the conversation.\n\n"
        "SUMMARY: echoed six words."
    )
    # the kept turns were written again after the summary, once each
    assert [(m.role, m.content) for m in resumed] == [(m.role, m.content) for m in agent.messages]
    assert "word5" in repr(resumed) and "word0" not in repr(resumed) and resumed[-1].text == "After."
    # and the results written again keep their details, so a resumed session shows the same blocks
    loaded = load_session(opened.path)
    kept_results = [b.tool_use_id for m in resumed for b in m.content if isinstance(b, ToolResultBlock)]
    assert kept_results and all(loaded.tool_details[i] == {"length": 3006} for i in kept_results)
    after = entries[entries.index(boundary) :]
    rewritten = [e for e in after if e["type"] == "user" and "toolUseResult" in e]
    assert len(rewritten) == len(kept_results) and all("sourceToolAssistantUUID" in e for e in rewritten)
    assert_valid_history(resumed)
    claude_code_log_reads(opened.path)


def looped_copy(source: Path, target: Path) -> None:
    """`source` with its first chain line's parentUuid pointed at its newest message: the chain now loops."""
    entries = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    chain = [e for e in entries if e.get("type") in ("user", "assistant") and not e.get("isSidechain")]
    root = next(e for e in chain if e.get("parentUuid") is None)
    newest = chain[-1]
    root["parentUuid"] = newest["uuid"]
    target.write_text("".join(json.dumps(e) + "\n" for e in entries))


@pytest.mark.parametrize("fixture", ALL_FIXTURES[:4], ids=lambda p: p.stem[:8])
def test_a_chain_that_loops_recovers_the_longest_unbroken_part_and_says_so(fixture: Path, tmp_path: Path) -> None:
    whole = load_session(fixture)
    looped_copy(fixture, tmp_path / fixture.name)
    loaded = load_session(tmp_path / fixture.name)
    assert loaded.looped
    assert len(loaded.messages) >= len(whole.messages) - 1 and len(loaded.messages) > 0
    [warning] = loaded.warnings()
    assert "loops back on itself" in warning and fixture.name in warning
    assert_valid_history(loaded.messages)
    assert not whole.looped and whole.warnings() == []


def test_empty_unreadable_and_partly_corrupt_session_files_say_what_was_left_out(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 40)
    partly = tmp_path / "partly.jsonl"
    partly.write_bytes(ALL_FIXTURES[0].read_bytes() + b"{not json\n\xff\xfe garbage\n")
    assert "is empty" in load_session(empty).warnings()[0]
    assert "could be read" in load_session(binary).warnings()[0]
    [said] = load_session(partly).warnings()
    assert said.startswith("2 of the ") and "were skipped" in said
    heard: list[str] = []
    opened = open_session(SessionRequest(resume=str(partly)), tmp_path, on_error=heard.append)
    opened.writer.close()
    assert heard == [said]


def test_a_claude_code_compaction_keeps_its_preserved_turns_where_they_were_written(tmp_path: Path) -> None:
    """Claude Code 2.1 does not write a compaction's kept turns again: its boundary names them (preservedSegment),
    and they are read after the summary. A segment that does not lead back to its head is left out."""

    def line(uuid: str, parent: str | None, kind: str, content: object, **more: object) -> str:
        entry = {
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "s",
            "timestamp": f"2026-01-01T00:00:{uuid[-2:]}Z",
            "message": {"role": kind, "content": content},
            **more,
        }
        return json.dumps(entry)

    def session(segment: dict[str, str]) -> Path:
        path = tmp_path / f"{len(list(tmp_path.iterdir()))}.jsonl"
        boundary = {"type": "system", "subtype": "compact_boundary", "uuid": "b-05", "parentUuid": None,
                    "logicalParentUuid": "a-04", "sessionId": "s", "timestamp": "2026-01-01T00:00:05Z",
                    "compactMetadata": {"trigger": "manual", "preservedSegment": segment}}  # fmt: skip
        path.write_text("\n".join([
            line("u-01", None, "user", "first"),
            line("a-02", "u-01", "assistant", [{"type": "text", "text": "old answer"}]),
            line("u-03", "a-02", "user", "second"),
            line("a-04", "u-03", "assistant", [{"type": "text", "text": "kept answer"}]),
            json.dumps(boundary),
            line("s-06", "b-05", "user", "SUMMARY", isCompactSummary=True),
            line("u-07", "s-06", "user", "third"),
        ]) + "\n")  # fmt: skip
        return path

    kept = load_session(session({"headUuid": "u-03", "anchorUuid": "s-06", "tailUuid": "a-04"})).messages
    assert [m.text for m in kept] == ["SUMMARY", "second", "kept answer", "third"]
    broken = load_session(session({"headUuid": "u-99", "anchorUuid": "s-06", "tailUuid": "a-04"})).messages
    assert [m.text for m in broken] == ["SUMMARY", "third"]


def test_writers_starting_at_once_in_a_new_project_directory_each_save_their_session(tmp_path: Path) -> None:
    """Four agentui processes started together in a project with no session directory yet: each creates it as it
    writes its first line, and none may take the other's mkdir for a failure (CI lost one session so)."""
    import threading

    from agentui.core.events import UserMessage
    from agentui.core.session.writer import SessionWriter

    for round_ in range(30):
        directory = tmp_path / f"round{round_}" / "project"
        errors: list[str] = []
        writers = [
            SessionWriter(
                directory / f"{n:08d}-0000-4000-8000-000000000000.jsonl",
                f"{n:08d}-0000-4000-8000-000000000000",
                tmp_path,
                on_error=errors.append,
            )
            for n in range(8)
        ]
        barrier = threading.Barrier(len(writers))

        def first_line(writer: SessionWriter, barrier: threading.Barrier) -> None:
            barrier.wait(timeout=60)
            writer.handle(UserMessage(session_id=writer.session_id, message=Message.user("hi"), source="prompt"))

        threads = [threading.Thread(target=first_line, args=(writer, barrier)) for writer in writers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        for writer in writers:
            writer.close()
        assert errors == []
        assert sorted(path.name for path in directory.iterdir()) == sorted(writer.path.name for writer in writers)


async def test_a_prompt_sent_in_plan_mode_titles_its_session_without_the_reminder(
    cwd: Path, env: dict[str, str]
) -> None:
    """Plan mode adds its reminder to each prompt's message for the model; the session's title, its last prompt and
    the picker's listing name what the person typed."""
    from agentui.core.loop.agent import AgentConfig
    from agentui.core.providers.scripted import ScriptedProvider
    from agentui.core.tools.plan import PLAN_MODE_REMINDER

    opened = open_session(SessionRequest(), cwd, env=env)
    agent = new_agent(
        ScriptedProvider([{"text": "A plan."}]),
        AgentConfig(model="claude-test", cwd=cwd),
        session_id=opened.session_id,
        reminders=lambda: [PLAN_MODE_REMINDER],
    )
    opened.writer.attach(agent.bus)
    await agent.prompt("Plan the migration")
    opened.writer.close()
    written = lines(opened.path)
    sent = next(e for e in written if e["type"] == "user")["message"]["content"]
    assert any("<system-reminder>" in block["text"] for block in sent)  # (the model was told)
    assert [e["summary"] for e in written if e["type"] == "summary"] == ["Plan the migration"]
    assert [e["lastPrompt"] for e in written if e["type"] == "last-prompt"] == ["Plan the migration"]
    assert describe(opened.path).title == "Plan the migration"


async def test_an_errors_secrets_are_redacted_in_the_session_file(cwd: Path, env: dict[str, str]) -> None:
    token = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKENxyz0123456789"
    script = [{"error": {"status": 400, "message": f"no (canonical request x-amz-security-token:{token})"}}]
    opened, _agent = await run_session(cwd, env, script, ["first"])
    text = opened.path.read_text()
    assert token not in text and "[REDACTED aws-session-token]" in text


async def test_an_error_shown_to_the_person_has_its_secrets_redacted(cwd: Path) -> None:
    from agentui.core.events import Error
    from agentui.core.loop.agent import AgentConfig
    from agentui.core.providers.scripted import ScriptedProvider

    token = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKENxyz0123456789"
    said = f"no: Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/x, X-Amz-Security-Token={token}"
    agent = new_agent(ScriptedProvider([{"error": {"status": 400, "message": said}}]), AgentConfig(model="m", cwd=cwd))
    shown: list[str] = []
    agent.bus.on(lambda event: shown.append(event.message) if isinstance(event, Error) else None)
    result = await agent.prompt("hi")
    assert len(shown) == 1 and token not in shown[0] and "AKIAIOSFODNN7EXAMPLE" not in shown[0]
    assert "[REDACTED aws-signature]" in shown[0] and "[REDACTED aws-session-token]" in shown[0]
    assert result.error is not None and token not in result.error


def test_a_key_shape_inside_a_longer_word_is_not_a_key() -> None:
    """Error text and tool output are redacted: `task-...` holds `sk-`, and a name is not an OpenAI key."""
    from agentui.core.session.redact import redact_text

    kept = "the task-long-name-over-twenty-chars failed; see desk-ant-reference-guide-in-the-docs-folder"
    assert redact_text(kept) == kept
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    assert redact_text(f"key={key} and '{key}'") == "key=[REDACTED openai-key] and '[REDACTED openai-key]'"


def test_a_session_id_in_a_line_that_is_not_an_id_does_not_name_the_session(tmp_path: Path) -> None:
    """The session id names directories (its file history, its sub-agents'): a crafted file's `sessionId` that is a
    path is not taken, and the file's own name is."""
    path = tmp_path / "0a0a0a0a-0000-4000-8000-000000000000.jsonl"
    line = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "../../../../tmp/elsewhere",
            "message": {"role": "user", "content": "hi"}}  # fmt: skip
    path.write_text(json.dumps(line) + "\n")
    assert load_session(path).session_id == "0a0a0a0a-0000-4000-8000-000000000000"

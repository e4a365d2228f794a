"""The tree of a session's branches, from real Claude Code transcripts and from a session agentui wrote with a
rewind, a sub-agent, parallel attempts and a fork; bad lines and missing transcripts give a tree and a sentence."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.branch_switch import session_tree, switch_branch
from agentui.core.continuation import Branched
from agentui.core.conversation import Conversation, Launch
from agentui.core.messages import Usage
from agentui.core.parallel.attempts import AttemptConfig
from agentui.core.pricing import cost_usd
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.rewind import RewindError
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.tree import SessionTree, TreeNode, build_tree
from agentui.core.settings import Settings
from tests.core.test_file_history import use
from tests.support.work_tree import committed

FIXTURES = Path(__file__).parents[1] / "fixtures" / "claude-projects"
MODEL = "claude-sonnet-4-5"
ANSWER = cost_usd(MODEL, Usage(input_tokens=10, output_tokens=10))
"""What one scripted answer costs (the scripted provider's usage, at the model's list price)."""


def fixture(tmp_path: Path, project: str, name: str) -> Path:
    """A real transcript, copied with what sits beside it, so a test may break it."""
    if not (FIXTURES / project).is_dir():
        pytest.skip("the Claude Code fixtures are not here")
    shutil.copytree(FIXTURES / project, tmp_path / project)
    return tmp_path / project / name


def shape(node: TreeNode) -> list[Any]:
    return [node.kind, node.prompt, node.turns, [shape(child) for child in node.children]]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_an_edited_prompt_in_a_claude_code_session_is_a_branch_beside_the_main_line(tmp_path: Path) -> None:
    path = fixture(tmp_path, "-experiments-ideas", "03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl")
    tree = build_tree(path)
    assert tree.problems == []
    assert [node.kind for _, node in tree.walk()] == ["main", "rewind"]
    [rewind] = tree.root.children
    assert rewind.branched_from == "eb84e3ee-fc54-4fe4-ad76-badc5ebb4671"  # (the line with two prompts under it)
    assert rewind.prompt.startswith("I very much like this idea")
    assert tree.root.current and not rewind.current
    assert tree.root.turns == 6 and rewind.turns == 3 and rewind.cost_usd > 0


def test_a_claude_code_sub_agent_hangs_off_the_call_that_started_it(tmp_path: Path) -> None:
    path = fixture(tmp_path, "-src-experiments-claude_p", "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl")
    tree = build_tree(path)
    [agent] = tree.root.children  # (its parallel tool calls do not branch it)
    assert (agent.kind, agent.agent_id, agent.turns) == ("subagent", "a2271d1", 10)
    assert agent.branched_from == "5678510b-1f74-4e58-bd42-0daa684a5d00"
    assert agent.prompt.startswith("Give me a comprehensive overview")


def test_claude_code_1_sidechains_in_the_session_file_are_sub_agents(tmp_path: Path) -> None:
    path = fixture(tmp_path, "sample-project", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
    tree = build_tree(path)
    assert [node.kind for node in tree.root.children] == ["subagent", "subagent"]
    assert tree.root.prompt.startswith("/orchestrator")  # (a slash command's name, not its markup)


def test_corrupt_lines_and_missing_transcripts_give_a_tree_and_one_sentence(tmp_path: Path) -> None:
    path = fixture(tmp_path, "-src-experiments-claude_p", "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl")
    shutil.rmtree(path.parent / path.stem / "subagents")
    with path.open("a") as handle:
        handle.write('{"type":"user","uuid":"cut sh\n\x00garbage\n')
    tree = build_tree(path)
    assert tree.root.turns == 2 and tree.root.children == []
    assert tree.problems == [
        "2 lines of 29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl could not be read and are left out.",
        "The transcript of sub-agent a2271d1 is missing; what it did is left out of the tree.",
    ]


def opened(tmp_path: Path, script: list[dict[str, Any]], fork_script: list[dict[str, Any]]) -> Conversation:
    root = tmp_path / "project"
    committed(root, {"notes.txt": "hi\n"})
    (tmp_path / "fork.json").write_text(json.dumps(fork_script))  # (a fork opens its own provider)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    settings = Settings(provider="scripted", model=MODEL, script=tmp_path / "fork.json")
    launch = Launch(settings, cwd=root, permissions=PermissionOptions(mode="bypassPermissions"))
    return open_conversation(launch, provider=ScriptedProvider(script), env=env)


def uuid_of(path: Path, text: str) -> str:
    [found] = [
        entry["uuid"]
        for entry in lines(path)
        if entry.get("type") == "assistant" and entry["message"]["content"][0].get("text") == text
    ]
    return str(found)


async def branched_session(tmp_path: Path) -> tuple[Conversation, Branched]:
    """one → A1; two → A2, rewound and asked again; a sub-agent; two attempts; a fork from A1."""
    script = [
        {"text": "A1."},
        {"text": "A2."},
        {"text": "A3."},
        use("Task", "t1", description="look", prompt="Look around.", subagent_type="general-purpose"),
        {"text": "Looked."},
        {"text": "Delegated."},
        {"text": "Attempt."},
        {"text": "Attempt."},
    ]
    conversation = opened(tmp_path, script, [{"text": "Forked."}])
    await conversation.send("one")
    await conversation.send("two")
    conversation.rewind(conversation.prompts()[-1].uuid, code=False)
    await conversation.send("two again")
    await conversation.send("delegate")
    attempts, _ = await conversation.attempt("Try it.", [AttemptConfig(), AttemptConfig()], "tokens")
    attempts.close()
    branched = await conversation.continue_("branch", "three", uuid_of(conversation.session.path, "A1."))
    assert isinstance(branched, Branched)
    return conversation, branched


async def test_a_session_with_a_rewind_a_sub_agent_attempts_and_a_fork(tmp_path: Path) -> None:
    conversation, branched = await branched_session(tmp_path)
    try:
        path = conversation.session.path
        tree = build_tree(path)
        a1 = uuid_of(path, "A1.")
    finally:
        await branched.conversation.aclose()
        await conversation.aclose()
    assert tree.problems == []
    main = tree.root
    assert (main.kind, main.prompt, main.current) == ("main", "one", True)
    assert main.turns == 4  # A1, A3, the Task call, Delegated (the sub-agent's and the attempts' are theirs)
    by_kind = {node.kind: node for node in main.children}
    assert sorted(node.kind for node in main.children) == ["attempt", "attempt", "fork", "rewind", "subagent"]
    assert (by_kind["rewind"].prompt, by_kind["rewind"].turns, by_kind["rewind"].branched_from) == ("two", 1, a1)
    fork = by_kind["fork"]
    assert (fork.prompt, fork.turns, fork.branched_from, fork.session_id) == ("three", 1, a1, branched.session_id)
    assert (by_kind["subagent"].prompt, by_kind["subagent"].turns) == ("Look around.", 1)
    assert [node.prompt for node in main.children if node.kind == "attempt"] == ["Try it.", "Try it."]
    assert sum(node.turns for _, node in tree.walk()) == 9  # every answer counted once, the fork's copies not again
    assert sum(node.cost_usd for _, node in tree.walk()) == pytest.approx(9 * ANSWER)
    assert main.cost_usd == pytest.approx(4 * ANSWER) and ANSWER > 0


async def test_switching_to_an_older_branch_goes_on_from_its_leaf(tmp_path: Path) -> None:
    script = [{"text": "A1."}, {"text": "A2."}, {"text": "A3."}, {"text": "A4."}]
    conversation = opened(tmp_path, script, [])
    try:
        await conversation.send("one")
        await conversation.send("two")
        conversation.rewind(conversation.prompts()[-1].uuid, code=False)
        await conversation.send("two again")
        tree: SessionTree = session_tree(conversation)
        [older] = tree.root.children
        assert older.prompt == "two" and older.leaf_uuid == uuid_of(conversation.session.path, "A2.")
        with pytest.raises(RewindError, match="not in this session"):
            switch_branch(conversation, "no-such-line")
        switch_branch(conversation, older.leaf_uuid)
        assert [m.text for m in conversation.messages if m.text] == ["one", "A1.", "two", "A2."]
        after = session_tree(conversation)  # (the branch the conversation is on is the main line)
        assert (after.root.leaf_uuid, after.root.current) == (older.leaf_uuid, True)
        assert [node.prompt for node in after.root.children] == ["two again"]
        await conversation.send("four")
    finally:
        await conversation.aclose()
    [four] = [e for e in lines(conversation.session.path) if e.get("message", {}).get("content") == "four"]
    assert four["parentUuid"] == older.leaf_uuid


async def test_agentui_tree_json_prints_the_same_tree_with_stable_fields(tmp_path: Path) -> None:
    conversation, branched = await branched_session(tmp_path)
    await branched.conversation.aclose()
    await conversation.aclose()
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    ran = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "agentui", "tree", conversation.session_id, "--json"],
        cwd=conversation.root, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    printed = json.loads(ran.stdout)
    assert printed == build_tree(conversation.session.path).to_json()
    assert set(printed) == {"session_id", "file", "problems", "root"}
    assert set(printed["root"]) == {
        "kind", "prompt", "turns", "cost_usd", "leaf_uuid", "branched_from", "session_id", "file", "agent_id",
        "current", "children",
    }  # fmt: skip
    assert sorted(child["kind"] for child in printed["root"]["children"]) == [
        "attempt", "attempt", "fork", "rewind", "subagent",
    ]  # fmt: skip
    text = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "agentui", "tree", str(conversation.session.path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert text.returncode == 0 and text.stdout.splitlines()[0].startswith('* main "one": 4 turns, $')


def test_agentui_tree_of_no_such_session_or_bad_usage_is_one_sentence(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    for words, code in ([str(tmp_path / "none.jsonl")], 1), (["--json"], 2):
        ran = subprocess.run(
            [sys.executable, "-m", "agentui", "tree", *words],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert ran.returncode == code and ran.stderr.startswith("agentui: ") and ran.stderr.count("\n") == 1
        assert "Traceback" not in ran.stderr


def test_parents_that_loop_or_are_missing_still_give_a_tree(tmp_path: Path) -> None:
    def line(uuid: str, parent: str | None, kind: str, text: str) -> str:
        content: Any = text if kind == "user" else [{"type": "text", "text": text}]
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            message["id"] = f"msg_{uuid}"
        return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "message": message, "sessionId": "s"})

    path = tmp_path / "s.jsonl"
    path.write_text(
        "\n".join([
            line("u1", None, "user", "one"), line("a1", "u1", "assistant", "A1."),
            line("x", "y", "user", "loop"), line("y", "x", "assistant", "Loop."),  # (a corrupt loop of parents)
            line("u2", "gone", "user", "orphan"), line("a2", "u2", "assistant", "A2."),  # (its parent is not here)
        ]) + "\n"
    )  # fmt: skip
    tree = build_tree(path)
    assert sorted((node.prompt, node.turns) for _, node in tree.walk()) == [("one", 1), ("orphan", 1)]


def test_a_fifo_beside_the_session_or_among_its_transcripts_does_not_hang_agentui_tree(tmp_path: Path) -> None:
    """A FIFO named like a session (beside it, or as a sub-agent's transcript) is not a session: it is passed over
    instead of blocking the tree for ever, as `agentui tree`'s neighbours and /tree's are read without asking."""
    path = fixture(tmp_path, "-src-experiments-claude_p", "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl")
    os.mkfifo(path.parent / "0000-other.jsonl")
    os.mkfifo(path.parent / path.stem / "subagents" / "agent-fifo.jsonl")
    os.mkfifo(path.parent / "agent-beside.jsonl")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    ran = subprocess.run(
        [sys.executable, "-m", "agentui", "tree", str(path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[1].lstrip().startswith("subagent ")  # (the real transcript is still read)
    assert "The transcript agent-fifo.jsonl cannot be read (not a regular file)" in ran.stdout


def test_control_characters_in_a_prompt_do_not_reach_the_terminal(tmp_path: Path) -> None:
    """`agentui tree` prints prompts from a file anyone may have written: an escape sequence in one (a clipboard
    write, a colour, a C1 CSI, a bidi override that reorders what is shown) is shown as a space, never sent."""
    said = "fix\x1b]52;c;ZXZpbA==\x07 the\x1b[2J bug\x9b31m now\u202edesrever\r\nplease"
    path = tmp_path / "s.jsonl"
    entry = {"type": "user", "uuid": "u\x1bc", "parentUuid": None, "sessionId": "s", "message": {"role": "user"}}
    path.write_text(json.dumps({**entry, "message": {"role": "user", "content": said}}) + "\n")
    tree = build_tree(path)
    assert tree.root.prompt == "fix ]52;c;ZXZpbA== the [2J bug 31m now desrever please"
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    ran = subprocess.run(
        [sys.executable, "-m", "agentui", "tree", str(path)],
        cwd=tmp_path, env=env, capture_output=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0 and b"the [2J bug" in ran.stdout
    assert not any(0 < byte < 32 and byte != 10 for byte in ran.stdout) and b"\xc2\x9b" not in ran.stdout


def test_an_answer_costs_what_its_last_line_says(tmp_path: Path) -> None:
    """Claude Code writes an answer a line per block as each block ends: the first lines carry the output tokens
    counted so far (3 of 190), the last the whole answer's. Each answer is counted once, at its final usage."""
    from agentui.core.session.trace import answer_cost

    project, name = "-Users-dain-workspace-claude-code-log-sample", "0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
    path = fixture(tmp_path, project, name)
    final: dict[str, dict[str, Any]] = {}
    for entry in lines(path):
        if entry.get("type") == "assistant" and entry["message"].get("id"):
            final[entry["message"]["id"]] = entry["message"]  # (the file's later line of an answer wins)
    costs = [answer_cost(message) for message in final.values()]
    tree = build_tree(path)
    assert sum(node.turns for _, node in tree.walk()) == len(final)
    assert sum(node.cost_usd for _, node in tree.walk()) == pytest.approx(sum(c[1] for c in costs if c))


def test_a_long_session_retried_at_every_turn_gives_a_shallow_tree(tmp_path: Path) -> None:
    """3,000 turns, each asked once, rewound and asked again, then the conversation moved back to the first try:
    the main line's rest is one branch with the tries beside it, not 3,000 branches each inside the one before
    (which overflowed Python's stack in `agentui tree --json`, and in the app's tree, with a traceback)."""
    out, parent, count = [], None, 3000

    def line(uuid: str, parent: str | None, kind: str, text: str) -> str:
        content: Any = text if kind == "user" else [{"type": "text", "text": text}]
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            message |= {"id": f"msg_{uuid}", "model": MODEL, "usage": {"input_tokens": 10, "output_tokens": 10}}
        stamp = f"2026-01-01T00:00:00.{len(out):06d}Z"
        return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "message": message, "timestamp": stamp})

    for turn in range(count):  # (the try, rewound; then the turn asked again, which the next turn goes on from)
        out += [line(f"t{turn}", parent, "user", f"try {turn}"), line(f"ta{turn}", f"t{turn}", "assistant", "No.")]
        out += [line(f"u{turn}", parent, "user", f"turn {turn}"), line(f"a{turn}", f"u{turn}", "assistant", "Yes.")]
        parent = f"a{turn}"
    out.append(json.dumps({"type": "last-prompt", "leafUuid": "ta0", "explicit": True}))  # (moved to the first try)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(out) + "\n")
    tree = build_tree(path)
    assert (tree.root.prompt, tree.root.leaf_uuid) == ("try 0", "ta0")
    assert max(depth for depth, _ in tree.walk()) <= 2
    assert sum(node.turns for _, node in tree.walk()) == 2 * count
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    ran = subprocess.run(
        [sys.executable, "-m", "agentui", "tree", str(path), "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    assert json.loads(ran.stdout)["root"]["leaf_uuid"] == "ta0"


async def test_a_fork_from_a_sub_agent_is_a_conversation_of_its_own(tmp_path: Path) -> None:
    """/tree's f on a sub-agent: the new session's copy of the sub-agent's lines is its main line (left marked as
    a sub-agent's, Claude Code found no conversation in it, and its tree had no main line)."""
    script = [use("Task", "t1", description="look", prompt="Look around.", subagent_type="general-purpose")]
    conversation = opened(tmp_path, [*script, {"text": "Looked."}, {"text": "Delegated."}], [])
    await conversation.send("delegate")
    await conversation.aclose()
    [agent] = [node for _, node in build_tree(conversation.session.path).walk() if node.kind == "subagent"]
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    request = SessionRequest(resume=agent.file, resume_at=agent.leaf_uuid, fork=True)
    launch = Launch(Settings(provider="scripted", model=MODEL), cwd=conversation.root, session=request)
    forked = open_conversation(launch, provider=ScriptedProvider([]), env=env)
    await forked.aclose()
    copied = [entry for entry in lines(forked.session.path) if entry.get("uuid")]
    assert copied and not any(entry.get("isSidechain") or "agentId" in entry for entry in copied)
    tree = build_tree(forked.session.path)
    assert (tree.root.kind, tree.root.prompt, tree.root.turns, tree.root.children) == ("main", "Look around.", 1, [])


def test_a_fork_whose_lines_name_another_session_is_known_by_its_file(tmp_path: Path) -> None:
    """A session is found by its file's name: a fork whose lines still carry the id of the session it came from (or
    any other) is that file's session, so /tree resumes it there instead of refusing it as this session's branch."""
    main_id, fork_id = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"

    def line(uuid: str, parent: str | None, kind: str, text: str) -> str:
        content: Any = text if kind == "user" else [{"type": "text", "text": text}]
        message: dict[str, Any] = {"role": kind, "content": content, **({"id": f"m{uuid}"} if kind != "user" else {})}
        return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "message": message, "sessionId": main_id})

    shared = [line("u1", None, "user", "one"), line("a1", "u1", "assistant", "A1.")]
    (tmp_path / f"{main_id}.jsonl").write_text("\n".join([*shared, line("u2", "a1", "user", "two")]) + "\n")
    (tmp_path / f"{fork_id}.jsonl").write_text("\n".join([*shared, line("f2", "a1", "user", "forked")]) + "\n")
    tree = build_tree(tmp_path / f"{main_id}.jsonl")
    [fork] = tree.root.children
    assert (fork.kind, fork.prompt, fork.session_id, tree.root.session_id) == ("fork", "forked", fork_id, main_id)


async def test_moving_to_a_branch_while_parallel_attempts_run_is_refused(tmp_path: Path) -> None:
    """Attempts run in branches of their own while the conversation's agent waits: a move then would change the
    history under the attempts that are about to go on from it, so it is refused, as it is while a turn runs."""
    from tests.support.waiting import eventually

    go = tmp_path / "go"
    wait = f"while [ ! -e {go} ]; do sleep 0.1; done; echo waited"
    script = [{"text": "A1."}, use("Bash", "b1", command=wait), use("Bash", "b2", command=wait)]
    conversation = opened(tmp_path, [*script, {"text": "Tried."}, {"text": "Tried."}], [])
    try:
        await conversation.send("one")
        leaf = uuid_of(conversation.session.path, "A1.")
        trying = asyncio.ensure_future(conversation.attempt("Try it.", [AttemptConfig(), AttemptConfig()], "tokens"))
        await eventually(lambda: conversation.running)
        with pytest.raises(RewindError, match="running"):
            switch_branch(conversation, leaf)
        with pytest.raises(RewindError, match="running"):  # (a rewind, likewise)
            conversation.rewind(conversation.prompts()[-1].uuid, code=False)
        go.touch()
        attempts, _ = await asyncio.wait_for(trying, 120)
        attempts.close()
    finally:
        go.touch()
        await conversation.aclose()


def test_a_prompt_full_of_an_unclosed_tag_is_read_in_one_pass(tmp_path: Path) -> None:
    """A slash command's line is found by its tags; a prompt with 200,000 opening tags and no closing one made the
    search start over at each (hours of work for a 3 MB prompt, `agentui tree` and /tree stuck)."""
    said = "look: " + "<command-name>" * 200_000
    entry = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"content": said}}
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(entry) + "\n")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    ran = subprocess.run(
        [sys.executable, "-m", "agentui", "tree", str(path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90,
    )  # fmt: skip
    assert ran.returncode == 0 and ran.stdout.startswith('* main "look:": '), ran.stderr
    command = "<command-message>r</command-message>\n<command-name>/review</command-name><command-args>x</command-args>"
    path.write_text(json.dumps({**entry, "message": {"content": command}}) + "\n")
    assert build_tree(path).root.prompt == "/review x"


def test_a_lone_surrogate_in_a_session_is_shown_not_a_traceback(tmp_path: Path) -> None:
    """JSON may escape half a UTF-16 pair ("\\ud800"), which no terminal can be sent: it is shown as U+FFFD, in the
    text and in the JSON, instead of stopping `agentui tree` with a UnicodeEncodeError."""
    path = tmp_path / "s.jsonl"
    entry = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s",
        "message": {"content": "bad \ud800 half"},
    }
    path.write_text(json.dumps(entry) + "\n")  # (json.dumps writes it as the escape "\ud800")
    assert build_tree(path).root.prompt == "bad \ufffd half"
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    for json_flag in ([], ["--json"]):
        ran = subprocess.run(
            [sys.executable, "-m", "agentui", "tree", str(path), *json_flag],
            cwd=tmp_path, env=env, capture_output=True, text=True, encoding="utf-8", timeout=120,
        )  # fmt: skip
        assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
        assert "bad \ufffd half" in ran.stdout

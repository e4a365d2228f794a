"""`agentui --input-format stream-json` fed by hand, as a broken or hurried program would: a malformed line, an unknown
request, a message of an unknown type, a closed stdin. Each is one clear line (an error response, or a sentence on
stderr) and a clean exit, never a hang or a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

FLAGS = ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]


def serve(
    agentui_bin: str, env: dict[str, str], cwd: Path, lines: list[str], server: LoopbackServer | None = None
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    if server is not None:
        env = {**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}
    else:
        env = {**env, "ANTHROPIC_API_KEY": "x", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    done = subprocess.run(
        [agentui_bin, *FLAGS],
        input="".join(line + "\n" for line in lines),
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def user(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None})


def test_a_message_then_a_closed_stdin_is_answered_before_the_exit(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Hello back."}])))
    request = {"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize", "hooks": None}}
    done, out = serve(agentui_bin, clean_env, tmp_path, [json.dumps(request), user("hello")], server)
    assert done.returncode == 0, done.stderr
    kinds = [line["type"] for line in out]
    assert kinds == ["control_response", "system", "assistant", "result"]
    assert out[0]["response"]["subtype"] == "success" and out[0]["response"]["request_id"] == "r1"
    assert out[-1]["result"] == "Hello back." and out[-1]["subtype"] == "success"


def test_bad_input_is_one_line_and_a_clean_exit(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path) -> None:
    unknown = {"type": "control_request", "request_id": "r9", "request": {"subtype": "make_coffee"}}
    done, out = serve(agentui_bin, clean_env, tmp_path, [json.dumps(unknown)])
    assert done.returncode == 0 and "Traceback" not in done.stderr
    [response] = out
    assert response["response"] == {
        "subtype": "error",
        "request_id": "r9",
        "error": "agentui does not handle the control request 'make_coffee'",
    }

    for lines, said in (
        (["{not json"], "line 1 of the input is not JSON"),
        ([json.dumps({"type": "telepathy"})], "line 1 of the input is a message of an unknown type ('telepathy')"),
        (["[1, 2]"], "line 1 of the input is not a JSON object"),
        ([json.dumps({"type": "user", "message": {"role": "user"}})], "line 1 of the input is a user message without"),
    ):
        done, out = serve(agentui_bin, clean_env, tmp_path, lines)
        assert done.returncode == 1 and out == [], (lines, done.stdout)
        assert done.stderr.count("\n") == 1 and said in done.stderr and "Traceback" not in done.stderr

    done, out = serve(agentui_bin, clean_env, tmp_path, [])  # nothing at all: stdin closes at once
    assert done.returncode == 0 and out == [] and done.stderr == ""


def test_the_flags_of_the_sdk_protocol_are_checked(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path) -> None:
    for flags, said in (
        (["--input-format", "stream-json", "--output-format", "json"], "needs --output-format stream-json"),
        (["--permission-prompt-tool", "mcp__x__ask", *FLAGS], "takes only 'stdio'"),
        (["-p", "hi", "--permission-prompt-tool", "stdio"], "needs --input-format stream-json"),
    ):
        done = subprocess.run(
            [agentui_bin, *flags], env=clean_env, cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2 and said in done.stderr and done.stderr.count("\n") == 1, (flags, done.stderr)


def test_a_question_to_a_program_that_has_gone_is_a_no_at_once(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "x.txt", "content": "x"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([write], stop_reason="tool_use", message_id="m1")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Not written."}], message_id="m2")),
    )
    done = subprocess.run(
        [agentui_bin, *FLAGS, "--permission-prompt-tool", "stdio"],
        input=user("write x") + "\n",  # and stdin closes: the permission question can never be answered
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "x.txt").exists()
    denied = server.requests[1].json()["messages"][-1]["content"][0]
    assert denied["is_error"] and "closed its input" in denied["content"]
    assert out[-1]["type"] == "result" and out[-1]["result"] == "Not written."


def test_agentuis_continue_request_reruns_the_last_prompt_without_its_answer(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    for n in (1, 2):
        server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": f"A{n}."}], message_id=f"msg_{n}")))
    rerun = {"type": "control_request", "request_id": "c1", "request": {"subtype": "continue", "kind": "rerun"}}
    sideways = {"type": "control_request", "request_id": "c2", "request": {"subtype": "continue", "kind": "sideways"}}
    done, out = serve(agentui_bin, clean_env, tmp_path, [user("one"), json.dumps(rerun), json.dumps(sideways)], server)
    assert done.returncode == 0, done.stderr
    assert [line["result"] for line in out if line["type"] == "result"] == ["A1.", "A2."]
    responses = {line["response"]["request_id"]: line["response"] for line in out if line["type"] == "control_response"}
    assert responses["c1"]["subtype"] == "success" and responses["c1"]["response"]["session_id"]
    assert responses["c2"] == {"subtype": "error", "request_id": "c2", "error": (
        "'sideways' is not a kind of continuation (default, rerun or branch)")}  # fmt: skip
    asked = [request.json() for request in server.requests if request.path.endswith("/messages")]
    said = [message["content"] for message in asked[-1]["messages"]]
    assert "A1." not in json.dumps(said) and "one" in json.dumps(said)  # the answer dropped, the prompt sent again

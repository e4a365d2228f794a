"""`agentui -p --provider openai-responses` end to end against a loopback Responses API server: text, a tool call
on a real file, reasoning carried from turn to turn and across --resume, effort, errors and retries; and the chat
completions provider's reasoning_effort."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.loopback import LoopbackServer, Reply
from tests.support.responses_server import Stream, checked, error_reply, problems, text_reply
from tests.support.sse import recorded


def run(agentui_bin: str, args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [agentui_bin, *args], env=env, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120
    )


def responses_env(clean_env: dict[str, str], server: LoopbackServer) -> dict[str, str]:
    return {
        **clean_env,
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": server.url + "/v1",
        "OPENAI_MODEL": "gpt-5-test",
    }


def project(clean_env: dict[str, str]) -> Path:
    path = Path(clean_env["HOME"]).parent / "project"
    path.mkdir(exist_ok=True)
    return path


PRINT = ["--provider", "openai-responses", "--output-format", "json", "-p"]


def test_text(agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer) -> None:
    server.responder = checked(text_reply("Red, green and blue."))
    done = run(agentui_bin, [*PRINT, "Name three colors."], responses_env(clean_env, server), project(clean_env))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Red, green and blue."
    (sent,) = server.requests
    body = sent.json()
    assert sent.path == "/v1/responses" and body["model"] == "gpt-5-test" and problems(sent) == []
    assert sent.headers["authorization"] == "Bearer sk-test" and "reasoning" not in body
    assert body["input"][-1]["content"][-1] == {"type": "input_text", "text": "Name three colors."}


def test_a_tool_call_round_trip_sends_the_reasoning_back(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    where = project(clean_env)
    (where / "notes.txt").write_text("The launch code is 4417.\n")
    first = Stream("resp_1").reasoning(["Need the file."], encrypted="enc-first", item_id="rs_a")
    first.function_call("call_read", "Read", {"file_path": str(where / "notes.txt")})
    server.enqueue(first.completed(), Stream("resp_2").message("It is 4417.").completed())
    done = run(agentui_bin, [*PRINT, "What is the launch code?"], responses_env(clean_env, server), where)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "It is 4417."
    assert [problems(r) for r in server.requests] == [[], []]
    items = server.requests[1].json()["input"]
    kinds = [item["type"] for item in items]
    assert kinds[-3:] == ["reasoning", "function_call", "function_call_output"]
    reasoning, call, output = items[-3:]
    assert reasoning == {
        "type": "reasoning",
        "id": "rs_a",
        "encrypted_content": "enc-first",
        "summary": [{"type": "summary_text", "text": "Need the file."}],
    }
    assert call["call_id"] == output["call_id"] == "call_read" and call["name"] == "Read"
    assert "The launch code is 4417." in output["output"]


def test_reasoning_survives_a_resumed_session(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    env, where = responses_env(clean_env, server), project(clean_env)
    # (encrypted reasoning is urlsafe base64: now and then it holds what looks like an OpenAI key, which the session
    # writer must not redact there)
    encrypted = "gAAAAABpQ2x-sk-proj-Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTA_"
    server.enqueue(Stream().reasoning([], encrypted=encrypted, item_id="rs_kept").message("First.").completed())
    done = run(agentui_bin, [*PRINT, "one"], env, where)
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)["session_id"]
    server.enqueue(text_reply("Second."))
    again = run(agentui_bin, ["--resume", session, *PRINT, "two"], env, where)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["result"] == "Second."
    items = server.requests[1].json()["input"]
    assert {"type": "reasoning", "id": "rs_kept", "encrypted_content": encrypted, "summary": []} in items
    assert problems(server.requests[1]) == []


def test_effort_becomes_reasoning_effort(agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer) -> None:
    server.responder = checked(text_reply("ok"))
    done = run(agentui_bin, ["--effort", "xhigh", *PRINT, "hi"], responses_env(clean_env, server), project(clean_env))
    assert done.returncode == 0, done.stderr
    assert server.requests[0].json()["reasoning"] == {"effort": "xhigh", "summary": "auto"}


def test_a_429_is_retried_after_the_wait_asked(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    server.enqueue(
        error_reply(429, "rate_limit_exceeded", "Rate limit reached.", kind="requests", **{"retry-after": "0"}),
        text_reply("Made it."),
    )
    done = run(agentui_bin, [*PRINT, "hi"], responses_env(clean_env, server), project(clean_env))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Made it." and len(server.requests) == 2


def test_errors_are_one_sentence(agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer) -> None:
    env, where = responses_env(clean_env, server), project(clean_env)
    cases: list[tuple[Reply, str]] = [
        (error_reply(401, "invalid_api_key", "Incorrect API key provided."), "check OPENAI_API_KEY"),
        (error_reply(404, "model_not_found", "The model `gpt-5-test` does not exist."), "check OPENAI_MODEL"),
        (error_reply(429, "insufficient_quota", "Quota.", kind="insufficient_quota"), "retrying will not help"),
        (error_reply(400, "context_length_exceeded", "Too long."), "too long for the model's context window"),
    ]
    for reply, said in cases:
        server.enqueue(reply)
        done = run(agentui_bin, ["--provider", "openai-responses", "-p", "hi"], env, where)
        assert done.returncode == 1 and said in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert len(server.requests) == len(cases)  # (none of them retried)


def test_chat_completions_sends_reasoning_effort_only_when_asked(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    env = {**clean_env, "OPENAI_BASE_URL": server.url + "/v1", "OPENAI_MODEL": "smollm2"}
    server.enqueue(Reply(chunks=recorded("openai_text.sse")), Reply(chunks=recorded("openai_text.sse")))
    assert run(agentui_bin, ["-p", "hi"], env, project(clean_env)).returncode == 0
    assert run(agentui_bin, ["--effort", "low", "-p", "hi"], env, project(clean_env)).returncode == 0
    plain, asked = (request.json() for request in server.requests)
    assert "reasoning_effort" not in plain and asked["reasoning_effort"] == "low"

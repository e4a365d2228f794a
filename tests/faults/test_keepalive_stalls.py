"""A model server that keeps the connection alive but sends no content (Anthropic's `ping` events, SSE comments from an
OpenAI-compatible server) is a stalled stream: the idle limit counts content, not keep-alives. A slow stream whose
content keeps coming is not."""

from __future__ import annotations

import json

from tests.e2e.test_print_mode import anthropic_env, assert_one_clean_sentence, run
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream, event, recorded

IDLE = {"CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS": "1000"}
PINGS = 400  # at 0.1 s apart, 40 s of keep-alives: far past the 1 s limit, and the run's ceiling ends a broken run


def test_an_anthropic_stream_of_only_pings_is_given_up_as_stalled(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    start = anthropic_stream([{"type": "text", "text": "never sent"}])[:2]  # message_start and a ping
    pings = [event("ping", {"type": "ping"})] * PINGS
    server.enqueue(*(Reply(chunks=start + pings, delay=0.1) for _ in range(2)))
    done = run(agentui_bin, ["-p", "hello?"], {**anthropic_env(clean_env, server), **IDLE})
    assert done.returncode == 1, done.stderr
    assert_one_clean_sentence(done.stderr)
    last = done.stderr.strip().splitlines()[-1]
    assert "sent no content, only keep-alive pings, for 1 s" in last, last
    assert len(server.requests) == 2  # a stall is retried once, as a silent one is
    assert done.stdout == ""


def test_an_openai_compatible_stream_of_only_comments_is_given_up_as_stalled(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    first = recorded("openai_text.sse")[0]  # the role delta, no text yet
    comments = [b": keep-alive\n\n"] * PINGS
    server.enqueue(*(Reply(chunks=[first, *comments], delay=0.1) for _ in range(2)))
    env = {**clean_env, "OPENAI_BASE_URL": server.url + "/v1", "OPENAI_MODEL": "smollm2", **IDLE}
    done = run(agentui_bin, ["-p", "hello?"], env)
    assert done.returncode == 1, done.stderr
    assert_one_clean_sentence(done.stderr)
    # (httpx-sse drops comments before they reach agentui: to it the server sent nothing at all)
    assert "sent nothing for 1 s" in done.stderr.strip().splitlines()[-1]
    assert len(server.requests) == 2


def test_a_slow_stream_whose_content_keeps_coming_is_not_a_stall(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    words = [f"word{n} " for n in range(12)]
    chunks = anthropic_stream([{"type": "text", "text": "".join(words)}], pieces=len(words))
    # A ping between every two events, each 0.3 s after the last: 3 s of streaming against a 1 s limit.
    paced = [piece for chunk in chunks for piece in (chunk, event("ping", {"type": "ping"}))]
    server.enqueue(Reply(chunks=paced, delay=0.15))
    done = run(agentui_bin, ["-p", "hello?", "--output-format", "json"], {**anthropic_env(clean_env, server), **IDLE})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "".join(words)
    assert len(server.requests) == 1

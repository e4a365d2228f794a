"""Long waits are capped and said: a server asking for a retry-after longer than agentui waits (60 s unless
AGENTUI_MAX_RETRY_WAIT says otherwise) ends the request with one sentence at once; a shorter one is a countdown in the
app that Esc ends."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_print_mode import anthropic_env, assert_one_clean_sentence, run
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

RATE_LIMITED = {"type": "error", "error": {"type": "rate_limit_error", "message": "Too many requests"}}


def test_a_retry_after_longer_than_the_limit_is_said_not_waited_out(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    server.enqueue(*(Reply.error(429, RATE_LIMITED, {"retry-after": "120"}) for _ in range(10)))
    done = run(agentui_bin, ["-p", "hello?"], anthropic_env(clean_env, server))
    assert done.returncode == 1, done.stderr
    assert_one_clean_sentence(done.stderr)
    last = done.stderr.strip().splitlines()[-1]
    assert "(429)" in last and "asks to wait 120 s" in last and "AGENTUI_MAX_RETRY_WAIT" in last, last
    assert len(server.requests) == 1


def test_agentui_max_retry_wait_sets_the_limit(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    answer = anthropic_stream([{"type": "text", "text": "Made it."}])
    server.enqueue(Reply.error(429, RATE_LIMITED, {"retry-after": "1"}), Reply(chunks=answer))
    under = {**anthropic_env(clean_env, server), "AGENTUI_MAX_RETRY_WAIT": "5"}
    done = run(agentui_bin, ["-p", "hello?"], under)
    assert done.returncode == 0 and done.stdout == "Made it.\n", done.stderr
    assert "retrying in 1.0 s" in done.stderr

    server.enqueue(Reply.error(429, RATE_LIMITED, {"retry-after": "1"}), Reply(chunks=answer))
    over = {**under, "AGENTUI_MAX_RETRY_WAIT": "0.5"}
    done = run(agentui_bin, ["-p", "hello?"], over)
    assert done.returncode == 1 and "asks to wait 1 s" in done.stderr and "(0 s)" not in done.stderr


async def test_esc_ends_a_retry_countdown_in_the_app(tmp_path: Path) -> None:
    from agentui.frontends.tui.widgets.transcript import AssistantText

    overloaded = {"error": {"status": 529, "message": "Overloaded", "retry_after": 50}}
    harness = Harness(tmp_path, [overloaded, {"text": "Answered."}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hi")
        await until(pilot, lambda: app.status.status.retry_until is not None)
        assert "retrying in" in str(app.status.render())
        await pilot.press("escape")
        await until(pilot, lambda: idle(app) and app.status.status.retry_until is None)
        assert not texts(app, AssistantText)  # the wait was ended, not waited out
        await type_and_send(pilot, "again")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Answered."])

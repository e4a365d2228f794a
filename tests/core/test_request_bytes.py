"""Requests built once: each message's JSON is made the first time it is sent and reused while it is sent again, so
a turn costs what is new in it. Checked on what a real loopback server received, turn after turn, for both APIs."""

from __future__ import annotations

import gc
import json

import pytest

from agentui.core.messages import ImageBlock, Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.anthropic import build_body as anthropic_body
from agentui.core.providers.base import ProviderRequest
from agentui.core.providers.openai import OpenAIProvider
from agentui.core.providers.openai import build_body as openai_body
from agentui.core.providers.request_bytes import ON_A_THREAD, SWEEP_EVERY, JsonPieces
from tests.support.collect import collect
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream, data_line, openai_chunk


def turn(number: int) -> list[Message]:
    """A tool round: the model reads a file, the result comes back."""
    call = ToolUseBlock(id=f"t{number}", name="Read", input={"file_path": f"f{number}.txt"})
    return [
        Message(role="assistant", content=[TextBlock(text=f"Reading {number}."), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id=f"t{number}", content=f"{number}\tline")]),
    ]


def request(history: list[Message]) -> ProviderRequest:
    return ProviderRequest(model="m", system="Be terse.", messages=list(history))


async def test_anthropic_sends_each_turn_whole_and_makes_each_message_once(server: LoopbackServer) -> None:
    provider = AnthropicProvider(api_key="k", base_url=server.url)
    pieces = provider._pieces
    history = [Message.user("read the files")]
    try:
        for number in range(1, 6):
            history += turn(number)
            made_before = pieces.made
            server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}])))
            await collect(provider, request(history))
            body = server.requests[-1].json()
            # Everything is there, in order, merged by role, with only the last block marked.
            assert [m["role"] for m in body["messages"]] == ["user", *["assistant", "user"] * number]
            assert body["messages"][-2]["content"][1]["input"] == {"file_path": f"f{number}.txt"}
            assert body["messages"][-1]["content"] == [
                {
                    "type": "tool_result",
                    "tool_use_id": f"t{number}",
                    "content": f"{number}\tline",
                    "cache_control": {"type": "ephemeral"},
                }
            ]
            assert json.dumps(body).count("cache_control") == 2  # (the system prompt's and the last block's)
            # Made this turn: the message that was last before (now with no mark; the first prompt at first) and the
            # new assistant message; the new last one is made afresh with its mark, not kept.
            assert pieces.made - made_before == 2
    finally:
        await provider.aclose()


def test_the_mark_goes_to_the_last_block_sent_when_the_last_message_sends_nothing() -> None:
    history = [
        Message.user("hi"),
        Message(role="assistant", content=[TextBlock(text="hello")]),
        Message(role="assistant", content=[ThinkingBlock(thinking="unsigned"), TextBlock(text="")]),
    ]
    pieces = JsonPieces()
    body = json.loads(anthropic_body(request(history), pieces))
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}]},
    ]
    again = json.loads(anthropic_body(request([*history, Message.user("and?")]), pieces))
    assert again["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}
    assert again["messages"][2]["content"][0]["cache_control"] == {"type": "ephemeral"}


def test_a_lone_surrogate_in_an_old_message_is_sent_visibly_and_the_rest_as_it_is() -> None:
    history = [Message.user("bad \ud800 text"), Message(role="assistant", content=[TextBlock(text="ok ✓")])]
    history.append(Message.user("next"))
    for build in (anthropic_body, openai_body):
        raw = build(request(history), pieces=JsonPieces())
        text = raw.decode()  # (valid UTF-8: the surrogate did not stop the request)
        assert "ok ✓" in text and "next" in text
        assert "\ud800" not in text and "bad " in text


def test_a_message_dropped_from_the_history_takes_its_json_with_it() -> None:
    pieces = JsonPieces()
    history = [Message.user("first"), *turn(1), *turn(2), Message.user("last")]
    anthropic_body(request(history), pieces)
    assert len(pieces) == len(history) - 1  # (the last message is made afresh each time)
    del history[1:3]
    anthropic_body(request(history), pieces)  # (the last request's messages are kept until the next one)
    gc.collect()
    assert len(pieces) == len(history) - 1


def test_what_no_request_sends_any_more_is_swept_even_while_the_message_lives() -> None:
    pieces = JsonPieces()
    old = [Message.user("old"), *turn(1)]
    anthropic_body(request([*old, Message.user("now")]), pieces)
    kept_old = len(pieces)
    assert kept_old == len(old)
    summary = Message.user("summary")
    for _ in range(2 * SWEEP_EVERY):  # (compacted: only a summary and new turns are sent)
        anthropic_body(request([summary, Message.user("now")]), pieces)
    assert len(pieces) == 1  # (the summary's own)
    assert all(message is not None for message in old)


async def test_openai_sends_each_turn_whole_and_makes_each_message_once(server: LoopbackServer) -> None:
    provider = OpenAIProvider(api_key="k", base_url=server.url + "/v1")
    pieces = provider._pieces
    history = [Message.user("read the files")]
    try:
        for number in range(1, 5):
            history += turn(number)
            made_before = pieces.made
            server.enqueue(
                Reply(chunks=[openai_chunk({"content": "ok"}), openai_chunk({}, "stop"), data_line("[DONE]")])
            )
            await collect(provider, request(history))
            body = server.requests[-1].json()
            assert body["messages"][0] == {"role": "system", "content": "Be terse."}
            assert [m["role"] for m in body["messages"][1:]] == ["user", *["assistant", "tool"] * number]
            assert body["messages"][-1] == {"role": "tool", "tool_call_id": f"t{number}", "content": f"{number}\tline"}
            assert body["stream"] is True and body["max_tokens"] == 8192
            assert pieces.made - made_before == (3 if number == 1 else 2)
    finally:
        await provider.aclose()


@pytest.mark.parametrize("build", [anthropic_body, openai_body])
def test_the_same_history_twice_makes_nothing_new_and_sends_the_same_bytes(build) -> None:  # type: ignore[no-untyped-def]
    pieces = JsonPieces()
    history = [Message.user("first"), *turn(1), *turn(2)]
    first = build(request(history), pieces=pieces)
    made = pieces.made
    assert build(request(history), pieces=pieces) == first
    assert pieces.made == made
    assert first == build(request(history), pieces=JsonPieces())  # (the same as made from nothing)


def test_a_value_is_never_given_for_a_newer_object_at_a_dead_ones_address() -> None:
    from agentui.core.identity_memo import IdentityMemo

    memo: IdentityMemo[str] = IdentityMemo()
    seen = set()
    for number in range(2_000):  # (CPython reuses a freed object's address at once)
        message = Message.user(f"m{number}")
        assert memo.get(message, lambda message=message: message.text) == f"m{number}"
        seen.add(id(message))
        del message
    assert len(seen) < 2_000 and len(memo) == 0


def test_what_is_new_to_a_request_is_measured_to_choose_a_thread_for_a_large_one() -> None:
    pieces = JsonPieces()
    history = [Message.user("x" * 300_000), *turn(1)]
    assert pieces.new_chars(history) > ON_A_THREAD  # (a resumed session's first request, say)
    anthropic_body(request(history), pieces)
    history += turn(2)
    assert pieces.new_chars(history) < 100  # (a turn's own: the last result and the call before it)
    image = ImageBlock(source={"type": "base64", "media_type": "image/png", "data": "A" * 400_000})
    assert pieces.new_chars([*history, Message(role="user", content=[image])]) > ON_A_THREAD


@pytest.mark.parametrize("build", [anthropic_body, openai_body])
@pytest.mark.parametrize("seed", range(12))
def test_turn_after_turn_the_bytes_are_those_made_from_nothing(build, seed: int) -> None:  # type: ignore[no-untyped-def]
    """A history grown, shortened in the middle, cut back (a rewind), compacted, with messages of one role in a row
    and messages that send nothing: each request made with what earlier ones kept is the one made afresh."""
    import random

    rng = random.Random(seed)
    pieces = JsonPieces()
    history = [Message.user("start")]
    for step in range(120):
        move = rng.random()
        if move < 0.5:
            history += turn(step)
        elif move < 0.6:
            history.append(Message.user(f"more {step}"))  # (two user messages in a row: merged)
        elif move < 0.65:
            history.append(Message(role="assistant", content=[ThinkingBlock(thinking="unsigned")]))  # (sends nothing)
        elif move < 0.8 and len(history) > 3:
            index = rng.randrange(1, len(history) - 1)  # (a result shortened: a new message in its place)
            history[index] = history[index].model_copy(update={"content": [TextBlock(text=f"short {step}")]})
        elif move < 0.85 and len(history) > 3:
            index = rng.randrange(1, len(history) - 1)  # (replaced by one of the other role, or one sending nothing)
            history[index] = rng.choice(
                [
                    Message(
                        role="assistant" if history[index].role == "user" else "user", content=[TextBlock(text="x")]
                    ),
                    Message(role="assistant", content=[ThinkingBlock(thinking="unsigned")]),
                ]
            )
        elif move < 0.88 and len(history) > 3:
            index = rng.randrange(1, len(history) - 1)
            if rng.random() < 0.5:
                del history[index]  # (one in the middle gone)
            else:
                history.insert(index, Message(role=history[index].role, content=[TextBlock(text=f"in {step}")]))
        elif move < 0.9 and len(history) > 3:
            del history[rng.randrange(1, len(history)) :]  # (rewound)
            if rng.random() < 0.5:
                history.append(Message.user(f"after {step}"))  # (and a prompt, before any request)
        elif move < 0.95:
            history = [Message.user(f"summary {step}"), *history[-2:]]  # (compacted)
        sent = build(request(history), pieces=pieces)
        assert sent == build(request(history), pieces=JsonPieces()), step
        json.loads(sent)


def test_a_message_changed_in_the_middle_is_sent_as_it_is_now() -> None:
    pieces = JsonPieces()
    history = [Message.user("start"), *turn(1), *turn(2), *turn(3)]
    anthropic_body(request(history), pieces)
    history[2] = Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="[cleared]")])
    history += turn(4)
    body = json.loads(anthropic_body(request(history), pieces))
    assert body["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "t1", "content": "[cleared]"}]


def test_after_an_old_result_is_shortened_the_next_request_takes_up_from_just_before_it() -> None:
    """(Late in a long session old results are shortened every few turns: the walk over the history starts at the
    group before the first message changed, not at the start.)"""
    pieces = JsonPieces()
    history = [Message.user("start")]
    for number in range(200):
        history += turn(number)
    anthropic_body(request(history), pieces)
    asked: list[Message] = []
    piece = pieces.piece
    pieces.piece = lambda owner, make: asked.append(owner) or piece(owner, make)  # type: ignore[method-assign]
    index = len(history) - 9
    history[index] = history[index].model_copy(update={"content": [ToolResultBlock(tool_use_id="t", content="[.]")]})
    history += turn(200)
    sent = anthropic_body(request(history), pieces)
    assert sent == anthropic_body(request(history), JsonPieces())
    assert 0 < len(asked) <= 13 and asked[0] is history[index - 1]  # (from the group before the change, on)


async def test_a_request_with_much_new_is_made_on_a_thread_and_a_turn_s_own_at_once() -> None:
    import threading

    pieces = JsonPieces()
    history = [Message.user("x" * 300_000), *turn(1)]
    seen: list[threading.Thread] = []

    def build() -> bytes:
        seen.append(threading.current_thread())
        return anthropic_body(request(history), pieces)

    first = await pieces.build(history, build)
    history += turn(2)
    await pieces.build(history, build)
    assert seen[0] is not threading.current_thread() and seen[1] is threading.current_thread()
    assert json.loads(first)["messages"][0]["content"][0]["text"] == "x" * 300_000

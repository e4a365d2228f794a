"""Compaction with the scripted model: shortening old tool results, the summary call and what follows it, /compact,
and the fallbacks when the context overflows (including when the summary request itself does)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from agentui.core.context import compaction
from agentui.core.context.compaction import PLACEHOLDER_PREFIX, SUMMARY_PREFIX, SUMMARY_SYSTEM
from agentui.core.context.window import TokenCounter
from agentui.core.events import CompactionEnd, CompactionStart, Event, Notice
from agentui.core.loop.agent import Agent, AgentConfig
from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentui.core.providers.base import ContextOverflowError
from agentui.core.providers.retry import RetryPolicy
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.run_options import ModelOptions
from agentui.core.tools.base import ToolRegistry
from tests.conftest import assert_valid_history
from tests.support.agents import new_agent
from tests.support.tools import Echo

COUNTER = TokenCounter.estimating()
OVERFLOW = {"error": {"status": 400, "message": "prompt is too long: 250000 tokens > 200000 maximum"}}


def call(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Echo", "input": {"text": text}}


def turn(call_id: str, text: str, talk: int = 0) -> list[Message]:
    return [
        Message(
            role="assistant",
            content=[
                TextBlock(text=f"calling {call_id} " + "t" * talk),
                ToolUseBlock(id=call_id, name="Echo", input={"text": "x"}),
            ],
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id=call_id, content=text)]),
    ]


def history(turns: int, size: int = 400, talk: int = 0) -> list[Message]:
    messages = [Message.user("start")]
    for number in range(turns):
        messages += turn(f"t{number}", f"RESULT-{number} " + "r" * size, talk)
    return messages


def _split(config: dict[str, Any]) -> dict[str, Any]:
    """AgentConfig's own fields, and the rest as its ModelOptions."""
    own = {key: value for key, value in config.items() if key in AgentConfig.model_fields}
    options = {key: value for key, value in config.items() if key not in own}
    return {**own, "options": ModelOptions(**options)}


def make_agent(
    script: list[dict[str, Any]], messages: list[Message] | None = None, **config: Any
) -> tuple[Agent, ScriptedProvider, list[Event]]:
    provider = ScriptedProvider(script)
    agent = new_agent(
        provider,
        AgentConfig(model="scripted", **_split(config)),
        tools=ToolRegistry([Echo()]),
        retry=RetryPolicy(base_delay=0.01),
        messages=messages,
        counter=COUNTER,
    )
    seen: list[Event] = []
    agent.bus.on(seen.append)
    return agent, provider, seen


def text_of(request: Any) -> str:
    return repr(request.messages)


# The pieces


def test_split_keeps_the_recent_turns_from_an_assistant_message() -> None:
    messages = history(10, size=400)  # each turn about 120 tokens
    split = compaction.split_index(messages, 400, COUNTER)
    assert split is not None and messages[split].role == "assistant"
    kept = messages[split:]
    assert COUNTER.messages(kept) <= 400 and COUNTER.messages(messages[split - 2 :]) > 400
    # even when the last turn alone is over the budget, it is kept, and what is before it is summarised
    assert compaction.split_index(messages, 10, COUNTER) == len(messages) - 2
    assert compaction.split_index([Message.user("only a prompt")], 10, COUNTER) is None


def test_old_tool_results_become_placeholders_naming_the_call_newest_kept() -> None:
    messages = history(6, size=400)
    latest = len(messages) - 2  # the last assistant message: its results are never touched
    changed = compaction.shorten_tool_results(messages, 250, COUNTER, before=latest)
    results = [b for m in messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert [r.content.startswith("RESULT-") for r in results] == [False, False, False, True, True, True]
    assert results[0].content == f'{PLACEHOLDER_PREFIX}Echo({{"text": "x"}})]'
    assert len(changed) == 3 and all(freed > 80 for _, freed in changed)
    assert compaction.shorten_tool_results(messages, 250, COUNTER, before=latest) == []  # nothing left to do
    assert_valid_history(messages)


def test_shortening_again_on_a_later_turn_counts_only_what_is_new() -> None:
    """Each turn of a long run asks which old results to shorten: the blocks already counted are not counted again
    (with tiktoken, counting the kept results cost ~20 ms a turn), and a count made before the encoder arrived is
    made again with it."""
    counter = TokenCounter.estimating()
    counted: list[str] = []
    estimate = counter.count
    counter.count = lambda text: counted.append(text) or estimate(text)  # type: ignore[method-assign]
    messages = history(6, size=2_000)
    compaction.shorten_tool_results(messages, 100_000, counter, before=len(messages) - 2)
    first = len(counted)
    assert first >= 5
    messages += turn("t6", "RESULT-6 " + "r" * 2_000)
    compaction.shorten_tool_results(messages, 100_000, counter, before=len(messages) - 2)
    assert len(counted) - first == 1  # (the one result new to the range)
    encoder = SimpleNamespace(encode=lambda text, disallowed_special=(): text.split())
    counter._encoding = lambda: encoder  # type: ignore[method-assign]
    compaction.shorten_tool_results(messages, 100_000, counter, before=len(messages) - 2)
    assert len(counted) - first - 1 == first + 1


def test_the_summary_request_reads_a_clipped_transcript_and_puts_an_earlier_summary_first() -> None:
    older = [compaction.summary_message("EARLIER SUMMARY"), *history(30, size=5000)[1:]]
    request, included = compaction.summary_request(
        "m", older, instructions="focus on the tests", input_budget=4000, max_tokens=1000, counter=COUNTER
    )
    left_out = len(older) - included
    assert request.system == SUMMARY_SYSTEM and request.tools == () and len(request.messages) == 1
    text = request.messages[0].text
    assert text.index("EARLIER SUMMARY") < text.index(f"[{left_out} earlier messages left out]")
    assert left_out > 0 and "RESULT-29" in text and "RESULT-0 " not in text
    assert "more characters]" in text  # each result is clipped
    assert text.rstrip().endswith("Also follow these instructions for the summary: focus on the tests")
    assert COUNTER.count(text) + COUNTER.count(SUMMARY_SYSTEM) <= 4000


# In the agent


async def test_past_the_threshold_a_summary_replaces_the_older_turns() -> None:
    old = history(40, size=400, talk=2000)  # about 25,000 tokens, mostly talk: shortening results is not enough
    agent, provider, seen = make_agent(
        [{"text": "The user is testing. Files: a.py."}, {"text": "Answer."}], messages=old, context_window=24_000
    )
    result = await agent.prompt("go on")
    assert result.stop == "end_turn" and result.text == "Answer."
    summary_call, answer_call = provider.requests
    assert summary_call.system == SUMMARY_SYSTEM and "RESULT-20 " in text_of(summary_call)
    assert "earlier messages left out" in text_of(summary_call)  # the oldest did not fit the summary request
    first = answer_call.messages[0]
    assert first.text == SUMMARY_PREFIX + "The user is testing. Files: a.py."
    assert "RESULT-0 " not in text_of(answer_call) and "RESULT-39" in text_of(answer_call)
    assert answer_call.messages[-1].text == "go on"
    start = next(e for e in seen if isinstance(e, CompactionStart))
    end = next(e for e in seen if isinstance(e, CompactionEnd))
    assert start.trigger == "auto" and start.pre_tokens > 0.9 * 24_000 and end.post_tokens < start.pre_tokens
    assert end.kept == agent.messages[1 : 1 + len(end.kept)]
    assert agent.context_tokens < 0.5 * 24_000
    assert_valid_history(agent.messages)


async def test_shortening_old_tool_results_comes_first_and_may_be_enough() -> None:
    old = history(40, size=3000)  # about 31,000 tokens, mostly tool results
    agent, provider, seen = make_agent(
        [{"text": "Answer."}], messages=old, context_window=40_000, compact_threshold=0.7
    )
    await agent.prompt("go on")
    (only,) = provider.requests  # no summary call
    results = [b for m in only.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert results[0].content.startswith(PLACEHOLDER_PREFIX) and results[-1].content.startswith("RESULT-39")
    assert not any(isinstance(e, CompactionStart) for e in seen)
    assert any(isinstance(e, Notice) and "shortened" in e.message for e in seen)
    assert old[2].content[0].content.startswith("RESULT-0")  # the caller's list (as the session has it) is untouched


async def test_shortening_again_and_again_in_a_long_run_is_said_once() -> None:
    agent, _, seen = make_agent([], messages=history(40, size=3_000), context_window=40_000, compact_threshold=0.7)
    messages = agent.history.messages
    shortened_before = []
    for round_ in range(3):  # (the run goes on: new results fill the window again, older ones are shortened again)
        if round_:
            for number in range(30):
                messages += turn(f"n{round_}-{number}", "RESULT-new " + "r" * 3_000)
        agent.compactor.recount()
        await agent.compactor.fit()
        shortened_before.append(
            sum(
                isinstance(b, ToolResultBlock) and b.content.startswith(PLACEHOLDER_PREFIX)
                for m in messages
                for b in m.content
            )
        )
    assert shortened_before[0] < shortened_before[1] < shortened_before[2]  # (shortened in each round)
    said = [e for e in seen if isinstance(e, Notice) and "shortened" in e.message]
    assert len(said) == 1 and "the session file keeps them whole" in said[0].message
    assert not any(isinstance(e, CompactionStart) for e in seen)


async def test_nothing_happens_below_the_threshold_or_with_auto_compact_off() -> None:
    agent, provider, _ = make_agent(
        [{"text": "Answer."}], messages=history(40, size=400, talk=2000), context_window=24_000, auto_compact=False
    )
    await agent.prompt("go on")
    assert len(provider.requests) == 1 and "RESULT-0 r" in text_of(provider.requests[0])


@pytest.mark.parametrize("model_window", [1_000_000, None])
async def test_an_auto_compact_window_compacts_against_itself(model_window: int | None) -> None:
    """Past the threshold of the auto-compact window, whether the model's window is far larger or unknown."""
    agent, provider, seen = make_agent(
        [{"text": "The user is testing."}, {"text": "Answer."}],
        messages=history(40, size=400, talk=2000),
        context_window=model_window,
        auto_compact_window=24_000,
    )
    await agent.prompt("go on")
    assert provider.requests[0].system == SUMMARY_SYSTEM
    assert any(isinstance(e, CompactionStart) and e.trigger == "auto" for e in seen)
    assert agent.context_tokens < 0.5 * 24_000


async def test_an_overflow_from_the_provider_compacts_once_and_retries() -> None:
    agent, provider, _seen = make_agent(
        [OVERFLOW, {"text": "summary"}, {"text": "Answer."}], messages=history(10), context_window=None
    )
    result = await agent.prompt("go on")
    assert result.stop == "end_turn" and result.text == "Answer."
    assert [r.system for r in provider.requests][1] == SUMMARY_SYSTEM
    assert provider.requests[2].messages[0].text.startswith(SUMMARY_PREFIX)


async def test_a_summary_that_overflows_falls_back_to_dropping_the_oldest_turns_and_never_loops() -> None:
    agent, provider, _seen = make_agent([OVERFLOW, OVERFLOW, OVERFLOW, {"text": "never reached"}], messages=history(10))
    result = await agent.prompt("go on")
    assert result.stop == "error" and result.error_kind == "context_overflow"
    assert len(provider.requests) == 3  # the call, the summary, the call again: then it stops
    assert agent.messages[0].text.startswith(SUMMARY_PREFIX.split(".")[0])
    assert "earlier messages were dropped" in agent.messages[0].text
    assert_valid_history(agent.messages)


async def test_compact_on_demand_with_instructions_and_a_prompt_sent_meanwhile() -> None:
    agent, provider, seen = make_agent([{"text": "summary with tests"}, {"text": "Answer."}], messages=history(10))
    agent.follow_up("and then this")  # typed while compacting: it runs once the summary is in
    result = await agent.compact("keep the test names")
    assert "keep the test names" in provider.requests[0].messages[0].text
    assert result.stop == "end_turn" and result.text == "Answer."
    assert provider.requests[1].messages[0].text == SUMMARY_PREFIX + "summary with tests"
    assert provider.requests[1].messages[-1].text == "and then this"
    assert next(e for e in seen if isinstance(e, CompactionStart)).trigger == "manual"


async def test_compact_with_nothing_to_summarise_says_so_and_changes_nothing() -> None:
    agent, provider, seen = make_agent([], messages=[Message.user("hello")])
    result = await agent.compact()
    assert result.stop == "end_turn" and provider.requests == [] and len(agent.messages) == 1
    assert any(isinstance(e, Notice) and "nothing to compact" in e.message for e in seen)


async def test_an_overflow_with_an_unknown_window_sizes_the_compaction_by_what_overflowed() -> None:
    # A local model with an unknown, small window: the request that overflowed is the measure.
    agent, provider, _ = make_agent(
        [OVERFLOW, {"text": "summary"}, {"text": "Answer."}], messages=history(20, size=2000), context_window=None
    )
    before = agent.context_tokens
    assert (await agent.prompt("go on")).text == "Answer."
    summary_call, _retried = provider.requests[1:]
    assert COUNTER.count(summary_call.messages[0].text) < 0.85 * before
    assert agent.context_tokens < 0.5 * before


async def test_compaction_always_ends_inside_the_window_clipping_what_a_summary_cannot_shrink() -> None:
    # A resumed session whose last prompt is far larger than any window (a 2 MB paste): the summary cannot shrink
    # the turn it keeps, so that turn is clipped, and the person is told.
    huge = "x" * 2_000_000
    messages = [*history(6), Message(role="assistant", content=[TextBlock(text="ok")]), Message.user(huge)]
    agent, provider, seen = make_agent(
        [{"text": "summary"}, {"text": "Answer."}], messages=messages, context_window=24_000
    )
    window = agent.window
    assert window is not None and agent.context_tokens > 2 * window
    result = await agent.prompt("go on")
    assert result.stop == "end_turn" and result.text == "Answer."
    sent = provider.requests[1]
    assert COUNTER.messages(sent.messages) < window
    assert "characters clipped to fit the context window" in text_of(sent)
    end = next(e for e in seen if isinstance(e, CompactionEnd))
    assert end.post_tokens < window
    assert any(isinstance(e, Notice) and "were clipped" in e.message for e in seen)
    assert_valid_history(agent.messages)


async def test_a_single_message_too_large_for_the_window_is_clipped_though_there_is_nothing_to_summarise() -> None:
    agent, provider, seen = make_agent([{"text": "Answer."}], messages=[], context_window=24_000)
    window = agent.window
    assert window is not None
    result = await agent.prompt("y" * (8 * window))
    assert result.stop == "end_turn"
    assert COUNTER.messages(provider.requests[0].messages) < window
    assert any(isinstance(e, Notice) and "were clipped" in e.message for e in seen)


def test_dropping_turns_keeps_tool_calls_paired_and_the_last_turn() -> None:
    messages = history(8, size=4000)
    tail = messages[1:]
    dropped = compaction.drop_oldest_turns(tail, 3000, COUNTER, start=0)
    assert dropped > 0 and dropped % 2 == 0 and tail[0].role == "assistant"
    assert_valid_history(tail)
    before = len(tail)
    assert compaction.drop_oldest_turns(tail, 10**9, COUNTER, start=0) == before - 2
    assert len(tail) == 2 and tail[0].role == "assistant"


@pytest.mark.parametrize(
    ("message", "window"),
    [
        ("prompt is too long: 250000 tokens > 200000 maximum", 200_000),
        ("This model's maximum context length is 8192 tokens. However, you requested 9000 tokens", 8192),
        ("the request exceeds the available context size (4096 tokens), try increasing it", 4096),
        ("context window exceeded", None),
    ],
)
def test_an_overflow_error_states_the_window_when_the_server_names_it(message: str, window: int | None) -> None:
    assert ContextOverflowError(message).window == window


async def test_an_overflow_of_millions_of_tokens_on_an_unknown_window_ends_inside_the_stated_window() -> None:
    # The 50 MB session line: the server says how large its window is, and compaction ends inside it.
    overflow = {"error": {"status": 400, "message": "prompt is too long: 2500000 tokens > 20000 maximum"}}
    messages = [*history(4), Message(role="assistant", content=[TextBlock(text="ok")]), Message.user("z" * 10_000_000)]
    agent, provider, seen = make_agent(
        [overflow, {"text": "summary"}, {"text": "Answer."}], messages=messages, context_window=None
    )
    result = await agent.prompt("go on")
    assert result.stop == "end_turn"
    assert COUNTER.messages(provider.requests[2].messages) < 20_000
    assert next(e for e in seen if isinstance(e, CompactionEnd)).post_tokens < 20_000

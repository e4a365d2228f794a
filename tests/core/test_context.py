"""Token counting and the context meter: estimates with no network and no delay, exact counts when tiktoken's
encoding is on disk, the provider's report as the truth, and context windows by model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentui.core.context.window import ContextMeter, TokenCounter, context_window
from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from tests.support.agents import new_agent

OFFLINE_COUNT = """
import json, socket, sys, time
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args)[:80])
    raise OSError("the network is disabled in this test")
socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from agentui.core.context import window as context
if sys.argv[1] == "no-package":
    context._bundled_encoding = lambda: None  # as on a machine without bpe-openai
counter = context.TokenCounter()
started = time.perf_counter()
first = counter.count("x" * 4000)
elapsed = time.perf_counter() - started
first_exact = counter.exact
context.ENCODINGS.wait()
counter._next_look = 0.0
import tiktoken.registry
loaded = tiktoken.registry.ENCODINGS.get("o200k_base")
ranks = len(loaded._mergeable_ranks) if loaded is not None else None
print(json.dumps({"first": first, "first_exact": first_exact, "exact": counter.exact,
                  "hello": counter.count("hello world"), "attempts": attempts, "ms": elapsed * 1000,
                  "ranks": ranks}))
"""


def count_offline(tmp_path: Path, mode: str) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TIKTOKEN_", "DATA_GYM_"))}
    cache, temp = tmp_path / "cache", tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    env.update(AGENTUI_CACHE_DIR=str(cache), TMPDIR=str(temp), HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_COUNT, mode], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    print(f"first count took {found['ms']:.2f} ms")  # the number: bench/ measures it properly
    return found


def test_with_no_network_and_an_empty_cache_counting_estimates_at_once_and_never_connects(tmp_path: Path) -> None:
    found = count_offline(tmp_path, "no-package")
    assert found["attempts"] == []
    assert found["first"] == 1000 and not found["first_exact"]
    assert not found["exact"] and found["hello"] == 3  # still estimating: there is no file, and none was fetched
    assert not (tmp_path / "cache" / "tiktoken").exists()


def test_the_encoding_shipped_by_bpe_openai_seeds_the_cache_and_counts_become_exact(tmp_path: Path) -> None:
    found = count_offline(tmp_path, "with-package")
    assert found["attempts"] == []
    assert found["first"] == 1000 and not found["first_exact"]  # the first count never waits for the file
    assert found["exact"] and found["hello"] == 2  # o200k_base: "hello", " world"
    assert found["ranks"] == 0  # its ~24 MB dict of ranks, kept by tiktoken only to pickle it, is let go (and
    # the exact count above is made without it)
    seeded = list((tmp_path / "cache" / "tiktoken").iterdir())
    assert [p.name for p in seeded] == ["fb374d419588a4632f3f557e76b4b70aebbca790"]


def test_a_damaged_encoding_file_is_never_handed_to_tiktoken(tmp_path: Path) -> None:
    damaged = tmp_path / "cache" / "tiktoken" / "fb374d419588a4632f3f557e76b4b70aebbca790"
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"not a bpe file\n")
    found = count_offline(tmp_path, "no-package")
    assert found["attempts"] == [] and not found["exact"] and found["first"] == 1000


def test_context_windows_come_from_the_table_unless_overridden() -> None:
    assert context_window("claude-sonnet-4-5") == 200_000
    assert context_window("anthropic/claude-opus-4-1") == 200_000
    assert context_window("gpt-4o-mini") == 128_000
    assert context_window("gpt-4.1") == 1_047_576
    assert context_window("my-local-model") is None
    assert context_window("my-local-model", 8192) == 8192
    assert context_window("claude-sonnet-4-5", 1_000_000) == 1_000_000


@pytest.mark.parametrize(
    ("model", "window", "price"),
    [
        ("us.anthropic.claude-sonnet-5", 1_000_000, (3.0, 15.0)),  # (Bedrock's inference profile)
        (
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-opus-4-8",
            1_000_000,
            (5.0, 25.0),
        ),
        ("anthropic.claude-haiku-4-5-20251001-v1:0", 200_000, (1.0, 5.0)),
        ("claude-sonnet-4-5@20250929", 200_000, (3.0, 15.0)),  # (Vertex's)
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0[1m]", 1_000_000, (3.0, 15.0)),
    ],
)
def test_a_claude_model_on_bedrock_or_vertex_has_its_window_price_and_output(
    model: str, window: int, price: tuple[float, float]
) -> None:
    """The tables are kept by Anthropic's names; a platform's id for the same model finds the same row (the context
    meter, compaction and the cost were blank or wrong for `us.anthropic.…` ids)."""
    from agentui.core.output_tokens import model_output_tokens
    from agentui.core.pricing import prices

    assert context_window(model) == window and prices(model) == price
    assert model_output_tokens(model, 1) > 1


def test_messages_are_counted_block_by_block() -> None:
    counter = TokenCounter.estimating()
    call = ToolUseBlock(id="t1", name="Read", input={"file_path": "a.py"})
    result = ToolResultBlock(tool_use_id="t1", content="y" * 400)
    assert counter.block(TextBlock(text="z" * 40)) == 10
    assert counter.block(result) == 104
    assert counter.block(call) == counter.count("Read") + counter.count('{"file_path": "a.py"}')
    assert counter.message(Message(role="user", content=[result])) == 108


def test_the_meter_takes_the_provider_s_count_and_estimates_only_what_came_after() -> None:
    counter = TokenCounter.estimating()
    meter = ContextMeter(counter)
    history = [Message.user("a" * 400)]
    meter.recount(history, overhead=50)
    assert meter.tokens(history) == 50 + 104
    history.append(Message(role="assistant", content=[TextBlock(text="b" * 40)]))
    meter.reported(5_000, len(history))  # the provider's truth replaces the estimate
    assert meter.tokens(history) == 5_000
    history.append(Message.user("c" * 4000))
    assert meter.tokens(history) == 5_000 + 1004
    meter.shrunk(2, 900)
    assert meter.tokens(history) == 5_104
    meter.reported(0, len(history))  # a server that reports nothing leaves the estimate alone
    assert meter.tokens(history) == 5_104


def test_a_resumed_history_counts_its_context_from_the_usage_recorded_with_its_last_answer() -> None:
    from agentui.core.loop.agent import AgentConfig
    from agentui.core.messages import Message, TextBlock, Usage
    from agentui.core.providers.scripted import ScriptedProvider

    answer = Message(
        role="assistant",
        content=[TextBlock(text="Done.")],
        usage=Usage(input_tokens=2_000, cache_read_input_tokens=48_000, output_tokens=100),
    )
    history = [Message.user("do it"), answer]
    resumed = new_agent(ScriptedProvider([]), AgentConfig(model="claude-test"), messages=history)
    assert resumed.context_tokens == 50_100  # as Claude Code counts it, not an estimate of the few words above
    later = new_agent(ScriptedProvider([]), AgentConfig(model="claude-test"), messages=[*history, Message.user("more")])
    assert 50_100 < later.context_tokens < 50_200  # what came after the answer is estimated on top
    kept = answer.model_copy(update={"usage": Usage()})  # (a compaction's kept answer records no usage)
    estimated = new_agent(
        ScriptedProvider([]), AgentConfig(model="claude-test"), messages=[Message.user("do it"), kept]
    )
    assert estimated.context_tokens < 1_000


def test_a_resumed_history_larger_than_its_recorded_usage_is_counted_as_it_will_be_sent() -> None:
    from agentui.core.loop.agent import AgentConfig
    from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
    from agentui.core.providers.scripted import ScriptedProvider

    # The session that wrote it had shortened the big result in memory: its usage counted a placeholder.
    call = Message(role="assistant", content=[ToolUseBlock(id="r1", name="Read", input={"file_path": "big.txt"})])
    result = Message(role="user", content=[ToolResultBlock(tool_use_id="r1", content="line of data\n" * 5_000)])
    answer = Message(
        role="assistant", content=[TextBlock(text="Read.")], usage=Usage(input_tokens=300, output_tokens=5)
    )
    agent = new_agent(
        ScriptedProvider([]), AgentConfig(model="claude-test"), messages=[Message.user("go"), call, result, answer]
    )
    assert agent.context_tokens > 10_000  # the whole result goes with the next request, and is counted


def test_a_rewound_history_is_counted_with_the_tools_there_are_now() -> None:
    """Tools join after the agent is made (web tools, MCP servers): a history replaced later (a rewind, an attempt
    chosen) is counted with their specs, not with the tools of the start."""
    from agentui.core.loop.agent_config import AgentConfig
    from agentui.core.providers.scripted import ScriptedProvider
    from agentui.core.tools.base import ToolRegistry
    from tests.support.tools import Echo, Explode

    tools = ToolRegistry([Echo()])
    agent = new_agent(ScriptedProvider([]), AgentConfig(model="claude-test"), tools=tools)
    messages = [Message.user("hello")]
    agent.history.replace(messages)
    before = agent.context_tokens
    tools.register(Explode())
    agent.history.replace(messages)
    assert agent.context_tokens > before

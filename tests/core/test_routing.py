"""Model routing across two real servers on 127.0.0.1, one per API: the main loop on a Messages API server, and the
calls the config's routes name (sub-agents, compaction summaries, the judge) on an OpenAI-compatible one, each with
its model; the cost accounting keeps each model's share."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, Notice
from agentui.core.loop.run import RunResult
from agentui.core.messages import Usage
from agentui.core.parallel.attempts import AttemptConfig, Branch, Judge
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.session.listing import list_sessions
from agentui.core.session.reader import load_session
from agentui.core.settings import (
    ConfigError,
    ConfigFile,
    Overrides,
    Route,
    Settings,
    load_config_file,
    resolve_settings,
)
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream, data_line, openai_chunk
from tests.support.web_server import WebServer


@pytest.fixture
def local() -> Iterator[LoopbackServer]:
    """The second server: an OpenAI-compatible one, as llama.cpp or Ollama would be."""
    loopback = LoopbackServer()
    try:
        yield loopback
    finally:
        loopback.close()


def openai_reply(request: RecordedRequest) -> Reply:
    """Text naming the model asked for, reported as that model, with usage."""
    model = request.json()["model"]
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": f"From {model}."}, model=model),
            openai_chunk({}, finish="stop", model=model),
            data_line({"id": "c", "model": model, "choices": [],
                       "usage": {"prompt_tokens": 300, "completion_tokens": 100}}),
        ]
    )  # fmt: skip


def call_then(call: dict[str, Any], answer: str) -> Callable[[RecordedRequest], Reply]:
    """The main model: `call`, then once its result is back, `answer` (1,050 tokens of Sonnet's each time)."""

    def reply(request: RecordedRequest) -> Reply:
        done = "tool_result" in json.dumps(request.json()["messages"][-1])
        blocks = [{"type": "text", "text": answer}] if done else [call]
        usage = {"input_tokens": 1000, "output_tokens": 50}
        return Reply(chunks=anthropic_stream(blocks, stop_reason="end_turn" if done else "tool_use", usage=usage,
                                             model="claude-sonnet-4-5"))  # fmt: skip

    return reply


def opened(
    tmp_path: Path,
    server: LoopbackServer,
    routes: dict[str, Any],
    permissions: PermissionOptions = PermissionOptions(mode="bypassPermissions"),
    *,
    max_attempts: int = 10,
    **launch: Any,
) -> tuple[Conversation, list[Event]]:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    config = ConfigFile.model_validate({"routes": routes})
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x",
                        max_attempts=max_attempts, routes=config.routes or {})  # fmt: skip
    said: list[Event] = []
    errors: list[str] = []
    conversation = open_conversation(
        Launch(settings, cwd=root, permissions=permissions, **launch),
        provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env, on_error=errors.append,
    )  # fmt: skip
    conversation.on(said.append)
    said.extend(Notice(session_id="", level="warning", message=error) for error in errors)
    return conversation, said


async def test_sub_agents_and_summaries_go_to_the_model_their_route_names_on_the_other_provider(
    tmp_path: Path, server: LoopbackServer, local: LoopbackServer
) -> None:
    task = {"type": "tool_use", "id": "t1", "name": "Agent",
            "input": {"description": "look", "prompt": "Look around.", "subagent_type": "general-purpose"}}  # fmt: skip
    server.responder, local.responder = call_then(task, "Done."), openai_reply
    routes = {
        "subagent": {"provider": "openai", "model": "qwen-sub", "base_url": local.url},
        "compaction": {"provider": "openai", "model": "qwen-sum", "base_url": local.url},
    }
    conversation, _ = opened(tmp_path, server, routes)
    try:
        result = await conversation.send("delegate, then let me compact")
        assert result.text == "Done."
        await conversation.compact()
        by_model = conversation.usage_by_model
    finally:
        await conversation.aclose()
    assert {r.json()["model"] for r in server.requests} == {"claude-sonnet-4-5"}
    assert [r.json()["model"] for r in local.requests] == ["qwen-sub", "qwen-sum"]
    assert all(r.path.endswith("/chat/completions") for r in local.requests)
    # The sub-agent answered from the routed model, and the summary is the routed model's.
    assert "From qwen-sub." in json.dumps(server.requests[1].json()["messages"][-1])
    assert "From qwen-sum." in json.dumps(conversation.agent.messages[0].content[0].model_dump())
    assert set(by_model) == {"claude-sonnet-4-5", "qwen-sub", "qwen-sum"}
    assert by_model["qwen-sub"].tokens == 400 and by_model["claude-sonnet-4-5"].tokens == 2 * 1050
    assert by_model["qwen-sum"].cost_usd == 0 and by_model["claude-sonnet-4-5"].cost_usd > 0


async def test_a_route_for_one_agent_type_beats_the_route_for_all_and_a_model_named_in_the_call_beats_both(
    tmp_path: Path, server: LoopbackServer, local: LoopbackServer
) -> None:
    calls = [("explorer", None), ("general-purpose", None), ("general-purpose", "claude-opus-4-1")]
    agents = tmp_path / "project" / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "explorer.md").write_text("---\nname: explorer\ndescription: Looks around\n---\nLook around.\n")

    def main(request: RecordedRequest) -> Reply:
        body = request.json()
        if not any(tool["name"] == "Agent" for tool in body.get("tools", [])):  # a sub-agent on this server
            return Reply(chunks=anthropic_stream([{"type": "text", "text": f"From {body['model']}."}]))
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn == len(calls):
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "Done."}]))
        kind, model = calls[turn]
        args = {"description": "look", "prompt": "Look.", "subagent_type": kind, **({"model": model} if model else {})}
        call = {"type": "tool_use", "id": f"t{turn}", "name": "Agent", "input": args}
        return Reply(chunks=anthropic_stream([call], stop_reason="tool_use"))

    server.responder, local.responder = main, openai_reply
    routes = {
        "subagent:explorer": {"provider": "openai", "model": "qwen-explore", "base_url": local.url},
        "subagent": "claude-haiku-4-5",  # (on the conversation's own provider)
    }
    conversation, _ = opened(tmp_path, server, routes)
    try:
        result = await conversation.send("look three ways")
    finally:
        await conversation.aclose()
    assert result.text == "Done."
    assert [r.json()["model"] for r in local.requests] == ["qwen-explore"]
    sub_models = [r.json()["model"] for r in server.requests if "Agent" not in json.dumps(r.json().get("tools", []))]
    assert sub_models == ["claude-haiku-4-5", "claude-opus-4-1"]


async def test_a_route_that_cannot_work_is_said_once_and_its_calls_stay_on_the_main_model(
    tmp_path: Path, server: LoopbackServer
) -> None:
    conversation, said = opened(tmp_path, server, {"compaction": "openai:qwen-sum"})  # (no OpenAI key, no server)
    await conversation.aclose()
    notes = [e.message for e in said if isinstance(e, Notice)]
    assert len(notes) == 1 and notes[0].startswith(
        "The compaction route to openai:qwen-sum cannot be used, so those calls stay on the main model: No model"
    )
    assert conversation.agent.router.route("compaction", "claude-sonnet-4-5").model == "claude-sonnet-4-5"


def test_routes_in_the_config_file_and_the_main_route(tmp_path: Path) -> None:
    config = ConfigFile.model_validate(
        {"routes": {"main": {"provider": "openai", "model": "qwen-main", "base_url": "http://127.0.0.1:9/v1"},
                    "judge": "claude-opus-4-1", "title": "openai:qwen2.5:0.5b"}}
    )  # fmt: skip
    assert config.routes is not None
    assert config.routes["judge"] == Route(model="claude-opus-4-1")
    assert config.routes["title"] == Route(model="qwen2.5:0.5b", provider="openai")
    env = {"ANTHROPIC_API_KEY": "x"}
    settings = resolve_settings(Overrides(), env, config)
    assert (settings.provider, settings.model, settings.base_url) == ("openai", "qwen-main", "http://127.0.0.1:9/v1")
    # --model (or --provider) still chooses for one run.
    chosen = resolve_settings(Overrides(model="claude-opus-4-1"), env, config)
    assert (chosen.provider, chosen.model) == ("anthropic", "claude-opus-4-1")
    (tmp_path / "config.json").write_text(json.dumps({"routes": {"summaries": "qwen"}}))
    with pytest.raises(ConfigError, match="'summaries' is not a kind of call") as raised:
        load_config_file(tmp_path / "config.json")
    assert "Traceback" not in str(raised.value)


async def test_the_title_and_the_judge_go_where_their_routes_say(
    tmp_path: Path, server: LoopbackServer, local: LoopbackServer
) -> None:
    server.responder = lambda request: Reply(chunks=anthropic_stream([{"type": "text", "text": "Hello there."}]))
    local.responder = openai_reply
    at_local = {"provider": "openai", "base_url": local.url}
    routes = {"title": {**at_local, "model": "qwen-title"}, "judge": {**at_local, "model": "qwen-judge"}}
    conversation, _ = opened(tmp_path, server, routes)
    try:
        await conversation.send("say hello to the team")
        branch = Branch("a1", AttemptConfig(), conversation.agent, copy=None)  # type: ignore[arg-type]
        branch.result = RunResult(session_id="s", stop="end_turn", text="Hi.", num_turns=1, usage=Usage(),
                                  cost_usd=0.0, duration_ms=1, api_duration_ms=1)  # fmt: skip
        verdict = await Judge(conversation.agent).choose([], [branch])
        path = conversation.session.path
    finally:
        await conversation.aclose()  # (waits for the title on its way)
    models = [r.json()["model"] for r in local.requests]
    assert sorted(models) == ["qwen-judge", "qwen-title"]
    asked = next(r.json() for r in local.requests if r.json()["model"] == "qwen-title")
    assert "say hello to the team" in json.dumps(asked["messages"]) and "Hello there." in json.dumps(asked["messages"])
    assert verdict.chosen is None and "From qwen-judge" in verdict.reasons  # (it named no attempt)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert {"type": "ai-title", "aiTitle": "From qwen-title", "sessionId": conversation.session_id} in lines
    # Both readers show the model's title (a name the person gives would still win).
    assert [info.title for info in list_sessions(path.parent)] == ["From qwen-title"]
    assert load_session(path).title == "From qwen-title"


async def test_webfetch_answers_come_from_the_model_its_route_names(
    tmp_path: Path, server: LoopbackServer, local: LoopbackServer, web: WebServer
) -> None:
    fetch = {"type": "tool_use", "id": "f1", "name": "WebFetch",
             "input": {"url": f"{web.url}/article.html", "prompt": "Which flag is on?"}}  # fmt: skip
    server.responder, local.responder = call_then(fetch, "Read it."), openai_reply
    routes = {"webfetch": {"provider": "openai", "model": "qwen-web", "base_url": local.url}}
    conversation, _ = opened(tmp_path, server, routes, PermissionOptions(allowed_tools=("WebFetch(domain:127.0.0.1)",)))
    try:
        result = await conversation.send("read the article")
    finally:
        await conversation.aclose()
    assert result.text == "Read it."
    [asked] = [r.json() for r in local.requests]
    assert asked["model"] == "qwen-web" and "frobnicate" in json.dumps(asked["messages"])
    assert "From qwen-web." in json.dumps(server.requests[1].json()["messages"][-1])


async def test_the_main_route_puts_the_loop_on_its_provider(
    tmp_path: Path, server: LoopbackServer, local: LoopbackServer
) -> None:
    local.responder = openai_reply
    config = ConfigFile.model_validate({"routes": {"main": {"provider": "openai", "model": "qwen-main",
                                                            "base_url": f"{local.url}/v1"}}})  # fmt: skip
    settings = resolve_settings(Overrides(), {"ANTHROPIC_API_KEY": "x", "ANTHROPIC_BASE_URL": server.url}, config)
    root = tmp_path / "project"
    root.mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    conversation = open_conversation(Launch(settings, cwd=root), env=env)  # (its provider made from the settings)
    try:
        result = await conversation.send("hello")
    finally:
        await conversation.aclose()
    assert result.text == "From qwen-main." and server.requests == []
    assert [(r.path, r.json()["model"]) for r in local.requests] == [("/v1/chat/completions", "qwen-main")]


async def test_a_routed_sub_agent_does_not_fall_back_to_a_model_of_the_other_provider(
    tmp_path: Path, server: LoopbackServer, local: LoopbackServer
) -> None:
    task = {"type": "tool_use", "id": "t1", "name": "Agent",
            "input": {"description": "look", "prompt": "Look.", "subagent_type": "general-purpose"}}  # fmt: skip
    server.responder = call_then(task, "Done.")
    local.responder = lambda request: Reply.error(529, {"error": {"message": "overloaded", "type": "overloaded"}})
    routes = {"subagent": {"provider": "openai", "model": "qwen-sub", "base_url": local.url}}
    conversation, _ = opened(tmp_path, server, routes, max_attempts=1, fallback_model="claude-haiku-4-5")
    try:
        result = await conversation.send("delegate")
    finally:
        await conversation.aclose()
    assert result.text == "Done."
    assert [r.json()["model"] for r in local.requests] == ["qwen-sub"]  # (not claude-haiku-4-5, asked of it)
    assert "agent stopped" in json.dumps(server.requests[-1].json()["messages"][-1])


async def test_rounds_that_answer_tool_results_and_late_rounds_go_where_their_routes_say(
    tmp_path: Path, server: LoopbackServer, local: LoopbackServer
) -> None:
    """cinch-rs's per-round routing: the first round reads the request on the main model; the rounds that answer
    tool results go to the orchestration route (on the other provider); from round 4 of a run on, round:4's."""

    def main(request: RecordedRequest) -> Reply:
        rounds = sum(1 for m in request.json()["messages"] if m["role"] == "assistant")
        if rounds >= 3:  # (the fourth round of the run, or any of the next run)
            return Reply(chunks=anthropic_stream([{"type": "text", "text": f"Done by {request.json()['model']}."}]))
        call = {"type": "tool_use", "id": f"g{rounds}", "name": "Glob", "input": {"pattern": "*.py"}}
        return Reply(chunks=anthropic_stream([call], stop_reason="tool_use"))

    def cheap(request: RecordedRequest) -> Reply:
        rounds = sum(1 for m in request.json()["messages"] if m["role"] == "assistant")
        call = {"id": f"g{rounds}", "type": "function", "function": {"name": "Glob", "arguments": '{"pattern": "*"}'}}
        return Reply(chunks=[openai_chunk({"role": "assistant", "tool_calls": [{"index": 0, **call}]},
                                          model="qwen-cheap"),
                             openai_chunk({}, finish="tool_calls", model="qwen-cheap")])  # fmt: skip

    server.responder, local.responder = main, cheap
    routes = {
        "orchestration": {"provider": "openai", "model": "qwen-cheap", "base_url": local.url},
        "round:4": "claude-opus-4-1",
    }
    conversation, _ = opened(tmp_path, server, routes)
    try:
        result = await conversation.send("find the python files")
        again = await conversation.send("and once more")  # (a new run: its first round is the main model's again)
    finally:
        await conversation.aclose()
    assert result.text == "Done by claude-opus-4-1."
    assert [r.json()["model"] for r in local.requests] == ["qwen-cheap", "qwen-cheap"]  # rounds 2 and 3
    assert [r.json()["model"] for r in server.requests[:2]] == ["claude-sonnet-4-5", "claude-opus-4-1"]
    assert again.text == "Done by claude-sonnet-4-5." and server.requests[2].json()["model"] == "claude-sonnet-4-5"


def test_a_round_route_must_name_a_round_from_one() -> None:
    for kind in ("round:0", "round:x", "round:"):
        with pytest.raises(ValueError, match="round:<N>"):
            ConfigFile.model_validate({"routes": {kind: "claude-haiku-4-5"}})
    assert set(ConfigFile.model_validate({"routes": {"round:2": "x", "orchestration": "y"}}).routes or {}) == {
        "round:2", "orchestration"}  # fmt: skip

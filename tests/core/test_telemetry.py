"""Telemetry to a real OTLP/HTTP receiver on 127.0.0.1 (run by the test, decoding the protobuf messages the
OpenTelemetry Collector would): a span per run, model call and tool call with models, tokens, cost, tool names,
decisions and durations, metrics for tokens, cost and decisions, and no prompt or file text; with telemetry off, no
OpenTelemetry module is imported."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.settings import Settings
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

PROMPT = "Look at notes-PROMPT-7c1e please"
FILE_TEXT = "FILE-CONTENT-93ab"


class OtlpReceiver:
    """What an OTLP/HTTP collector receives: each export's body, by path (/v1/traces, /v1/metrics)."""

    def __init__(self) -> None:
        self.bodies: dict[str, list[bytes]] = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    data = gzip.decompress(data)
                receiver.bodies.setdefault(self.path, []).append(data)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def spans(self) -> list[Any]:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        found = []
        for body in self.bodies.get("/v1/traces", []):
            request = ExportTraceServiceRequest.FromString(body)
            found += [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
        return found

    def metrics(self) -> dict[str, list[tuple[dict[str, Any], float]]]:
        """Each metric's data points: their attributes and value (the last export's, counters being cumulative)."""
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

        found: dict[str, list[tuple[dict[str, Any], float]]] = {}
        for body in self.bodies.get("/v1/metrics", []):
            request = ExportMetricsServiceRequest.FromString(body)
            for rm in request.resource_metrics:
                for sm in rm.scope_metrics:
                    for metric in sm.metrics:
                        found[metric.name] = [
                            (attributes(point.attributes), point.as_double or point.as_int)
                            for point in metric.sum.data_points
                        ]
        return found


def attributes(pairs: Any) -> dict[str, Any]:
    values = {}
    for pair in pairs:
        kind = pair.value.WhichOneof("value")
        values[pair.key] = getattr(pair.value, kind) if kind else None
    return values


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    collector = OtlpReceiver()
    try:
        yield collector
    finally:
        collector.httpd.shutdown()
        collector.httpd.server_close()


async def test_spans_and_metrics_reach_an_otlp_receiver_without_prompt_or_file_text(
    tmp_path: Path, server: LoopbackServer, receiver: OtlpReceiver
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text(FILE_TEXT + "\n")
    calls = [
        {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": str(root / "notes.txt")}},
        {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": str(root / "x.txt"), "content": "x"}},
    ]

    def model(request: RecordedRequest) -> Reply:
        first = len(server.requests) == 1
        blocks = calls if first else [{"type": "text", "text": "It says hello."}]
        usage = {"input_tokens": 1200, "output_tokens": 80}
        return Reply(chunks=anthropic_stream(blocks, stop_reason="tool_use" if first else "end_turn", usage=usage,
                                             model="claude-sonnet-4-5"))  # fmt: skip

    server.responder = model
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "otlp",
           "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_METRIC_EXPORT_INTERVAL": "600000"}  # fmt: skip
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x")
    conversation = open_conversation(
        Launch(settings, cwd=root, permissions=PermissionOptions(disallowed_tools=("Write",))),
        provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env,
    )  # fmt: skip
    try:
        result = await conversation.send(PROMPT)
    finally:
        await conversation.aclose()  # (flushes: the receiver has everything once this returns)
    assert result.text == "It says hello."

    spans = receiver.spans()
    by_name: dict[str, list[Any]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    assert sorted((name, len(found)) for name, found in by_name.items()) == [
        ("agentui.model_call", 2), ("agentui.run", 1), ("agentui.tool_call", 2)]  # fmt: skip
    run = by_name["agentui.run"][0]
    assert all(span.parent_span_id == run.span_id for span in spans if span is not run)
    assert attributes(run.attributes)["stop"] == "end_turn"
    call = attributes(by_name["agentui.model_call"][0].attributes)
    assert call["model"] == "claude-sonnet-4-5" and call["tokens.input"] == 1200 and call["tokens.output"] == 80
    assert call["tokens.cache_read"] == 0 and call["cost_usd"] > 0 and call["duration_ms"] >= 0
    tools = {attributes(s.attributes)["tool.name"]: attributes(s.attributes) for s in by_name["agentui.tool_call"]}
    assert tools["Read"]["decision"] == "accept" and tools["Write"]["decision"] == "reject"
    assert tools["Write"]["decision.source"] == "config" and "duration_ms" in tools["Read"]
    everything = json.dumps([str(span) for span in spans])
    assert "PROMPT-7c1e" not in everything and FILE_TEXT not in everything and "tool.input" not in everything

    metrics = receiver.metrics()
    tokens = {(a["type"], a["model"]): value for a, value in metrics["claude_code.token.usage"]}
    assert tokens == {("input", "claude-sonnet-4-5"): 2400, ("output", "claude-sonnet-4-5"): 160}
    [(cost_labels, cost)] = metrics["claude_code.cost.usage"]
    assert cost_labels["model"] == "claude-sonnet-4-5" and cost > 0
    decisions = {(a["tool_name"], a["decision"]): value for a, value in metrics["agentui.tool.decision"]}
    assert decisions == {("Read", "accept"): 1, ("Write", "reject"): 1}
    assert [value for _, value in metrics["claude_code.code_edit_tool.decision"]] == [1]


def test_with_telemetry_off_no_opentelemetry_module_is_imported(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "hi"}]}]))
    code = f"""
import asyncio, sys
from pathlib import Path
from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.settings import Settings

async def main():
    settings = Settings(provider="scripted", model="scripted", script=Path({str(script)!r}))
    env = {{"HOME": {str(tmp_path / "home")!r}, "CLAUDE_CONFIG_DIR": {str(tmp_path / "claude")!r}}}
    conversation = open_conversation(Launch(settings, cwd=Path({str(tmp_path)!r})), env=env)
    result = await conversation.send("hello")
    await conversation.aclose()
    print(result.text, sorted(m for m in sys.modules if m.startswith("opentelemetry")))

asyncio.run(main())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hi", "[]"]


async def test_prompts_and_tool_inputs_are_exported_only_when_the_person_opts_in(
    tmp_path: Path, server: LoopbackServer, receiver: OtlpReceiver
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    read = {"type": "tool_use", "id": "r1", "name": "Glob", "input": {"pattern": "*.secretext"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([read], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "None."}])),
    )
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_TRACES_EXPORTER": "otlp",
           "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{receiver.url}/v1/traces",
           "OTEL_LOG_USER_PROMPTS": "1", "OTEL_LOG_TOOL_DETAILS": "1"}  # fmt: skip
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x")
    conversation = open_conversation(
        Launch(settings, cwd=root), provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env
    )
    try:
        await conversation.send(PROMPT)
    finally:
        await conversation.aclose()
    spans = {span.name: attributes(span.attributes) for span in receiver.spans()}
    assert spans["agentui.run"]["prompt"] == PROMPT
    assert json.loads(spans["agentui.tool_call"]["tool.input"]) == {"pattern": "*.secretext"}
    assert "/v1/metrics" not in receiver.bodies  # (no metrics exporter named: none sent)


def test_an_unreachable_collector_neither_holds_up_nor_shows_on_the_screen(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    import socket

    with socket.socket() as probe:  # (a port nothing listens on)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "Still answered."}]}]))
    env = {**clean_env, "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_TRACES_EXPORTER": "otlp",
           "OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"}  # fmt: skip
    done = subprocess.run(
        [agentui_bin, "-p", "hi", "--provider", "scripted", "--script", str(script)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Still answered.", done.stderr
    assert done.stderr == ""  # (the SDK's retry warnings go to agentui's log, not the terminal)


async def test_a_sub_agents_calls_are_spans_under_its_agent_call(
    tmp_path: Path, server: LoopbackServer, receiver: OtlpReceiver
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    task = {"type": "tool_use", "id": "a1", "name": "Agent",
            "input": {"description": "look", "prompt": "Look.", "subagent_type": "general-purpose"}}  # fmt: skip
    glob = {"type": "tool_use", "id": "g1", "name": "Glob", "input": {"pattern": "*.py"}}

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        parent = any(tool["name"] == "Agent" for tool in body.get("tools", []))
        done = "tool_result" in json.dumps(body["messages"][-1])
        blocks = [{"type": "text", "text": "Done."}] if done else [task if parent else glob]
        return Reply(chunks=anthropic_stream(blocks, stop_reason="end_turn" if done else "tool_use"))

    server.responder = model
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_TRACES_EXPORTER": "otlp",
           "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}  # fmt: skip
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x")
    conversation = open_conversation(
        Launch(settings, cwd=root, permissions=PermissionOptions(mode="bypassPermissions")),
        provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env,
    )  # fmt: skip
    try:
        await conversation.send("delegate")
    finally:
        await conversation.aclose()
    spans = receiver.spans()
    agent_call = next(s for s in spans if attributes(s.attributes).get("tool.name") == "Agent")
    under = [s for s in spans if s.parent_span_id == agent_call.span_id]
    assert sorted((s.name, attributes(s.attributes).get("tool.name", "")) for s in under) == [
        ("agentui.model_call", ""), ("agentui.model_call", ""), ("agentui.tool_call", "Glob")]  # fmt: skip
    assert all(attributes(s.attributes)["subagent"] is True for s in under)
    assert len([s for s in spans if s.name == "agentui.model_call"]) == 4  # (two of the run's, two of its sub-agent's)

"""OpenTelemetry, as Claude Code offers it: on with CLAUDE_CODE_ENABLE_TELEMETRY=1, exported where the OTEL_*
variables say (OTLP over HTTP; `console` to stderr). A span per run, per model call and per tool call, and metrics
for tokens, cost and tool decisions under Claude Code's names, so its dashboards read agentui's too. Spans carry
models, tokens, cost, tool names, decisions and durations — never a prompt, an answer, a tool's input or a file's
content unless the person opts in (OTEL_LOG_USER_PROMPTS=1, OTEL_LOG_TOOL_DETAILS=1, as Claude Code's).

Built on the conversation's events; the SDK (the optional extra `agentui[telemetry]`) is imported only when
telemetry is on."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agentui.core.events import (
    AgentEnd,
    AgentStart,
    Event,
    MessageEnd,
    PermissionResolved,
    Retry,
    ToolEnd,
    ToolStart,
    TurnEnd,
    TurnStart,
    UsageUpdate,
    UserMessage,
)

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span, Tracer

FLUSH_SECONDS = 5.0
"""At close, how long the last spans and metrics may take to leave (then they are dropped, not waited for)."""
EXPORT_TIMEOUT = 5.0
"""Seconds one export may take, its retries included (an unreachable collector must not hold anything up)."""
EDIT_TOOLS = ("Edit", "Write", "NotebookEdit")
DETAIL_CHARS = 4000


def enabled(env: Mapping[str, str]) -> bool:
    return env.get("CLAUDE_CODE_ENABLE_TELEMETRY", "").strip().lower() in ("1", "true", "yes", "on")


class Telemetry:
    """Spans and metrics of one conversation, from its events; `close` flushes them."""

    def __init__(self, env: Mapping[str, str], session_id: str, version: str) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider

        resource = Resource.create(
            {"service.name": env.get("OTEL_SERVICE_NAME") or "agentui", "service.version": version,
             "session.id": session_id}
        )  # fmt: skip
        self.env, self.session_id = env, session_id
        self.flush_seconds = _shutdown_seconds(env)
        _quiet_sdk_logs()
        self.log_prompts = env.get("OTEL_LOG_USER_PROMPTS") == "1"
        self.log_tools = env.get("OTEL_LOG_TOOL_DETAILS") == "1"
        self.tracer_provider: TracerProvider | None = None
        self.meter_provider: MeterProvider | None = None
        traces, metrics = _exporters(env, "TRACES"), _exporters(env, "METRICS")
        if traces:
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            # (no shutdown of their own at exit: `close` bounds it, and an atexit shutdown would wait on the exporter)
            self.tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
            for exporter in traces:
                self.tracer_provider.add_span_processor(BatchSpanProcessor(_span_exporter(exporter, env)))
        if metrics:
            from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

            interval = float(env.get("OTEL_METRIC_EXPORT_INTERVAL") or 60000)
            readers = [
                PeriodicExportingMetricReader(_metric_exporter(exporter, env), export_interval_millis=interval)
                for exporter in metrics
            ]
            self.meter_provider = MeterProvider(resource=resource, metric_readers=readers, shutdown_on_exit=False)
        self.tracer: Tracer | None = self.tracer_provider.get_tracer("agentui") if self.tracer_provider else None
        meter = self.meter_provider.get_meter("agentui") if self.meter_provider else None
        self.tokens: Counter | None = meter.create_counter("claude_code.token.usage", "tokens") if meter else None
        self.cost: Counter | None = meter.create_counter("claude_code.cost.usage", "USD") if meter else None
        self.decisions: Counter | None = meter.create_counter("agentui.tool.decision") if meter else None
        self.edit_decisions: Counter | None = (
            meter.create_counter("claude_code.code_edit_tool.decision") if meter else None
        )
        self._run: Span | None = None
        self._calls: dict[str | None, tuple[Span, float]] = {}
        """Model calls in progress, with when each started: the run's (None), and each sub-agent's by the id of the
        Agent call that started it."""
        self._tools: dict[str, tuple[Span, float]] = {}
        self._asked: set[str] = set()
        self._model = ""

    def on_event(self, event: Event) -> None:
        if event.loop_id is not None:  # (a parallel attempt's: its spending counts, its spans are not this run's)
            if isinstance(event, UsageUpdate):
                self._count(event)
            return
        match event:
            case AgentStart():
                self._model = event.model
                self._run = self._span("agentui.run", {"model": event.model, "provider": event.provider})
            case UserMessage() if self._run is not None and self.log_prompts and event.source == "prompt":
                self._run.set_attribute("prompt", event.message.text[:DETAIL_CHARS])
            case TurnStart():
                self._start_call(None, {"model": self._model, "turn": event.turn}, self._run)
            case Retry() if None in self._calls:
                self._calls[None][0].add_event("retry", {"attempt": event.attempt, "reason": event.reason[:200]})
            case MessageEnd() if None in self._calls and event.message.model:
                self._calls[None][0].set_attribute("model", event.message.model)
            case UsageUpdate():
                self._count(event)
                self._end_call(None, event)
            case TurnEnd():
                self._end_call(None)
            case ToolStart():
                self._start_tool(event, self._run, {})
            case PermissionResolved():
                self._asked.add(event.tool_call_id)
            case ToolEnd():
                self._tool_end(event)
            case AgentEnd():
                self._end_call(None)
                for span, _ in self._tools.values():
                    span.end()
                self._tools.clear()
                if self._run is not None:
                    self._run.set_attribute("stop", event.stop)
                    self._run.set_attribute("turns", event.num_turns)
                    self._run.set_attribute("tokens.input", event.usage.context_tokens)
                    self._run.set_attribute("tokens.output", event.usage.output_tokens)
                    self._run.end()
                    self._run = None
            case _:
                pass

    def on_subagent_event(self, call_id: str, event: Event) -> None:
        """A sub-agent's event: its model and tool calls become spans under the span of the Agent call that started
        it (its tokens and cost are already counted: its calls count in the conversation's usage)."""
        under = self._tools.get(call_id)
        if under is None:
            return
        match event:
            case TurnStart():
                self._start_call(call_id, {"subagent": True, "turn": event.turn}, under[0])
            case UsageUpdate():
                self._end_call(call_id, event)
            case ToolStart():
                self._start_tool(event, under[0], {"subagent": True})
            case ToolEnd():
                self._tool_end(event)
            case AgentEnd():
                self._end_call(call_id)
            case _:
                pass

    def _span(self, name: str, attributes: dict[str, Any], parent: Span | None = None) -> Span | None:
        if self.tracer is None:
            return None
        from opentelemetry import trace

        context = trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(name, context=context, attributes={"session.id": self.session_id, **attributes})

    def _start_call(self, key: str | None, attributes: dict[str, Any], parent: Span | None) -> None:
        span = self._span("agentui.model_call", attributes, parent)
        if span is not None:
            self._calls[key] = (span, time.monotonic())

    def _end_call(self, key: str | None, usage: UsageUpdate | None = None) -> None:
        """The model call ends: with what it used, when its usage is known."""
        found = self._calls.pop(key, None)
        if found is None:
            return
        span, started = found
        if usage is not None:
            used = usage.usage
            span.set_attributes(
                {"model": usage.model or self._model, "tokens.input": used.input_tokens,
                 "tokens.output": used.output_tokens, "tokens.cache_read": used.cache_read_input_tokens,
                 "tokens.cache_creation": used.cache_creation_input_tokens, "cost_usd": usage.call_cost_usd}
            )  # fmt: skip
        span.set_attribute("duration_ms", round((time.monotonic() - started) * 1000))
        span.end()

    def _start_tool(self, event: ToolStart, parent: Span | None, attributes: dict[str, Any]) -> None:
        attributes = {"tool.name": event.name, **attributes}
        if self.log_tools:
            attributes["tool.input"] = json.dumps(event.input)[:DETAIL_CHARS]
        span = self._span("agentui.tool_call", attributes, parent)
        if span is not None:
            self._tools[event.tool_call_id] = (span, time.monotonic())

    def _count(self, event: UsageUpdate) -> None:
        """The metrics of one model call: its tokens by kind and its cost."""
        if self.tokens is None or self.cost is None:
            return
        model, usage = event.model or self._model, event.usage
        counts = {
            "input": usage.input_tokens,
            "output": usage.output_tokens,
            "cacheRead": usage.cache_read_input_tokens,
            "cacheCreation": usage.cache_creation_input_tokens,
        }
        for kind, count in counts.items():
            if count:
                self.tokens.add(count, {"type": kind, "model": model, "session.id": self.session_id})
        self.cost.add(event.call_cost_usd, {"model": model, "session.id": self.session_id})

    def _tool_end(self, event: ToolEnd) -> None:
        decision = "reject" if event.denied else "accept"
        source = "user" if event.tool_call_id in self._asked else "config"
        self._asked.discard(event.tool_call_id)
        labels = {"tool_name": event.name, "decision": decision, "source": source, "session.id": self.session_id}
        if self.decisions is not None:
            self.decisions.add(1, labels)
        if self.edit_decisions is not None and event.name in EDIT_TOOLS:
            self.edit_decisions.add(1, labels)
        found = self._tools.pop(event.tool_call_id, None)
        if found is not None:
            span, started = found
            span.set_attributes(
                {"decision": decision, "decision.source": source, "is_error": event.is_error, "cached": event.cached,
                 "duration_ms": round((time.monotonic() - started) * 1000)}
            )  # fmt: skip
            span.end()

    def close(self) -> None:
        """Flush what is left and stop exporting, within `flush_seconds` whatever the collector does: the flush runs
        on a daemon thread, which an unreachable collector may keep a little longer but never keeps agentui."""
        import threading

        done = threading.Event()

        def flush() -> None:
            millis = int(self.flush_seconds * 1000)
            try:
                if self.tracer_provider is not None:
                    self.tracer_provider.force_flush(millis)
                    self.tracer_provider.shutdown()
                if self.meter_provider is not None:
                    self.meter_provider.force_flush(millis)
                    self.meter_provider.shutdown(millis)
            finally:
                done.set()

        threading.Thread(target=flush, name="agentui-telemetry-flush", daemon=True).start()
        done.wait(self.flush_seconds)


def _shutdown_seconds(env: Mapping[str, str]) -> float:
    """How long exit may wait on the exporters: Claude Code's CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS, else
    FLUSH_SECONDS."""
    try:
        millis = float(env.get("CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS") or "")
    except ValueError:
        return FLUSH_SECONDS
    return millis / 1000 if millis >= 0 else FLUSH_SECONDS


def _quiet_sdk_logs() -> None:
    """The SDK's own warnings (an unreachable collector, retries) go where agentui's log goes — its file, or nowhere
    — never onto the person's screen."""
    import logging

    ours = logging.getLogger("agentui")
    if ours.propagate:  # (--debug without a log file: everything to stderr, as asked; or a test's capture)
        return
    sdk = logging.getLogger("opentelemetry")
    sdk.handlers = list(ours.handlers) or [logging.NullHandler()]
    sdk.propagate = False


def start(env: Mapping[str, str], session_id: str, on_error: Callable[[str], object]) -> Telemetry | None:
    """Telemetry for a conversation if it is on (None if off, or said in one sentence if it cannot start)."""
    if not enabled(env):
        return None
    from agentui import __version__

    try:
        return Telemetry(env, session_id, __version__)
    except ImportError:
        on_error("Telemetry is on, but OpenTelemetry is not installed: pip install 'agentui[telemetry]'.")
    except ValueError as exc:
        on_error(f"Telemetry is on, but cannot start: {exc}")
    return None


def _exporters(env: Mapping[str, str], kind: str) -> list[str]:
    """OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER: comma-separated, `otlp` or `console`; none when unset."""
    names = [n.strip().lower() for n in env.get(f"OTEL_{kind}_EXPORTER", "").split(",") if n.strip()]
    for name in names:
        if name not in ("otlp", "console", "none"):
            raise ValueError(f"OTEL_{kind}_EXPORTER names {name!r}; agentui exports to otlp or console.")
    return [name for name in names if name != "none"]


def _otlp(env: Mapping[str, str], signal: str) -> dict[str, Any]:
    """The OTLP/HTTP exporter's endpoint and headers from the conversation's environment (not only the process's)."""
    protocol = env.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
    if protocol and protocol != "http/protobuf":
        raise ValueError(f"OTLP over {protocol} is not offered; set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf.")
    own = env.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_ENDPOINT")
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318").rstrip("/")
    headers = dict(
        pair.split("=", 1) for pair in (env.get("OTEL_EXPORTER_OTLP_HEADERS") or "").split(",") if "=" in pair
    )
    return {
        "endpoint": own or f"{base}/v1/{signal}",
        "headers": {k.strip(): v.strip() for k, v in headers.items()},
        "timeout": EXPORT_TIMEOUT,
    }


def _span_exporter(name: str, env: Mapping[str, str]) -> Any:
    if name == "console":
        import sys

        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(out=sys.stderr)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(**_otlp(env, "traces"))


def _metric_exporter(name: str, env: Mapping[str, str]) -> Any:
    if name == "console":
        import sys

        from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

        return ConsoleMetricExporter(out=sys.stderr)
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    return OTLPMetricExporter(**_otlp(env, "metrics"))

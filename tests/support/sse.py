"""Streams for the loopback server: the recorded fixtures, and builders for the cases no recording covers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# Copied byte for byte from the shared recordings (see its README.md), so a clean clone has them.
SSE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sse"


def recorded(name: str) -> list[bytes]:
    """A recorded stream split into one chunk per event, as the server sent it."""
    text = (SSE_FIXTURES / name).read_bytes()
    return [event + b"\n\n" for event in text.split(b"\n\n") if event.strip()]


def recorded_events(name: str) -> list[dict[str, Any]]:
    """The JSON payloads of a recorded stream, for computing what a test should expect."""
    payloads = []
    for chunk in recorded(name):
        for line in chunk.decode().splitlines():
            if line.startswith("data: ") and line[6:].strip() != "[DONE]":
                payloads.append(json.loads(line[6:]))
    return payloads


def event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def data_line(data: dict[str, Any] | str) -> bytes:
    return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()


def anthropic_stream(
    blocks: list[dict[str, Any]],
    *,
    stop_reason: str = "end_turn",
    usage: dict[str, int] | None = None,
    pieces: int = 4,
    message_id: str = "msg_test",
    model: str = "claude-test",
) -> list[bytes]:
    """A Messages API stream for `blocks` (text with citations, thinking with signature, tool_use, and a server
    tool's server_tool_use and web_search_tool_result); each block's payload is split into `pieces` deltas, as a
    real server would split it."""
    usage = usage or {"input_tokens": 12, "output_tokens": 34}
    chunks = [
        event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": model,
                    "stop_reason": None,
                    "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
                },
            },
        ),
        event("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            start, payload, delta_type, key = {"type": "text", "text": ""}, block["text"], "text_delta", "text"
        elif kind == "thinking":
            start, payload, delta_type, key = (
                {"type": "thinking", "thinking": ""},
                block["thinking"],
                "thinking_delta",
                "thinking",
            )
        elif kind == "web_search_tool_result":  # a server tool's result arrives whole, with no deltas
            chunks.append(
                event("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})
            )
            chunks.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
            continue
        else:  # tool_use, or server_tool_use (the server's own call of its web search)
            start = {"type": kind, "id": block["id"], "name": block["name"], "input": {}}
            payload, delta_type, key = json.dumps(block["input"]), "input_json_delta", "partial_json"
        chunks.append(
            event("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        for piece in split(payload, pieces):
            chunks.append(
                event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": {"type": delta_type, key: piece}},
                )
            )
        for citation in block.get("citations", []) if kind == "text" else []:
            chunks.append(
                event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "citations_delta", "citation": citation},
                    },
                )
            )
        if kind == "thinking":
            chunks.append(
                event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "signature_delta", "signature": block["signature"]},
                    },
                )
            )
        chunks.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
    chunks.append(
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    chunks.append(event("message_stop", {"type": "message_stop"}))
    return chunks


def split(text: str, pieces: int) -> list[str]:
    size = max(1, -(-len(text) // pieces))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def openai_chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    return data_line(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "model": "local",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
    )

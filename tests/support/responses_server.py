"""OpenAI's Responses API as a loopback server streams it: SSE replies built event by event as the API sends them
(`event: <type>` and `data:` a JSON with that type and a sequence number), and the checks a request body must pass."""

from __future__ import annotations

import json
from typing import Any

from tests.support.loopback import RecordedRequest, Reply

MODEL = "gpt-5-test"


class Stream:
    """One streamed response: call the item methods in order, then `completed()`, `incomplete()` or `failed()`."""

    def __init__(self, response_id: str = "resp_test", model: str = MODEL) -> None:
        self.id = response_id
        self.model = model
        self.output: list[dict[str, Any]] = []
        self.chunks: list[bytes] = []
        self._sequence = 0
        self._emit("response.created", response=self._response("in_progress"))
        self._emit("response.in_progress", response=self._response("in_progress"))

    def _emit(self, kind: str, **fields: Any) -> None:
        data = {"type": kind, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        self.chunks.append(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())

    def _response(self, status: str, **fields: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": 1764300000,
            "status": status,
            "model": self.model,
            "output": list(self.output) if status != "in_progress" else [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "error": None,
            "incomplete_details": None,
            "usage": None,
            **fields,
        }

    def reasoning(self, summary: list[str], encrypted: str = "gAAAA-secret", item_id: str = "rs_1") -> Stream:
        index = len(self.output)
        self._emit(
            "response.output_item.added", output_index=index, item={"id": item_id, "type": "reasoning", "summary": []}
        )
        for number, text in enumerate(summary):
            common = {"item_id": item_id, "output_index": index, "summary_index": number}
            self._emit("response.reasoning_summary_part.added", **common, part={"type": "summary_text", "text": ""})
            for piece in _pieces(text):
                self._emit("response.reasoning_summary_text.delta", **common, delta=piece)
            self._emit("response.reasoning_summary_text.done", **common, text=text)
            self._emit("response.reasoning_summary_part.done", **common, part={"type": "summary_text", "text": text})
        item = {
            "id": item_id,
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": text} for text in summary],
            "encrypted_content": encrypted,
        }
        self.output.append(item)
        self._emit("response.output_item.done", output_index=index, item=item)
        return self

    def message(self, text: str, item_id: str = "msg_1") -> Stream:
        index = len(self.output)
        added = {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
        self._emit("response.output_item.added", output_index=index, item=added)
        common = {"item_id": item_id, "output_index": index, "content_index": 0}
        self._emit("response.content_part.added", **common, part={"type": "output_text", "text": "", "annotations": []})
        for piece in _pieces(text):
            self._emit("response.output_text.delta", **common, delta=piece, logprobs=[])
        self._emit("response.output_text.done", **common, text=text, logprobs=[])
        part = {"type": "output_text", "text": text, "annotations": []}
        self._emit("response.content_part.done", **common, part=part)
        item = {**added, "status": "completed", "content": [part]}
        self.output.append(item)
        self._emit("response.output_item.done", output_index=index, item=item)
        return self

    def function_call(self, call_id: str, name: str, arguments: dict[str, Any], item_id: str = "fc_1") -> Stream:
        index = len(self.output)
        raw = json.dumps(arguments)
        added = {"id": item_id, "type": "function_call", "status": "in_progress", "call_id": call_id, "name": name}
        self._emit("response.output_item.added", output_index=index, item={**added, "arguments": ""})
        for piece in _pieces(raw):
            self._emit("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece)
        self._emit("response.function_call_arguments.done", item_id=item_id, output_index=index, arguments=raw)
        item = {**added, "status": "completed", "arguments": raw}
        self.output.append(item)
        self._emit("response.output_item.done", output_index=index, item=item)
        return self

    def completed(
        self, input_tokens: int = 100, cached: int = 40, output: int = 30, reasoning: int = 12, written: int = 20
    ) -> Reply:
        usage = {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": written},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": input_tokens + output,
        }
        self._emit("response.completed", response=self._response("completed", usage=usage))
        return self.reply()

    def incomplete(self, reason: str = "max_output_tokens") -> Reply:
        details = {"reason": reason}
        self._emit("response.incomplete", response=self._response("incomplete", incomplete_details=details))
        return self.reply()

    def failed(self, code: str, message: str) -> Reply:
        error = {"code": code, "message": message}
        self._emit("response.failed", response=self._response("failed", error=error))
        return self.reply()

    def error(self, code: str, message: str) -> Reply:
        """An `error` event: what the API streams when it fails before or instead of a response."""
        self._emit("error", code=code, message=message, param=None)
        return self.reply()

    def reply(self) -> Reply:
        return Reply(chunks=list(self.chunks), headers={"x-request-id": "req_test"})


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


def text_reply(text: str) -> Reply:
    return Stream().message(text).completed()


def error_reply(status: int, code: str, message: str, *, kind: str = "invalid_request_error", **headers: str) -> Reply:
    """An HTTP error answer in OpenAI's shape."""
    return Reply.error(status, {"error": {"message": message, "type": kind, "param": None, "code": code}}, headers)


# What a request must be


_INPUT_PARTS = {"input_text": {"text"}, "input_image": {"image_url"}, "input_file": {"file_data", "filename"}}


def problems(request: RecordedRequest) -> list[str]:
    """What is wrong with a request to POST /v1/responses (an empty list when it is as the API takes it)."""
    found: list[str] = []
    if request.path != "/v1/responses":
        found.append(f"path {request.path}")
    body = request.json()
    if not isinstance(body.get("model"), str) or not body["model"]:
        found.append("no model")
    if body.get("stream") is not True:
        found.append("not streamed")
    if "messages" in body:
        found.append("chat completions' messages")
    for item in body.get("input") or []:
        found.extend(_item_problems(item))
    for tool in body.get("tools") or []:
        if tool.get("type") != "function" or not tool.get("name") or not isinstance(tool.get("parameters"), dict):
            found.append(f"tool {tool}")
        if "function" in tool:
            found.append("a chat-completions tool")
    reasoning = body.get("reasoning")
    if reasoning is not None and reasoning.get("effort") not in (
        "none",
        "minimal",
        "low",
        "medium",
        "high",
        "xhigh",
        "max",
    ):
        found.append(f"effort {reasoning.get('effort')}")
    return found


def _item_problems(item: dict[str, Any]) -> list[str]:
    kind = item.get("type", "message")
    if kind == "message":
        role, content = item.get("role"), item.get("content")
        if role not in ("user", "assistant", "system", "developer"):
            return [f"role {role}"]
        if isinstance(content, str):
            return []
        wanted = {"output_text": {"text"}} if role == "assistant" else _INPUT_PARTS
        return [f"part {part}" for part in content if not wanted.get(part.get("type"), {"?"}) <= part.keys()]
    needs = {
        "function_call": {"call_id", "name", "arguments"},
        "function_call_output": {"call_id", "output"},
        "reasoning": {"id", "summary", "encrypted_content"},
    }.get(kind)
    if needs is None or not needs <= item.keys():
        return [f"item {item}"]
    if kind == "function_call" and not isinstance(item["arguments"], str):
        return ["arguments not a JSON string"]
    return []


def checked(reply: Reply) -> Any:
    """A responder that answers every request well made with `reply`, and one that is not with a 400 naming why."""

    def respond(request: RecordedRequest) -> Reply:
        if wrong := problems(request):
            return error_reply(400, "invalid_request", "; ".join(wrong))
        return reply

    return respond

"""OpenAPI tools against a real HTTP API on 127.0.0.1 that serves its own spec: the chosen operations become tools
with their parameters as input schemas, the model's calls reach the API with the key from the environment, the
permission rules see `openapi__<api>__<operation>` as they see MCP tools, and the key is in no session line."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, ToolEnd
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.settings import ConfigFile, Settings
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

TOKEN = "pets-s3cret-token-7f3a"
SPEC = """
openapi: 3.0.3
info: {title: Pets, version: "1"}
servers: [{url: /v1}]
components:
  securitySchemes:
    token: {type: http, scheme: bearer}
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string}
        tag: {type: string}
  parameters:
    PetId: {name: petId, in: path, required: true, schema: {type: integer}}
security: [{token: []}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List the pets
      parameters:
        - {name: limit, in: query, schema: {type: integer}, description: How many at most}
        - {name: X-Trace, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
    post:
      operationId: createPet
      summary: Add a pet
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}
      responses: {"201": {description: ok}}
  /dump:
    get:
      operationId: dump
      responses: {"200": {description: everything}}
  /pets/{petId}:
    parameters: [{$ref: "#/components/parameters/PetId"}]
    get:
      operationId: showPet
      responses: {"200": {description: ok}}
    delete:
      operationId: deletePet
      responses: {"204": {description: gone}}
"""


class PetsApi:
    """A small API that wants the bearer token, and echoes the Authorization header it got (as a careless API
    might): agentui must keep the key out of what the model and the session see."""

    def __init__(self) -> None:
        self.pets: list[dict[str, Any]] = [{"id": 1, "name": "Tom"}]
        self.seen: list[dict[str, Any]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                api.handle(self, "GET")

            def do_POST(self) -> None:
                api.handle(self, "POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def handle(self, request: BaseHTTPRequestHandler, method: str) -> None:
        url = urlsplit(request.path)
        length = int(request.headers.get("Content-Length") or 0)
        body = json.loads(request.rfile.read(length)) if length else None
        self.seen.append({"method": method, "path": url.path, "query": parse_qs(url.query),
                          "auth": request.headers.get("Authorization"), "trace": request.headers.get("X-Trace"),
                          "body": body})  # fmt: skip
        if url.path == "/openapi.yaml":
            return self.send(request, 200, SPEC, "application/yaml")
        by_query = parse_qs(url.query).get("api_key") == [TOKEN]
        if request.headers.get("Authorization") != f"Bearer {TOKEN}" and not by_query:
            return self.send(request, 401, json.dumps({"error": "no token"}))
        if url.path == "/v1/dump":  # 20 MB, sent in pieces
            request.send_response(200)
            request.send_header("Content-Type", "text/plain")
            request.send_header("Content-Length", str(20 * 1024 * 1024))
            request.end_headers()
            try:
                for _ in range(20 * 16):
                    request.wfile.write(b"x" * 65536)
            except OSError:  # (the client stopped reading: as it should)
                pass
            return None
        if url.path == "/v1/pets" and method == "POST":
            pet = {"id": len(self.pets) + 1, **body, "createdWith": request.headers["Authorization"]}
            self.pets.append(pet)
            return self.send(request, 201, json.dumps(pet))
        if url.path == "/v1/pets":
            limit = int(parse_qs(url.query).get("limit", ["100"])[0])
            return self.send(request, 200, json.dumps(self.pets[:limit]))
        if url.path.startswith("/v1/pets/"):
            found = [p for p in self.pets if str(p["id"]) == url.path.rsplit("/", 1)[1]]
            return self.send(request, 200 if found else 404, json.dumps(found[0] if found else {"error": "none"}))
        return self.send(request, 404, "{}")

    def send(self, request: BaseHTTPRequestHandler, status: int, text: str, kind: str = "application/json") -> None:
        data = text.encode()
        request.send_response(status)
        request.send_header("Content-Type", kind)
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)


@pytest.fixture
def pets() -> Iterator[PetsApi]:
    api = PetsApi()
    try:
        yield api
    finally:
        api.httpd.shutdown()
        api.httpd.server_close()


def call(call_id: str, operation: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": f"openapi__pets__{operation}", "input": args}


async def open_with_api(
    tmp_path: Path,
    server: LoopbackServer,
    pets: PetsApi,
    permissions: PermissionOptions,
    token: str = TOKEN,
    **api: Any,
) -> tuple[Conversation, list[Event], list[str]]:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "AGENTUI_CONFIG_DIR": str(tmp_path / "config"), "PETS_TOKEN": token}  # fmt: skip
    config = ConfigFile.model_validate(
        {"openapi": {"pets": {"spec": f"{pets.url}/openapi.yaml", "auth": {"env": "PETS_TOKEN"}, **api}}}
    )
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x",
                        openapi=config.openapi or {})  # fmt: skip
    conversation = open_conversation(
        Launch(settings, cwd=root, permissions=permissions),
        provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env,
    )  # fmt: skip
    events: list[Event] = []
    conversation.on(events.append)
    notices = await conversation.start_mcp(env)
    return conversation, events, notices


async def test_operations_become_tools_the_model_calls_with_the_key_from_the_environment(
    tmp_path: Path, server: LoopbackServer, pets: PetsApi
) -> None:
    script = [
        [call("c1", "createPet", {"body": {"name": "Rex", "tag": "dog"}})],
        [call("c2", "listPets", {"limit": 1, "X-Trace": "t-1"}), call("c3", "showPet", {"petId": 2})],
        [call("c4", "showPet", {"petId": "two"})],  # (wrong arguments: the model is told, the API is not called)
        [{"type": "text", "text": "Rex is in."}],
    ]

    def model(request: RecordedRequest) -> Reply:
        blocks = script[len(server.requests) - 1]
        stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop))

    server.responder = model
    operations = ["listPets", "createPet", "showPet"]
    conversation, events, notices = await open_with_api(
        tmp_path, server, pets, PermissionOptions(mode="bypassPermissions"), operations=operations
    )
    try:
        result = await conversation.send("add Rex")
        session = conversation.session.path
    finally:
        await conversation.aclose()
    assert notices == [] and result.text == "Rex is in."
    tools = {tool["name"]: tool for tool in server.requests[0].json()["tools"]}
    assert {"openapi__pets__listPets", "openapi__pets__createPet", "openapi__pets__showPet"} <= set(tools)
    assert "openapi__pets__deletePet" not in tools  # (not chosen in config)
    listing = tools["openapi__pets__listPets"]["input_schema"]
    assert listing["properties"]["limit"] == {"type": "integer", "description": "How many at most"}
    assert listing["properties"]["X-Trace"] == {"type": "string"} and listing["required"] == []
    creating = tools["openapi__pets__createPet"]["input_schema"]
    assert creating["required"] == ["body"] and creating["properties"]["body"]["required"] == ["name"]
    assert tools["openapi__pets__showPet"]["input_schema"]["required"] == ["petId"]
    calls = [seen for seen in pets.seen if seen["path"] != "/openapi.yaml"]
    assert calls[0]["path"] == "/v1/pets" and calls[0]["method"] == "POST"
    assert sorted((c["method"], c["path"]) for c in calls[1:]) == [("GET", "/v1/pets"), ("GET", "/v1/pets/2")]
    assert all(c["auth"] == f"Bearer {TOKEN}" for c in calls)
    listed = next(c for c in calls if c["path"] == "/v1/pets" and c["method"] == "GET")
    assert listed["query"] == {"limit": ["1"]} and listed["trace"] == "t-1"
    assert calls[0]["body"] == {"name": "Rex", "tag": "dog"}
    ends = {e.tool_call_id: e for e in events if isinstance(e, ToolEnd)}
    assert "HTTP 201" in str(ends["c1"].content) and "[redacted]" in str(ends["c1"].content)
    assert '"name": "Rex"' in str(ends["c3"].content) and not ends["c3"].is_error
    assert ends["c4"].is_error and "do not fit showPet" in str(ends["c4"].content)
    assert TOKEN not in session.read_text() and TOKEN not in json.dumps([r.json() for r in server.requests])


async def test_rules_cover_an_api_as_they_cover_an_mcp_server_and_a_bad_config_is_one_sentence_each(
    tmp_path: Path, server: LoopbackServer, pets: PetsApi
) -> None:
    script = [[call("d1", "createPet", {"body": {"name": "Rex"}}), call("d2", "listPets", {})],
              [{"type": "text", "text": "Done."}]]  # fmt: skip
    server.responder = lambda request: Reply(
        chunks=anthropic_stream(script[len(server.requests) - 1], stop_reason="tool_use" if len(server.requests) == 1
                                else "end_turn")
    )  # fmt: skip
    permissions = PermissionOptions(allowed_tools=("openapi__pets",), disallowed_tools=("openapi__pets__createPet",))
    conversation, events, notices = await open_with_api(tmp_path, server, pets, permissions, operations=["*"])
    assert notices == []
    try:
        await conversation.send("add and list")
    finally:
        await conversation.aclose()
    ends = {e.tool_call_id: e for e in events if isinstance(e, ToolEnd)}
    assert ends["d1"].is_error and not ends["d2"].is_error  # (the deny wins over the API-wide allow)
    assert [c["method"] for c in pets.seen if c["path"].startswith("/v1")] == ["GET"]
    # Every operation offered with "*"; an unknown operation, a missing key and a broken spec are each one sentence.
    assert "openapi__pets__deletePet" in {t["name"] for t in server.requests[0].json()["tools"]}
    conversation, _, said = await open_with_api(tmp_path, server, pets, PermissionOptions(), operations=["listPet"])
    await conversation.aclose()
    assert said == ["The API pets has no operation listPet (it has: createPet, deletePet, dump, listPets, showPet)."]
    conversation, _, said = await open_with_api(tmp_path, server, pets, PermissionOptions(), token="",
                                                operations=["listPets"])  # fmt: skip
    await conversation.aclose()
    assert said == ["The API pets takes its key from PETS_TOKEN, which is not set: its calls go without one."]
    broken = tmp_path / "config" / "broken.yaml"
    broken.parent.mkdir(exist_ok=True)
    broken.write_text("openapi: 3.0.3\ninfo: {title: x}\npaths: {}\n")
    conversation, _, said = await open_with_api(tmp_path, server, pets, PermissionOptions(), operations=["*"],
                                                spec="broken.yaml")  # fmt: skip
    await conversation.aclose()
    assert len(said) == 1 and said[0].startswith("The API pets offers no tools: ") and "not a valid OpenAPI" in said[0]


async def test_a_huge_response_is_cut_without_being_read_whole(
    tmp_path: Path, server: LoopbackServer, pets: PetsApi
) -> None:
    server.enqueue(
        Reply(chunks=anthropic_stream([call("h1", "dump", {})], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Big."}])),
    )
    conversation, events, notices = await open_with_api(
        tmp_path, server, pets, PermissionOptions(allowed_tools=("openapi__pets__dump",)), operations=["dump"],
        max_response_chars=1000,
    )  # fmt: skip
    try:
        await conversation.send("dump it")
    finally:
        await conversation.aclose()
    assert notices == []
    [end] = [e for e in events if isinstance(e, ToolEnd)]
    text = str(end.content)
    assert text.startswith("HTTP 200 OK (text/plain)\n" + "x" * 1000 + "\n[… the response was 20,971,520 bytes")
    assert len(text) < 1200 and end.details["bytes"] == 20 * 1024 * 1024


async def test_a_key_sent_in_the_query_is_kept_out_of_the_http_librarys_log(
    tmp_path: Path, server: LoopbackServer, pets: PetsApi, caplog: pytest.LogCaptureFixture
) -> None:
    server.enqueue(
        Reply(chunks=anthropic_stream([call("q1", "listPets", {"limit": 1})], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Listed."}])),
    )
    caplog.set_level(logging.DEBUG)
    conversation, events, notices = await open_with_api(
        tmp_path, server, pets, PermissionOptions(mode="bypassPermissions"), operations=["listPets"],
        auth={"env": "PETS_TOKEN", "type": "query", "name": "api_key"},
    )  # fmt: skip
    try:
        await conversation.send("list")
    finally:
        await conversation.aclose()
    assert notices == []
    [end] = [e for e in events if isinstance(e, ToolEnd)]
    assert not end.is_error and '"name": "Tom"' in str(end.content)
    [listed] = [c for c in pets.seen if c["path"] == "/v1/pets"]
    assert listed["query"] == {"limit": ["1"], "api_key": [TOKEN]} and listed["auth"] is None
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/v1/pets?limit=1&api_key=[redacted] " in logged
    assert TOKEN not in logged

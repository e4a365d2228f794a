"""MCP in print mode against a model the loopback server plays, with a real MCP server (tests/support/mcp_server.py,
written with the SDK) over stdio: its tools reach the model's request, a call reaches the server and its result
comes back, permission rules apply to it, and a server that crashes or hangs is one sentence, not a failed run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

TINY = str(Path(__file__).resolve().parents[1] / "support" / "mcp_server.py")


def servers(**entries: dict[str, Any]) -> str:
    return json.dumps({"mcpServers": entries})


def tiny(*mode: str, **env: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [TINY, *mode], "env": env}


def call(name: str, **arguments: Any) -> Reply:
    use = {"type": "tool_use", "id": "toolu_mcp", "name": name, "input": arguments}
    return Reply(chunks=anthropic_stream([{"type": "text", "text": "Calling it."}, use], stop_reason="tool_use"))


def answer(text: str = "Done.") -> Reply:
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}]))


def run(
    agentui_bin: str, env: dict[str, str], server: LoopbackServer, project: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    env = {**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x", "AGENTUI_MAX_ATTEMPTS": "1"}
    return subprocess.run(
        [agentui_bin, "-p", "use the tools", *flags],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def tool_result(server: LoopbackServer, request: int = 1) -> dict[str, Any]:
    [block] = json.loads(server.requests[request].body)["messages"][-1]["content"]
    return block


def test_a_servers_tools_reach_the_model_and_a_call_reaches_the_server(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(
        call("mcp__tiny__add", a=2, b=3), call("mcp__tiny__shout", text="hey"), call("mcp__tiny__pixel"), answer()
    )
    done = run(
        agentui_bin,
        clean_env,
        server,
        project,
        "--mcp-config",
        servers(tiny=tiny(TINY_GREETING="hello")),
        "--allowedTools",
        "mcp__tiny__*",
    )
    assert done.returncode == 0, done.stderr
    tools = {t["name"]: t for t in json.loads(server.requests[0].body)["tools"]}
    assert {"mcp__tiny__add", "mcp__tiny__shout", "mcp__tiny__pixel", "mcp__tiny__die"} <= set(tools)
    assert tools["mcp__tiny__add"]["description"] == "Add two whole numbers."
    assert tools["mcp__tiny__add"]["input_schema"]["required"] == ["a", "b"]
    assert tool_result(server, 1)["content"] == '{"result":5}'
    assert tool_result(server, 2)["content"] == '{"result":"HEY (hello)"}'  # (its configured environment)
    [image] = tool_result(server, 3)["content"]  # an image result reaches the model as an image
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"


def test_mcp_tools_obey_permission_rules(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, tmp_path: Path
) -> None:
    server.enqueue(call("mcp__tiny__add", a=2, b=3), answer())
    done = run(agentui_bin, clean_env, server, project, "--mcp-config", servers(tiny=tiny()))
    assert done.returncode == 0, done.stderr
    result = tool_result(server)
    assert result.get("is_error") and "5" not in str(result["content"])  # asked, and -p cannot ask: not run

    server.requests.clear()
    server.enqueue(call("mcp__tiny__add", a=2, b=3), answer())
    config = tmp_path / "mcp.json"
    config.write_text(servers(tiny=tiny()))
    done = run(
        agentui_bin,
        clean_env,
        server,
        project,
        "--mcp-config",
        str(config),
        "--allowedTools",
        "mcp__tiny",
        "--disallowedTools",
        "mcp__tiny__add",
    )
    assert "denied" in str(tool_result(server)["content"])  # deny rules win over a whole-server allow


def test_a_server_that_crashes_or_cannot_be_reached_is_reported_and_the_run_goes_on(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(answer("Still here."))
    done = run(
        agentui_bin,
        clean_env,
        server,
        project,
        "--mcp-config",
        servers(broken=tiny("crash"), tiny=tiny(), gone={"type": "http", "url": "http://127.0.0.1:9/mcp"}),
    )
    assert done.returncode == 0 and done.stdout.strip() == "Still here."
    assert "The MCP server broken" in done.stderr and "cannot start, no config" in done.stderr
    assert "The MCP server gone" in done.stderr
    assert "Traceback" not in done.stderr
    names = [t["name"] for t in json.loads(server.requests[0].body)["tools"]]
    assert "mcp__tiny__add" in names and not [n for n in names if n.startswith(("mcp__broken", "mcp__gone"))]


def test_a_server_that_hangs_is_given_up_after_mcp_timeout_and_the_run_goes_on(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    # Alone in its run: the short limit is what is under test, and no server that must start has to beat it.
    server.enqueue(answer("Still here."))
    env = {**clean_env, "MCP_TIMEOUT": "1500"}
    done = run(agentui_bin, env, server, project, "--mcp-config", servers(stuck=tiny("hang")))
    assert done.returncode == 0 and done.stdout.strip() == "Still here."
    assert "The MCP server stuck did not start within 1.5 s" in done.stderr
    assert "Traceback" not in done.stderr
    assert not [t for t in json.loads(server.requests[0].body)["tools"] if t["name"].startswith("mcp__")]


def test_a_server_that_dies_mid_call_gives_the_model_an_error(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(call("mcp__tiny__die"), call("mcp__tiny__add", a=1, b=1), answer())
    done = run(
        agentui_bin, clean_env, server, project, "--mcp-config", servers(tiny=tiny()), "--allowedTools", "mcp__tiny__*"
    )
    assert done.returncode == 0, done.stderr
    assert tool_result(server, 1)["is_error"] and "tiny" in str(tool_result(server, 1)["content"])
    assert "not running" in str(tool_result(server, 2)["content"])


def test_project_servers_wait_for_approval(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    (project / ".mcp.json").write_text(servers(tiny=tiny()))
    server.enqueue(answer())
    done = run(agentui_bin, clean_env, server, project)
    assert "The MCP server tiny from this project's .mcp.json is not started" in done.stderr
    assert not [t for t in json.loads(server.requests[0].body)["tools"] if t["name"].startswith("mcp__")]

    (project / ".claude").mkdir()  # the project approving itself counts for nothing until it is trusted
    (project / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    server.requests.clear()
    server.enqueue(answer())
    done = run(agentui_bin, clean_env, server, project)
    assert not [t for t in json.loads(server.requests[0].body)["tools"] if t["name"].startswith("mcp__")]

    claude = Path(clean_env["HOME"]) / ".claude"  # the person's own settings approve it
    claude.mkdir(exist_ok=True)
    (claude / "settings.json").write_text(json.dumps({"enabledMcpjsonServers": ["tiny"]}))
    server.requests.clear()
    server.enqueue(answer())
    done = run(agentui_bin, clean_env, server, project)
    assert done.returncode == 0, done.stderr
    assert "mcp__tiny__add" in [t["name"] for t in json.loads(server.requests[0].body)["tools"]]


def test_servers_come_from_claude_json_for_every_project_and_for_this_one(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    (Path(clean_env["HOME"]) / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {"everywhere": tiny()},
                "projects": {
                    str(project.resolve()): {"mcpServers": {"here": tiny()}},
                    "/elsewhere": {"mcpServers": {"there": tiny()}},
                },
            }
        )
    )
    server.enqueue(answer())
    done = run(agentui_bin, clean_env, server, project)
    assert done.returncode == 0, done.stderr
    names = {
        t["name"].split("__")[1] for t in json.loads(server.requests[0].body)["tools"] if t["name"].startswith("mcp__")
    }
    assert names == {"everywhere", "here"}


def test_a_published_server_from_pypi(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    command = str(Path(sys.executable).parent / "mcp-server-time")
    assert Path(command).exists(), "mcp-server-time comes with the test extras"
    server.enqueue(call("mcp__time__get_current_time", timezone="Europe/Paris"), answer())
    time_server = {"command": command, "args": ["--local-timezone", "UTC"]}
    done = run(
        agentui_bin,
        clean_env,
        server,
        project,
        "--mcp-config",
        servers(time=time_server),
        "--allowedTools",
        "mcp__time__get_current_time",
    )
    assert done.returncode == 0, done.stderr
    names = [t["name"] for t in json.loads(server.requests[0].body)["tools"]]
    assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(names)
    result = json.loads(tool_result(server)["content"])
    assert result["timezone"] == "Europe/Paris" and result["datetime"][:2] == "20"


@pytest.mark.parametrize(("transport", "path"), [("http", "/mcp"), ("sse", "/sse")])
def test_a_server_over_http(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, transport: str, path: str
) -> None:
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    http_server = subprocess.Popen(
        [sys.executable, TINY, transport, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        server.enqueue(call("mcp__web__add", a=40, b=2), answer())
        config = {"type": transport, "url": f"http://127.0.0.1:{port}{path}"}
        done = run(
            agentui_bin, clean_env, server, project, "--mcp-config", servers(web=config), "--allowedTools", "mcp__web"
        )
        assert done.returncode == 0, done.stderr
        assert "mcp__web__add" in [t["name"] for t in json.loads(server.requests[0].body)["tools"]]
        assert tool_result(server)["content"] == '{"result":42}'
    finally:
        http_server.terminate()
        http_server.wait(10)

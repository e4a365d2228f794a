"""Claude Code's model aliases on Vertex AI mean in agentui what they mean in the real CLI: both run with
CLAUDE_CODE_USE_VERTEX=1 against one loopback Vertex server (CLAUDE_CODE_SKIP_VERTEX_AUTH=1, as for a gateway), and
the request paths (project, region, model id) and the 1M-window beta must be the same."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.conftest import claude_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

SONNET, OPUS, HAIKU = "claude-sonnet-4-5@20250929", "claude-opus-4-6", "claude-haiku-4-5@20251001"
EXPECTED = {
    # alias: (the model id in the path, the region it is asked in)
    "sonnet": (SONNET, "europe-west1"),
    "opus": (OPUS, "europe-west1"),
    "haiku": (HAIKU, "asia-east1"),  # (VERTEX_REGION_CLAUDE_HAIKU_4_5)
    "opusplan": (SONNET, "europe-west1"),  # (outside plan mode)
    "sonnet[1m]": (SONNET, "europe-west1"),
    "default": (SONNET, "europe-west1"),
    None: (SONNET, "europe-west1"),
}


@pytest.fixture
def vertex() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    server.responder = lambda request: Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}]))
    yield server
    server.close()


def _vertex_env(home: Path, server: LoopbackServer) -> dict[str, str]:
    env = claude_env(home, server.url)
    del env["ANTHROPIC_BASE_URL"], env["ANTHROPIC_API_KEY"]
    return env | {
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_USE_VERTEX": "1",
        "CLAUDE_CODE_SKIP_VERTEX_AUTH": "1",
        "ANTHROPIC_VERTEX_BASE_URL": f"{server.url}/v1",
        "ANTHROPIC_VERTEX_PROJECT_ID": "alias-project",
        "CLOUD_ML_REGION": "europe-west1",
        "VERTEX_REGION_CLAUDE_HAIKU_4_5": "asia-east1",
        "GCE_METADATA_HOST": "127.0.0.1:9",
        "GCE_METADATA_IP": "127.0.0.1:9",
        "AGENTUI_CONFIG_DIR": str(home / "agentui"),
    }


def _main_calls(command: list[str], env: dict[str, str], cwd: Path, server: LoopbackServer) -> list[tuple[str, bool]]:
    """The (path, asks for the 1M window) of each model call the command makes."""
    server.requests.clear()
    done = subprocess.run(
        command, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [
        (r.path, "context-1m-2025-08-07" in r.headers.get("anthropic-beta", ""))
        for r in server.requests
        if r.path.endswith(":streamRawPredict")
    ]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("alias", list(EXPECTED), ids=lambda alias: alias or "none")
def test_an_alias_asks_vertex_for_the_same_model_in_both(
    alias: str | None, claude_bin: str, agentui_bin: str, vertex: LoopbackServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = _vertex_env(home, vertex)
    chosen = ["--model", alias] if alias else []
    claude = _main_calls([claude_bin, "-p", "hi", *chosen], env, project, vertex)
    ours = _main_calls([agentui_bin, "-p", "hi", *chosen], env, project, vertex)
    model, region = EXPECTED[alias]
    path = f"/v1/projects/alias-project/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict"
    long_window = alias == "sonnet[1m]"
    assert claude == [(path, long_window)]
    assert ours == [(path, long_window)]

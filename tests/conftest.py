"""Shared fixtures: the loopback model server, a clean environment for subprocesses, history checks."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.messages import Message, ToolResultBlock
from tests.support.loopback import LoopbackServer
from tests.support.web_server import WebServer


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    loopback = LoopbackServer()
    try:
        yield loopback
    finally:
        loopback.close()


@pytest.fixture
def web() -> Iterator[WebServer]:
    """A web server on 127.0.0.1 with pages, redirects and failures, for WebFetch (tests/support/web_server.py)."""
    pages = WebServer()
    try:
        yield pages
    finally:
        pages.close()


CLOUD_VARIABLES = (
    "AWS_",
    "CLAUDE_CODE_USE_",
    "CLAUDE_CODE_SKIP_",
    "CLOUD_ML_",
    "VERTEX_REGION_",
    "GCLOUD_",
    "CLOUDSDK_",
    "GCE_METADATA_",
    "NO_GCE_CHECK",
)
"""What switches Claude onto Bedrock or Vertex AI, or tells botocore and google-auth where to look: a developer's
own never reaches a test (a CLAUDE_CODE_USE_BEDROCK there sent every test's requests to Bedrock)."""


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's own config or keys."""
    monkeypatch.setenv("AGENTUI_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    monkeypatch.setenv("AGENTUI_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude")))
    monkeypatch.setenv("AGENTUI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("AGENTUI_STATE_DIR", str(tmp_path_factory.mktemp("state")))  # (learnings, agent profiles, logs)
    for name in (
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
        "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
        "DISABLE_AUTO_COMPACT",
        "TIKTOKEN_CACHE_DIR",
        "DATA_GYM_CACHE_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", *CLOUD_VARIABLES)) or name in (
            "AGENTUI_PROVIDER",
            "AGENTUI_MODEL",
            "AGENTUI_SCRIPT",
        ):
            monkeypatch.delenv(name)


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """An environment for running `agentui` as a subprocess: no keys, a private home and config directory."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "AGENTUI_", "CLAUDE_", "PYTEST_"))
        and not key.startswith(CLOUD_VARIABLES)
    }
    home = tmp_path / "home"
    home.mkdir()
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), AGENTUI_CONFIG_DIR=str(home / "agentui"))
    return env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def agentui_bin() -> str:
    """The installed `agentui` command of the environment running the tests."""
    path = Path(sys.executable).parent / "agentui"
    assert path.exists(), f"agentui is not installed in {path.parent}; run the README's test command"
    return str(path)


def assert_valid_history(messages: list[Message]) -> None:
    """Every tool_use is answered by a tool_result in the next user message, and no result is orphaned."""
    for position, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_uses:
            continue
        assert position + 1 < len(messages), f"tool calls of message {position} have no results"
        answer = messages[position + 1]
        assert answer.role == "user"
        answered = {b.tool_use_id for b in answer.content if isinstance(b, ToolResultBlock)}
        assert answered == {call.id for call in message.tool_uses}, f"message {position}: unanswered tool calls"

"""`agentui serve` end to end in headless Chromium (Debian's package, driven by Playwright): a person opens the
printed address, types a prompt, approves the Edit the model asks for, and sees its diff, all in the browser's
terminal (xterm.js, read through its buffer); the page fetches nothing from anywhere but the server, and Ctrl+C on
the server ends the app it started. Skipped only where Chromium is absent, and never in CI (.ci/run installs it)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.served import CEILING, Served, processes_with
from tests.support.sse import anthropic_stream

CHROMIUM = "/usr/bin/chromium"
SCREENSHOT_COPY = "AGENTUI_SERVE_SCREENSHOT"
"""Where to copy the screenshot as well (docs/serve.png is this test's, taken so)."""

# The page keeps its terminal to itself; this catches it as textual-serve's script makes it (the first object given a
# `websocket_url`), so the test reads what the terminal shows through xterm.js's own buffer.
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "websocket_url", {
  configurable: true,
  set(value) {
    window.__served = this;
    Object.defineProperty(this, "websocket_url", {value, writable: true, enumerable: true, configurable: true});
  },
});
"""
SCREEN_TEXT = """() => {
  const terminal = window.__served && window.__served.terminal;
  if (!terminal) return "";
  const buffer = terminal.buffer.active, rows = [];
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
}"""


def _browser_or_skip() -> Any:
    """Playwright's sync API, once Chromium is known to be here; in CI a missing one fails instead of skipping."""
    missing = None
    if not os.access(CHROMIUM, os.X_OK):
        missing = f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = missing or "Playwright is not installed (pip install -e '.[test]')"
    if missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{missing}; .ci/run installs it, so CI must run this test.")
        pytest.skip(missing)
    return sync_playwright


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _edit_script(server: LoopbackServer) -> None:
    read = {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": "greeting.py"}}
    edit = {
        "type": "tool_use",
        "id": "toolu_edit",
        "name": "Edit",
        "input": {"file_path": "greeting.py", "old_string": "hello", "new_string": "hello, world"},
    }
    server.enqueue(
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Let me look first."}, read], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Now the change."}, edit], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "All done: the greeting now says **hello, world**."}])),
    )


def test_a_person_in_a_browser_asks_approves_the_edit_and_sees_its_diff(
    clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    sync_playwright = _browser_or_skip()
    project = tmp_path / "project"
    project.mkdir()
    (project / "greeting.py").write_text('print("hello")\n')
    _edit_script(server)
    model, marker = "claude-sonnet-4-5", f"served-{uuid.uuid4().hex[:8]}"  # (the marker names the app's process)
    arguments = ("--model", model, "--append-system-prompt", marker, "--permission-mode", "default")
    served = Served(project, app_env(clean_env, server), *arguments)
    elsewhere: list[str] = []
    screenshot = tmp_path / "serve.png"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            try:
                page = browser.new_page(viewport={"width": 1100, "height": 640})

                def only_the_server(route: Any) -> None:  # (no test reaches the internet; the page must not try)
                    if route.request.url.startswith(served.base + "/"):
                        route.continue_()
                    else:
                        elsewhere.append(route.request.url)
                        route.abort()

                page.route("**/*", only_the_server)
                page.add_init_script(CATCH_TERMINAL)
                page.goto(served.url)
                assert page.url == served.base + "/"  # (the token moved into the tab's sessionStorage)

                def screen_with(text: str) -> str:
                    deadline = time.monotonic() + CEILING  # (only ends a broken run)
                    while time.monotonic() < deadline:
                        shown = str(page.evaluate(SCREEN_TEXT))
                        if text in shown:
                            return shown
                        page.wait_for_timeout(100)
                    raise AssertionError(f"{text!r} never showed; the screen was:\n{shown}")

                screen_with("Ask for something")
                page.locator(".xterm-screen").click()
                page.keyboard.type("greet the whole world")
                page.keyboard.press("Enter")
                question = screen_with("Yes, once")
                assert "Edit wants to modify greeting.py" in question and "hello, world" in question
                page.keyboard.press("y")
                screen_with("All done: the greeting now says")
                answer = screen_with("changed: +1 −1")
                assert "Edit  greeting.py" in answer and 'print("hello, world")' in answer
                assert model in answer  # (the status bar: the app got the options serve was given)
                page.screenshot(path=str(screenshot))
                # The DOM: textual-serve's page with the terminal in it, connected, its first bytes drawn.
                assert page.locator(".textual-terminal.-connected .xterm-screen").count() == 1
                assert "-first-byte" in str(page.locator("body").get_attribute("class"))
                apps = [words for _, words in processes_with(marker) if "serve" not in words]
                assert [words[1:] for words in apps] == [["-m", "agentui", *arguments]]
                assert served.interrupt() == 0  # Ctrl+C with the page still open
                page.locator("body.-closed .closed-dialog").wait_for(timeout=CEILING * 1000)
            finally:
                browser.close()
    finally:
        served.close()

    assert (project / "greeting.py").read_text() == 'print("hello, world")\n'
    assert {request.json()["model"] for request in server.requests} == {model}  # the options serve was given
    assert all(marker in json.dumps(request.json()["system"]) for request in server.requests)
    assert processes_with(marker) == []  # Ctrl+C ended the app too
    assert elsewhere == []
    data = screenshot.read_bytes()
    assert _png_size(data) == (1100, 640) and len(data) > 20_000  # (a drawn screen, not a blank one)
    if copy := os.environ.get(SCREENSHOT_COPY):
        shutil.copyfile(screenshot, copy)

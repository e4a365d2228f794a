"""`agentui -p` with WebFetch, PDFs and notebooks against the loopback Messages API, with a real web server on
127.0.0.1 (allowed by a rule naming it): a page is answered by a separate small-model call, and each bad input (an
unreachable or oversized URL, a redirect to a host no rule allows, an encrypted PDF, a malformed notebook) comes
back to the model as one clear sentence while the run goes on."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.test_print_background import last_results, text_of, tool_call
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.pdfs import encrypted_pdf, three_pages
from tests.support.sse import anthropic_stream
from tests.support.web_server import WebServer


def closed_port() -> int:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        return int(unused.getsockname()[1])


def test_web_pages_pdfs_and_notebooks_in_print_mode(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, web: WebServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "report.pdf").write_bytes(three_pages())
    (project / "locked.pdf").write_bytes(encrypted_pdf())
    (project / "broken.ipynb").write_text('{"cells": [')
    notebook = {
        "cells": [{"cell_type": "code", "id": "add", "metadata": {}, "execution_count": 1, "source": ["1 + 2"],
                   "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                "data": {"text/plain": ["3"]}}]}],
        "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    (project / "sums.ipynb").write_text(json.dumps(notebook, indent=1))
    side_requests: list[dict[str, Any]] = []
    turns: list[RecordedRequest] = []

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        if "You read a web page" in json.dumps(body.get("system", "")):  # WebFetch's small call
            side_requests.append(body)
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "Frobnicate is on by default."}]))
        if "web_search_20250305" in json.dumps(body.get("tools", [])):  # WebSearch's, with the server's search
            found = [{"type": "web_search_result", "title": "Widget 2.0", "url": "https://example.com/widget"}]
            return Reply(
                chunks=anthropic_stream(
                    [
                        {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": "w"}},
                        {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": found},
                        {"type": "text", "text": "Widget 2.0 is out."},
                    ]
                )
            )
        turns.append(request)
        if len(turns) == 1:
            blocks = [
                tool_call("WebFetch", "page", url=f"{web.url}/article.html", prompt="What is on by default?"),
                tool_call("WebFetch", "down", url=f"http://127.0.0.1:{closed_port()}/", prompt="Anything?"),
                tool_call("WebFetch", "huge", url=f"{web.url}/big-declared", prompt="Anything?"),
                tool_call("WebFetch", "away", url=f"{web.url}/elsewhere", prompt="Anything?"),
                tool_call("WebSearch", "search", query="widget release"),
                tool_call("Read", "pdf", file_path="report.pdf", pages="2"),
                tool_call("Read", "locked", file_path="locked.pdf"),
                tool_call("Read", "nbread", file_path="broken.ipynb"),
                tool_call("Read", "sums", file_path="sums.ipynb"),
                tool_call("NotebookEdit", "nbedit", notebook_path="sums.ipynb", cell_id="add", new_source="2 + 2"),
                tool_call("NotebookEdit", "nb", notebook_path="broken.ipynb", cell_id="a", new_source="x"),
            ]
            return Reply(chunks=anthropic_stream(blocks, stop_reason="tool_use"))
        return Reply(chunks=anthropic_stream([{"type": "text", "text": "Read what there was."}]))

    server.responder = model
    done = subprocess.run(
        [agentui_bin, "-p", "look things up", "--allowedTools", "WebFetch(domain:127.0.0.1),WebSearch,NotebookEdit"],
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        capture_output=True,
        text=True,
        timeout=180,
        cwd=project,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Read what there was." and "Traceback" not in done.stderr

    results = last_results(turns[1])
    assert not results["page"].get("is_error") and text_of(results["page"]) == "Frobnicate is on by default."
    [side] = side_requests  # one small call, over the page as Markdown, not part of the conversation
    asked = side["messages"][0]["content"]
    asked = asked if isinstance(asked, str) else "".join(block.get("text", "") for block in asked)
    assert "# Release 2.0" in asked and "What is on by default?" in asked and "<script" not in asked
    assert len(turns[1].json()["messages"]) == 3  # the prompt, the calls, the results: nothing of the side call

    searched = text_of(results["search"])
    assert searched.startswith('Web search results for query: "widget release"\n\nLinks: [{"title":"Widget 2.0",')
    assert "Widget 2.0 is out." in searched

    expected = {
        "down": "Could not connect to 127.0.0.1",
        "huge": "is larger than 10 MB, the most WebFetch reads",
        "away": f"redirects to http://localhost:{web.port}/article.html, which WebFetch may not fetch",
        "locked": "locked.pdf is encrypted with a password, so its pages cannot be read.",
        "nb": "broken.ipynb is not a valid notebook: its JSON does not parse",
    }
    for call, said in expected.items():
        assert results[call].get("is_error") and said in text_of(results[call]), (call, results[call])

    assert text_of(results["nbread"]) == '     1\t{"cells": ['  # a malformed notebook reads as the text it is
    assert (project / "broken.ipynb").read_text() == '{"cells": ['
    sums = text_of(results["sums"])
    assert '<cell id="add">' in sums and "1 + 2" in sums and "3" in sums  # a notebook's cells, with their outputs
    assert not results["nbedit"].get("is_error")
    edited = json.loads((project / "sums.ipynb").read_text())
    assert edited["cells"][0]["source"] in ("2 + 2", ["2 + 2"]) and edited["metadata"] == notebook["metadata"]

    # The Messages API reads documents: the page asked for went as a PDF of its own.
    pdf = results["pdf"]["content"]
    said = "PDF report.pdf: page 2 of 3. It has 3 pages; read others with pages (such as 3)."
    assert pdf[0] == {"type": "text", "text": said}
    assert pdf[1]["type"] == "document" and pdf[1]["source"]["media_type"] == "application/pdf"
    assert web.paths.count("/article.html") == 1  # the redirect to localhost was not followed

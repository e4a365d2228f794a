"""WebFetch against a real web server on 127.0.0.1: pages as Markdown, the permission rules on hosts (private
addresses only when a rule names them), redirects, limits, and a clear sentence for each way a fetch fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentui.core.providers.base import ProviderError
from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.safety.permissions.rules import RuleError, parse_rule
from agentui.core.tools.base import ToolContext
from agentui.core.tools.web_fetch import WebFetch, WebFetchArgs
from agentui.core.workspace import Workspace
from tests.support.web_server import WebServer


def engine(tmp_path: Path, *allow: str, ask: tuple[str, ...] = (), deny: tuple[str, ...] = (), mode: str = "default"):  # type: ignore[no-untyped-def]
    rules = [
        parse_rule(text, behavior, "cli", project_root=tmp_path, home=tmp_path)  # type: ignore[arg-type]
        for behavior, texts in (("allow", allow), ("ask", ask), ("deny", deny))
        for text in texts
    ]
    return PermissionEngine(Workspace(tmp_path), rules, mode)  # type: ignore[arg-type]


class Answers:
    """The small model's side: records each request and answers it (or fails, as a provider can)."""

    def __init__(self, fail: bool = False) -> None:
        self.requests: list[str] = []
        self.fail = fail

    async def __call__(self, request: str) -> str:
        self.requests.append(request)
        if self.fail:
            raise ProviderError("The model server is overloaded.")
        return "The flag is frobnicate."


async def fetch(tool: WebFetch, url: str, prompt: str = "What changed?"):  # type: ignore[no-untyped-def]
    ctx = ToolContext(cwd=Path.cwd(), session_id="s", tool_call_id="c")
    return await tool.run(WebFetchArgs(url=url, prompt=prompt), ctx)


async def test_a_page_is_read_as_markdown_and_the_prompt_answered_over_it(tmp_path: Path, web: WebServer) -> None:
    answers = Answers()
    tool = WebFetch(engine(tmp_path, "WebFetch(domain:127.0.0.1)"), answers)
    result = await fetch(tool, f"{web.url}/article.html", "Which flag is on by default?")
    assert not result.is_error and result.content == "The flag is frobnicate."
    [request] = answers.requests
    assert (
        "# Release 2.0" in request and "**frobnicate**" in request and "[the docs](https://example.com/docs)" in request
    )
    assert "- Faster start-up" in request and "pip install widget==2.0" in request
    assert "tracking" not in request and "color: red" not in request  # no script, no style
    assert request.rstrip().endswith("Provide a concise response based only on the content above.")
    assert "Which flag is on by default?" in request
    details = result.details
    assert (details["code"], details["codeText"], details["url"]) == (200, "OK", f"{web.url}/article.html")
    assert details["bytes"] > 0 and details["result"] == "The flag is frobnicate." and details["durationMs"] >= 0
    # Fetched again within 15 minutes: from the cache, not the server.
    again = await fetch(tool, f"{web.url}/article.html", "And what else?")
    assert not again.is_error and web.paths.count("/article.html") == 1 and len(answers.requests) == 2


def test_the_rules_decide_which_hosts_and_private_addresses_need_a_rule_naming_them(tmp_path: Path) -> None:
    plain = engine(tmp_path)
    asked = plain.web_fetch("https://docs.python.org/3/")
    assert asked.behavior == "ask" and asked.suggestions == ("WebFetch(domain:docs.python.org)",)
    for private in (
        "http://127.0.0.1:8000/",
        "http://localhost/",
        "http://10.1.2.3/",
        "http://[::1]/",
        "http://169.254.169.254/",
    ):
        for gate in (plain, engine(tmp_path, "WebFetch"), engine(tmp_path, mode="bypassPermissions")):
            verdict = gate.web_fetch(private)
            assert verdict.behavior == "deny" and "private or loopback address" in verdict.reason, (private, gate.mode)
    assert engine(tmp_path, "WebFetch(domain:127.0.0.1)").web_fetch("http://127.0.0.1:9/").behavior == "allow"
    wildcard = engine(tmp_path, "WebFetch(domain:*.example.com)", deny=("WebFetch(domain:bad.example.com)",))
    assert wildcard.web_fetch("https://docs.example.com/a").behavior == "allow"
    assert wildcard.web_fetch("https://example.com/").behavior == "ask"
    assert wildcard.web_fetch("https://bad.example.com/").behavior == "deny"  # deny wins
    assert engine(tmp_path, "WebFetch").web_fetch("https://example.org/").behavior == "allow"
    assert (
        engine(tmp_path, ask=("WebFetch(domain:example.org)",), mode="bypassPermissions")
        .web_fetch("https://example.org/")
        .behavior
        == "ask"
    )
    with pytest.raises(RuleError, match="names a host"):
        parse_rule("WebFetch(https://example.com)", "allow", "cli", project_root=tmp_path, home=tmp_path)


async def test_redirects_go_only_where_the_rules_let_the_fetch_go(tmp_path: Path, web: WebServer) -> None:
    loopback = "WebFetch(domain:127.0.0.1)"
    same_host = await fetch(WebFetch(engine(tmp_path, loopback), Answers()), f"{web.url}/moved")
    assert not same_host.is_error and same_host.details["finalUrl"] == f"{web.url}/article.html"

    # To another host nothing names (a private one): refused, saying where it led.
    denied = await fetch(WebFetch(engine(tmp_path, loopback), Answers()), f"{web.url}/elsewhere")
    assert denied.is_error and f"redirects to http://localhost:{web.port}/article.html" in str(denied.content)
    assert "private or loopback address" in str(denied.content)

    # To a host the person is asked about: the model is told to fetch it itself (and so be asked).
    asking = engine(tmp_path, loopback, ask=("WebFetch(domain:localhost)",))
    told = await fetch(WebFetch(asking, Answers()), f"{web.url}/elsewhere", "Find the flag")
    assert not told.is_error and str(told.content).startswith("REDIRECT DETECTED")
    assert f'url: "http://localhost:{web.port}/article.html"' in str(told.content) and 'prompt: "Find the flag"' in str(
        told.content
    )

    # Allowed there too: followed.
    both = engine(tmp_path, loopback, "WebFetch(domain:localhost)")
    followed = await fetch(WebFetch(both, Answers()), f"{web.url}/elsewhere")
    assert not followed.is_error and followed.content == "The flag is frobnicate."

    looping = await fetch(WebFetch(engine(tmp_path, loopback), Answers()), f"{web.url}/loop")
    assert looping.is_error and "redirected more than 10 times" in str(looping.content)


async def test_each_way_a_fetch_fails_is_one_sentence(
    tmp_path: Path, web: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = WebFetch(engine(tmp_path, "WebFetch(domain:127.0.0.1)"), Answers())
    cases = {
        "/missing": "Request failed with status code 404",
        "/big-declared": "is larger than 10 MB, the most WebFetch reads",
        "/big-streamed": "is larger than 10 MB, the most WebFetch reads",
        "/blob": "is application/octet-stream content, which WebFetch cannot read as text",
    }
    for path, said in cases.items():
        result = await fetch(tool, web.url + path)
        assert result.is_error and said in str(result.content), (path, result.content)

    import socket

    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    unreachable = await fetch(tool, f"http://127.0.0.1:{port}/")
    assert unreachable.is_error and str(unreachable.content).startswith("Could not connect to 127.0.0.1")

    with_password = await fetch(tool, f"http://user:secret@127.0.0.1:{web.port}/notes.txt")
    assert with_password.is_error and "sends no credentials" in str(with_password.content)
    assert "/notes.txt" not in web.paths

    monkeypatch.setattr("agentui.core.web_page.FETCH_SECONDS", 0.5)
    silent = await fetch(tool, f"{web.url}/never")
    assert silent.is_error and "did not answer" in str(silent.content)

    with pytest.raises(ValueError, match="http or https URL"):
        WebFetchArgs(url="file:///etc/passwd", prompt="read it")


async def test_a_name_resolving_to_a_private_address_is_refused_before_connecting(web: WebServer) -> None:
    from agentui.core.safety.permissions.gate import Verdict
    from agentui.core.web_page import FetchError, fetch_page

    # The check passes (as for a public name) but no rule names the host: what it resolves to decides.
    with pytest.raises(FetchError, match="private or loopback address"):
        await fetch_page(f"{web.url}/notes.txt", check=lambda url: Verdict("allow", "ok"), names_host=lambda h: False)
    assert web.paths == []


async def test_text_is_kept_as_it_is_and_a_failed_answer_still_gives_the_page(tmp_path: Path, web: WebServer) -> None:
    answers = Answers(fail=True)
    result = await fetch(WebFetch(engine(tmp_path, "WebFetch(domain:127.0.0.1)"), answers), f"{web.url}/notes.txt")
    assert not result.is_error
    assert "could not be summarised (The model server is overloaded.)" in str(result.content)
    assert str(result.content).endswith("plain notes\nline two\n")
    empty = await fetch(WebFetch(engine(tmp_path, "WebFetch(domain:127.0.0.1)"), Answers()), f"{web.url}/empty.html")
    assert empty.content == "The page has no text."


def test_the_arguments_are_claude_codes(tmp_path: Path) -> None:
    from tests.core.tools.test_tool_shapes import recorded

    ours = WebFetch(engine(tmp_path), None).spec.input_schema
    theirs = recorded()["WebFetch"]
    assert set(ours["properties"]) == set(theirs["properties"]) and set(ours["required"]) == set(theirs["required"])  # type: ignore[call-overload]

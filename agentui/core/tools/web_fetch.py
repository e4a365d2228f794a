"""WebFetch: a web page, read for the model. The page is fetched within limits (core/web_page.py), made Markdown,
clipped to a budget, and the call's `prompt` is answered over it by a separate, small model call, so a long page
costs the conversation only the answer. Results and `toolUseResult` as Claude Code's."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field, field_validator
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView
from agentui.core.safety.permissions.web import url_host
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult

if TYPE_CHECKING:
    from agentui.core.safety.permissions.gate import Verdict

CONTENT_BUDGET = 100_000
"""Characters of a page the answering call reads."""
FALLBACK_CHARS = 20_000
"""Characters of a page the model gets itself when the answering call fails."""
CACHE_SECONDS = 15 * 60
ANSWER_SYSTEM = (
    "You read a web page for a coding assistant and answer its question about the page. Answer from the page's "
    "content only, concisely; quote exactly only where the wording matters, and keep quotes short."
)

Answerer = Callable[[str], Awaitable[str]]
"""Answers a request (the page and the question) with one model call; raises ProviderError."""


class WebGate(Protocol):
    """What WebFetch asks the permission engine while it follows redirects."""

    def web_fetch(self, url: str) -> Verdict: ...

    def names_host(self, tool: str, host: str) -> bool: ...


class WebFetchArgs(ToolArgs):
    url: str = Field(description="The http or https URL of the page")
    prompt: str = Field(min_length=1, description="What to find out from the page")

    @field_validator("url")
    @classmethod
    def _http(cls, url: str) -> str:
        if url_host(url) is None:
            raise ValueError("must be an http or https URL with a host, such as https://example.com/page")
        return url.strip()


class WebFetchDetails(TypedDict, total=False):
    """The page's size and status and the answer; or, for a redirect to another host, where it leads."""

    bytes: int
    code: int
    codeText: str
    url: str
    finalUrl: str
    result: str
    durationMs: int
    redirect: str


class WebFetch(Tool[Any]):
    name = "WebFetch"
    description = (
        "Fetch a web page (HTML is turned into Markdown) and have a small model answer `prompt` about it; you get "
        "the answer, not the page. Use it for documentation, issues, changelogs and the like. The URL must be "
        "complete; the user's permission rules decide which hosts may be fetched. When a page redirects to another "
        "host you are told so: fetch the new URL with another WebFetch call. Results are cached for 15 minutes. "
        "Prefer a more specific tool (an MCP server's) where one is available."
    )
    Args = WebFetchArgs
    Details = WebFetchDetails
    kind = "read"
    shown = "fetch"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return str(arguments.get("url") or "")

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        if details.get("redirect"):
            return ResultView(f"redirects to {details['redirect']}")
        size = details.get("bytes")
        if size is None:
            return ResultView("done")
        return ResultView(f"{details.get('code', '')} · {size / 1024:,.1f} KB read".strip(" ·"))

    def __init__(self, gate: WebGate, answer: Answerer | None) -> None:
        self.gate = gate
        self.answer = answer
        """None: the page itself is the result (no model to ask, as in a bare tool registry)."""
        self._cache: dict[str, tuple[float, str, WebFetchDetails]] = {}

    async def run(self, args: WebFetchArgs, ctx: ToolContext) -> ToolResult:
        from agentui.core.web_page import FetchError

        started = time.monotonic()
        try:
            text, details = self._cached(args.url) or await self._fetch(args.url)
        except FetchError as exc:
            return ToolResult.error(str(exc))
        except _Redirect as redirect:
            moved = redirect.moved
            return ToolResult(
                "REDIRECT DETECTED: The URL redirects to a different host.\n\n"
                f"Original URL: {moved.url}\nRedirect URL: {moved.target}\nStatus: {moved.status}\n\n"
                "To complete your request, fetch the content from the redirected URL with WebFetch again, with:\n"
                f'- url: "{moved.target}"\n- prompt: "{args.prompt}"',
                details=WebFetchDetails(code=moved.status, url=moved.url, redirect=moved.target),
            )
        result = await self._answer(text, args.prompt)
        duration = round((time.monotonic() - started) * 1000)
        return ToolResult(result, details=WebFetchDetails(**details, result=result, durationMs=duration))

    def _cached(self, url: str) -> tuple[str, WebFetchDetails] | None:
        found = self._cache.get(url)
        if found is None or time.monotonic() - found[0] > CACHE_SECONDS:
            self._cache.pop(url, None)
            return None
        return found[1], found[2]

    async def _fetch(self, url: str) -> tuple[str, WebFetchDetails]:
        from agentui.core.web_page import Redirected, fetch_page, page_text

        page = await fetch_page(
            url, check=self.gate.web_fetch, names_host=lambda host: self.gate.names_host(self.name, host)
        )
        if isinstance(page, Redirected):
            raise _Redirect(page)
        text = page_text(page)
        details = WebFetchDetails(bytes=len(page.body), code=page.status, codeText=page.reason, url=url)
        if page.url != url:
            details["finalUrl"] = page.url
        self._cache[url] = (time.monotonic(), text, details)
        return text, details

    async def _answer(self, text: str, prompt: str) -> str:
        from agentui.core.providers.base import ProviderError

        if not text.strip():
            return "The page has no text."
        clipped = text[:CONTENT_BUDGET]
        note = (
            f"\n\n[The page was longer: its first {CONTENT_BUDGET:,} characters were read.]" if clipped != text else ""
        )
        if self.answer is None:
            return clipped[:FALLBACK_CHARS] + note
        request = (
            f"Web page content:\n---\n{clipped}\n---{note}\n\n{prompt}\n\n"
            "Provide a concise response based only on the content above."
        )
        try:
            return await self.answer(request) or "(the model gave no answer about the page)"
        except ProviderError as exc:
            start = text[:FALLBACK_CHARS]
            return (
                f"The page could not be summarised ({exc.message}); here is its start, "
                f"{len(start):,} of {len(text):,} characters:\n\n{start}"
            )


class _Redirect(Exception):
    def __init__(self, moved: Any) -> None:
        super().__init__(moved.target)
        self.moved = moved

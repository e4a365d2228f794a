"""One page from the web, within limits, for WebFetch: no credentials and no proxy settings from the environment,
at most 10 MB in 60 seconds, no private or loopback address unless a rule names the host (checked on the resolved
addresses and again on the address connected to), and redirects followed only where the permission rules let the
fetch go without asking. The page comes back as Markdown (HTML) or as the text it is."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from agentui.core.errors import AgentuiError
from agentui.core.safety.permissions.web import is_private_address, url_host

if TYPE_CHECKING:
    import httpx

    from agentui.core.safety.permissions.gate import Verdict

MAX_BYTES = 10 * 1024 * 1024
FETCH_SECONDS = 60.0
CONNECT_SECONDS = 15.0
MAX_REDIRECTS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/x-yaml")


class FetchError(AgentuiError):
    """Why a page could not be had, in one sentence for the model."""


@dataclass(frozen=True)
class Page:
    url: str
    """Where the page was found, after the redirects followed."""
    status: int
    reason: str
    content_type: str
    body: bytes
    encoding: str


@dataclass(frozen=True)
class Redirected:
    """A redirect to a host the rules do not let WebFetch reach without asking: the model fetches it anew."""

    url: str
    target: str
    status: int


async def fetch_page(
    url: str, *, check: Callable[[str], Verdict], names_host: Callable[[str], bool]
) -> Page | Redirected:
    """GET `url`. `check` is the permission check of a URL (for redirect targets), `names_host` says whether a rule
    names a host (which lets a private address through). Raises FetchError."""
    from agentui.core.providers._httpx import httpx

    if urlsplit(url).username is not None:
        raise FetchError("WebFetch sends no credentials: give the URL without the user name and password in it.")
    timeout = httpx.Timeout(FETCH_SECONDS, connect=CONNECT_SECONDS)
    headers = {"User-Agent": "agentui-webfetch", "Accept": "text/markdown, text/html;q=0.9, */*;q=0.8"}
    try:
        async with (
            asyncio.timeout(FETCH_SECONDS),
            httpx.AsyncClient(trust_env=False, follow_redirects=False, timeout=timeout, headers=headers) as client,
        ):
            for _ in range(MAX_REDIRECTS + 1):
                outcome = await _get(client, url, check, names_host)
                if isinstance(outcome, str):
                    url = outcome
                    continue
                return outcome
    except TimeoutError:
        raise FetchError(f"{url} did not answer within {FETCH_SECONDS:.0f} seconds.") from None
    except httpx.TimeoutException:
        raise FetchError(f"{url} did not answer in time.") from None
    except httpx.ConnectError as exc:
        raise FetchError(f"Could not connect to {url_host(url)}: {_reason(exc)}.") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"Fetching {url} failed: {_reason(exc)}.") from None
    raise FetchError(f"{url} redirected more than {MAX_REDIRECTS} times.")


async def _get(
    client: httpx.AsyncClient, url: str, check: Callable[[str], Verdict], names_host: Callable[[str], bool]
) -> Page | Redirected | str:
    """One request: the page, a redirect to ask about, or the next URL to follow."""
    host = url_host(url)
    if host is None:
        raise FetchError(f"{url} is not an http or https URL.")
    allowed_private = names_host(host)
    if not allowed_private:
        await _refuse_private(host, url)
    async with client.stream("GET", url) as response:
        stream = response.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        if peer and is_private_address(str(peer[0])) and not allowed_private:  # (its name resolved anew)
            raise FetchError(_private(host, str(peer[0])))
        if response.status_code in _REDIRECTS and response.headers.get("location"):
            target = urljoin(url, response.headers["location"])
            verdict = check(target)
            if verdict.behavior == "deny":
                raise FetchError(f"{url} redirects to {target}, which WebFetch may not fetch: {verdict.reason}.")
            if url_host(target) == host or verdict.behavior == "allow":
                return target
            return Redirected(url, target, response.status_code)
        if response.status_code >= 400:
            raise FetchError(f"Request failed with status code {response.status_code}")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BYTES:
            raise FetchError(_too_large(url))
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > MAX_BYTES:
                raise FetchError(_too_large(url))
            chunks.append(chunk)
        return Page(
            url=url,
            status=response.status_code,
            reason=response.reason_phrase,
            content_type=response.headers.get("content-type", "").split(";")[0].strip().lower(),
            body=b"".join(chunks),
            encoding=response.charset_encoding or "utf-8",
        )


async def _refuse_private(host: str, url: str) -> None:
    port = urlsplit(url).port or (443 if url.lower().startswith("https") else 80)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise FetchError(f"Could not reach {host}: the name does not resolve.") from None
    for *_, address in found:
        if is_private_address(str(address[0])):
            raise FetchError(_private(host, str(address[0])))


def _private(host: str, address: str) -> str:
    shown = host if host == address else f"{host} ({address})"
    return (
        f"{shown} is a private or loopback address, which WebFetch reaches only when a permission rule names it: "
        f"WebFetch(domain:{host})."
    )


def _too_large(url: str) -> str:
    return f"The page at {url} is larger than {MAX_BYTES // (1024 * 1024)} MB, the most WebFetch reads."


def _reason(exc: Exception) -> str:
    return str(exc).strip().rstrip(".") or type(exc).__name__


def page_text(page: Page) -> str:
    """The page as text for the model: HTML as Markdown, a PDF's first pages as their text, text as it is. Raises
    FetchError for anything else."""
    kind = page.content_type
    if kind == "application/pdf" or page.body.startswith(b"%PDF-"):
        from agentui.core.pdf import PdfError, read_pdf

        try:
            return read_pdf(page.body, page.url, None).text
        except PdfError as exc:
            raise FetchError(str(exc)) from None
    text = page.body.decode(page.encoding, errors="replace") if _known(page.encoding) else _utf8(page.body)
    if kind in ("text/html", "application/xhtml+xml") or (not kind and "<html" in text[:2000].lower()):
        return html_to_markdown(text)
    if kind.startswith(_TEXT_TYPES) or kind.endswith(("+json", "+xml")) or not kind:
        if "\0" in text[:8192]:
            raise FetchError(f"{page.url} is binary data, not text.")
        return text
    raise FetchError(f"{page.url} is {kind} content, which WebFetch cannot read as text.")


def html_to_markdown(html: str) -> str:
    """HTML as Markdown (markdownify), without scripts, styles and other parts no reader sees."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup(["script", "style", "noscript", "template", "svg", "iframe", "head"]):
        hidden.decompose()
    markdown = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    lines = [line.rstrip() for line in markdown.splitlines()]
    squeezed: list[str] = []
    for line in lines:  # (markdownify leaves runs of blank lines where the markup was)
        if line or (squeezed and squeezed[-1]):
            squeezed.append(line)
    return "\n".join(squeezed).strip()


def _known(encoding: str) -> bool:
    import codecs

    try:
        codecs.lookup(encoding)
    except LookupError:
        return False
    return True


def _utf8(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")

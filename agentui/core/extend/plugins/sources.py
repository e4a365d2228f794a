"""Where a marketplace or a plugin comes from, written as Claude Code writes it (`{"source": "directory", "path"}`,
`{"source": "github", "repo"}`, `{"source": "git", "url"}`, `{"source": "url", "url"}`), and fetching a git one: a
clone made with git confined (no hook, filter or other program any configuration names is run), over file, https
or ssh only."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from agentui.core.extend.plugins.files import PluginError

CLONE_TIMEOUT = 300.0
DOWNLOAD_LIMIT = 5 * 1024 * 1024
"""The most a hosted marketplace.json may be."""
_SCP_LIKE = re.compile(r"^([a-zA-Z0-9._-]+@[^:]+:.+?(?:\.git)?)(#(.+))?$")
_GITHUB = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+$")


def parse_source(text: str, cwd: Path) -> dict[str, Any]:
    """A marketplace source as typed after `marketplace add`, read as Claude Code reads it (owner/repo, a git or
    https URL, a path), and a `file://` URL as a git repository on this machine."""
    text = text.strip()
    if match := _SCP_LIKE.match(text):
        return _with_ref({"source": "git", "url": match.group(1)}, match.group(3))
    if text.startswith(("http://", "https://", "file://")):
        return _url_source(text)
    if text.startswith(("./", "../", "/", "~")):
        return _path_source(text, cwd)
    if "/" in text and ":" not in text and not text.startswith("@"):
        match = re.match(r"^([^#@]+)(?:[#@](.+))?$", text)
        repo, ref = (match.group(1), match.group(2)) if match else (text, "")
        if not _GITHUB.match(repo):
            raise PluginError(f"'{text}' is not a valid GitHub owner/repo shorthand; use a git URL or a path.")
        return _with_ref({"source": "github", "repo": repo}, ref)
    raise PluginError("Invalid marketplace source format. Try: owner/repo, https://..., or ./path")


def _url_source(text: str) -> dict[str, Any]:
    """A git repository or a hosted marketplace.json at a URL."""
    try:
        host = urlsplit(text).hostname
    except ValueError as exc:  # (a bracketed host not closed)
        raise PluginError(f"{text} is not a URL ({exc}).") from None
    if host is None and not text.startswith("file://"):
        raise PluginError(f"{text} is not a URL (it names no host).")
    url, _, ref = text.partition("#")
    if text.startswith("file://") or url.endswith(".git") or "/_git/" in url:
        return _with_ref({"source": "git", "url": url}, ref)
    if urlsplit(url).hostname == "github.com" and re.match(r"^/[^/]+/[^/]+?(/|\.git|$)", urlsplit(url).path):
        return _with_ref({"source": "git", "url": url if url.endswith(".git") else f"{url}.git"}, ref)
    return {"source": "url", "url": url}


def _path_source(text: str, cwd: Path) -> dict[str, Any]:
    """A directory or a marketplace.json on this machine."""
    try:
        path = (cwd / Path(text).expanduser()).resolve()
        if path.is_dir():
            return {"source": "directory", "path": str(path)}
        if path.is_file() and path.suffix == ".json":
            return {"source": "file", "path": str(path)}
        if not path.exists():
            raise PluginError(f"Path does not exist: {path}")
        raise PluginError(f"{path} is neither a directory nor a marketplace.json file.")
    except (OSError, ValueError) as exc:  # (a NUL, a name too long, a home that cannot be found)
        raise PluginError(f"{text!r} cannot be read as a path ({exc}).") from None


def _with_ref(source: dict[str, Any], ref: str | None) -> dict[str, Any]:
    return {**source, "ref": ref} if ref else source


def git_url(source: dict[str, Any]) -> str | None:
    """The repository to clone for a git or github source, None for any other."""
    if source.get("source") == "github" and isinstance(source.get("repo"), str):
        return f"https://github.com/{source['repo']}.git"
    if source.get("source") == "git" and isinstance(source.get("url"), str):
        return str(source["url"])
    return None


def clone(url: str, ref: str | None, dest: Path) -> None:
    """`url` cloned (shallow where git can) to `dest`, replacing what was there; PluginError in one sentence."""
    from agentui.core.safety.confined_git import TRANSPORTS, GitError, complaint, run

    if "\0" in url or "\0" in (ref or ""):
        raise PluginError(f"{url!r} cannot name a git repository (it holds a NUL).")
    parts = urlsplit(url)
    # (a path, not file://: git copies the objects instead of having upload-pack make a pack, which would run a
    # packObjectsHook from the person's own config, one setting agentui cannot override there)
    local = parts.scheme == "file" and parts.netloc in ("", "localhost")
    origin = unquote(parts.path) if local else url
    staging = dest.with_name(f".{dest.name}.cloning-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    branch = ["--branch", ref] if ref else []
    depth = [] if local else ["--depth", "1"]
    steps: list[tuple[list[str], Path, frozenset[str]]] = [
        (["clone", "--quiet", "--no-checkout", "--template=", *depth, *branch, "--", origin, str(staging)],
         dest.parent, TRANSPORTS - {"git"}),
        (["reset", "--hard", "--quiet"], staging, frozenset()),
    ]  # fmt: skip
    try:
        for args, where, transports in steps:
            done = run(args, cwd=where, timeout=CLONE_TIMEOUT, protocols=transports)
            if done.returncode != 0:
                raise PluginError(f"git clone {url} failed: {complaint(done)}")
    except GitError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise PluginError(f"git clone {url} failed: {exc}") from None
    except PluginError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)


def download(url: str, headers: dict[str, str], dest: Path) -> None:
    """A hosted marketplace.json fetched (http or https only) to `dest`; PluginError in one sentence."""
    import httpx

    if urlsplit(url).scheme not in ("http", "https"):
        raise PluginError(f"{url} is not an http or https URL.")
    try:
        with httpx.stream("GET", url, headers=headers, follow_redirects=True, timeout=60.0) as response:
            if response.status_code != 200:
                raise PluginError(f"{url} answered {response.status_code}, so the marketplace was not added.")
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > DOWNLOAD_LIMIT:
                    raise PluginError(f"{url} is larger than a marketplace.json may be (5 MB).")
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:  # (ValueError: a host IDNA refuses)
        raise PluginError(f"{url} could not be fetched ({exc}).") from None
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(body)

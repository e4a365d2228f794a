"""Google Cloud access tokens for the providers that call Google's APIs (Vertex AI): Application Default Credentials
found and refreshed by google-auth, off the event loop, cached until shortly before they expire, and every failure
as one sentence that says where agentui looked (never the token)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.providers.base import AuthenticationError, ConnectError
from agentui.core.providers.blocking import CREDENTIALS_TIMEOUT, off_loop

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
"""The scope Vertex AI (and Gemini on Vertex) needs."""

ADC_FILE = "application_default_credentials.json"


class GoogleCredentialsError(AuthenticationError):
    """No Google credentials were found, or Google would not issue a token for them."""

    kind = "credentials"


class GoogleToken:
    """An access token from Application Default Credentials, in google-auth's order: the key file that
    GOOGLE_APPLICATION_CREDENTIALS names, gcloud's application-default credentials file, then the metadata server
    (GCE_METADATA_HOST for another one). `env` is the environment to read GOOGLE_APPLICATION_CREDENTIALS and
    CLOUDSDK_CONFIG from (None: the process's); the metadata server is google-auth's reading of the process's own.

        token = GoogleToken()
        headers = {"authorization": f"Bearer {await token.bearer()}"}
        project = await token.project()  # the project the credentials name, if any
    """

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        scopes: tuple[str, ...] = (CLOUD_PLATFORM,),
        timeout: float = CREDENTIALS_TIMEOUT,
    ) -> None:
        self._env = os.environ if env is None else env
        self._timeout = timeout
        self._scopes = scopes
        self._credentials: Credentials | None = None
        self._project: str | None = None
        self._source = ""
        self._lock = asyncio.Lock()
        self._transport: Any = None
        """google-auth's requests transport, made on the first refresh and kept (its connections are reused)."""

    def __repr__(self) -> str:  # (never the token)
        return f"GoogleToken(source={self._source or 'not loaded'!r})"

    async def bearer(self) -> str:
        """A valid access token: the cached one while it has more than google-auth's margin (a few minutes) left,
        else a fresh one. GoogleCredentialsError (or ConnectError) in one sentence when there is none."""
        async with self._lock:
            credentials = await self._loaded()
            if not credentials.valid:
                await off_loop(
                    lambda: self._refresh(credentials),
                    seconds=self._timeout,
                    said=f"Google gave no access token for {self._source} within {self._timeout:g} s (its token "
                    "endpoint, gcloud or the metadata server does not answer); check your network and the "
                    "credentials, and try again.",
                )
            token = credentials.token
            if not token:
                raise GoogleCredentialsError(f"Google issued no access token for {self._source}.")
            return str(token)

    async def project(self) -> str | None:
        """The project id google-auth found with the credentials (a service account's key file names one,
        GOOGLE_CLOUD_PROJECT, gcloud's configuration, the metadata server), or None."""
        async with self._lock:
            await self._loaded()
            return self._project

    def invalidate(self) -> None:
        """Forget the token (a server answered 401): the next `bearer()` asks Google for a new one."""
        if self._credentials is not None:
            self._credentials.token = None

    def close(self) -> None:
        """Close the connections kept to Google's token endpoint (the token stays usable)."""
        if self._transport is not None:
            self._transport.session.close()
            self._transport = None

    @property
    def source(self) -> str:
        """Where the credentials came from, for messages ("" before they are loaded)."""
        return self._source

    async def _loaded(self) -> Credentials:
        if self._credentials is None:
            self._credentials, self._project, self._source = await off_loop(
                self._load,
                seconds=self._timeout,
                said=f"Google's credentials could not be loaded within {self._timeout:g} s (gcloud or the metadata "
                "server does not answer); check GOOGLE_APPLICATION_CREDENTIALS or run `gcloud auth "
                "application-default login`, and try again.",
            )
        return self._credentials  # type: ignore[return-value]  # (set just above)

    def _load(self) -> tuple[Credentials, str | None, str]:
        """The credentials, their project and a description of their source (blocking: run in a thread)."""
        import google.auth
        from google.auth import exceptions

        logging.getLogger("google.auth").addHandler(logging.NullHandler())  # its warnings are ours to say
        scopes = list(self._scopes)
        explicit = self._env.get("GOOGLE_APPLICATION_CREDENTIALS", "").strip()
        try:
            if explicit:
                source = f"the key file GOOGLE_APPLICATION_CREDENTIALS names ({explicit})"
                if not Path(explicit).is_file():
                    raise GoogleCredentialsError(
                        f"GOOGLE_APPLICATION_CREDENTIALS names {explicit}, which is not a file; point it at a "
                        "service account key or an application-default credentials file."
                    )
                if kind := _json_kind(explicit):
                    raise GoogleCredentialsError(
                        f"GOOGLE_APPLICATION_CREDENTIALS names {explicit}, which holds {kind} of JSON, not a service "
                        "account key or application-default credentials (a JSON object); point it at such a file."
                    )
                if self._env is os.environ:  # (google-auth's own chain reads the same variable)
                    credentials, project = google.auth.default(scopes=scopes)
                else:  # (another environment's file, loaded as google-auth's chain loads it)
                    credentials, project = google.auth.load_credentials_from_file(  # type: ignore[no-untyped-call]
                        explicit, scopes=scopes
                    )
            else:
                credentials, project = google.auth.default(scopes=scopes)
                source = _describe(credentials, self._gcloud_file())
        except (AttributeError, KeyError, TypeError, ValueError) as exc:  # (google-auth's reading of a malformed file)
            named = (
                f"GOOGLE_APPLICATION_CREDENTIALS names {explicit}, which"
                if explicit
                else f"gcloud's application-default credentials file ({self._gcloud_file()})"
            )
            raise GoogleCredentialsError(
                f"{named} is not a service account key or application-default credentials file google-auth can read "
                f"({_malformed(exc)}); make a new one (gcloud auth application-default login, or a new key)."
            ) from exc
        except exceptions.DefaultCredentialsError as exc:
            if explicit:
                raise GoogleCredentialsError(
                    f"GOOGLE_APPLICATION_CREDENTIALS names {explicit}, which google-auth could not read as "
                    f"credentials: {_first_line(exc)}"
                ) from exc
            raise GoogleCredentialsError(self._nothing_found()) from exc
        project = project or self._env.get("GOOGLE_CLOUD_PROJECT") or None
        return credentials, project, source

    def _refresh(self, credentials: Credentials) -> None:
        """Ask Google (its token endpoint, or the metadata server) for a token (blocking: run in a thread)."""
        import google.auth.transport.requests
        from google.auth import exceptions

        if self._transport is None:
            self._transport = google.auth.transport.requests.Request()
        try:
            credentials.refresh(self._transport)  # type: ignore[no-untyped-call]
        except exceptions.TransportError as exc:
            raise ConnectError(
                f"Could not reach Google to refresh the access token for {self._source}: {_transport_reason(exc)}."
            ) from exc
        except exceptions.RefreshError as exc:
            raise GoogleCredentialsError(
                f"Google would not issue an access token for {self._source}: {_refresh_reason(exc)} "
                "(run `gcloud auth application-default login`, or check the key)."
            ) from exc

    def _gcloud_file(self) -> Path:
        """gcloud's application-default credentials file, where `gcloud auth application-default login` puts it."""
        if configured := self._env.get("CLOUDSDK_CONFIG", "").strip():
            return Path(configured) / ADC_FILE
        if os.name == "nt" and (appdata := self._env.get("APPDATA")):
            return Path(appdata) / "gcloud" / ADC_FILE
        home = self._env.get("HOME") or str(Path.home())
        return Path(home) / ".config" / "gcloud" / ADC_FILE

    def _nothing_found(self) -> str:
        return (
            "No Google Cloud credentials were found: GOOGLE_APPLICATION_CREDENTIALS is not set, there is no "
            f"{self._gcloud_file()} (made by `gcloud auth application-default login`), and no metadata server "
            "answered; log in with gcloud or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file."
        )


def _describe(credentials: Any, gcloud_file: Path) -> str:
    """Which of google-auth's sources the credentials came from, in words."""
    module = type(credentials).__module__
    if module.startswith("google.auth.compute_engine"):
        return "the metadata server's service account"
    if gcloud_file.is_file():
        return f"gcloud's application-default credentials ({gcloud_file})"
    return "Google's application-default credentials"


def _malformed(exc: Exception) -> str:
    """What was wrong with a credentials file, without its contents (a private key may be in them)."""
    if isinstance(exc, KeyError):
        return f"it has no {exc.args[0]!r}" if exc.args else "a field is missing"
    if isinstance(exc, AttributeError | TypeError):
        return "a field is missing or not of its type"
    return f"{type(exc).__name__} while reading it"


def _json_kind(path: str) -> str | None:
    """What the JSON in `path` is when it is not an object ("an array", "a string"...); None for an object or text
    that is not JSON (google-auth says so itself)."""
    import json

    try:
        data = json.loads(Path(path).read_bytes())
    except (OSError, ValueError):
        return None
    kinds = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return None if isinstance(data, dict) else kinds.get(type(data), "null")


def _first_line(exc: BaseException) -> str:
    """An exception's message as the end of a sentence: its first line, with a full stop."""
    said = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    lines = said.strip().splitlines() or [type(exc).__name__]
    return lines[0].rstrip(".") + "."


def _transport_reason(exc: BaseException) -> str:
    """Why Google could not be reached, in words: the operating system's reason (requests buries it deep)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.strerror:
            return seen.strerror[:1].lower() + seen.strerror[1:]
        if isinstance(seen, OSError) and seen.args and isinstance(seen.args[0], str) and "Errno" in seen.args[0]:
            return seen.args[0].split("] ", 1)[-1].rstrip(".").lower()
        seen = seen.__cause__ or seen.__context__
    return _first_line(exc).rstrip(".")


def _refresh_reason(exc: BaseException) -> str:
    """What a token endpoint said, from google-auth's RefreshError (its args hold the OAuth error and its
    description, never a token: none was issued)."""
    args = exc.args
    if len(args) > 1 and isinstance(args[1], Mapping):
        error = str(args[1].get("error") or "").strip()
        description = str(args[1].get("error_description") or "").strip()
        if error or description:
            return ": ".join(part for part in (error, description.rstrip(".")) if part)
    return _first_line(exc).rstrip(".")

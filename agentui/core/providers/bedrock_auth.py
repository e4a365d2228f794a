"""How agentui proves who it is to Amazon Bedrock, as Claude Code does: a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)
as a bearer token, no authentication at all for a gateway (CLAUDE_CODE_SKIP_BEDROCK_AUTH), or else requests signed
with SigV4 by botocore from AWS's usual credential chain (AWS_PROFILE, the environment's keys, the shared
credentials and config files, SSO, credential_process, container and instance metadata). Also the region a profile
names. botocore is imported only here, and only when Bedrock is used; its blocking calls run on a worker thread."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from agentui.core.providers.base import AuthenticationError
from agentui.core.providers.blocking import CREDENTIALS_TIMEOUT, CredentialsTimeoutError, off_loop
from agentui.core.providers.helper_processes import HelperProcesses
from agentui.core.session.redact import redact_text

if TYPE_CHECKING:
    from botocore.credentials import Credentials
    from botocore.session import Session

SERVICE = "bedrock"
"""The service name Bedrock's runtime signs with (its endpoint is bedrock-runtime, its signing name bedrock)."""

_METHODS = {
    # botocore's name for where credentials came from -> how agentui says it
    "env": "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    "shared-credentials-file": "the shared credentials file",
    "config-file": "the AWS config file",
    "sso": "AWS SSO",
    "custom-process": "the profile's credential_process",
    "assume-role": "an assumed role",
    "assume-role-with-web-identity": "a web identity role",
    "container-role": "the container's credentials endpoint",
    "iam-role": "the instance's metadata service",
}


class Authenticator(Protocol):
    """Adds what proves the caller to one request's headers."""

    async def sign(self, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]: ...

    def where(self) -> str:
        """Where the credentials came from, for an error's sentence (never the credentials themselves)."""
        ...

    async def check(self) -> str:
        """Find the credentials as a request would (raising its AuthenticationError) and say where they came from."""
        ...


class BearerToken:
    """A Bedrock API key, sent as `Authorization: Bearer` instead of a signature."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __repr__(self) -> str:
        return "BearerToken(***)"

    async def sign(self, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
        return {**headers, "authorization": f"Bearer {self._token}"}

    def where(self) -> str:
        return "the Bedrock API key in AWS_BEARER_TOKEN_BEDROCK"

    async def check(self) -> str:
        return self.where()


class NoAuth:
    """CLAUDE_CODE_SKIP_BEDROCK_AUTH: a gateway in front of Bedrock adds the credentials itself."""

    async def sign(self, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
        return headers

    def where(self) -> str:
        return "a gateway (CLAUDE_CODE_SKIP_BEDROCK_AUTH: agentui sends none)"

    async def check(self) -> str:
        return self.where()


class SigV4:
    """Requests signed with Signature Version 4 from AWS's credential chain, found once (on a worker thread) and
    refreshed by botocore when they expire (SSO, assumed roles, instance metadata)."""

    def __init__(
        self, region: str, env: Mapping[str, str] | None = None, *, timeout: float = CREDENTIALS_TIMEOUT
    ) -> None:
        self.region = region
        self._env = os.environ if env is None else env
        self._timeout = timeout
        self._credentials: Credentials | None = None
        self._lock = asyncio.Lock()
        self._helpers = HelperProcesses()

    async def sign(self, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        frozen = await self._off_loop(functools.partial(self._frozen, await self._found()))
        request = AWSRequest(method="POST", url=url, data=body, headers=headers)
        SigV4Auth(frozen, SERVICE, self.region).add_auth(request)
        return {key.lower(): value for key, value in request.headers.items()}

    async def check(self) -> str:
        await self._off_loop(functools.partial(self._frozen, await self._found()))
        return self.where()

    def where(self) -> str:
        method = getattr(self._credentials, "method", None)
        said = _METHODS.get(str(method), "the AWS credential chain")
        profile = self._env.get("AWS_PROFILE")
        return f"{said} (AWS profile {profile!r})" if profile and method != "env" else said

    async def _found(self) -> Credentials:
        async with self._lock:  # (one search of the chain, however many requests start at once)
            if self._credentials is None:
                self._credentials = await self._off_loop(self._chain)
            return self._credentials

    async def _off_loop(self, call: Callable[[], Credentials]) -> Credentials:
        """A blocking step of botocore's (finding or refreshing the credentials), given `timeout` seconds."""
        profile = self._env.get("AWS_PROFILE") or "default"
        try:
            return await off_loop(
                call,
                seconds=self._timeout,
                said=f"AWS's credential chain gave no credentials for Bedrock within {self._timeout:g} s (profile "
                f"{profile!r}: a credential_process, SSO or metadata service that does not answer); check the "
                f"profile in {self._files()} and try again.",
            )
        except CredentialsTimeoutError:
            self._helpers.end()  # (a credential_process given up on is not left running)
            raise

    def _chain(self) -> Credentials:
        from botocore.exceptions import BotoCoreError, ClientError, ProfileNotFound

        profile = self._env.get("AWS_PROFILE")
        try:
            found = aws_session(self._env, self._helpers).get_credentials()
        except ProfileNotFound:
            raise AuthenticationError(
                f"The AWS profile {profile!r} (AWS_PROFILE) is in neither {self._files()}; "
                "fix AWS_PROFILE or add the profile (aws configure --profile NAME)."
            ) from None
        except (BotoCoreError, ClientError) as exc:  # (ClientError: AWS refused a call of the chain, an AssumeRole)
            raise self._failed(exc) from exc
        if found is None:
            raise AuthenticationError(
                "No AWS credentials for Bedrock: agentui looked for AWS_BEARER_TOKEN_BEDROCK, "
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                f"the profile {profile or 'default'!r} in {self._files()} (keys, SSO, credential_process), "
                "and container and instance metadata; set AWS_PROFILE, run `aws configure`, or set a Bedrock API "
                "key in AWS_BEARER_TOKEN_BEDROCK."
            )
        return found

    def _frozen(self, credentials: Credentials) -> Credentials:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            frozen = credentials.get_frozen_credentials()  # (refreshes expiring credentials: a blocking call)
        except (BotoCoreError, ClientError) as exc:
            raise self._failed(exc) from exc
        return frozen  # type: ignore[return-value]

    def _failed(self, exc: Exception) -> AuthenticationError:
        from botocore.exceptions import ClientError, SSOTokenLoadError, UnauthorizedSSOTokenError

        profile = self._env.get("AWS_PROFILE") or "default"
        if isinstance(exc, SSOTokenLoadError | UnauthorizedSSOTokenError):
            return AuthenticationError(
                f"The AWS SSO session of profile {profile!r} has expired or was never started; "
                f"run `aws sso login --profile {profile}`."
            )
        if isinstance(exc, ClientError):  # (AWS's own refusal: its code and message, without the call's details)
            error = exc.response.get("Error", {})
            code, message = error.get("Code") or "an error", redact_text(str(error.get("Message") or "").strip())
            return AuthenticationError(
                f"AWS refused the credentials of profile {profile!r} for Bedrock ({self._files()}): {code}"
                f"{': ' + message.rstrip('.') if message else ''}."
            )
        said = redact_text(str(exc).strip().rstrip("."))
        return AuthenticationError(
            f"agentui could not get AWS credentials for Bedrock from profile {profile!r} ({self._files()}): {said}."
        )

    def _files(self) -> str:
        return " nor ".join(_files(self._env))


def _files(env: Mapping[str, str]) -> tuple[str, str]:
    return (
        env.get("AWS_CONFIG_FILE") or "~/.aws/config",
        env.get("AWS_SHARED_CREDENTIALS_FILE") or "~/.aws/credentials",
    )


def aws_session(env: Mapping[str, str], helpers: HelperProcesses | None = None) -> Session:
    """A botocore session reading `env`: its profile, its credential and config files and its keys (botocore's
    other providers read the process's environment, which `env` is unless a caller gives another). A profile's
    credential_process is started by `helpers`, so it can be ended if it never answers."""
    import botocore.session
    from botocore.credentials import EnvProvider

    session = botocore.session.Session(profile=env.get("AWS_PROFILE") or None)
    if env is not os.environ:
        config, credentials = _files(env)
        session.set_config_variable("config_file", os.path.expanduser(config))
        session.set_config_variable("credentials_file", os.path.expanduser(credentials))
        resolver = session.get_component("credential_provider")
        if any(provider.METHOD == "env" for provider in resolver.providers):  # (not there when a profile is named)
            resolver.insert_after("env", EnvProvider(environ=dict(env)))
            resolver.remove("env")  # (the first of that name: the process environment's)
    if helpers is not None:
        for provider in session.get_component("credential_provider").providers:
            if provider.METHOD == "custom-process":
                provider._popen = helpers.popen  # (botocore's own hook for how it starts the process)
    return session


def profile_region(env: Mapping[str, str]) -> str | None:
    """The region the AWS profile names in the config file (Claude Code's next choice after AWS_REGION and
    AWS_DEFAULT_REGION), or None."""
    return _profile_region(env.get("AWS_PROFILE") or "", *_files(env))


@functools.lru_cache(maxsize=8)
def _profile_region(profile: str, config: str, credentials: str) -> str | None:
    from botocore.exceptions import BotoCoreError

    env = {"AWS_PROFILE": profile, "AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": credentials}
    try:
        region = aws_session(env).get_config_variable("region")
    except BotoCoreError:  # (a profile that is not there: the credentials say so in a sentence later)
        return None
    return str(region) if region else None


def authenticator(region: str, env: Mapping[str, str], token: str | None) -> Authenticator:
    """Claude Code's order: a Bedrock API key, else no authentication if CLAUDE_CODE_SKIP_BEDROCK_AUTH, else SigV4."""
    if token:
        return BearerToken(token)
    if env.get("CLAUDE_CODE_SKIP_BEDROCK_AUTH", "").strip().lower() in ("1", "true", "yes", "on"):
        return NoAuth()
    return SigV4(region, env)

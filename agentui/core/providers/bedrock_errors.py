"""Bedrock's errors as one sentence each: its HTTP error responses (a JSON `message`, the type in `x-amzn-ErrorType`)
and the exception frames that end a failed event stream (`:exception-type`), by the same table."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from agentui.core.model_aliases import geo_prefix
from agentui.core.providers.base import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    OverloadedError,
    ProviderError,
    RateLimitError,
    ServerError,
    error_message_from_body,
    parse_retry_after,
    sentence,
)
from agentui.core.session.redact import redact_text

API = "Amazon Bedrock"

_OVERFLOW = ("prompt is too long", "input is too long", "too many input tokens", "context window")


def error_for_response(
    status: int, body: bytes, headers: Mapping[str, str], model: str, region: str, where: Callable[[], str]
) -> ProviderError:
    """An HTTP error response of InvokeModelWithResponseStream."""
    kind = headers.get("x-amzn-errortype", "").partition(":")[0]
    said = error_message_from_body(body) if body.strip() else ""
    return _classified(kind, status, said, parse_retry_after(headers), model, region, where)


def error_for_exception(name: str, said: str, model: str, region: str, where: Callable[[], str]) -> ProviderError:
    """An exception frame in the stream (`throttlingException`, `modelStreamErrorException`...)."""
    return _classified(name, None, said, None, model, region, where)


def _classified(
    kind: str,
    status: int | None,
    said: str,
    retry_after: float | None,
    model: str,
    region: str,
    where: Callable[[], str],
) -> ProviderError:
    name = kind.lower().removesuffix("exception")
    said = _shown(said)
    lowered = said.lower()
    detail = f": {sentence(said)}" if said else "."
    if name == "throttling" or (not name and status == 429):
        return RateLimitError(f"{API} is throttling requests{detail}", status=429, retry_after=retry_after)
    if name in ("unrecognizedclient", "invalidsignature", "expiredtoken", "missingauthenticationtoken") or (
        not name and status == 401
    ):
        return _credentials(name, said, where)
    if name == "accessdenied" or (not name and status == 403):
        if "access to the model" in lowered:
            return BadRequestError(
                f"Your AWS account does not have access to the model {model} in {region}: request access in the "
                "Bedrock console (Model access), or choose another model with ANTHROPIC_MODEL or --model.",
                status=403,
            )
        return AuthenticationError(
            f"AWS refused {API} to the credentials from {where()}{_aside(said)}; they need permission for "
            "bedrock:InvokeModelWithResponseStream.",
            status=403,
        )
    if any(marker in lowered for marker in _OVERFLOW):
        return ContextOverflowError(f"The conversation is too long for the model's context window{detail}", status=400)
    if name == "resourcenotfound" or (not name and status == 404) or "model identifier is invalid" in lowered:
        return BadRequestError(
            f"{API} in {region} has no model {model}{_aside(said)}; check the model id, inference profile or ARN "
            "(ANTHROPIC_MODEL or --model) and the region (AWS_REGION).",
            status=status or 404,
        )
    if "on-demand throughput" in lowered:
        return BadRequestError(
            f"{API} in {region} does not serve {model} on demand: use an inference profile that has it instead "
            f"(such as {geo_prefix(region)}.{model}).",
            status=status or 400,
        )
    if name == "serviceunavailable" or name == "modelnotready" or status == 503:
        return OverloadedError(f"{API} is unavailable for now{detail}", status=status or 503, retry_after=retry_after)
    if name in ("internalserver", "modelstreamerror", "modeltimeout", "modelerror") or (status or 0) >= 500:
        return ServerError(f"{API} failed ({kind or status}){detail}", status=status, retry_after=retry_after)
    return BadRequestError(f"{API} rejected the request ({kind or status}){detail}", status=status)


def _credentials(name: str, said: str, where: Callable[[], str]) -> AuthenticationError:
    source = where()
    if name == "expiredtoken" or "expired" in said.lower():
        return AuthenticationError(
            f"The AWS credentials from {source} have expired; refresh them (aws sso login, or new keys) and try again.",
            status=403,
        )
    return AuthenticationError(
        f"{API} did not accept the credentials from {source}{_aside(said)}; check AWS_PROFILE, the credentials "
        "file, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK.",
        status=403,
    )


def _shown(said: str) -> str:
    """What AWS said, fit to show and to keep: a signature mismatch's first sentence only (what follows is the
    canonical request, session token and all), and any credential's shape redacted."""
    if "signature we calculated" in said.lower() or "canonical string" in said.lower():
        said = said.split(". ", 1)[0].split("\n", 1)[0]
    return redact_text(said)


def _aside(said: str) -> str:
    """What the service said, in parentheses inside a sentence of agentui's."""
    said = said.strip().rstrip(".")
    return f" ({said})" if said else ""

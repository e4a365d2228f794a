"""Secrets in tool output, recognised by shape and replaced before they reach the session file."""

from __future__ import annotations

import re
from typing import Any

# Each shape with the literal text every match contains: a plain substring test (C speed) decides whether the
# regular expression runs at all, because one alternation of twelve patterns tried at every character cost
# ~70 µs per kilobyte of tool output, on every tool result.
_SHAPES: list[tuple[str, tuple[str, ...], str]] = [
    ("anthropic-key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}",
    ),
    ("gitlab-token", ("glpat-",), r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    ("slack-token", ("xox",), r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("aws-access-key", ("AKIA", "ASIA"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("google-api-key", ("AIza",), r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("stripe-key", ("_live_", "_test_"), r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}"),
    ("huggingface-token", ("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("npm-token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    (  # an AWS session token or signature in a signing error's canonical request or a presigned URL
        "aws-session-token",
        ("x-amz-security-token", "X-Amz-Security-Token", "X-AMZ-SECURITY-TOKEN"),
        r"(?i)x-amz-security-token\s*[:=]\s*[^\s'\"&,;]+",
    ),
    (
        "aws-signature",
        ("AWS4-HMAC-SHA256 Credential=",),
        r"AWS4-HMAC-SHA256 Credential=[^\s,]+(?:,\s*SignedHeaders=[^\s,]+)?(?:,\s*Signature=[0-9A-Fa-f]+)?",
    ),
    ("jwt", ("eyJ",), r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
    (
        "private-key",
        ("PRIVATE KEY-----",),
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ),
]
_COMPILED = [(name, literals, re.compile(pattern), f"[REDACTED {name}]") for name, literals, pattern in _SHAPES]


def redact_text(text: str) -> str:
    """Every secret shape replaced by `[REDACTED <kind>]`; earlier shapes first (an Anthropic key before the
    OpenAI shape that would also match it)."""
    if not text:
        return text
    for _name, literals, pattern, replacement in _COMPILED:
        for literal in literals:
            if literal in text:
                text = pattern.sub(replacement, text)
                break
    return text


def redact(value: Any) -> Any:
    """Redact every string inside `value` (dicts, lists, pydantic-dumped content blocks)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact(item) for item in value]
    return value

"""Choosing a conversation's model from now on (/model, the SDK's set_model, the launch's alias): by id or by Claude
Code's alias, resolved for the provider in use; `opusplan` follows the permission mode, Opus while it is plan and
Sonnet otherwise, as Claude Code's does. And the choices a person is offered, for the picker."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agentui.core.model_aliases import ALIASES, Resolved, described, resolve
from agentui.core.providers import CLAUDE_PLATFORMS

if TYPE_CHECKING:
    from agentui.core.loop.agent import Agent
    from agentui.core.project import Project
    from agentui.core.settings import Settings


class _Launched(Protocol):
    @property
    def settings(self) -> Settings: ...


class Conversation(Protocol):
    """What choosing a model reads and changes of the conversation."""

    agent: Agent
    project: Project
    env: Mapping[str, str] | None

    @property
    def launch(self) -> _Launched: ...


PLAN_WATCH = "opusplan"
"""The engine's mode watcher that switches the model for `opusplan`."""


def choose_model(conversation: Conversation, typed: str) -> Resolved:
    """Use `typed` for the next requests (this conversation only); what it resolved to."""
    settings = conversation.launch.settings
    env = os.environ if conversation.env is None else conversation.env
    resolved = resolve(typed, settings.provider, env, settings.default_model or settings.model)
    agent, engine = conversation.agent, conversation.project.engine

    def use(model: str) -> None:
        agent.config = agent.config.model_copy(update={"model": model})

    engine.on_mode.pop(PLAN_WATCH, None)
    if (plan_model := resolved.plan_model) is None:
        use(resolved.model)
    else:
        engine.on_mode[PLAN_WATCH] = lambda mode: use(plan_model if mode == "plan" else resolved.model)
        use(plan_model if engine.mode == "plan" else resolved.model)
    return resolved


@dataclass(frozen=True)
class ModelOption:
    """One line of the model picker: what choosing it types, and what it means here."""

    name: str
    meaning: str
    pickable: bool = True
    """False for a route to another provider: shown, for where those calls go, but not a model for this one."""


def resolved_model(conversation: Conversation, typed: str) -> str:
    """The model `typed` (an alias, or an id) means in this conversation, without choosing it."""
    settings = conversation.launch.settings
    env = os.environ if conversation.env is None else conversation.env
    return resolve(typed, settings.provider, env, settings.default_model or settings.model).model


def model_options(conversation: Conversation) -> list[ModelOption]:
    """What a person can pick: Claude Code's aliases (on Anthropic's API, or `default` elsewhere), the configured
    model, and the models the routes name on the conversation's own provider."""
    settings = conversation.launch.settings
    env = os.environ if conversation.env is None else conversation.env
    default = settings.default_model or settings.model
    names = ALIASES if settings.provider in CLAUDE_PLATFORMS else ("default",)
    options = [ModelOption(alias, described(alias, settings.provider, env, default)) for alias in names]
    seen = {option.name for option in options}
    for name, meaning in [(default, "the configured model"), (settings.model, "the model this session started with")]:
        if name not in seen:
            options.append(ModelOption(name, meaning))
            seen.add(name)
    for kind, route in settings.routes.items():
        if kind == "main":  # (it is the configured model)
            continue
        if route.provider in (None, settings.provider) and route.base_url in (None, settings.base_url):
            if route.model not in seen:
                options.append(ModelOption(route.model, f"the model {kind} calls are routed to"))
                seen.add(route.model)
        else:
            options.append(ModelOption(route.label(), f"where {kind} calls are routed (another server)", False))
    return options


LIST_TIMEOUT = 5.0
"""Seconds the server is given to list its models."""


async def served_models(conversation: Conversation) -> list[str] | None:
    """The models an OpenAI-compatible server lists (`GET /models`), to tell a person choosing one that it is not
    there; None when the provider is another, or the server does not answer with a list in time."""
    settings = conversation.launch.settings
    if settings.provider not in ("openai", "openai-responses"):
        return None
    from agentui.core.providers._httpx import httpx
    from agentui.core.providers.openai import DEFAULT_BASE_URL

    url = (settings.base_url or DEFAULT_BASE_URL).rstrip("/") + "/models"
    headers = {"authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    try:
        async with httpx.AsyncClient(timeout=LIST_TIMEOUT, follow_redirects=False) as client:
            response = await client.get(url, headers=headers)
        listed = response.json().get("data") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    if not isinstance(listed, list):
        return None
    return [str(entry["id"]) for entry in listed if isinstance(entry, dict) and "id" in entry]

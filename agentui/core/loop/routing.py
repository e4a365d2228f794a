"""Model routing (cinch-rs's): which model, on which provider, each kind of model call goes to — sub-agents (by
type), compaction summaries, titles, WebFetch's answers, the attempts' judge — and each round of the main loop: from
its Nth round of a run on (`round:N`), or a round that answers tool results (`orchestration`, a cheaper model picking
the next tool while the first round, which reads the person's request, stays on the main model); from the config's
`routes`. A route on another provider gets its own client (its key from that provider's environment variable),
made on first use and shared by every call routed there."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from agentui.core.settings import ConfigError, ConfigFile, Overrides, Route, Settings, resolve_settings

if TYPE_CHECKING:
    from agentui.core.messages import Message
    from agentui.core.providers.base import Provider, ProviderRequest


ROUND = "round:"
"""A route for the rounds of a run from the Nth on: `round:3`."""


class Target(NamedTuple):
    provider: Provider
    model: str


class Router:
    def __init__(
        self,
        main: Provider,
        settings: Settings | None = None,
        env: Mapping[str, str] | None = None,
        on_error: Callable[[str], object] = lambda message: None,
    ) -> None:
        """Routes from `settings` (None: none, every call on `main` with the model it asks for). A route that cannot
        work (no key, no server) is said to `on_error` when the conversation opens, and its calls stay on `main`."""
        self.main, self.settings = main, settings
        routes = settings.routes if settings is not None else {}
        self._routes = {kind: route for kind, route in routes.items() if kind != "main"}
        self._rounds = sorted(
            ((int(kind.removeprefix(ROUND)), route) for kind, route in routes.items() if kind.startswith(ROUND)),
            key=lambda pair: pair[0],
            reverse=True,
        )
        self._resolved: dict[tuple[str, str | None], Settings] = {}
        self._providers: dict[tuple[str, str | None], Provider] = {}
        for kind, route in list(self._routes.items()):
            if self._own(route):
                continue
            try:
                self._settings(route, env)
            except ConfigError as exc:
                del self._routes[kind]
                on_error(
                    f"The {kind} route to {route.label()} cannot be used, so those calls stay on the main model: {exc}"
                )

    def route(self, kind: str, model: str, *, subagent_type: str | None = None) -> Target:
        """Where a call of `kind` goes; `model` on the conversation's provider when no route says otherwise."""
        route = self._routes.get(f"subagent:{subagent_type}") if subagent_type else None
        route = route or self._routes.get(kind)
        if route is None:
            return Target(self.main, model)
        return self._target(route)

    def for_round(self, turn: int, follows_tools: bool) -> Target | None:
        """Where the `turn`th round of a run goes, if a route says (None: the conversation's own model): the route
        of the highest `round:N` not past it, else `orchestration` for a round that answers tool results."""
        route = next((route for first, route in self._rounds if turn >= first), None)
        if route is None and follows_tools:
            route = self._routes.get("orchestration")
        return self._target(route) if route is not None else None

    def round(
        self, request: ProviderRequest, turn: int, history: Sequence[Message], *, root: bool
    ) -> tuple[Provider | None, ProviderRequest]:
        """The `turn`th round of a run, as its route has it: the provider to send `request` to (None: the
        conversation's own) and the request with the route's model. Only the conversation's own loop is routed by
        round; a sub-agent's model is its type's route."""
        if not root or not (self._rounds or "orchestration" in self._routes):
            return None, request
        routed = self.for_round(turn, bool(history) and history[-1].has_results)
        if routed is None:
            return None, request
        return routed.provider, replace(request, model=routed.model)

    def _target(self, route: Route) -> Target:
        if self._own(route):
            return Target(self.main, route.model)
        key = (route.provider or "", route.base_url)
        if key not in self._providers:
            from agentui.core.providers import create_provider

            self._providers[key] = create_provider(self._resolved[key].provider_config())
        return Target(self._providers[key], route.model)

    def routes(self, kind: str) -> bool:
        """Whether a route says where calls of `kind` go."""
        return kind in self._routes

    def describe(self) -> dict[str, str]:
        """Each routed kind and where it goes, for the person ("compaction": "openai:qwen2.5-coder")."""
        return {kind: route.label() for kind, route in self._routes.items()}

    async def aclose(self) -> None:
        for provider in self._providers.values():
            await provider.aclose()
        self._providers.clear()

    def _own(self, route: Route) -> bool:
        """Whether the route's calls go to the conversation's own provider and server."""
        settings = self.settings
        assert settings is not None  # (there are routes only with settings)
        return route.provider in (None, settings.provider) and route.base_url in (None, settings.base_url)

    def _settings(self, route: Route, env: Mapping[str, str] | None) -> None:
        assert self.settings is not None
        provider = route.provider or self.settings.provider
        overrides = Overrides(provider=provider, model=route.model, base_url=route.base_url)
        self._resolved[(route.provider or "", route.base_url)] = resolve_settings(overrides, env, ConfigFile())

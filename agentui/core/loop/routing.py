"""Model routing (cinch-rs's per-round routing): which model, on which provider, each kind of model call goes to —
sub-agents (by type), compaction summaries, titles, WebFetch's answers, the attempts' judge — from the config's
`routes`. A route on another provider gets its own client (its key from that provider's environment variable),
made on first use and shared by every call routed there."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from agentui.core.settings import ConfigError, ConfigFile, Overrides, Route, Settings, resolve_settings

if TYPE_CHECKING:
    from agentui.core.providers.base import Provider


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

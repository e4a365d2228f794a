"""An OpenAPI 3 spec read into the operations agentui offers as tools (phi-core's OpenAPI tools): the spec is read from
a file or a URL (JSON or YAML), validated by openapi-spec-validator, and each chosen operation's parameters (path,
query, header) and JSON body become one input schema, with every `$ref` resolved by jsonschema-path (the model sees
plain schemas)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from agentui.core.errors import AgentuiError

MAX_SCHEMA_DEPTH = 12
"""How deep a schema is written out; a recursive one (a tree of nodes) is cut there."""
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
LOCATIONS = ("path", "query", "header")


class OpenApiError(AgentuiError):
    """The spec cannot be used; the message is one sentence naming the API and what is wrong."""


@dataclass(frozen=True)
class Parameter:
    name: str
    """As the API names it."""
    location: str
    """path, query or header."""
    argument: str
    """Its name in the tool's input (the API's, unless two locations share it)."""
    required: bool


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    path: str
    """The path template ("/pets/{petId}")."""
    description: str
    parameters: tuple[Parameter, ...]
    input_schema: dict[str, Any]
    has_body: bool = False
    security: tuple[str, ...] = ()
    """The security schemes that apply (the operation's own, else the spec's)."""


@dataclass
class Spec:
    title: str
    server: str | None
    """The first server's URL (variables at their defaults), made absolute against the spec's own URL."""
    operations: dict[str, Operation] = field(default_factory=dict)
    security_schemes: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Operations that cannot be offered, each with the reason."""


def parse_document(text: str, source: str) -> dict[str, Any]:
    """A spec's text, JSON or YAML, as an object."""
    import yaml

    try:
        data = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise OpenApiError(f"{source} is neither JSON nor YAML ({str(exc).splitlines()[0]}).") from None
    if not isinstance(data, dict):
        raise OpenApiError(f"{source} is not an OpenAPI document (it holds no object).")
    return data


def read_spec(document: dict[str, Any], source: str) -> Spec:
    """The operations of a validated OpenAPI 3 document; `source` is its URL or path (relative servers and
    references are resolved against it)."""
    from jsonschema_path import SchemaPath
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    if not str(document.get("openapi", "")).startswith("3."):
        raise OpenApiError(f"{source} is not an OpenAPI 3 document (swagger 2 and others are not read).")
    base = source if "://" in source else Path(source).resolve().as_uri()
    try:
        validate(document, base_uri=base)
    except OpenAPIValidationError as exc:
        raise OpenApiError(f"{source} is not a valid OpenAPI document: {exc.message}.") from None
    root = SchemaPath.from_dict(document, base_uri=base)
    spec = Spec(
        title=str((document.get("info") or {}).get("title") or source),
        server=_server(document, source),
        security_schemes=_plain(root / "components" / "securitySchemes", 0)
        if "securitySchemes" in (document.get("components") or {})
        else {},
    )
    default_security = _security(document.get("security"))
    for path, item in (document.get("paths") or {}).items():
        item_path = root / "paths" / path
        shared = _parameters(item_path / "parameters") if "parameters" in item else []
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            operation_id = str(operation.get("operationId") or f"{method}_{path}")
            try:
                spec.operations[operation_id] = _operation(
                    operation_id, method, path, operation, item_path / method, shared, default_security
                )
            except OpenApiError as exc:
                spec.skipped.append(f"{operation_id}: {exc}")
    return spec


def _operation(
    operation_id: str,
    method: str,
    path: str,
    operation: dict[str, Any],
    at: Any,
    shared: list[dict[str, Any]],
    default_security: tuple[str, ...],
) -> Operation:
    own = _parameters(at / "parameters") if "parameters" in operation else []
    merged = {(p["name"], p["in"]): p for p in [*shared, *own]}  # (the operation's own win)
    names = [name for name, location in merged if location in LOCATIONS]
    properties: dict[str, Any] = {}
    required: list[str] = []
    parameters: list[Parameter] = []
    for (name, location), parameter in merged.items():
        if location not in LOCATIONS:
            continue  # (cookies are not sent)
        argument = name if names.count(name) == 1 else f"{location}_{name}"
        schema = dict(parameter.get("schema") or {"type": "string"})
        if parameter.get("description"):
            schema["description"] = parameter["description"]
        properties[argument] = schema
        needed = bool(parameter.get("required")) or location == "path"
        if needed:
            required.append(argument)
        parameters.append(Parameter(name, location, argument, needed))
    has_body = False
    if "requestBody" in operation:
        body = _plain(at / "requestBody", 0)
        content = body.get("content") or {}
        kind = next((k for k in content if k.split(";")[0].strip().endswith("json")), None)
        if kind is None:
            raise OpenApiError(f"its body is {', '.join(content) or 'of no type'}, and only JSON bodies are sent")
        properties["body"] = content[kind].get("schema") or {}
        if body.get("required"):
            required.append("body")
        has_body = True
    said = operation.get("summary") or operation.get("description") or operation_id
    security = _security(operation["security"]) if "security" in operation else default_security
    return Operation(
        operation_id=operation_id,
        method=method.upper(),
        path=path,
        description=f"{said} ({method.upper()} {path})",
        parameters=tuple(parameters),
        input_schema={"type": "object", "properties": properties, "required": required, "additionalProperties": False},
        has_body=has_body,
        security=security,
    )


def _parameters(at: Any) -> list[dict[str, Any]]:
    found = _plain(at, 0)
    return [p for p in found if isinstance(p, dict) and "name" in p and "in" in p] if isinstance(found, list) else []


def _plain(at: Any, depth: int) -> Any:
    """The value at a SchemaPath with every reference inside it resolved (recursive schemas cut at a depth)."""
    value = at.read_value()
    if isinstance(value, dict):
        if depth >= MAX_SCHEMA_DEPTH:
            return {}
        return {key: _plain(at / key, depth + 1) for key in value}
    if isinstance(value, list):
        return [_plain(at / index, depth + 1) for index in range(len(value))]
    return value


def _security(requirements: Any) -> tuple[str, ...]:
    if not isinstance(requirements, list):
        return ()
    return tuple(name for requirement in requirements if isinstance(requirement, dict) for name in requirement)


def _server(document: dict[str, Any], source: str) -> str | None:
    servers = document.get("servers") or []
    first = servers[0] if servers and isinstance(servers[0], dict) else None
    if first is None or not isinstance(first.get("url"), str):
        return source.rsplit("/", 1)[0] if "://" in source else None
    url: str = first["url"]
    for name, variable in (first.get("variables") or {}).items():
        url = url.replace("{" + name + "}", str((variable or {}).get("default", "")))
    if "://" in url:
        return url
    return urljoin(source, url) if "://" in source else None

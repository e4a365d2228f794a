"""StructuredOutput (--json-schema): the model gives its final answer as a tool call whose arguments follow the schema
the program asked for; the arguments are checked against it (jsonschema), and the run's result carries them."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict
from typing_extensions import TypedDict

from agentui.core.providers.base import ToolSpec
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult

INSTRUCTIONS = (
    "When you have the final answer, you MUST call the StructuredOutput tool with it, as the tool's schema asks: "
    "that is how your answer is returned. Call it once, at the end."
)


class AnyArgs(ToolArgs):
    model_config = ConfigDict(extra="allow")


class StructuredOutputDetails(TypedDict):
    structured_output: Any
    """The answer, as the program's schema shapes it."""


class StructuredOutput(Tool[Any]):
    name = "StructuredOutput"
    description = (
        "Return the final answer in the structured form the user's program asked for. Call it once, at the end."
    )
    Args = AnyArgs
    Details = StructuredOutputDetails
    kind = "read"
    main_only = True

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.value: dict[str, Any] | None = None
        """The arguments of the last valid call: the run's structured output."""

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.schema)

    async def run(self, args: AnyArgs, ctx: ToolContext) -> ToolResult:
        import jsonschema

        value = dict(args.model_extra or {})
        try:
            jsonschema.validate(value, self.schema)
        except jsonschema.ValidationError as exc:
            where = ".".join(str(part) for part in exc.absolute_path) or "the output"
            return ToolResult.error(f"The output does not match the schema ({where}: {exc.message}); call it again.")
        self.value = value
        return ToolResult(
            "Structured output provided successfully", details=StructuredOutputDetails(structured_output=value)
        )


def check_schema(schema: Any) -> str | None:
    """Why `schema` cannot be the output's schema (one sentence), or None."""
    import jsonschema

    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return 'the schema must describe a JSON object ("type": "object")'
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"it is not a valid JSON Schema ({exc.message})"
    return None

"""Input filters: commands from the settings that read each prompt before the model does. Exit code 2 or a JSON
block rejects it (an event, and one sentence); the prompt is not sent; a filter that hangs is stopped at its
timeout and the prompt goes on, as with a hook."""

from __future__ import annotations

import json
from pathlib import Path

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.events import Error, Event, Notice, PromptRejected
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.settings import ConfigFile, InputFilter, Settings

FILTER = """import json, sys
prompt = json.load(sys.stdin)["prompt"]
if "secret" in prompt:
    print("no secrets in prompts, please", file=sys.stderr)
    sys.exit(2)
if "deploy" in prompt:
    print(json.dumps({"decision": "block", "reason": "deploys go through the pipeline"}))
"""


async def test_a_filter_rejects_a_prompt_with_a_reason_and_the_model_never_sees_it(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "filter.py").write_text(FILTER)
    filters = (
        InputFilter(command=f"python3 {tmp_path / 'filter.py'}"),
        InputFilter(command="sleep 30", timeout=0.5),  # (stopped: the prompt goes on)
    )
    settings = Settings(provider="scripted", model="scripted", input_filters=filters)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    provider = ScriptedProvider([{"text": "Hello."}])
    launch = Launch(settings, cwd=root, permissions=PermissionOptions(mode="acceptEdits"))
    conversation = open_conversation(launch, provider=provider, env=env)
    seen: list[Event] = []
    conversation.on(seen.append)
    try:
        refused = await conversation.send("what is the secret?")
        json_refused = await conversation.send("deploy it")
        answered = await conversation.send("hello")
    finally:
        await conversation.aclose()
    assert refused.stop == "error" and json_refused.stop == "error" and answered.text == "Hello."
    rejected = [event for event in seen if isinstance(event, PromptRejected)]
    assert [event.reason for event in rejected] == ["no secrets in prompts, please", "deploys go through the pipeline"]
    assert rejected[0].filter.endswith("filter.py")
    errors = [event.message for event in seen if isinstance(event, Error)]
    assert errors == [
        "The prompt was not sent: an input filter rejected it (no secrets in prompts, please).",
        "The prompt was not sent: an input filter rejected it (deploys go through the pipeline).",
    ]
    assert [event.message for event in seen if isinstance(event, Notice)] == [
        "The input filter `sleep 30` timed out after 0.5 s; the prompt goes on."
    ]
    [request] = provider.requests  # only "hello" reached the model, and only it was recorded
    assert "secret" not in str(request.messages) and "hello" in str(request.messages)
    lines = [json.loads(line) for line in conversation.session.path.read_text().splitlines()]
    prompts = [entry["message"]["content"] for entry in lines if entry.get("type") == "user"]
    assert prompts == ["hello"]


def test_input_filters_are_read_from_the_config_file() -> None:
    config = ConfigFile.model_validate({"input_filters": [{"command": "check-prompt", "timeout": 5}]})
    assert config.input_filters == [InputFilter(command="check-prompt", timeout=5)]

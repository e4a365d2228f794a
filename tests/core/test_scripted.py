"""The scripted provider: scripts load or fail with one sentence, and replay deterministically."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentui.core.messages import Message, TextBlock, ThinkingBlock, ToolUseBlock
from agentui.core.providers.base import ProtocolError, ProviderRequest
from agentui.core.providers.scripted import ScriptedProvider, ScriptError, load_script
from tests.support.collect import collect

REQUEST = ProviderRequest(model="scripted", system="", messages=[Message.user("hi")])


def write(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "script.json"
    path.write_text(content)
    return path


def test_scripts_load_as_a_list_or_under_responses(tmp_path: Path) -> None:
    assert len(load_script(write(tmp_path, '[{"text": "a"}, {"text": "b"}]'))) == 2
    assert load_script(write(tmp_path, '{"responses": [{"text": "a"}]}'))[0].content == [TextBlock(text="a")]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[{", "could not be read as JSON"),
        ('[{"content": [{"type": "bogus"}]}]', "is not a valid script (0.content.0:"),
        ('[{"txet": "typo"}]', "is not a valid script (0.txet: Extra inputs are not permitted)"),
        ('{"text": "not a list"}', "is not a valid script ("),
    ],
)
def test_bad_scripts_fail_with_one_sentence(tmp_path: Path, content: str, message: str) -> None:
    with pytest.raises(ScriptError) as caught:
        load_script(write(tmp_path, content))
    assert message in str(caught.value) and str(caught.value).endswith(".")


async def test_replays_blocks_in_order_then_says_it_ran_out() -> None:
    provider = ScriptedProvider(
        [
            {
                "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "s"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a"}},
                ],
                "chunk_size": 2,
            }
        ]
    )
    message = await collect(provider, REQUEST)
    assert message.content == [
        ThinkingBlock(thinking="plan", signature="s"),
        TextBlock(text="Reading."),
        ToolUseBlock(id="t1", name="Read", input={"file_path": "a"}),
    ]
    assert message.stop_reason == "tool_use" and provider.requests == [REQUEST]
    with pytest.raises(ProtocolError, match=r"The script has no more responses \(1 were used\)\."):
        await collect(provider, REQUEST)

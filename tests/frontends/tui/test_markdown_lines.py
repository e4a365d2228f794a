"""MarkdownLines: how an answer is cut into blocks, and that streaming it shows exactly what rendering it whole
shows, code included, with heights that match what is drawn."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region

from agentui.frontends.tui.widgets.markdown_lines import MarkdownLines, split_blocks

ANSWER = """## Plan

First I **read** the handler, then `render` it:

1. Read `app.py`
2. Fix the cache

   with a continuation paragraph
3. Run tests

```python
def handler(request):
    '''A docstring

    over lines.'''

    return render(request, 'page.html', {'items': items, 'a_very_long_argument_name_to_fold': some_function(1, 2)})
```

> A quote.

| a | b |
|---|---|
| 1 | 2 |

    indented code

Done.
"""


def texts(blocks) -> list[str]:  # type: ignore[no-untyped-def]
    return [block.text for block in blocks]


def test_blocks_split_at_blank_lines_and_around_fences_but_keep_lists_and_code_whole() -> None:
    blocks, rest = split_blocks(ANSWER)
    assert texts(blocks)[:3] == [
        "## Plan",
        "First I **read** the handler, then `render` it:",
        "1. Read `app.py`\n2. Fix the cache\n\n   with a continuation paragraph\n3. Run tests",
    ]
    code = blocks[3]
    assert code.language == "python" and code.text.startswith("```python") and code.text.endswith("```")
    assert code.code[1] == "    '''A docstring" and code.code[2] == ""  # the blank line inside stays in the block
    assert [b.is_code for b in blocks] == [False, False, False, True, False, False]
    # an indented line after a blank one may continue what came before, so it is not cut off
    assert texts(blocks)[4:] == ["> A quote.", "| a | b |\n|---|---|\n| 1 | 2 |\n\n    indented code"]
    assert rest == "Done.\n"


def test_an_unfinished_block_stays_the_rest_until_what_follows_shows_it_is_complete() -> None:
    assert split_blocks("First paragraph.\n\nSecond") == ([], "First paragraph.\n\nSecond")  # a line may go on
    blocks, rest = split_blocks("First paragraph.\n\nSecond line\n")
    assert texts(blocks) == ["First paragraph."] and rest == "Second line\n"
    blocks, rest = split_blocks("Para.\n\n```py\nx = 1\n\ny = 2\n")
    assert texts(blocks) == ["Para."] and rest == "```py\nx = 1\n\ny = 2\n"  # an open fence is never cut
    blocks, rest = split_blocks("- a\n\n  still a\n")
    assert blocks == [] and rest == "- a\n\n  still a\n"


class Answers(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownLines(id="whole")
            yield MarkdownLines(id="streamed")


def screen_text(widget: MarkdownLines) -> list[str]:
    widget._layout(widget.size.width)
    return [widget._plain_line(y, widget.size.width) for y in range(widget._height)]


def drawn(widget: MarkdownLines) -> list[str]:
    """What Textual draws of the widget now, through its cache of lines (only the lines refreshed are drawn again)."""
    size = widget.size
    lines = [strip.text.strip() for strip in widget.render_lines(Region(0, 0, size.width, size.height))]
    return lines[: widget._height]


async def test_streaming_an_answer_shows_what_rendering_it_whole_shows() -> None:
    app = Answers()
    async with app.run_test(size=(80, 200)) as pilot:
        whole, streamed = app.query_one("#whole", MarkdownLines), app.query_one("#streamed", MarkdownLines)
        whole.append(ANSWER)
        for start in range(0, len(ANSWER), 7):
            streamed.append(ANSWER[start : start + 7])
            if start % 70 == 0:
                await pilot.pause()  # laid out and drawn part way, as batches are
                assert drawn(streamed) == [line.strip() for line in screen_text(streamed)], start
        await pilot.pause()
        assert drawn(streamed) == [line.strip() for line in screen_text(whole)]
        assert streamed.source == whole.source == ANSWER
        assert screen_text(streamed) == screen_text(whole)
        lines = screen_text(whole)
        assert "Plan" in lines[0] and any("def handler(request):" in line for line in lines)
        assert any(line.strip() == "Done." for line in lines)
        folded = next(i for i, line in enumerate(lines) if "return render(request" in line)
        assert lines[folded + 1].strip().startswith(lines[folded + 1].strip()[:3]) and "some_function" in "".join(
            lines[folded : folded + 2]
        )
        for block in whole._blocks:  # what was measured without drawing is what is drawn
            if block.is_code:
                assert block.lines is not None and len(block.lines) == block.height


async def test_text_can_be_selected_and_copied() -> None:
    app = Answers()
    async with app.run_test(size=(80, 60)) as pilot:
        whole = app.query_one("#whole", MarkdownLines)
        whole.append("Some **bold** words.\n\n```sh\nmake test\n```\n")
        await pilot.pause()
        from textual.selection import Selection

        text, ending = whole.get_selection(Selection(None, None)) or ("", "")
        assert "Some bold words." in text and "make test" in text and ending == "\n"


async def test_single_line_breaks_are_kept_as_a_model_wrote_them() -> None:
    app = Answers()
    items = "\n".join(f"item {n}: done" for n in range(300))
    async with app.run_test(size=(80, 400)) as pilot:
        whole = app.query_one("#whole", MarkdownLines)
        whole.append(f"Results:\n{items}\n\nA **bold** line\nand its second line.\n")
        await pilot.pause()
        lines = [line.strip() for line in screen_text(whole)]
        assert lines[:3] == ["Results:", "item 0: done", "item 1: done"]
        assert "item 299: done" in lines
        assert "A bold line" in lines and "and its second line." in lines
        assert whole.source.endswith("and its second line.\n")  # the source (what is copied) is untouched


def test_plain_prose_is_drawn_exactly_as_markdown_draws_it() -> None:
    from rich.console import Console
    from rich.markdown import Markdown

    from agentui.frontends.tui.widgets.markdown_lines import _Block, _draw, _hard_breaks

    console = Console(width=40, color_system="truecolor")
    samples = [
        "Let me read the module first.",
        "A sentence long enough to be folded over more than one line at forty cells, with commas, and (brackets).",
        "Two lines\nkept as two lines, as Claude Code shows them.",
        "Some *emphasis* and `code`: drawn by Markdown.",
        "1. a list\n2. of two",
        "- a bullet",
        "Tom & Jerry",
        "x\n===",
        "~~struck~~ and **strong**",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "See [the docs](https://example.com/docs) or https://example.com",
    ]
    for text in samples:
        drawn = [list(strip) for strip in _draw(_Block(text), console, 40)]  # text and styles, segment by segment
        rendered = console.render_lines(Markdown(_hard_breaks(text)), console.options.update(width=40), pad=True)
        while rendered and not "".join(segment.text for segment in rendered[-1]).strip():
            rendered.pop()
        while rendered and not "".join(segment.text for segment in rendered[0]).strip():
            rendered.pop(0)
        assert drawn == rendered, text


def test_blocks_are_parsed_by_one_parser_not_one_each(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Rich makes a parser per renderable: a fifth of laying out a long answer.
    import markdown_it
    from rich.console import Console

    from agentui.frontends.tui.widgets.markdown_lines import _Block, _draw, _parsing

    made: list[object] = []
    original = markdown_it.MarkdownIt.__init__

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(markdown_it.MarkdownIt, "__init__", counted)
    _parsing.cache_clear()
    console = Console(width=40, color_system="truecolor")
    for n in range(20):
        assert _draw(_Block(f"Some *emphasis* number {n}"), console, 40)
    assert len(made) <= 2  # the template Rich makes, and ours


def test_a_found_text_is_marked_where_it_is_drawn() -> None:
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    from agentui.frontends.tui.widgets.markdown_lines import _marked

    mark = Style(reverse=True)
    strip = _marked(Strip([Segment("the Zanzibar config, zanzibar again")]), "zanzibar", mark)
    marked = "".join(segment.text for segment in strip if segment.style == mark)
    assert marked == "Zanzibarzanzibar" and strip.text == "the Zanzibar config, zanzibar again"


async def test_a_code_block_closed_with_its_last_line_is_shown_from_the_lines_drawn_while_it_streamed() -> None:
    """The last line usually arrives with the closing fence, so it was never drawn whole: it is highlighted alone
    then, and the block shows at once, not drawn whole between two frames (~100 ms for 300 lines, the longest frame
    gap of a streamed answer); the whole highlighting follows from a worker thread."""
    code = [f"    value_{n} = compute(items[{n}])  # step {n}" for n in range(40)]
    app = Answers()
    async with app.run_test(size=(80, 60)) as pilot:
        streamed = app.query_one("#streamed", MarkdownLines)
        streamed.append("Intro.\n\n```python\ndef run(items):\n")
        for line in code[:-1]:
            streamed.append(line + "\n")
            await pilot.pause()  # (each line drawn as it comes, as batches are)
        streamed.append(code[-1][:10])
        await pilot.pause()
        streamed.append(code[-1][10:] + "\n```\n\nAfter.\n")
        block = next(block for block in streamed._blocks if block.is_code)
        assert block.lines is not None and len(block.lines) == block.height == len(code) + 3
        await app.workers.wait_for_complete()
        await pilot.pause()
        whole = app.query_one("#whole", MarkdownLines)
        whole.append(streamed.source)
        await pilot.pause()
        assert screen_text(streamed) == screen_text(whole)


async def test_the_highlighter_is_loaded_after_start_up_before_any_code_block(tmp_path: Path) -> None:
    """(Its first load was a stall between two frames where the first code block of an answer began.)"""
    from agentui.frontends.tui.widgets import markdown_lines
    from tests.frontends.tui.test_app import Harness, ready, until

    markdown_lines._lexer.cache_clear()
    app = Harness(tmp_path, []).app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: markdown_lines._lexer.cache_info().currsize > 0)
        assert markdown_lines._lexer("python") is not None


async def test_text_that_leaves_the_answer_as_tall_is_drawn_without_laying_out_the_screen() -> None:
    """While an answer streams, most batches only lengthen its last line: the screen's layout (every widget of the
    transcript measured and placed again) is left for a batch that makes the answer taller."""
    app = Answers()
    async with app.run_test(size=(80, 40)) as pilot:
        streamed = app.query_one("#streamed", MarkdownLines)
        layouts: list[int] = []
        original = app.screen._refresh_layout

        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            layouts.append(1)
            return original(*args, **kwargs)

        app.screen._refresh_layout = counted  # type: ignore[method-assign]
        streamed.append("The handler")
        await pilot.pause()
        assert layouts and drawn(streamed) == ["The handler"]
        layouts.clear()
        streamed.append(" reads the request")
        await pilot.pause()
        assert layouts == [] and drawn(streamed) == ["The handler reads the request"]
        assert "The handler reads the request" in screen_text(streamed)[0]
        streamed.append(" and answers it." * 8)  # wraps: taller
        await pilot.pause()
        assert layouts and len(drawn(streamed)) > 1
        assert streamed.size.height == len(drawn(streamed))

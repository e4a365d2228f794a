"""Permission check of one long bash line: 200 sub-commands joined by `&&`, `|`, `;` and `$(...)`, parsed and
checked against 50 rules, as a model's long command would be; and the same length of command in the grammar agentui
understands completely (no substitution), which is checked to the end: both parsers, every word expanded, every
program's options and every path.

    python -m bench.permissions
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, run_alone, summary
from bench.dispatch import Pipeline

SUBCOMMANDS = 200
RUNS = 200


def command_line(count: int = SUBCOMMANDS) -> str:
    """`count` simple commands, joined as a model joins them: `&&`, `;`, `||`, pipes and `$(...)`."""
    shapes = [  # (text, how many simple commands it holds)
        ("git status", 1),
        ("ls -la src/pkg{n}", 1),
        ("grep -rn 'name{n}' src", 1),
        ("cat README.md | head -n {n}", 2),
        ("echo $(date +%s) > /dev/null", 2),
        ("npm run 1 -- --case {n}", 1),
        ("wc -l src/file{n}.py", 1),
        ("pytest -q tests/t{n}", 1),
    ]
    parts, total, n = [], 0, 0
    while total < count:
        text, size = shapes[n % len(shapes)]
        if total + size > count:
            text, size = shapes[0]
        parts.append(text.format(n=n))
        total, n = total + size, n + 1
    joiners = [" && ", "; ", " || "]
    line = parts[0]
    for n, part in enumerate(parts[1:], 1):
        line += joiners[n % len(joiners)] + part
    return line


def understood_line(count: int = SUBCOMMANDS) -> str:
    """The same shapes without `$(...)`: a command agentui reads whole, so every part is checked."""
    return (
        command_line(count)
        .replace("echo $(date +%s) > /dev/null", "date +%s | wc -c > /dev/null")
        .replace("npm run 1 -- --case", "wc -l src/case")
        .replace("pytest -q tests/t", "ls -la tests/t")
    )


def long_command() -> Iterator[Result]:
    yield from _timed("permissions.bash_200_subcommands", command_line(), target=5)
    yield from _timed("permissions.bash_200_understood", understood_line(), target=30)


def _timed(name: str, text: str, *, target: float) -> Iterator[Result]:
    from agentui.core.messages import ToolUseBlock

    with tempfile.TemporaryDirectory() as scratch:
        bench = Pipeline(Path(scratch))
        engine = bench.project.engine
        tool = bench.project.tools.get("Bash")
        assert tool is not None
        call = ToolUseBlock(id="toolu_1", name="Bash", input={"command": text})
        args = tool.Args.model_validate(call.input)
        verdict = engine.check(tool, args, call)  # first parse loads the grammar; not what a check costs
        samples = []
        for _ in range(RUNS):
            started = time.perf_counter()
            engine.check(tool, args, call)
            samples.append(time.perf_counter() - started)
        result = summary(
            name,
            samples,
            "ms",
            target=target,
            target_text=f"≤ {target:g} ms",
            scale=1000,
            note=f"{len(text):,} characters; verdict {verdict.behavior}",
        )
        from agentui.core.safety.permissions.shell import analyze

        parsed = analyze(text)
        assert len(parsed.commands) == SUBCOMMANDS, len(parsed.commands)
        result.extra = {"subcommands": len(parsed.commands), "rules": len(engine.rules)}
        yield result


def benchmarks() -> Iterator[Result]:
    return emit_all(long_command)


if __name__ == "__main__":
    run_alone(benchmarks)

"""The differential fuzz test of issue 30: commands generated from bash's grammar (tests/support/bash_grammar.py);
for every one the permission check lets run without a question, the command is run under `strace -f` in a scratch
project full of traps (tests/support/traced_run.py), and what it really did is held against what "allowed" means:

1. every program executed is bash itself or one of the allowlist's programs (git's own helpers when git ran);
2. in default and plan mode nothing is written, created, renamed or removed (but /dev/null, the Bash tool's own
   record of the final directory, and git refreshing its index); in acceptEdits, only inside the project and never a
   protected path;
3. no file a deny rule covers (.env, a hard link to it, ~/.ssh/id_rsa) is opened at all, and nothing outside the
   project is read but what programs read on their own (libraries, locale, the person's git configuration, ...).

CI runs a bounded, reproducible number of examples; AGENTUI_FUZZ_EXAMPLES=20000 runs more (with a random seed, or
AGENTUI_FUZZ_SEED). Bypasses the fuzzer found are kept below as explicit regression cases, expected to fail until
the engine is fixed, and their classes are left out of generation meanwhile.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from agentui.core.safety.permissions.bash_words import NotUnderstood
from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.safety.permissions.understand import resolve_program, understand
from tests.core.test_allowlist import EVERYDAY, engine_for
from tests.support.bash_grammar import commands_excluding
from tests.support.permissions import check
from tests.support.traced_run import Judge, Run, World, build_world, describe, run_traced, strace_problem

if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
    # Hypothesis keeps a cache (and, were there one, its example database) in ./.hypothesis: not in the repository.
    set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "agentui-hypothesis"))


@dataclass(frozen=True)
class Finding:
    command: str
    mode: str
    what: str
    """What strace showed, and why it is a bypass."""
    needs: str = ""
    """A program the bypass needs on this machine (the regression case is skipped where it is missing)."""


# Bypasses found by the fuzzer: commands the permission check allows that strace shows doing what "allowed" rules
# out. Each open one is expected to fail (xfail, strict) until the engine is fixed; the engine's owner then moves it
# to FIXED (where it must keep passing) and removes its class from EXCLUDED.
FINDINGS: list[Finding] = []

FIXED = [
    Finding(
        "git status --help",
        "default",
        "every git subcommand's table takes --help, which makes git run the manual viewer: strace shows "
        "execve(man) (help.format and man.viewer can name any program, a web browser included).",
    ),
    Finding(
        "df src/innocent.txt",
        "default",
        "df's operands are `looks` that may be anywhere, and no deny rule is checked against them once expanded: "
        "df opens each operand (O_RDONLY) to statfs it, so it opens .env through its hard link (also `df .e*`, "
        '`df "$HOME"/.ssh/id_rsa`). Nothing is read from it, but a denied file is opened, and an open alone '
        "can act (a FIFO, a device).",
    ),
    Finding(
        "sort -S 1 big.txt",
        "default",
        "sort spills to temporary files in $TMPDIR (/tmp) when its buffer (-S, in its table) is smaller than the "
        "input: strace shows /tmp/sortXXXXXX created and removed, with the project's data, in default mode.",
    ),
    Finding(
        "echo x | tac",
        "default",
        "tac copies input it cannot seek (a pipe) to a temporary file: strace shows /tmp/tacXXXXXX created and "
        "removed in default mode.",
    ),
    Finding(
        "java -version",
        "default",
        "`java -version` is allowed as a version query, but the JVM starts: strace shows it creating "
        "/tmp/hsperfdata_$USER/PID (and writing /proc/self/coredump_filter) in default mode.",
        needs="java",
    ),
    Finding(
        "cat < src/innocent.txt",
        "default",
        "a redirection's file is checked against deny rules by name only, not for being a hard link to a denied "
        "file (a program's operand is): strace shows bash opening src/innocent.txt (the inode of .env) and cat "
        "printing the secret.",
    ),
    Finding(
        "git branch --abbrev 1",
        "default",
        "git's table for branch says --abbrev takes a value (`abbrev=`), so the check reads `1` as its value and "
        "sees a listing; git takes --abbrev's value only attached (--abbrev=N) and reads `1` as a new branch's "
        "name: strace shows git creating .git/refs/heads/1 and its reflog in default mode.",
    ),
    Finding(
        "find . -print0 -name '*.py' | xargs -0 cat",
        "default",
        "the check reads find's tests (-name, -type f) as filters on the names it prints, but an action before a "
        "test prints every name it reaches: strace shows cat opening .env and src/innocent.txt (and the link to "
        "the directory outside) and printing the secret.",
    ),
    Finding(
        "echo ~/.ssh/*",
        "default",
        "a glob in the arguments of a program that takes no paths (echo, printf, dirname, ...) is expanded by bash, "
        "which lists the directory: strace shows bash opening ~/.ssh (denied with Read(~/.ssh/**)) and the names "
        "in it printed; `echo ../*/*`, `echo linkdir/*`, `echo /*` list directories outside the project the same "
        "way, where `ls ~/.ssh` asks.",
    ),
    Finding(
        "awk '{print 1,\n2 > \"x\"}' README.md",
        "default",
        "the awk check ended a print statement at a newline, but awk continues an expression after `,` (and `&&`, "
        "`||`) on the next line: strace showed awk creating x in default mode.",
    ),
    Finding(
        'gawk \'{if(1) /"/ ; print > "out" ; s = "x"}\' README.md',
        "default",
        "after the `)` of if/while/for (and after `return`) gawk reads `/` as the start of a regular expression, "
        'the check read it as division: the `"` in the regex then opened a string that swallowed '
        '`print > "out"`, and gawk created out in default mode. (mawk rejects the program.)',
        needs="gawk",
    ),
    Finding(
        "mkdir -p src/objects src/refs && cp -r .git/objects src/ && git rev-parse HEAD > src/HEAD && "
        "printf '[diff]\\n\\texternal = %s/tools/evil.sh\\n' \"$PWD\" > src/config && git -C src diff HEAD~1 HEAD",
        "acceptEdits",
        "a bare repository made by the command's first steps, git run in it by the last: strace showed git "
        "executing tools/evil.sh.",
    ),
    Finding(
        "mkdir -p d/objects d/refs && cp -r .git/objects d/ && git rev-parse HEAD > d/HEAD && "
        "printf '[diff]\\n\\texternal = %s/tools/evil.sh\\n' \"$PWD\" > d/config && cd d && git diff HEAD~1 HEAD",
        "acceptEdits",
        "`cd` into a directory that did not exist when the command was checked was followed as failing, so git was "
        "checked in the project and ran in d, executing tools/evil.sh.",
    ),
    Finding(
        "git log --format=%G? -1",
        "default",
        "HEAD is a signed commit: a signature placeholder (%G?, %GS, %GK, %GG, ...) in --format/--pretty made git run "
        "gpg (gpg.program) to verify it; strace showed execve(/usr/bin/gpg), which then created ~/.gnupg with a "
        "keyring and lock files, and git wrote /tmp/.git_vtag_tmpXXXXXX. --show-signature was refused, the "
        "placeholders that do the same were not.",
    ),
    Finding(
        "cp -P src/up up && cat up/outside/secret.txt",
        "acceptEdits",
        "the check happened before the command ran: `cp -P` copies the relative link src/up (-> .., the project) "
        "one level up, where it leads out of the project, and the next step's path through it was checked when "
        "`up` did not exist yet: strace showed cat opening ../outside/secret.txt.",
    ),
    Finding(
        "cp -P src/up up && touch up/canary",
        "acceptEdits",
        "as above, for a write: strace showed touch creating the canary outside the project (sed -i, cp, echo > "
        "write through the new link the same way).",
    ),
    Finding(
        "cp -P srclink sl && cat sl/innocent.txt",
        "acceptEdits",
        "as above, for a denied file: the new link sl leads to src, and sl/innocent.txt (the hard link to .env) did "
        "not exist when it was checked: strace showed cat opening it and printing the secret.",
    ),
    Finding(
        "mkdir -p tools/objects tools/refs && echo 'ref: refs/heads/main' > tools/HEAD && "
        "printf '[diff]\\n\\texternal = %s/tools/evil.sh\\n' \"$PWD\" > tools/config && "
        'git -C tools diff --no-index "$PWD"/README.md "$PWD"/notes.md',
        "acceptEdits",
        "the repository check runs before the command, when tools is a plain directory of the project's own "
        "repository; the first steps make it a bare repository (HEAD, objects, refs) whose config sets "
        "diff.external, and git run there reads it: strace showed git executing tools/evil.sh (any code, unasked).",
    ),
    Finding(
        "mkdir -p tools/objects tools/refs && echo 'ref: refs/heads/main' > tools/HEAD && "
        "printf '[diff]\\n\\texternal = %s/tools/evil.sh\\n' \"$PWD\" > tools/config && "
        "cd tools && git diff --no-index ../README.md ../notes.md",
        "acceptEdits",
        "the same through `cd`: strace showed git executing tools/evil.sh.",
    ),
]
"""Bypasses the fuzzer found that the engine has since closed: regression cases that must keep passing."""

EXCLUDED: list[str] = []
"""Classes of open FINDINGS left out of generation, so the fuzzer looks for new ones."""

MODES = ("default",) * 5 + ("plan",) + ("acceptEdits",) * 3 + ("rules",) * 2
"""The modes examples run in (default most, then acceptEdits, the prefix allow rules, plan)."""

CI_EXAMPLES = 500
ON_DEMAND = os.environ.get("AGENTUI_FUZZ_EXAMPLES")
EXAMPLES = int(ON_DEMAND) if ON_DEMAND else CI_EXAMPLES


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    if problem := strace_problem():
        pytest.fail(f"the fuzz test needs strace: {problem}")
    built = build_world(tmp_path_factory.mktemp("fuzz"))
    yield built
    shutil.rmtree(built.base, ignore_errors=True)


def engine(world: World, mode: str) -> PermissionEngine:
    """A fresh engine for the project (engine_for: deny rules on .env and ~/.ssh, and in mode "rules" the prefix
    allow rules), expanding words from exactly the environment the command runs with."""
    built = engine_for(world.project, mode)
    built.bash_environ = world.environ()
    return built


def trusted_programs(checker: PermissionEngine, command: str, world: World) -> set[Path]:
    """Programs an allow rule lets run whatever they do (a step the allowlist does not know, which a prefix rule
    covers): the engine does not check what they read or write, so neither does the judge."""
    try:
        plan = understand(command, checker.bash_environ, world.project)
    except NotUnderstood:
        return set()
    found = set()
    for step in plan.steps:
        if step.unknown and checker.text_rule("allow", step.text, step.program):
            program = resolve_program(step.program, checker.bash_environ, step.place.physical)
            if program is not None:
                found.add(program)
    return found


def run_and_judge(
    world: World, command: str, mode: str, checker: PermissionEngine | None = None
) -> tuple[list[str], Run]:
    """Run `command` under strace (whatever the verdict) and judge what it did; the world is reset after."""
    trusted = trusted_programs(checker, command, world) if checker is not None else set()
    judge = Judge(world, mode, world.environ(), trusted=trusted)
    try:
        run = run_traced(world, command, world.environ())
        return judge.judge(run), run
    finally:
        world.reset()


def test_the_trace_names_every_file_exactly(world: World) -> None:
    """strace's log read back: names with newlines, quotes and spaces, paths relative to a directory the command
    moved to, and the program each process ran."""
    names = ["new\nline.txt", 'q"uote.txt', "it's.txt", "a b.txt", "$HOME.txt", "-rf"]
    command = "cat -- " + " ".join(shlex.quote(name) for name in names) + " && cd src && head -1 ../README.md"
    try:
        run = run_traced(world, command, world.environ())
    finally:
        world.reset()
    opened = {e.opened: e for e in run.trace.events if e.kind == "read" and e.ok}
    for name in names:
        assert os.path.basename(opened[str(world.project / name)].program) == "cat", name
    readme = opened[str(world.project / "README.md")]
    assert readme.path == str(world.project / "src" / ".." / "README.md")
    assert os.path.basename(readme.program) == "head"
    assert not run.trace.unparsed


# The harness can fail: commands that must be caught are caught, and commands that are fine are not.

CAUGHT = [
    ("touch ../canary", "default", "wrote or changed"),
    ("touch ../canary", "acceptEdits", "outside the project"),
    ("./tools/evil.sh", "default", "the canary"),
    ("sh -c true", "default", "a program outside the allowlist was executed"),
    ("cat .env", "default", "a deny rule covers"),
    ("cat src/innocent.txt", "default", "a deny rule covers"),
    ("cat ~/.ssh/id_rsa", "default", "a deny rule covers"),
    ("cat ../outside/secret.txt", "default", "outside the project was read"),
    ("cat linkdir/secret.txt", "default", "outside the project was read"),
    ("cat ~/notes.txt", "default", "outside the project was read"),
    ("cat /proc/self/root/etc/hostname", "default", "outside the project was read"),
    ("touch new.txt", "default", "wrote or changed"),
    ("echo x > out.txt", "plan", "wrote or changed"),
    ("touch .git/x", "acceptEdits", "protected path"),
    ("mkdir .claude", "acceptEdits", "protected path"),
    ("touch linkdir/x", "acceptEdits", "outside the project"),
    ("rm -f src/app.py", "default", "wrote or changed"),
    ("mv README.md moved.md", "plan", "wrote or changed"),
    ("git config user.name x", "default", "wrote or changed"),
]


@pytest.mark.parametrize(("command", "mode", "problem"), CAUGHT)
def test_the_judge_flags_what_an_allowed_command_must_never_do(
    world: World, command: str, mode: str, problem: str
) -> None:
    problems, run = run_and_judge(world, command, mode)
    assert any(problem in p for p in problems), describe(problems, run, command, mode)


FINE = [
    ("touch new.txt", "acceptEdits"),
    ("mkdir -p build/x && cp README.md build/x/ && mv build/x/README.md build/r.md && rm -r build", "acceptEdits"),
    ("sed -i s/readme/README/ README.md", "acceptEdits"),
    ("git status && git diff && git log -p -1 && git describe --always --dirty", "default"),
    ("cd src && ls -la && cat app.py", "plan"),
    ("cat /dev/stdin < README.md | wc -l > /dev/stderr", "default"),
]


@pytest.mark.parametrize(("command", "mode"), FINE)
def test_the_judge_passes_what_an_allowed_command_may_do(world: World, command: str, mode: str) -> None:
    problems, run = run_and_judge(world, command, mode)
    assert not problems, describe(problems, run, command, mode)


def test_everyday_commands_do_only_what_they_are_allowed_to(world: World) -> None:
    """The everyday read-only commands of test_allowlist, allowed, and run: nothing they do breaks the rules."""
    failures = []
    for command in EVERYDAY:
        checker = engine(world, "default")
        if check(checker, "Bash", command=command).behavior != "allow":
            continue  # (this project's traps make a few of them ask: grep -r reaches the hard link to .env)
        problems, run = run_and_judge(world, command, "default", checker)
        if problems:
            failures.append(describe(problems, run, command, "default"))
    assert not failures, "\n".join(failures)


# The bypasses found, one regression case each


_OPEN = pytest.mark.xfail(strict=True, reason="bypass found by the fuzzer, to be fixed in the engine")


@pytest.mark.parametrize(
    "finding",
    [pytest.param(f, marks=_OPEN, id=f"open, {f.mode}: {f.command}") for f in FINDINGS]
    + [pytest.param(f, id=f"fixed, {f.mode}: {f.command}") for f in FIXED],
)
def test_a_bypass_the_fuzzer_found(world: World, finding: Finding) -> None:
    checker = engine(world, finding.mode)
    verdict = check(checker, "Bash", command=finding.command)
    if verdict.behavior != "allow":
        return  # (fixed: the command no longer runs without a question)
    if finding.needs and shutil.which(finding.needs, path=world.environ()["PATH"]) is None:
        pytest.skip(f"{finding.needs} is not installed here, to see what the allowed command does")
    problems, run = run_and_judge(world, finding.command, finding.mode, checker)
    assert not problems, f"{finding.what}\n{describe(problems, run, finding.command, finding.mode)}"


# The fuzzer


def _settings() -> settings:
    if ON_DEMAND:
        return settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        )
    return settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )


@pytest.mark.timeout(0 if ON_DEMAND else 120)
@_settings()
@given(command=commands_excluding(EXCLUDED), mode=st.sampled_from(MODES))
def test_what_the_check_allows_does_only_what_allowed_means(world: World, command: str, mode: str) -> None:
    checker = engine(world, mode)
    verdict = check(checker, "Bash", command=command)
    event(f"verdict: {verdict.behavior}")
    if verdict.behavior != "allow":
        return
    event(f"allowed in mode {mode}")
    problems, run = run_and_judge(world, command, mode, checker)
    assert not problems, describe(problems, run, command, mode)


if os.environ.get("AGENTUI_FUZZ_SEED"):
    test_what_the_check_allows_does_only_what_allowed_means = seed(int(os.environ["AGENTUI_FUZZ_SEED"]))(
        test_what_the_check_allows_does_only_what_allowed_means
    )


def test_the_excluded_classes_are_still_open_findings() -> None:
    """Each exclusion names a finding still listed: an exclusion outliving its finding would hide a regression."""
    for pattern in EXCLUDED:
        assert any(re.search(pattern, f.command) for f in FINDINGS), pattern

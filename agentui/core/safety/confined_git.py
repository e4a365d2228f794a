"""Every git command agentui itself runs (the prompt's status, Bash snapshots, worktrees for attempts, an
evaluation's clone) goes through `run`, which confines it: git never runs a program that any configuration names.

A repository arrives with its own configuration, and any git configuration can name a program for git to run: an
fsmonitor, hooks, clean/smudge/process filters and diff or merge drivers chosen by `.gitattributes`, pagers, editors,
credential helpers, ssh and proxy commands, signature programs. agentui's own calls need none of them, so every call
gets, through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` (git >= 2.31; any key spelling is
safe there, unlike `-c`, and child gits inherit it), settings that come after every file's and so win:

- fixed ones (`NEUTRAL`): fsmonitor off, hooks read from /dev/null (no hook can be found there), pager `cat`,
  editors and signature programs `false`, credential helpers and ssh/askpass/proxy commands emptied, no signing or
  signature checks, no recursion into submodules, no automatic gc or maintenance, no transport at all;
- the drivers the configuration defines, whatever their names: `git config --list -z` (includes followed; reading
  configuration runs nothing) is read first, in the same place and environment, and every `filter.<x>.clean`,
  `.smudge`, `.process`, `diff.<x>.textconv`, `.command` and `merge.<x>.driver` is emptied (a filter also made not
  `required`, or git would refuse to work without it). A configuration git cannot read is a refusal (`GitRefused`),
  never a run without this.

That holds for every scope, the person's own global and system settings too. The cost: Git LFS (a filter) does not
run in agentui's calls, so a snapshot holds an LFS file's real content as it is in the work tree, and a worktree made
for parallel attempts holds LFS pointer files, not the content; a clone for an evaluation likewise.

Inherited `GIT_*` variables (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_EXEC_PATH...) are
dropped, but for GIT_CEILING_DIRECTORIES, which can only narrow where git looks for a repository. PATH keeps only
absolute entries (a relative one would let a `git` in the project be run), stdin is /dev/null unless input is given,
and the transports a call may use (only an evaluation's clone uses any) are also named in GIT_ALLOW_PROTOCOL, which
git obeys over any `protocol.<name>.allow` a configuration sets.

Over the file transport git starts upload-pack in the other repository without any GIT_CONFIG_* variable (connect.c
clears them), so there it reads the system, global and that repository's config unchanged. The one program upload-pack
can be told to run is `uploadpack.packObjectsHook`, which git takes only from system or global config (never a
repository's), and only when it makes a pack: a clone of a plain path copies the objects and makes none, which is
why an evaluation clones `file://` URLs as paths.

What remains: a file the configuration includes that changes between the listing and the command (a sandboxed command
can write only such a file in the project, not .git/config) could define a driver the listing did not see; and
`core.gitProxy` cannot be overridden (git keeps the first matching value), so a clone over git:// is not allowed
while one is set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

from agentui.core.errors import AgentuiError

FAILS = "false"
"""The program named wherever git wants an editor or a signature program: it does nothing and fails."""
NEUTRAL: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),  # (git looks for /dev/null/<hook>, which cannot exist)
    ("core.pager", "cat"),
    ("core.editor", FAILS),
    ("sequence.editor", FAILS),
    ("credential.helper", ""),  # (an empty value empties the list of helpers so far, URL-specific ones included)
    ("core.sshCommand", ""),
    ("core.askPass", ""),  # (empty, not unset: unset, git would fall back to SSH_ASKPASS)
    ("core.gitProxy", ""),
    ("core.alternateRefsCommand", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("tag.forceSignAnnotated", "false"),
    ("log.showSignature", "false"),
    ("gpg.program", FAILS),
    ("gpg.openpgp.program", FAILS),
    ("gpg.x509.program", FAILS),
    ("gpg.ssh.program", FAILS),
    ("gpg.ssh.defaultKeyCommand", FAILS),
    ("diff.external", ""),
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("protocol.allow", "never"),
)
"""Settings every call gets, after the configuration's own, so they win."""
TRANSPORTS = frozenset({"file", "https", "ssh", "git"})
"""What a clone of a task's repository may use (`protocols`); every other call uses none."""
DRIVER_PROGRAMS = {"filter": ("clean", "smudge", "process"), "diff": ("textconv", "command"), "merge": ("driver",)}
"""Per kind of driver that `.gitattributes` selects by name, the settings that name its programs."""
OPTIONS: dict[str, tuple[str, ...]] = {
    "status": ("--ignore-submodules=all",),
    "diff": ("--no-ext-diff", "--no-textconv", "--ignore-submodules=all"),
    "diff-files": ("--no-ext-diff", "--no-textconv", "--ignore-submodules=all"),
    "diff-index": ("--no-ext-diff", "--no-textconv", "--ignore-submodules=all"),
    "diff-tree": ("--no-ext-diff", "--no-textconv"),
    "log": ("--no-ext-diff", "--no-textconv", "--no-show-signature"),
    "show": ("--no-ext-diff", "--no-textconv", "--no-show-signature"),
}
"""Options put right after a subcommand: no external diff, no textconv, no signature checks, and git never
descends into a submodule, where that submodule's own configuration would apply."""


class GitError(AgentuiError):
    """git was not run, or did not finish; the message says why in one sentence."""


class GitMissing(GitError):
    """No git on PATH."""


class GitRefused(GitError):
    """git was not run because it could not be confined: its configuration cannot be read, or git is too old."""


def run(
    args: Sequence[str],
    *,
    cwd: Path,
    timeout: float,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    config: Mapping[str, str] | None = None,
    reads: bool = False,
    protocols: Collection[str] = (),
) -> subprocess.CompletedProcess[bytes]:
    """`git <args>` in `cwd`, confined; its output and exit status, whatever the status. `env` adds variables (an
    index file, an identity), `config` settings (they cannot undo the confinement: it comes after them); `reads`
    says the command only looks (no optional locks); `protocols` are the transports it may use (a subset of
    TRANSPORTS). Raises GitError when git is missing, cannot start, takes longer than `timeout` seconds (each of
    the two processes) or its configuration cannot be read."""
    if not args:
        raise ValueError("run needs a git subcommand")
    if not set(protocols) <= TRANSPORTS:
        raise ValueError(f"unknown transports: {sorted(set(protocols) - TRANSPORTS)}")
    git, given = _program(), [*(config or {}).items(), *NEUTRAL]
    listed = _configuration(git, cwd, _environment(env, reads, (), given), timeout, args[0])
    allowed = set(protocols)
    if any(key == "core.gitproxy" and value for key, value in listed):
        allowed.discard("git")  # (git keeps the first core.gitProxy it reads: ours, read last, cannot replace it)
    settings = [*given, *_neutralising(dict(listed), allowed), *_opted_in(allowed)]
    command = [git, "--no-pager", args[0], *OPTIONS.get(args[0], ()), *args[1:]]
    return _started(command, cwd, _environment(env, reads, allowed, settings), timeout, input, args[0])


def complaint(done: subprocess.CompletedProcess[bytes]) -> str:
    """git's last line on stderr, or its exit status."""
    said = done.stderr.decode(errors="replace").strip().splitlines()
    return said[-1].strip().rstrip(".") if said else f"exit status {done.returncode}"


def _program() -> str:
    found = shutil.which("git", path=_absolute_path(os.environ.get("PATH", os.defpath)))
    if found is None:
        raise GitMissing("git is not installed (it is not on PATH).")
    return found


def _absolute_path(path: str) -> str:
    return os.pathsep.join(entry for entry in path.split(os.pathsep) if os.path.isabs(entry))


def _environment(
    extra: Mapping[str, str] | None, reads: bool, protocols: Collection[str], settings: Sequence[tuple[str, str]]
) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    if "GIT_CEILING_DIRECTORIES" in os.environ:
        env["GIT_CEILING_DIRECTORIES"] = os.environ["GIT_CEILING_DIRECTORIES"]
    env["PATH"] = _absolute_path(env.get("PATH", os.defpath))
    env.update(extra or {})
    env.update(GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", GIT_ALLOW_PROTOCOL=":".join(sorted(protocols)) or "none")
    if reads:
        env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_CONFIG_COUNT"] = str(len(settings))
    for number, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{number}"] = key
        env[f"GIT_CONFIG_VALUE_{number}"] = value
    return env


def _opted_in(allowed: Collection[str]) -> list[tuple[str, str]]:
    """The chosen transports allowed again, after the configuration's and NEUTRAL's refusals."""
    pairs = [(f"protocol.{name}.allow", "always") for name in sorted(allowed)]
    if "ssh" in allowed:
        pairs.append(("core.sshCommand", "ssh"))  # (plain ssh, not a command any configuration names)
    return pairs


def _configuration(git: str, cwd: Path, env: dict[str, str], timeout: float, subcommand: str) -> list[tuple[str, str]]:
    """Every setting git reads in `cwd`, includes followed, in order: (name, value), the name's section and variable
    in lower case, its subsection as written."""
    done = _started([git, "--no-pager", "config", "--list", "-z"], cwd, env, timeout, None, subcommand)
    if done.returncode != 0:
        raise GitRefused(
            f"agentui did not run git {subcommand} in {cwd}, because git cannot read the configuration there "
            f"({complaint(done)})."
        )
    listed = [
        (key, value)
        for entry in done.stdout.decode(errors="surrogateescape").split("\0")
        if entry
        for key, _, value in [entry.partition("\n")]  # (a name cannot hold a newline; a value can)
    ]
    if dict(listed).get("core.hookspath") != os.devnull:  # (ours come last: a git that ignored them is too old)
        raise GitRefused(
            f"agentui did not run git {subcommand}, because git is older than 2.31 and cannot be confined."
        )
    return listed


def _neutralising(listed: Iterable[str], allowed: Collection[str]) -> list[tuple[str, str]]:
    """For the settings found: every driver program emptied, every transport not chosen refused, and the hooks that
    newer git reads from `hook.<name>.*` turned off."""
    found: list[tuple[str, str]] = []
    for key in listed:
        section, _, rest = key.partition(".")
        name, _, variable = rest.rpartition(".")
        if not name:
            continue
        if variable in DRIVER_PROGRAMS.get(section, ()):
            found.append((key, ""))
            if section == "filter":
                found.append((f"filter.{name}.required", "false"))
        elif section == "protocol" and variable == "allow" and name not in allowed:
            found.append((key, "never"))
        elif section == "hook":
            found.append((f"hook.{name}.enabled", "false"))
    return found


def _started(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float, data: bytes | None, subcommand: str
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            env=env,
            input=data,
            stdin=subprocess.DEVNULL if data is None else None,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git {subcommand} took longer than {timeout:.0f} s in {cwd}.") from None
    except OSError as exc:
        raise GitError(f"git {subcommand} could not be started in {cwd} ({exc.strerror or exc}).") from None

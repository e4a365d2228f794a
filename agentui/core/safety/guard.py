"""The guard: what holds every Bash command agentui runs outside the sandbox (the sandbox off or unable to run, an
`excludedCommands` program, `dangerouslyDisableSandbox`). bypassPermissions still guards the keys to the house:
agentui's own state (trust list, MCP approvals, config), shell start-up files, global and local git config and
hooks (`core.hooksPath` included), and the project's protected paths are never written without a question.

It is bubblewrap with the whole file system writable as usual (`--bind / /`, the host's /dev), the network as
usual, a PID namespace of its own (what the command leaves running ends with it), and read-only binds, or stand-ins
where they are missing, over those paths. When the person answered a question that named the write, the Bash tool
runs that one call without it (`ToolContext.protection_lifted`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.safety.confined import Confined
from agentui.core.workspace import Workspace

if TYPE_CHECKING:
    from agentui.core.safety.denied_files import DeniedFiles, DenyPattern
    from agentui.core.safety.guarded_paths import Target
    from agentui.core.safety.sandbox_mounts import Masks

# A root agentui's commands keep root's capabilities under the guard (package managers need them), except these,
# with which a mount could be undone or walked around (open_by_handle_at, raw devices, modules, ptrace, BPF).
ESCAPES = {
    "CAP_DAC_READ_SEARCH": 2,
    "CAP_SYS_MODULE": 16,
    "CAP_SYS_RAWIO": 17,
    "CAP_SYS_PTRACE": 19,
    "CAP_SYS_ADMIN": 21,
    "CAP_SYS_BOOT": 22,
    "CAP_MKNOD": 27,
    "CAP_MAC_ADMIN": 33,
    "CAP_PERFMON": 38,
    "CAP_BPF": 39,
}
_BASE = ["--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--unshare-pid", "--die-with-parent"]


@functools.cache
def _probe(bwrap: str) -> tuple[bool, bool]:
    """(the guard can run here, with a /proc of its own)."""
    for proc in (["--proc", "/proc"], []):
        try:
            done = subprocess.run([bwrap, *_BASE, *proc, "--", "/bin/true"], capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return False, False
        if done.returncode == 0:
            return True, bool(proc)
    return False, False


def guard_available() -> bool:
    """bubblewrap is installed and can create the guard's namespaces here (else the permission engine asks before a
    command the guard would have held)."""
    bwrap = shutil.which("bwrap")
    return sys.platform.startswith("linux") and bwrap is not None and _probe(bwrap)[0]


class Guard:
    def __init__(self, workspace: Workspace, *, home: Path | None = None, env: Mapping[str, str] | None = None) -> None:
        from agentui.core.safety.denied_files import DeniedFinder

        self.workspace = workspace
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.home = home or Path(self.env.get("HOME") or Path.home())
        self._bwrap = shutil.which("bwrap")
        self.read_denials: Callable[[], Sequence[DenyPattern]] = lambda: ()
        """The paths of the Read-family deny rules, asked before each command: the files they cover are masked under
        the guard as in the sandbox, so a deny rule holds for every program agentui starts, not only for what the
        permission check can see of a command."""
        self.edit_denials: Callable[[], Sequence[DenyPattern]] = lambda: ()
        """The paths of the Edit-family deny rules: what exists of them is read-only under the guard."""
        self._finder = DeniedFinder()
        self._edit_finder = DeniedFinder()
        self._nested_finder = DeniedFinder()

    @property
    def available(self) -> bool:
        return sys.platform.startswith("linux") and self._bwrap is not None and _probe(self._bwrap)[0]

    def wrap(self, argv: Sequence[str], *, cwd: Path, scratch: Path, env: Mapping[str, str] | None = None) -> Confined:
        """`argv` ready to run under the guard from `cwd`; call `ended()` on the result once the command has ended."""
        from agentui.core.safety.sandbox_mounts import (
            holds_any,
            launch,
            plan_protection,
            protection_args,
            protection_specs,
            within_any,
        )
        from agentui.core.safety.standin_excludes import excludes_env
        from agentui.core.safety.standins import standins_in
        from agentui.core.scratch_files import scratch_files

        assert self._bwrap is not None
        command_env = dict(os.environ if env is None else env)
        files = scratch_files(scratch)
        commands = files.commands_dir()
        found = self.denied()
        targets, excludes = self._targets(command_env, found)
        standins = standins_in(self.env)
        with standins.locked():  # (see `locked`)
            plan = plan_protection(
                targets,
                can_replace=lambda path: os.access(os.path.dirname(path) or "/", os.W_OK),
                can_write=lambda path: os.access(path, os.W_OK),
                standins=standins.in_place(),
            )
            lease = standins.acquire(plan.standins)
        confined = Confined([], {}, "guard", cleanups=[lambda: standins.release(lease)])
        try:
            masks = self._denied_masks(found)
            helper = self.mount_helper()
            specs: list[str] = []
            # (the helper's mounts come after bubblewrap's: a mask holding the scratch directory would hide it)
            kept = [os.path.realpath(scratch)]
            helped_masks = helper is not None and not any(holds_any(hidden, kept) for hidden in masks.tmpfs)
            if helper is not None:
                specs = masks.specs if helped_masks else []
                specs += protection_specs(plan, lease.present, hidden=lambda path: within_any(path, masks.tmpfs))
            drop = ",".join(str(number) for number in ESCAPES.values()) if os.geteuid() == 0 else "all"
            started = launch(helper, specs, list(plan.links), list(argv), cwd=str(cwd), drop=drop)
            args = [*self._start(), *self._capabilities(started.pinning)]
            if helper is None:
                args += protection_args(plan, lease.present)
            if not helped_masks:
                args += masks.args
            # (bubblewrap's mounts after its pins: a pin of /tmp, say, binds the host's /tmp again, over what was
            # bound inside it; the helper's binds take what the namespace shows, so they come last)
            args += ["--ro-bind", str(scratch), str(scratch), "--bind", str(commands), str(commands)]
            if not helped_masks:
                args += masks.remount  # (a mask holding the scratch directory: its binds made inside it first)
            args += ["--chdir", started.chdir, "--", *started.program]
            standin_files = [s.path for s in plan.standins if not s.directory and s.path in lease.present]
            added, private = excludes_env(standin_files, excludes, files, command_env)
            if private is not None:
                confined.cleanups.append(lambda: private.unlink(missing_ok=True))
        except BaseException:
            confined.ended()
            raise
        confined.argv, confined.env = args, {**command_env, **added}
        return confined

    def wrap_read_only(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> Confined:
        """`argv` under the guard with the whole file system read-only and the Read deny rules' files hidden: for a
        helper that reads the project and writes none of it (a language server; a cache it cannot write it does
        without). Nothing is writable, so no protected path needs a stand-in, and none appears in the project."""
        from agentui.core.safety.sandbox_mounts import capability_args

        assert self._bwrap is not None
        masks = self._denied_masks(self.denied())
        args = [
            self._bwrap,
            "--ro-bind",
            "/",
            "/",
            *_BASE[3:],
            *(["--proc", "/proc"] if _probe(self._bwrap)[1] else []),
        ]
        args += [*capability_args(False, drop_all=True), *masks.args, "--chdir", str(cwd), "--", *argv]
        return Confined(args, dict(env), "guard")

    def _targets(self, command_env: Mapping[str, str], found: DeniedFiles) -> tuple[list[Target], Path | None]:
        """What the guard holds: each project's (and nested repository's) protected paths, git's hooks and
        configuration, the person's start-up files and settings, what edit deny rules name, the directories on the way
        to what is masked (renamed, they would take it out of the next command's sight); and git's excludes file."""
        from agentui.core.safety.git_config_paths import git_config_paths
        from agentui.core.safety.guarded_paths import (
            Target,
            edit_denied_targets,
            home_targets,
            nested_repository_targets,
            project_targets,
        )
        from agentui.core.safety.sandbox_mounts import mask_targets

        targets: list[Target] = []
        excludes: Path | None = None
        for root in self.workspace.directories:
            targets += project_targets(root, missing_memory=False)
            targets += nested_repository_targets(root, self._nested_finder)
            git = git_config_paths(root, command_env)
            targets += [Target(path, True) for path in git.hooks]
            targets += [Target(path, False) for path in (*git.files, *git.includes)]
            excludes = excludes or git.excludes_file
        targets += home_targets(self.home, self.env)
        targets += edit_denied_targets(self._edit_finder.find(self.edit_denials()))
        mine = [*(str(d) for d in self.workspace.directories), str(self.home)]
        targets += mask_targets([*found.files, *found.directories], mine)
        return targets, excludes

    def _start(self) -> list[str]:
        assert self._bwrap is not None
        return [self._bwrap, *_BASE, *(["--proc", "/proc"] if _probe(self._bwrap)[1] else [])]

    def _capabilities(self, pinning: bool) -> list[str]:
        from agentui.core.safety.sandbox_mounts import capability_args

        kept = {"CAP_SYS_ADMIN", "CAP_SETPCAP"} if pinning else set()
        return capability_args(pinning, drop_all=False, escapes=[e for e in ESCAPES if e not in kept])

    def mount_helper(self) -> str | None:
        """The mount helper, where it can be built and run here (see `mount_helper`)."""
        from agentui.core.safety.mount_helper import mount_helper

        return mount_helper((*self._start(), *self._capabilities(True)), self.env)

    def denied(self) -> DeniedFiles:
        """The existing files and directories the Read deny rules cover now."""
        return self._finder.find(self.read_denials())

    def _denied_masks(self, found: DeniedFiles) -> Masks:
        """/dev/null over each denied file, an empty read-only tmpfs over each denied directory (except one that holds
        the project: hiding it would hide the project). A denied directory the command starts in is hidden too: the
        command starts in the empty directory (a deny rule wins over the convenience of the working directory)."""
        from agentui.core.safety.sandbox_mounts import Masks, holds_any

        keep = [str(d) for d in self.workspace.directories]
        masks = Masks()
        for directory in found.directories:
            if not holds_any(directory, keep):
                masks.hide(directory)
        for file in found.files:
            masks.hide(file)
        return masks

"""The operating-system sandbox for Bash, as Claude Code's `sandbox` settings describe it. On Linux every command
runs inside bubblewrap, and the sandbox enforces what the rules say, not only a file-system layout:

- writes go only to the project, the additional directories and a private temporary directory, and even there the
  protected paths (`guarded_paths.py`: the .git directory and what in it runs code, agent and editor configuration,
  memory files) cannot be written, created, renamed or replaced, existing or not (stand-ins, `standins.py`);
- files the Read deny rules cover are masked (`denied_files.py`), and credentials hidden wherever they live
  (`sandbox_hidden.py`);
- no Unix socket outside can be reached (a seccomp filter, `sandbox_seccomp.py`; socket variables are not passed
  in), no network but the allowed domains (through agentui's filtering proxy, `sandbox_proxy.py`), and its own
  process namespace (agentui's environment, with the provider keys, cannot be read through /proc).

macOS would do the same with Seatbelt (`sandbox-exec` and a generated profile); see CONTRIBUTING.md. Elsewhere, or
where bubblewrap cannot create its namespaces, the sandbox says so once and Bash falls back to asking before each
command.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.safety.confined import Confined
from agentui.core.workspace import Workspace

if TYPE_CHECKING:
    from agentui.core.safety.denied_files import DeniedFiles, DenyPattern
    from agentui.core.safety.guarded_paths import Target
    from agentui.core.safety.sandbox_hidden import Hidden
    from agentui.core.safety.sandbox_mounts import Protection
    from agentui.core.safety.sandbox_proxy import DomainProxy
    from agentui.core.scratch_files import ScratchFiles

PROXY_PORT = 3128

KERNEL_VIEWS = ("/proc", "/sys", "/dev")
"""The kernel's views of processes, of its own settings and of devices: the sandbox gives commands views of their own
(their processes, a few devices, /sys read-only), which no writable directory may uncover (`--add-dir /`) or open."""


_OWN_VIEWS = ("--dev", "/dev", "--proc", "/proc")


def _shown_again(exposed: Sequence[Path], denied_directories: Sequence[str]) -> list[str]:
    """The tool directories shown again inside a hidden `$XDG_CONFIG_HOME`, resolved: each only where it is itself
    there, not a link (one a command planted, `pip -> ~/.ssh`, shows nothing), and where no deny rule covers it."""
    from agentui.core.safety.sandbox_mounts import within_any

    found = []
    for path in exposed:
        real = os.path.realpath(path)
        itself = real == os.path.join(os.path.realpath(path.parent), path.name) and os.path.exists(real)
        if itself and not within_any(real, denied_directories):
            found.append(real)
    return found


@dataclass(frozen=True)
class SandboxConfig:
    """Claude Code's `sandbox` settings block (the keys it has that agentui uses)."""

    enabled: bool = False
    auto_allow: bool = True
    """`autoAllowBashIfSandboxed`: a sandboxed command runs without a question unless a deny or ask rule matches."""
    excluded_commands: tuple[str, ...] = ()
    """`excludedCommands`: programs that run outside the sandbox (through the usual permission checks)."""
    allow_unsandboxed: bool = True
    """`allowUnsandboxedCommands`: whether `dangerouslyDisableSandbox` may take a command out (it always asks)."""
    allowed_domains: tuple[str, ...] = ()
    """`network.allowedDomains`: hosts reachable through agentui's filtering proxy; none means no network."""
    allow_all_unix_sockets: bool = False
    """`network.allowAllUnixSockets`: no seccomp filter on Unix sockets (taken from the person's own settings only)."""

    @classmethod
    def merged(cls, blocks: Sequence[Any]) -> SandboxConfig:
        """From the `sandbox` blocks of the settings files, lowest precedence first; a later key wins."""
        values: dict[str, Any] = {}
        network: dict[str, Any] = {}
        for block in blocks:
            if isinstance(block, dict):
                values.update(block)
                if isinstance(block.get("network"), dict):
                    network.update(block["network"])
        excluded = values.get("excludedCommands")
        domains = network.get("allowedDomains")
        return cls(
            allowed_domains=tuple(d for d in domains if isinstance(d, str)) if isinstance(domains, list) else (),
            enabled=values.get("enabled") is True,
            auto_allow=values.get("autoAllowBashIfSandboxed", True) is not False,
            excluded_commands=tuple(c for c in excluded if isinstance(c, str)) if isinstance(excluded, list) else (),
            allow_unsandboxed=values.get("allowUnsandboxedCommands", True) is not False,
            allow_all_unix_sockets=network.get("allowAllUnixSockets") is True,
        )


@functools.cache
def _probe(bwrap: str) -> str | None:
    """None if bubblewrap can make its namespaces here, else why not (one sentence)."""
    try:
        done = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "/bin/true"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not be started ({exc})"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot create its namespaces here ({said[-1] if said else 'exit ' + str(done.returncode)})"
    return None


class Sandbox:
    def __init__(
        self,
        config: SandboxConfig,
        workspace: Workspace,
        *,
        home: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        from agentui.core.safety.denied_files import DeniedFinder

        self.config = config
        self.workspace = workspace
        self.home = home or Path.home()
        self.env: Mapping[str, str] = os.environ if env is None else env
        """agentui's own environment: where credentials are (the variables naming them are kept from commands)."""
        self._bwrap = shutil.which("bwrap")
        self.proxy: DomainProxy | None = None
        self.read_denials: Callable[[], Sequence[DenyPattern]] = lambda: ()
        """Set when the project is opened: the paths of the Read-family deny rules, asked again before each command
        (a rule added during the session counts)."""
        self.edit_denials: Callable[[], Sequence[DenyPattern]] = lambda: ()
        """The paths of the Edit-family deny rules: what exists of them is read-only in the sandbox."""
        self._finder = DeniedFinder()
        self._edit_finder = DeniedFinder()
        self._nested_finder = DeniedFinder()

    async def start_network(self, scratch: Path) -> None:
        """With allowed domains, the filtering proxy the sandbox reaches them through (started once)."""
        if self.config.allowed_domains and self.proxy is None:
            from agentui.core.safety.sandbox_proxy import DomainProxy

            proxy = DomainProxy(self.config.allowed_domains, scratch / "proxy.sock")
            await proxy.start()
            self.proxy = proxy

    @property
    def enabled(self) -> bool:
        return self.config.enabled

    def problem(self) -> str | None:
        """Why the sandbox, though enabled, cannot run commands here; None if it can (or is off)."""
        if not self.config.enabled:
            return None
        if not sys.platform.startswith("linux"):
            return f"the sandbox is not available on {sys.platform} yet"
        if self._bwrap is None:
            return "bubblewrap (bwrap) is not installed; install it (apt install bubblewrap) to use the sandbox"
        if not self.config.allow_all_unix_sockets:
            from agentui.core.safety.sandbox_seccomp import problem

            if (why := problem()) is not None:
                return why
        return _probe(self._bwrap)

    @property
    def active(self) -> bool:
        """Commands run sandboxed: enabled, and it works here."""
        return self.config.enabled and self.problem() is None

    def excluded(self, command: str) -> bool:
        """The command is one that `excludedCommands` takes out of the sandbox: exactly one program, with plain
        arguments, whose words begin with an entry's (`docker` covers `docker ps`; `npm run build` only that). A
        command chained, piped, redirected or substituted around it runs sandboxed (or asks), so an excluded
        program cannot carry anything else out with it."""
        if not self.config.excluded_commands:
            return False
        from agentui.core.safety.permissions.understand import plain_command

        words = plain_command(command)
        if not words:
            return False
        for entry in self.config.excluded_commands:
            wanted = entry.removesuffix(":*").removesuffix(" *").split()
            if wanted and words[: len(wanted)] == wanted:
                return True
        return False

    def runs_inside(self, command: str, *, disable: bool = False) -> bool:
        """Whether this command runs sandboxed: the sandbox works here, the command is not excluded, and it did not
        ask (with `dangerouslyDisableSandbox`, where the settings let it) to run outside."""
        if not self.active or (disable and self.config.allow_unsandboxed):
            return False
        return not self.excluded(command)

    # What the deny rules cover

    def denied(self) -> DeniedFiles:
        """The existing files and directories the Read deny rules cover now (masked in each command)."""
        from dataclasses import replace

        from agentui.core.safety.sandbox_mounts import holds_any

        found = self._finder.find(self.read_denials())
        roots = [str(directory) for directory in self.workspace.directories]
        holding = next((d for d in found.directories if holds_any(d, roots)), None)
        if holding is not None and found.complete:
            found = replace(
                found,
                complete=False,
                reason=f"a deny rule covers {holding}, which holds the project the sandbox must leave readable",
            )
        return found

    @property
    def enforces_denies(self) -> bool:
        """Every file the Read deny rules cover is masked in the sandbox (the enumeration was complete)."""
        return self.denied().complete

    def denies_problem(self) -> str | None:
        """When not every denied file can be masked: why, in one sentence (None when they all are)."""
        found = self.denied()
        if found.complete:
            return None
        return f"The sandbox cannot mask every file the deny rules cover: {found.reason}."

    @property
    def denied_inodes(self) -> frozenset[tuple[int, int]]:
        """(st_dev, st_ino) of every denied regular file: a hard link to one is the same file under another name."""
        return self.denied().inodes

    @property
    def guard_available(self) -> bool:
        """Commands outside the sandbox can run under the guard here (see `agentui.core.safety.guard`)."""
        from agentui.core.safety.guard import guard_available

        return guard_available()

    # The command line

    def wrap(self, argv: Sequence[str], *, cwd: Path, scratch: Path, env: Mapping[str, str] | None = None) -> Confined:
        """`argv` ready to run in the sandbox from `cwd`, with the command environment `env`. Stand-ins are made
        now: call `ended()` on the result once the command has ended (and `started()` once it has started)."""
        from agentui.core.safety.guarded_paths import home_targets
        from agentui.core.safety.sandbox_hidden import hidden, pointed_credentials
        from agentui.core.safety.sandbox_mounts import (
            capability_args,
            launch,
            mask_targets,
            plan_protection,
            within_any,
        )
        from agentui.core.safety.standins import standins_in
        from agentui.core.scratch_files import scratch_files

        assert self._bwrap is not None
        command_env = dict(os.environ if env is None else env)
        files = scratch_files(scratch)
        commands = files.commands_dir()
        directories = [str(d) for d in self.workspace.directories if not within_any(str(d), KERNEL_VIEWS)]
        writable = [*directories, str(commands)]
        targets, excludes = self._protected_targets(command_env)
        # The person's own (start-up files, git's settings) where a writable directory holds them: a home directory
        # added with --add-dir must not make them writable. (Those among the hidden paths are masked read-only.)
        merged = {**self.env, **command_env}
        secrets = hidden(self.home, merged)
        if merged != dict(self.env):  # (a project's `env` setting moves nothing out of sight: both are hidden)
            secrets = secrets.joined(hidden(self.home, self.env))
        held = [
            (t, real)
            for t in home_targets(self.home, self.env)
            if within_any(real := os.path.realpath(t.path), writable)
        ]
        if held:  # (rare: resolving every hidden path is most of a command's planning)
            masked = [os.path.realpath(p) for p in secrets.paths]
            targets += [target for target, real in held if not within_any(real, masked)]
        denied = self.denied()
        # What is masked inside a writable directory is held there (a directory renamed on the way would take it
        # out of the next command's sight): a deny rule's, a credential the environment names, a home added whole.
        inside = [*denied.files, *denied.directories, *pointed_credentials(merged), *pointed_credentials(self.env)]
        targets += mask_targets([*inside, *(secrets.paths if held else ())], writable)
        standins = standins_in(self.env)
        with standins.locked():  # (see `locked`)
            plan = plan_protection(
                targets,
                can_replace=lambda path: within_any(os.path.dirname(path), writable),
                can_write=lambda path: within_any(path, writable),
                standins=standins.in_place(),
            )
            lease = standins.acquire(plan.standins)
        confined = Confined([], {}, "sandbox", cleanups=[lambda: standins.release(lease)])
        try:
            helper = self.mount_helper()
            mounts, specs = self._mounts(secrets, denied, writable, plan, lease.present, helper)
            program, filter_args = self._filtered(argv, confined)
            started = launch(helper, specs, list(plan.links), program, cwd=str(cwd), drop="all", own_dev=True)
            args = [*self._start(), *mounts, *filter_args]
            args += capability_args(started.pinning, drop_all=True, own_dev=True)
            args += ["--chdir", started.chdir, "--", *started.program]
            out_env = self._environment(command_env, commands, plan, lease.present, excludes, files, confined)
        except BaseException:
            confined.ended()
            raise
        confined.argv, confined.env = args, out_env
        return confined

    def _protected_targets(self, command_env: Mapping[str, str]) -> tuple[list[Target], Path | None]:
        """What cannot be written in the sandbox: each project's (and each nested repository's) protected paths,
        git's hooks and configuration files, and the files edit deny rules name; and git's excludes file."""
        from agentui.core.safety.git_config_paths import git_config_paths
        from agentui.core.safety.guarded_paths import (
            Target,
            edit_denied_targets,
            nested_repository_targets,
            project_targets,
        )

        targets: list[Target] = []
        excludes: Path | None = None
        for root in self.workspace.directories:
            targets += project_targets(root)
            targets += nested_repository_targets(root, self._nested_finder)
            git = git_config_paths(root, command_env)
            targets += [Target(path, True) for path in git.hooks]
            targets += [Target(path, False) for path in (*git.files, *git.includes)]
            excludes = excludes or git.excludes_file
        targets += edit_denied_targets(self._edit_finder.find(self.edit_denials()))
        return targets, excludes

    def _start(self) -> list[str]:
        assert self._bwrap is not None
        return [self._bwrap, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", *_OWN_VIEWS]

    def mount_helper(self) -> str | None:
        """The mount helper, where it can be built and run here (see `mount_helper`)."""
        from agentui.core.safety.mount_helper import mount_helper
        from agentui.core.safety.sandbox_mounts import capability_args, user_options

        probe = (*self._start(), *capability_args(True, drop_all=True, own_dev=True))
        return mount_helper(probe, self.env, tuple(user_options(own_dev=True)))

    def _mounts(
        self,
        secrets: Hidden,
        denied: DeniedFiles,
        writable: list[str],
        plan: Protection,
        present: set[Path],
        helper: str | None,
    ) -> tuple[list[str], list[str]]:
        """The mounts over the read-only root, as bubblewrap's options: `secrets` and denied files masked (those
        inside a writable directory after it is bound, so that its bind cannot uncover them), the writable
        directories, the protections; and the protections as the mount `helper`'s specs, where there is one (it
        makes them last, on what the namespace shows then)."""
        from agentui.core.safety.sandbox_mounts import (
            Masks,
            protection_args,
            protection_specs,
            split_masks,
            within_any,
        )

        before, after = Masks(), Masks()
        first, then = split_masks([*secrets.paths, *denied.directories], writable)
        shown = _shown_again(secrets.exposed, [os.path.realpath(d) for d in denied.directories])
        # (what is hidden inside a tool's directory shown again is hidden after it: a secret or a denied file wins)
        inside = [real for real in then if within_any(real, shown)]
        for real in first:
            before.hide(real)
        for real in then:
            if real not in inside:
                after.hide(real)
        for real in shown:
            after.expose(real)
        again: list[Path | str] = [*inside, *secrets.paths_after, *denied.files]
        for path in again:
            after.hide(path)
        # The helper hides after bubblewrap's mounts (and before its own protections), showing again what it took
        # before hiding: not where what it shows is under one of bubblewrap's masks already.
        helped = helper is not None and not any(within_any(real, before.tmpfs) for real in after.shown)
        masked_first = [*before.tmpfs, *([] if helped else after.tmpfs)]
        args = list(before.args)
        for directory in writable:
            args += ["--bind", directory, directory]
        if any(within_any(view, writable) for view in KERNEL_VIEWS):  # (`/` is writable: its binds hold the host's)
            args += [*_OWN_VIEWS, "--ro-bind", "/sys", "/sys"]
        if helper is None:
            args += protection_args(plan, present)
        if not helped:
            args += after.args
        if helper is not None and within_any(binary := os.path.realpath(helper), masked_first):
            args += ["--ro-bind", binary, binary]  # (in agentui's data directory, which is hidden: the helper alone)
        args += [*before.remount, *([] if helped else after.remount)]
        if helper is None:
            return args, []

        def covered(path: str) -> bool:
            """Under one of bubblewrap's masks made before the writable binds, where none of them uncovers it."""
            return within_any(path, before.tmpfs) and not within_any(path, writable)

        def hidden(path: str) -> bool:
            return within_any(path, after.tmpfs) or covered(path)

        masks = [spec for spec in after.specs if not covered(spec[1:])] if helped else []
        return args, [*masks, *protection_specs(plan, present, hidden=hidden)]

    def _filtered(self, argv: Sequence[str], confined: Confined) -> tuple[list[str], list[str]]:
        """The program to run, and bwrap's arguments for it: behind the proxy's bridge when the network goes through
        it, with the seccomp filter that refuses Unix sockets outside (the bridge loads it, or bwrap does from a
        descriptor passed to it)."""
        program, args = list(argv), []
        filtered = not self.config.allow_all_unix_sockets
        if self.proxy is not None:  # the command's loopback port leads to the proxy, and only there
            from agentui.core.safety.sandbox_seccomp import unix_socket_filter

            bridge = Path(__file__).with_name("sandbox_bridge.py")
            seccomp = unix_socket_filter().hex() if filtered else "-"
            program = [sys.executable, "-I", "-S", str(bridge), str(self.proxy.socket_path), str(PROXY_PORT)]
            program += [seccomp, *argv]
        elif filtered:
            from agentui.core.safety.sandbox_seccomp import filter_fd

            fd = filter_fd()
            confined.pass_fds = (fd,)
            args += ["--seccomp", str(fd)]
        return program, args

    def _environment(
        self,
        command_env: Mapping[str, str],
        commands: Path,
        plan: Protection,
        present: set[Path],
        excludes: Path | None,
        files: ScratchFiles,
        confined: Confined,
    ) -> dict[str, str]:
        """The command's environment: without secrets, its TMPDIR agentui's own, the proxy's address, and git told
        to pass over the stand-ins."""
        from agentui.core.safety.environ import sandbox_environment
        from agentui.core.safety.standin_excludes import excludes_env

        out_env = sandbox_environment(command_env)
        out_env["TMPDIR"] = str(commands)
        if self.proxy is not None:
            address = f"http://127.0.0.1:{PROXY_PORT}"
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
                out_env[name] = address
            out_env["NO_PROXY"] = out_env["no_proxy"] = ""
        standin_files = [s.path for s in plan.standins if not s.directory and s.path in present]
        added, private = excludes_env(standin_files, excludes, files, command_env)
        out_env.update(added)
        if private is not None:
            confined.cleanups.append(lambda: private.unlink(missing_ok=True))
        return out_env

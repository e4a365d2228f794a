"""Credentials a sandboxed command has no business reading (what it prints goes to the model), wherever they live:
in the home directory, in `$XDG_CONFIG_HOME` (hidden whole but for a few harmless tool configs), where environment
variables point, and agentui's own state (trusted projects, MCP approvals, config, logs)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentui.core.dirs import claude_config_dir, config_dir, data_dir, state_dir
from agentui.core.workspace import is_within

HIDDEN_IN_HOME = (
    # keys and agents
    ".ssh",
    ".gnupg",
    ".pki",
    ".password-store",
    ".local/share/keyrings",
    ".Xauthority",
    ".ICEauthority",
    ".vnc",
    # cloud and cluster CLIs
    ".aws",
    ".azure",
    ".kube",
    ".minikube",
    ".docker",
    ".oci",
    ".aliyun",
    ".bluemix",
    ".ibmcloud",
    ".pulumi",
    ".fly",
    ".wrangler",
    ".s3cfg",
    ".boto",
    ".databrickscfg",
    ".snowflake",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".terraformrc",
    # package registries and version control
    ".netrc",
    ".npmrc",
    ".yarnrc",
    ".pypirc",
    ".git-credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".ivy2/.credentials",
    ".composer/auth.json",
    ".nuget/NuGet/NuGet.Config",
    ".huggingface/token",
    ".cache/huggingface/token",
    # databases
    ".pgpass",
    ".my.cnf",
    ".mylogin.cnf",
    # other agents' credentials and transcripts (every tool result of every project, file snapshots)
    ".claude.json",
    ".claude.json.backup",
    ".claude",
    ".codex",
    ".gemini",
    ".aider.chat.history.md",
    # more tools' tokens and keys
    ".dbt",
    ".android/adbkey",
    ".cloudflared",
    ".tsh",
    ".mc",
    ".sentryclirc",
    ".bundle/config",
    ".circleci",
    ".pub-cache/credentials.json",
    ".sbt/.credentials",
    ".ansible",
    ".hgrc",
    # shell and REPL histories (they hold the secrets people typed)
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".history",
    ".sh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".irb_history",
    ".pry_history",
    ".Rhistory",
    ".lesshst",
    ".viminfo",
    ".ipython/profile_default/history.sqlite",
    ".julia/logs/repl_history.jl",
    # browser profiles (cookies, saved passwords), deleted files
    ".mozilla",
    ".thunderbird",
    ".var/app",
    "snap/firefox",
    "snap/chromium",
    ".local/share/Trash",
)
# Environment variables that name a credentials file or directory (KUBECONFIG is a list).
POINTED_AT_BY = (
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "CLOUDSDK_CONFIG",
    "KUBECONFIG",
    "DOCKER_CONFIG",
    "DOCKER_CERT_PATH",
    "AZURE_CONFIG_DIR",
    "AZURE_AUTH_LOCATION",
    "OCI_CLI_CONFIG_FILE",
    "GNUPGHOME",
    "NETRC",
    "GH_CONFIG_DIR",
    "NPM_CONFIG_USERCONFIG",
    "npm_config_userconfig",
    "PASSWORD_STORE_DIR",
    "TF_CLI_CONFIG_FILE",
    "BOTO_CONFIG",
    "PGPASSFILE",
    "MYSQL_HISTFILE",
    "PSQL_HISTORY",
    "NODE_REPL_HISTORY",
    "PYTHON_HISTORY",
    "HISTFILE",
    "SOPS_AGE_KEY_FILE",
    "ANSIBLE_VAULT_PASSWORD_FILE",
    "VAULT_CONFIG_PATH",
    "HF_TOKEN_PATH",
)
# In $XDG_CONFIG_HOME, hidden whole, these stay readable: configs that tools a command runs commonly need, holding
# settings, not secrets.
XDG_CONFIG_ALLOWED = (
    "git",  # git's config, ignore and attributes (its credentials file is hidden again below)
    "pip",  # index and cache settings; index credentials belong in a keyring or ~/.netrc, which are hidden
    "uv",  # the same for uv (uv.toml)
    "ruff",  # lint settings
    "black",  # formatter settings
    "mypy",  # type-checker settings
    "pycodestyle",  # style-checker settings
    "flake8",  # style-checker settings
    "matplotlib",  # matplotlibrc and styles: plots look as the person set them
    "fontconfig",  # which fonts exist: anything that draws text
    "clangd",  # C/C++ tooling settings
    "ccache",  # compiler cache settings
)
HIDDEN_IN_ALLOWED = ("git/credentials",)  # git-credential-store's second home
SYSTEM_SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd")
"""The system's password hashes: readable only to root, which is who runs agentui in a container or on CI."""


@dataclass(frozen=True)
class Hidden:
    """What the sandbox hides: `paths` (each a file or directory, behind /dev/null or an empty tmpfs), then
    `exposed` bound back read-only over the hidden `$XDG_CONFIG_HOME`, then `paths_after` hidden again inside them."""

    paths: tuple[Path, ...]
    exposed: tuple[Path, ...]
    paths_after: tuple[Path, ...]

    def joined(self, other: Hidden) -> Hidden:
        """Both hidden (what either shows again, shown, as long as the other does not hide it there)."""
        return Hidden(
            tuple(dict.fromkeys([*self.paths, *other.paths])),
            tuple(dict.fromkeys([*self.exposed, *other.exposed])),
            tuple(dict.fromkeys([*self.paths_after, *other.paths_after])),
        )


def hidden(home: Path, env: Mapping[str, str]) -> Hidden:
    paths = [home / name for name in HIDDEN_IN_HOME]
    claude = claude_config_dir(env)
    paths += [claude, claude.parent / ".claude.json"]  # (CLAUDE_CONFIG_DIR: agentui's sessions live there too)
    paths += pointed_credentials(env)
    paths += [config_dir(env), data_dir(env), state_dir(env)]  # trust list, MCP approvals, config, logs
    paths += _readable_system_secrets(home)
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    paths.append(xdg)
    exposed = tuple(xdg / name for name in XDG_CONFIG_ALLOWED)
    after = tuple(xdg / name for name in HIDDEN_IN_ALLOWED)
    return Hidden(tuple(dict.fromkeys(paths)), exposed, after)


class KeptOut:
    """What `hidden` hides, for the file tools and the permission check: the path of it a (resolved) path is in, where
    a working directory holds it (`--add-dir ~` names the home directory whole: its keys, tokens and histories are not
    the project's). Not where the person works inside one (a project in ~/.config); outside the working directories
    the engine asks anyway."""

    def __init__(self, home: Path, env: Mapping[str, str]) -> None:
        found = hidden(home, env)
        self._paths = tuple(os.path.realpath(p) for p in found.paths)
        self._exposed = tuple(os.path.realpath(p) for p in found.exposed)
        self._after = tuple(os.path.realpath(p) for p in found.paths_after)
        self._held: tuple[tuple[Path, ...], tuple[str, ...], tuple[str, ...]] = ((), (), ())

    def __call__(self, path: Path, directories: tuple[Path, ...]) -> Path | None:
        if self._held[0] != directories:  # (Grep asks for each file it finds: worked out once per set of directories)
            inside = [str(d) for d in directories]
            kept = tuple(p for p in self._paths if any(p != d and is_within(p, d) for d in inside))
            after = tuple(p for p in self._after if any(is_within(p, d) for d in inside))
            self._held = (directories, kept, after)
        _, kept, after = self._held
        text = str(path)
        if found := next((p for p in after if is_within(text, p)), None):
            return Path(found)
        found = next((p for p in kept if is_within(text, p)), None)
        if found is None or any(is_within(text, shown) for shown in self._exposed):
            return None
        return Path(found)


def pointed_credentials(env: Mapping[str, str]) -> list[Path]:
    """The credential files and directories the environment names, wherever they are (a project's own key file,
    say), and the Kerberos ticket cache: kept from the tools' reach even inside the project or an added directory."""
    paths = []
    for name in POINTED_AT_BY:
        for value in env.get(name, "").split(":" if name == "KUBECONFIG" else "\0"):
            path = Path(os.path.expanduser(value)) if value else None
            if path is not None and path.is_absolute():
                paths.append(path)
    cache = env.get("KRB5CCNAME", "")
    if cache.startswith(("FILE:", "/")):  # (a Kerberos ticket cache: a credential file)
        paths.append(Path(cache.removeprefix("FILE:")))
    else:
        paths.append(Path(f"/tmp/krb5cc_{os.getuid()}"))
    return paths


def _readable_system_secrets(home: Path) -> list[Path]:
    """What only root may read and a command must not: password hashes, the host's SSH keys, and (with HOME set
    elsewhere) root's own credentials. Only for root: to anyone else the kernel keeps them (and each costs a mount)."""
    if os.geteuid() != 0:
        return []
    import pwd

    found = [Path(name) for name in SYSTEM_SECRETS] + sorted(Path("/etc/ssh").glob("ssh_host_*_key"))
    root_home = Path(pwd.getpwuid(0).pw_dir)
    if root_home != home:
        found += [root_home / name for name in HIDDEN_IN_HOME]
    return found

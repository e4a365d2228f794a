"""Command line: parse the flags, resolve settings, and hand over to print mode or the interactive front end."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from agentui import __version__

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from agentui.api import AttemptConfig, PermissionOptions, Settings

EXIT_USAGE = 2


UNSUPPORTED = {
    "task-budget": "agentui does not send task budgets; --max-total-tokens limits a run's tokens",
    "session-mirror": "agentui writes its sessions itself and mirrors them nowhere",
    "resume-drops-turn": "agentui resumes a session whole or at a message (--resume-session-at)",
}
"""Flags of Claude Code's that the Agent SDKs may pass and agentui cannot honour: each is one sentence, not a
silently different run."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-v"], ["-V"]):  # answered before importing anything else
        print(f"{__version__} (agentui)")
        return 0
    return _run(args)


def _one_sentence_parser() -> type[argparse.ArgumentParser]:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            """A usage error as one sentence, the option meant where one is close, and where to read more, as Claude
            Code gives it (not the whole usage before it)."""
            meant = _option_meant(message, [o for action in self._actions for o in action.option_strings])
            self.exit(2, f"{self.prog}: {message}{meant}; `{self.prog} --help` lists the options.\n")

    return Parser


def _option_meant(message: str, options: list[str]) -> str:
    """ " (did you mean --verbose?)" for an unrecognised option close to one of `options`, else ""."""
    import difflib

    given = [word.split("=")[0] for word in message.partition(": ")[2].split() if word.startswith("--")]
    close = difflib.get_close_matches(given[0], options, n=1, cutoff=0.75) if given else []
    return f" (did you mean {close[0]}?)" if close else ""


def _build_parser() -> argparse.ArgumentParser:

    parser = _one_sentence_parser()(
        prog="agentui",
        description="A terminal coding assistant. Run it in a project directory, or use -p for one answer.",
    )
    _add_mode_and_output_flags(parser)
    _add_model_flags(parser)
    _add_limit_flags(parser)
    _add_permission_flags(parser)
    _add_session_flags(parser)
    return parser


def _add_mode_and_output_flags(parser: argparse.ArgumentParser) -> None:
    """What kind of run it is and what it prints."""
    parser.add_argument("prompt", nargs="?", help="what to ask; with -p, read from standard input when omitted")
    parser.add_argument(
        "-p",
        "--print",
        dest="print_mode",
        action="store_true",
        help="answer the prompt and exit, with no screen (for scripts and pipes)",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json", "events"),
        default=None,
        help="with -p: plain text (default), one JSON result, Claude Code's stream-json messages, or agentui's own "
        "events, one JSON line each",
    )
    parser.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="with stream-json: also the model's stream events as they arrive",
    )
    parser.add_argument(
        "--input-format",
        choices=("text", "stream-json", "commands"),
        default="text",
        help="stream-json: serve an Agent SDK program, reading its messages and control requests on stdin; "
        "commands: agentui's own commands, one JSON line each, answered by its events (see README)",
    )
    parser.add_argument(
        "--permission-prompt-tool",
        metavar="TOOL",
        help="with --input-format stream-json: 'stdio' asks the SDK program for each permission",
    )
    parser.add_argument(
        "--include-hook-events", action="store_true", help="with stream-json: a system message as each hook runs"
    )
    parser.add_argument(
        "--replay-user-messages", action="store_true", help="with stream-json: echo the user's messages back"
    )


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    """The model, its provider and what it is told."""
    parser.add_argument("--max-turns", type=_positive_int, metavar="N", help="with -p: stop after N model calls")
    parser.add_argument("--model", help="the model to use (default: per provider, or the config file's)")
    parser.add_argument(
        "--provider",
        choices=("anthropic", "bedrock", "vertex", "openai", "openai-responses", "gemini", "scripted"),
        help="the model API: Anthropic Messages (on Anthropic, Amazon Bedrock or Google Vertex AI), OpenAI-compatible "
        "chat completions, OpenAI's Responses API, Gemini, or a scripted replay",
    )
    parser.add_argument("--base-url", help="the API server's base URL (a local server, a proxy)")
    parser.add_argument("--script", metavar="FILE", help="the JSON script the scripted provider replays")
    parser.add_argument("--system-prompt", metavar="TEXT", help="replace the system prompt")
    parser.add_argument("--system-prompt-file", metavar="FILE", help="replace the system prompt with a file's text")
    parser.add_argument(
        "--append-system-prompt-file", metavar="FILE", help="add a file's text to the end of the system prompt"
    )
    parser.add_argument(
        "--setting-sources",
        metavar="SOURCES",
        help="which settings files to read: user, project, local, comma-separated (managed ones always apply)",
    )
    parser.add_argument("--settings", metavar="FILE_OR_JSON", help="one more settings file, above the local one")
    parser.add_argument(
        "--tools", metavar="TOOLS", help='the built-in tools the model may use, comma-separated ("default": all)'
    )
    parser.add_argument(
        "--strict-mcp-config", action="store_true", help="only the MCP servers of --mcp-config, none from settings"
    )
    parser.add_argument("-n", "--name", metavar="NAME", help="a title for the session")
    parser.add_argument(
        "--idle-rotate",
        type=_positive_float,
        metavar="MINUTES",
        help="a prompt after an idle gap this long (minutes) starts a new session, with a summary of the last",
    )
    parser.add_argument(
        "--no-session-persistence", action="store_true", help="with -p: keep no session file after the run"
    )


def _add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """Limits, thinking and parallel attempts."""
    import argparse

    parser.add_argument(
        "--max-budget-usd", type=_positive_float, metavar="USD", help="stop a run once it has spent this much"
    )
    parser.add_argument(
        "--max-total-tokens", type=_positive_int, metavar="N", help="stop a run once it has used N tokens (in and out)"
    )
    parser.add_argument(
        "--max-duration", type=_positive_float, metavar="SECONDS", help="stop a run once it has taken this long"
    )
    parser.add_argument(
        "--subagent-timeout",
        type=_positive_float,
        metavar="SECONDS",
        help="ask each sub-agent to wrap up at 80%% of this, and stop it at this",
    )
    parser.add_argument(
        "--agents", metavar="JSON", help='sub-agent types: {"name": {"description": ..., "prompt": ...}, ...}'
    )
    parser.add_argument(
        "--json-schema", metavar="SCHEMA", help="with -p: the answer as JSON following this schema (structured_output)"
    )
    parser.add_argument(
        "--wait-for-limits", action="store_true", help="with -p: wait out a usage limit until it resets, then go on"
    )
    parser.add_argument("--fallback-model", metavar="MODEL", help="go on with this model when the model is overloaded")
    parser.add_argument("--betas", metavar="BETAS", help="Messages API beta features to ask for, comma-separated")
    parser.add_argument(
        "--thinking", choices=("enabled", "adaptive", "disabled"), help="let the model think (default budget) or not"
    )
    parser.add_argument(
        "--plugin-dir",
        action="append",
        metavar="DIR",
        help="load the plugin in DIR for this session only (repeat for more)",
    )
    for flag in UNSUPPORTED:
        parser.add_argument(f"--{flag}", nargs="?", const="", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--attempts", type=_positive_int, metavar="N", help="with -p: try N times at once, in worktrees; keep the best"
    )
    parser.add_argument(
        "--evaluate",
        choices=("judge", "tokens", "first", "elaborate"),
        default="judge",
        help="how --attempts chooses: a model judges (default), fewest tokens, first done, or the most work",
    )
    parser.add_argument(
        "--attempt-models",
        metavar="MODELS",
        help="with --attempts: a model per attempt, comma-separated; provider:model for another provider",
    )
    parser.add_argument(
        "--attempt-configs",
        metavar="JSON",
        help='attempts as a JSON list: [{"model": ..., "system_append": ..., "thinking_budget": ...}, ...]',
    )
    parser.add_argument(
        "--max-thinking-tokens", type=_positive_int, metavar="N", help="let the model think, up to N tokens"
    )
    parser.add_argument(
        "--effort",
        choices=("low", "medium", "high", "xhigh", "max"),
        help="how hard the model works on each answer, in the provider's own terms",
    )
    parser.add_argument("--append-system-prompt", metavar="TEXT", help="add to the end of the system prompt")


def _add_permission_flags(parser: argparse.ArgumentParser) -> None:
    """Permissions, extra directories and MCP servers."""
    parser.add_argument(
        "--permission-mode",
        dest="permission_mode",
        choices=("default", "acceptEdits", "plan", "plan-queue", "bypassPermissions"),
        help="default asks before edits and commands; acceptEdits lets file edits in the project "
        "through; plan allows only read-only tools; plan-queue is plan mode that queues the model's edits for the "
        "plan's approval (you apply all, some or none); bypassPermissions allows all but deny rules",
    )
    parser.add_argument(
        "--dangerously-skip-permissions", action="store_true", help="the same as --permission-mode bypassPermissions"
    )
    parser.add_argument(
        "--allow-dangerously-skip-permissions",
        action="store_true",
        help="bypassPermissions becomes one of the modes Shift+Tab switches to, without starting in it",
    )
    parser.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed_tools",
        action="extend",
        nargs="+",
        default=[],
        metavar="RULES",
        help='allow rules, comma- or space-separated, e.g. "Bash(npm test:*)" Edit',
    )
    parser.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_tools",
        action="extend",
        nargs="+",
        default=[],
        metavar="RULES",
        help='deny rules, comma- or space-separated, e.g. "Bash(git push:*)"',
    )
    parser.add_argument(
        "--add-dir",
        dest="add_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="another directory the tools may work in (repeatable)",
    )
    parser.add_argument(
        "--mcp-config",
        dest="mcp_configs",
        action="extend",
        nargs="+",
        default=[],
        metavar="CONFIG",
        help='MCP servers from JSON files or JSON strings ({"mcpServers": ...})',
    )


def _add_session_flags(parser: argparse.ArgumentParser) -> None:
    """Which session: resumed, continued, forked, rewound or named, and what is reported."""
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="continue a session by id or .jsonl path; with no id, list this project's sessions",
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="continue the newest session of this project",
    )
    parser.add_argument(
        "--fork-session",
        action="store_true",
        help="with --resume or --continue: continue in a new session, leaving the old one as it was",
    )
    parser.add_argument(
        "--rewind",
        metavar="PROMPT_ID",
        help="with -p and --resume or --continue: first go back to before that prompt (its line's uuid): the files "
        "changed since and the conversation",
    )
    parser.add_argument(
        "--rewind-only",
        choices=("files", "conversation"),
        help="with --rewind: restore only the files, or only the conversation",
    )
    parser.add_argument(
        "--rewind-overwrite",
        action="store_true",
        help="with --rewind: overwrite files changed outside agentui since (refused otherwise)",
    )
    parser.add_argument("--session-id", metavar="UUID", help="the id of the new session")
    parser.add_argument(
        "--resume-session-at",
        metavar="UUID",
        help="with --resume: go on from that message of the session (its line's uuid), not from its end",
    )
    parser.add_argument("--verbose", action="store_true", help="with -p: report tool calls on standard error")
    parser.add_argument("--debug", action="store_true", help="log the engine's internals to standard error")
    parser.add_argument("-v", "--version", action="version", version=f"{__version__} (agentui)")


def _default_log() -> str:
    from agentui.api import state_dir

    directory = state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return str(directory / "agentui.log")


def _positive_int(value: str) -> int:
    import argparse

    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def _positive_float(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not more than 0")
    return value


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    print(f"agentui: {message}", file=sys.stderr)
    return code


def _plugin(words: list[str]) -> int:
    """Plugins and marketplaces, in Claude Code's files (its configuration directory and settings)."""
    from pathlib import Path

    from agentui.api import PluginError, plugin_command

    try:
        print(plugin_command(words, Path(os.getcwd())))
    except PluginError as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"the plugin files could not be written ({exc.strerror or exc}).", 1)
    return 0


def _trace(words: list[str]) -> int:
    """The loop tree of a session (an id, or its file), read from its files."""
    from pathlib import Path

    from agentui.api import SessionError, trace_command

    if len(words) != 1:
        return _fail("usage: agentui trace SESSION (a session id or a .jsonl file).", 2)
    try:
        print(trace_command(words[0], Path(os.getcwd())))
    except SessionError as exc:
        return _fail(str(exc), 1)
    return 0


def _serve(words: list[str]) -> int:
    """The app served to a browser: serve's own flags, and the app's, checked here as the app would check them."""
    from agentui.frontends.serve import serve, split_arguments

    options, app_words = split_arguments(words, _one_sentence_parser())
    args = _build_parser().parse_args(app_words)  # bad usage exits 2 now, not in each browser tab
    if args.print_mode or args.input_format != "text":
        return _fail("agentui serve serves the app; -p and --input-format are for scripts, not for it.", 2)
    if problem := _flag_problem(args) or _mode_problem(args):
        return _fail(problem, 2)
    from agentui.api import scrub_own_environment

    scrub_own_environment()  # (the apps it starts are given the keys; /proc shows them to no one else)
    _set_up_logging(args)  # (a library's error is never a traceback on the screen either)
    return serve(options, app_words)


def _tree(words: list[str]) -> int:
    """The tree of a session's branches (an id, or its file), as text or JSON."""
    from pathlib import Path

    from agentui.api import SessionError, tree_command

    as_json = "--json" in words
    words = [word for word in words if word != "--json"]
    if len(words) != 1 or words[0].startswith("-"):
        return _fail("usage: agentui tree SESSION [--json] (a session id or a .jsonl file).", 2)
    try:
        print(tree_command(words[0], Path(os.getcwd()), as_json))
    except SessionError as exc:
        return _fail(str(exc), 1)
    return 0


def _run(argv: list[str]) -> int:
    from agentui.api import end_cleanly_on_signals, prune_stale

    end_cleanly_on_signals()  # (SIGTERM and SIGHUP remove this process's temporary files as an exit does)
    prune_stale()  # (what a killed agentui left)
    try:
        os.getcwd()  # (before any subcommand: each of them works relative to it)
    except FileNotFoundError:
        return _fail("the current directory no longer exists; cd to one that does and run agentui again.")

    if argv and argv[0] == "eval":  # `agentui eval TASKS.jsonl ...`: its own flags
        from agentui.api import scrub_own_environment
        from agentui.frontends.eval.evaluation import main as evaluate

        scrub_own_environment()
        return evaluate(argv[1:])
    if argv and argv[0] in ("plugin", "plugins"):  # `agentui plugin install x@mkt`, as `claude plugin`
        return _plugin(argv[1:])
    if argv and argv[0] == "trace":  # `agentui trace SESSION`: the tree of its loops
        return _trace(argv[1:])
    if argv and argv[0] == "search":  # `agentui search QUERY`: every past session's text
        from agentui.frontends.search_cli import main as search

        return search(argv[1:])
    if argv and argv[0] == "serve":  # `agentui serve [--host H] [--port N] [app options]`: the app in a browser
        return _serve(argv[1:])
    if argv and argv[0] == "tree":  # `agentui tree SESSION [--json]`: the tree of its branches
        return _tree(argv[1:])
    acp = bool(argv) and argv[0] == "acp"  # `agentui acp [--model ...]`: the Agent Client Protocol on stdio
    args = _build_parser().parse_args(argv[1:] if acp else argv)  # bad usage exits 2, as argparse does
    from agentui.api import scrub_own_environment

    scrub_own_environment()  # before any child exists: none may read the keys through /proc/<agentui>/environ
    _set_up_logging(args)
    if problem := _flag_problem(args):
        return _fail(problem)
    if acp:
        return _serve_acp(args)
    if problem := _mode_problem(args):
        return _fail(problem)
    if args.print_mode and args.resume == "":  # a list needs no model
        from pathlib import Path

        from agentui.frontends.print.mode import print_sessions

        return print_sessions(Path.cwd(), args.output_format or "text")
    if not args.print_mode and args.input_format == "text":
        return _run_app(args)
    return _run_headless(args)


def _set_up_logging(args: argparse.Namespace) -> None:
    """Where agentui's log goes: AGENTUI_LOG's file (or, for the app with --debug, a file of its own), stderr with
    --debug, else nowhere."""
    import logging

    logger = logging.getLogger("agentui")
    log_file = os.environ.get("AGENTUI_LOG") or (_default_log() if args.debug and not args.print_mode else None)
    if log_file:  # the app owns the screen: its log goes to a file
        handler: logging.Handler = logging.FileHandler(log_file)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        logging.getLogger().addHandler(handler)  # the libraries' warnings (the MCP SDK's, httpx's) there too
    elif args.debug:
        logging.basicConfig(level=logging.DEBUG, format="%(name)s: %(message)s")
    else:
        # Never a traceback on the person's screen, from agentui or a library: without a handler on the root logger,
        # Python prints a library's warnings and errors to stderr (the MCP SDK logs a server's non-JSON line so).
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
        logging.getLogger().addHandler(logging.NullHandler())


def _flag_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the flags whatever the mode, in one sentence; None if nothing is."""
    if problem := (
        _read_prompt_files(args)
        or _check_setting_sources(args)
        or _parse_agents(args)
        or _parse_json_schema(args)
        or _load_plugin_dirs(args)
    ):
        return problem
    for flag, why in UNSUPPORTED.items():
        if getattr(args, flag.replace("-", "_")) is not None:
            return f"--{flag} is not supported: {why}."
    return None


def _load_plugin_dirs(args: argparse.Namespace) -> str | None:
    """--plugin-dir: each directory's plugin on for this session (in the environment the core reads it from, so
    the hooks, servers and sub-agents this run starts see it too); a sentence if one is not a directory."""
    if not args.plugin_dir:
        return None
    from pathlib import Path

    from agentui.api import SESSION_PLUGIN_DIRS

    found = []
    for given in args.plugin_dir:
        path = Path(given).expanduser()
        if not path.is_dir():
            return f"--plugin-dir {given}: no such directory."
        found.append(str(path.resolve()))
    os.environ[SESSION_PLUGIN_DIRS] = os.pathsep.join(found)
    return None


def _mode_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the flags of the mode asked for (formats, the SDK's, a rewind's), in one sentence."""
    sdk = args.input_format == "stream-json"  # (an Agent SDK program: print mode, as Claude Code takes it)
    commands = args.input_format == "commands"
    if commands and (args.output_format or "events") != "events":
        return "--input-format commands needs --output-format events."
    if sdk and (args.output_format or "stream-json") != "stream-json":
        return "--input-format stream-json needs --output-format stream-json."
    if args.permission_prompt_tool not in (None, "stdio"):
        return "--permission-prompt-tool takes only 'stdio' (an MCP tool as the prompt is not supported yet)."
    if args.permission_prompt_tool and not sdk:
        return "--permission-prompt-tool needs --input-format stream-json."
    if not args.print_mode and args.output_format is not None and not (sdk or commands):
        return "--output-format only works with -p."
    if args.idle_rotate and args.print_mode and not (sdk or commands):
        return "--idle-rotate needs the app or --input-format stream-json or commands (-p answers one prompt)."
    if args.resume_session_at and not args.resume:
        return "--resume-session-at needs --resume with the session's id."
    if args.fork_session and args.resume is None and not args.continue_last:
        return "--fork-session needs --resume or --continue."
    if (args.rewind_only or args.rewind_overwrite) and not args.rewind:
        return "--rewind-only and --rewind-overwrite need --rewind."
    if args.rewind and not (args.print_mode and (args.resume or args.continue_last)):
        return (
            "--rewind needs -p and a session to rewind (--resume ID or --continue); in the app, press Esc "
            "twice or type /rewind."
        )
    return None


def _run_app(args: argparse.Namespace) -> int:
    from pathlib import Path

    served = os.environ.get("TEXTUAL_DRIVER") == "textual.drivers.web_driver:WebDriver"  # (agentui serve's)
    if not (sys.stdin.isatty() and sys.stdout.isatty()) and not served:
        return _fail("the interactive app needs a terminal; use -p to answer a prompt from a script or pipe.")
    from agentui.frontends.tui import run_app

    # The app draws its first frame at once and resolves the rest (settings, engine) just after.
    return _guarded(
        lambda: run_app(
            prepare=lambda: _interactive_launch(args),
            resuming=lambda: _session_request(args),
            first_prompt=args.prompt,
            cwd=Path.cwd(),
        )
    )


def _run_headless(args: argparse.Namespace) -> int:
    """Print mode and the stdio protocols: the settings resolved, then the mode run."""
    from pathlib import Path

    from agentui.api import ConfigError, resolve_settings

    try:
        settings = _with_thinking(resolve_settings(_overrides(args)), args)
    except ConfigError as exc:
        return _fail(str(exc))
    if args.wait_for_limits:
        settings = settings.model_copy(update={"wait_for_limits": True})
    cwd = Path.cwd()
    permissions = _permission_options(args)
    launch = {**_launch_fields(args), "session": _session_request(args), "max_turns": args.max_turns}
    if args.input_format == "commands":
        from agentui.frontends.commands.stdio import run_commands

        return _served(run_commands(settings, permissions=permissions, launch=launch))
    if args.input_format == "stream-json":
        from agentui.frontends.print.mode import run_sdk

        return _served(
            run_sdk(
                settings,
                permissions=permissions,
                launch=launch,
                partial=args.include_partial_messages,
                replay_user=args.replay_user_messages,
                hook_events=args.include_hook_events,
                ask_over_stdio=args.permission_prompt_tool == "stdio",
            )
        )
    return _run_print(args, settings, cwd, permissions, launch)


def _run_print(
    args: argparse.Namespace, settings: Settings, cwd: Path, permissions: PermissionOptions, launch: dict[str, Any]
) -> int:
    prompt = args.prompt
    if prompt is None:
        if sys.stdin.isatty() and not args.rewind:
            return _fail("-p needs a prompt: pass it as an argument or on standard input.")
        prompt = "" if sys.stdin.isatty() else sys.stdin.read()
    if not prompt.strip() and not args.rewind:  # (a rewind alone, with nothing to ask after it, is fine)
        return _fail("the prompt is empty.")
    from agentui.api import RewindRequest

    rewind = None
    if args.rewind:
        only = args.rewind_only
        rewind = RewindRequest(args.rewind, only != "conversation", only != "files", args.rewind_overwrite)

    from agentui.api import ConfigError
    from agentui.frontends.print.mode import run_print

    try:
        attempts = _attempt_configs(args)
    except ConfigError as exc:
        return _fail(f"--attempt-configs/--attempt-models: {exc}")
    return _served(
        run_print(
            settings,
            prompt,
            output_format=args.output_format or "text",
            cwd=cwd,
            permissions=permissions,
            launch=launch,
            verbose=args.verbose,
            rewind=rewind,
            partial=args.include_partial_messages,
            replay_user=args.replay_user_messages,
            hook_events=args.include_hook_events,
            attempts=attempts,
            evaluate=args.evaluate,
        )
    )


def _attempt_configs(args: argparse.Namespace) -> list[AttemptConfig]:
    """--attempts N and --attempt-models: a configuration per attempt (none: an ordinary run)."""
    from agentui.api import AttemptConfig, attempt_config

    if args.attempt_configs is not None:
        return _parsed_attempt_configs(args.attempt_configs)
    specs = [m.strip() for m in (args.attempt_models or "").split(",") if m.strip()]
    count = args.attempts or len(specs)
    return [attempt_config(specs[n % len(specs)]) if specs else AttemptConfig() for n in range(count)]


def _parsed_attempt_configs(text: str) -> list[AttemptConfig]:
    """--attempt-configs: each attempt's model (or provider:model), instructions added to the system prompt, and
    thinking budget. Raises ConfigError with one sentence."""
    import json
    from dataclasses import replace

    from agentui.api import AttemptConfig, ConfigError, attempt_config

    try:
        given = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"--attempt-configs is not JSON ({exc}).") from None
    known = {"model", "system_append", "thinking_budget"}
    if not isinstance(given, list) or len(given) < 2 or not all(isinstance(item, dict) for item in given):
        raise ConfigError("--attempt-configs takes a JSON list of two or more objects, one per attempt.")
    configs = []
    for number, item in enumerate(given, 1):
        if unknown := set(item) - known:
            raise ConfigError(
                f"attempt {number} has {', '.join(sorted(unknown))}; it may have {', '.join(sorted(known))}."
            )
        budget = item.get("thinking_budget")
        if budget is not None and (not isinstance(budget, int) or budget < 1024):
            raise ConfigError(f"attempt {number}'s thinking_budget must be a whole number of tokens from 1024.")
        config = attempt_config(str(item["model"])) if item.get("model") else AttemptConfig()
        configs.append(replace(config, system_append=item.get("system_append"), thinking_budget=budget))
    return configs


def _served(run: Coroutine[Any, Any, int]) -> int:
    """A front end that runs on an event loop, run to its end (see `_guarded`)."""
    import asyncio

    return _guarded(lambda: asyncio.run(run))


def _guarded(run: Callable[[], int]) -> int:
    """Run the front end; whatever escapes becomes one sentence on stderr, never a traceback."""
    try:
        return run()
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        # Imported only now: the app's first frame must not wait for the engine these live in.
        from agentui.api import ProjectError, ScriptError, SessionError

        if isinstance(exc, (ScriptError, ProjectError, SessionError)):  # bad usage or setup, found once started
            return _fail(str(exc))
        import logging

        logging.getLogger("agentui").debug("unexpected failure", exc_info=True)
        return _fail(f"unexpected error: {type(exc).__name__}: {exc} (run with --debug for details).", 1)


def _overrides(args: Any) -> Any:
    from pathlib import Path

    from agentui.api import Overrides

    return Overrides(
        provider=args.provider,
        model=args.model,
        base_url=args.base_url,
        script=Path(args.script) if args.script else None,
    )


def _session_request(args: Any) -> Any:
    from agentui.api import SessionRequest

    return SessionRequest(
        resume=args.resume,
        continue_last=args.continue_last,
        fork=args.fork_session,
        session_id=args.session_id,
        persist=not args.no_session_persistence,
        resume_at=args.resume_session_at,
    )


def _permission_options(args: Any) -> Any:
    from pathlib import Path

    from agentui.api import PermissionOptions

    queue = args.permission_mode == "plan-queue"
    return PermissionOptions(
        mode="bypassPermissions" if args.dangerously_skip_permissions else "plan" if queue else args.permission_mode,
        queue_changes=queue,
        allowed_tools=tuple(args.allowed_tools),
        disallowed_tools=tuple(args.disallowed_tools),
        add_dirs=tuple(Path(d).expanduser().resolve() for d in args.add_dirs),
        setting_sources=None
        if args.setting_sources is None
        else tuple(s.strip() for s in args.setting_sources.split(",") if s.strip()),
        settings_flag=args.settings,
        bypass_available=args.allow_dangerously_skip_permissions,
    )


def _interactive_launch(args: Any) -> tuple[Any, str | None]:
    """What the app starts with, or (None, why): a bad config opens the app and says so, rather than a terminal
    that just exits."""
    from pathlib import Path

    from agentui.api import ConfigError, Launch, resolve_settings

    try:
        settings = resolve_settings(_overrides(args))
    except ConfigError as exc:
        return None, str(exc)
    if settings.wait_for_limits is None:  # (on in the app unless the settings say no)
        settings = settings.model_copy(update={"wait_for_limits": True})
    return Launch(
        settings=_with_thinking(settings, args),
        cwd=Path.cwd(),
        permissions=_permission_options(args),
        session=_session_request(args),
        **_launch_fields(args),
    ), None


def _launch_fields(args: Any) -> dict[str, Any]:
    """What the command line says of the launch besides the settings, the place, the permissions and the session:
    given once, to the app and to every headless mode alike."""
    from agentui.api import RunLimits

    tools = None if args.tools is None else tuple(t.strip() for t in args.tools.replace(",", " ").split())
    return {
        "system_prompt": args.system_prompt,
        "append_system_prompt": args.append_system_prompt,
        "mcp_configs": tuple(args.mcp_configs),
        "strict_mcp": args.strict_mcp_config,
        "tools": tools,
        "name": args.name,
        "idle_rotate": args.idle_rotate,
        "limits": RunLimits(
            max_budget_usd=args.max_budget_usd,
            max_total_tokens=args.max_total_tokens,
            max_seconds=args.max_duration,
            subagent_seconds=args.subagent_timeout,
        ),
        "fallback_model": args.fallback_model,
        "agents": args.agents_json,
        "json_schema": args.json_schema_value,
    }


def _with_thinking(settings: Any, args: Any) -> Any:
    """--max-thinking-tokens, --thinking and --betas on the settings."""
    if args.betas:
        settings = settings.model_copy(update={"betas": tuple(b.strip() for b in args.betas.split(",") if b.strip())})
    if args.effort:
        settings = settings.with_effort(args.effort)
    if args.thinking == "disabled":
        return settings.with_thinking(None)
    if args.thinking and not args.max_thinking_tokens and not settings.options.thinking_budget:
        from agentui.api import DEFAULT_THINKING_TOKENS

        return settings.with_thinking(DEFAULT_THINKING_TOKENS)
    return _with_thinking_tokens(settings, args)


def _with_thinking_tokens(settings: Any, args: Any) -> Any:
    return settings.with_thinking(args.max_thinking_tokens) if args.max_thinking_tokens else settings


def _read_prompt_files(args: Any) -> str | None:
    """--system-prompt-file and --append-system-prompt-file become the texts they name; a sentence if one cannot."""
    from pathlib import Path

    for flag, target in (
        ("system_prompt_file", "system_prompt"),
        ("append_system_prompt_file", "append_system_prompt"),
    ):
        name = getattr(args, flag)
        if name:
            try:
                setattr(args, target, Path(name).expanduser().read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                why = getattr(exc, "strerror", None) or exc
                return f"--{flag.replace('_', '-')}: {name} cannot be read ({why})."
    return None


def _check_setting_sources(args: Any) -> str | None:
    if args.setting_sources is None:
        return None
    given = [s.strip() for s in args.setting_sources.split(",") if s.strip()]
    unknown = [s for s in given if s not in ("user", "project", "local")]
    return f"--setting-sources takes user, project and local, not {', '.join(unknown)}." if unknown else None


def _serve_acp(args: Any) -> int:

    from agentui.api import ConfigError, resolve_settings

    try:
        settings = _with_thinking(resolve_settings(_overrides(args)), args)
    except ConfigError as exc:
        return _fail(str(exc))
    import stat

    if not all(stat.S_ISFIFO(os.fstat(fd).st_mode) or stat.S_ISSOCK(os.fstat(fd).st_mode) for fd in (0, 1)):
        return _fail("agentui acp talks to an editor over pipes: start it from the editor (Zed, Toad), not a terminal.")
    from agentui.frontends.acp.agent import serve

    bypass = args.dangerously_skip_permissions or args.allow_dangerously_skip_permissions
    return _served(serve(settings, bypass=bypass))


def _parse_agents(args: Any) -> str | None:
    """--agents: a JSON object of agent types by name; a sentence if it is not one."""
    import json

    args.agents_json = None
    if args.agents is None:
        return None
    try:
        value = json.loads(args.agents)
    except ValueError as exc:
        return f"--agents was given JSON that does not parse ({exc})."
    if not isinstance(value, dict):
        return '--agents takes a JSON object of agent types by name: {"reviewer": {"description": ..., "prompt": ...}}.'
    args.agents_json = value
    return None


def _parse_json_schema(args: Any) -> str | None:
    import json

    args.json_schema_value = None
    if args.json_schema is None:
        return None
    try:
        schema = json.loads(args.json_schema)
    except ValueError as exc:
        return f"--json-schema was given JSON that does not parse ({exc})."
    from agentui.api import check_schema

    if problem := check_schema(schema):
        return f"--json-schema cannot be used: {problem}."
    args.json_schema_value = schema
    return None

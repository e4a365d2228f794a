"""The front-end surface: everything a front end (the app, print mode, Claude Code's protocols, ACP, evaluation) and
cli.py use of the core. Beside these names are the events (`agentui.api.events`) and the messages
(`agentui.api.messages`). Names resolve on first use, so a front end can import this module before the engine has
loaded (the app draws its first frame first). tests/core/test_imports.py holds every front end to this surface."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    # the root of every error the core raises for a front end to show
    "AgentuiError": "agentui.core.errors",
    "ProviderError": "agentui.core.providers.base",
    "side_question": "agentui.core.loop.side_call",
    # a conversation: open it, then give it commands (its methods) and read its events
    "Conversation": "agentui.core.conversation",
    "open_conversation": "agentui.core.assembly",
    "Branched": "agentui.core.continuation",
    "rotate_if_idle": "agentui.core.idle_rotation",
    "ContinueError": "agentui.core.continuation",
    "Launch": "agentui.core.conversation",
    "EditorFiles": "agentui.core.editor_files",
    "ShellOutcome": "agentui.core.tools.person_command",
    "SHELL_TOOL": "agentui.core.tools.person_command",
    "Resumed": "agentui.core.conversation",
    "McpStatus": "agentui.core.extend.servers",
    # MCP prompts as slash commands (`/mcp__server__prompt words`)
    "McpPromptCommand": "agentui.core.extend.mcp.prompt_commands",
    "McpPromptError": "agentui.core.extend.mcp.prompt_commands",
    "expand_mcp_prompt": "agentui.core.extend.mcp.prompt_commands",
    "mcp_commands": "agentui.core.extend.mcp.prompt_commands",
    "RunResult": "agentui.core.loop.run",
    "Settings": "agentui.core.settings",
    "RunLimits": "agentui.core.run_options",
    "ModelOptions": "agentui.core.run_options",
    "PermissionOptions": "agentui.core.project",
    "Project": "agentui.core.project",
    "ProjectError": "agentui.core.project",
    "open_project": "agentui.core.project",
    "RuleError": "agentui.core.safety.permissions.rules",
    "Provider": "agentui.core.providers.base",
    # sessions: which to open, and the list to pick from
    "SessionRequest": "agentui.core.session.lookup",
    "SessionError": "agentui.core.session.lookup",
    "preview_session": "agentui.core.session.lookup",
    "trace_command": "agentui.core.session.trace",
    # full-text search over every project's sessions (`agentui search`, the /resume picker's search)
    "search_sessions": "agentui.core.search.index",
    "SearchHit": "agentui.core.search.index",
    "SearchResult": "agentui.core.search.index",
    "SearchError": "agentui.core.search.index",
    # the tree of a session's branches (/tree, `agentui tree`), and moving the conversation to one of them
    "tree_command": "agentui.core.session.tree",
    "SessionTree": "agentui.core.session.tree",
    "TreeNode": "agentui.core.session.tree",
    "session_tree": "agentui.core.branch_switch",
    "switch_branch": "agentui.core.branch_switch",
    "LoadedSession": "agentui.core.session.reader",
    "SessionInfo": "agentui.core.session.listing",
    "list_sessions": "agentui.core.session.listing",
    "project_dir": "agentui.core.session.paths",
    "is_session_id": "agentui.core.session.paths",
    "canonical": "agentui.core.session.paths",
    "sanitize": "agentui.core.session.paths",
    "project_key": "agentui.core.session.paths",
    "PromptPoint": "agentui.core.rewind",
    "Rewound": "agentui.core.rewind",
    "Restore": "agentui.core.rewind",
    "RewindError": "agentui.core.rewind",
    "RewindRequest": "agentui.core.rewind",
    "ChangedOutside": "agentui.core.rewind",
    "FileChange": "agentui.core.session.file_history",
    "ShellInfo": "agentui.core.background",
    "AgentTaskInfo": "agentui.core.background_agents",
    "background_agents": "agentui.core.background_agents",
    # what a conversation holds and how the setup stands: /context, /status and /doctor
    "ContextBreakdown": "agentui.core.context.breakdown",
    "context_breakdown": "agentui.core.context.breakdown",
    "compact_command": "agentui.core.context.compaction",
    "PART_NAMES": "agentui.core.context.breakdown",
    "LineTally": "agentui.core.extend.status_line_report",
    "status_report": "agentui.core.status_report",
    "no_conversation_report": "agentui.core.status_report",
    "HealthCheck": "agentui.core.doctor",
    "health_checks": "agentui.core.doctor",
    "AttemptConfig": "agentui.core.parallel.attempts",
    "Attempts": "agentui.core.parallel.attempts",
    "attempt_config": "agentui.core.parallel.attempts",
    "Branch": "agentui.core.parallel.attempts",
    "Verdict": "agentui.core.parallel.attempts",
    "WorkingCopyError": "agentui.core.parallel.working_copy",
    "limit_reached": "agentui.core.loop.budget",
    "is_summary": "agentui.core.messages",
    "replay": "agentui.core.replay",
    "SUMMARY_PREFIX": "agentui.core.messages",
    "pinned_marks": "agentui.core.context.pins",
    # the everyday commands: the model (by id or alias), working directories, sub-agent types, the session's name
    "Resolved": "agentui.core.model_aliases",
    "ModelOption": "agentui.core.model_choice",
    "model_options": "agentui.core.model_choice",
    "resolved_model": "agentui.core.model_choice",
    "served_models": "agentui.core.model_choice",
    "DirectoryError": "agentui.core.added_directories",
    "directory_to_add": "agentui.core.added_directories",
    "add_directory": "agentui.core.added_directories",
    "AgentTypeInfo": "agentui.core.extend.agent_files",
    "AgentFileError": "agentui.core.extend.agent_files",
    "agent_types": "agentui.core.extend.agent_files",
    "check_agent_name": "agentui.core.extend.agent_files:check_name",
    "save_agent_type": "agentui.core.extend.agent_files",
    "rename_session": "agentui.core.session.naming",
    "set_instructions": "agentui.core.instructions",
    "HOOK_EVENTS": "agentui.core.extend.hooks:EVENTS",
    "can_use_tool_request": "agentui.core.sdk_permission",
    "read_for_program": "agentui.core.program_read",
    "TaskNotices": "agentui.core.task_notifications",
    "task_notices": "agentui.core.task_notifications",
    "background_wait": "agentui.core.task_notifications",
    "settings_report": "agentui.core.claude_settings",
    # the person's choices and files
    "trust": "agentui.core.safety.trust",
    "save_config_value": "agentui.core.settings",
    "ConfigError": "agentui.core.settings",
    "Overrides": "agentui.core.settings",
    "resolve_settings": "agentui.core.settings",
    "config_dir": "agentui.core.dirs",
    "data_dir": "agentui.core.dirs",
    "claude_config_dir": "agentui.core.dirs",
    "parse_front_matter": "agentui.core.frontmatter",
    "remember_note": "agentui.core.memory_note",
    # memory that learns: a project's learnings, listed, edited and forgotten (/memory)
    "Learning": "agentui.core.context.learnings",
    "LearningError": "agentui.core.context.learnings",
    "LearningStore": "agentui.core.context.learnings",
    # the settings' statusLine command, run with the session as Claude Code tells it
    "StatusReport": "agentui.core.extend.status_line_report",
    "status_line_report": "agentui.core.extend.status_line_report",
    "StatusLineOutcome": "agentui.core.extend.status_line",
    # /config: the settings agentui honours, their values and sources, and a change saved and applied
    "Preference": "agentui.core.preferences",
    "PreferenceError": "agentui.core.preferences",
    "preferences": "agentui.core.preferences",
    "set_preference": "agentui.core.preferences",
    "verbose_output": "agentui.core.preferences",
    "editor_mode": "agentui.core.editor_mode",
    "save_editor_mode": "agentui.core.editor_mode",
    "EditorModeError": "agentui.core.editor_mode",
    # thinking: on or off for a conversation, and the words of a prompt that ask for more (`ultrathink`)
    "set_thinking": "agentui.core.thinking",
    "thinking_budget": "agentui.core.thinking",
    "thinking_words": "agentui.core.thinking",
    "DEFAULT_THINKING_TOKENS": "agentui.core.thinking",
    "estimate_tokens": "agentui.core.context.window",
    "call_summary": "agentui.core.tool_views",
    "shown_cost": "agentui.core.money",
    "describe_call": "agentui.core.tool_views",
    "describe_result": "agentui.core.tool_views",
    "proposed_change": "agentui.core.tool_views",
    "result_text": "agentui.core.tool_views",
    "CallView": "agentui.core.call_views",
    "ResultView": "agentui.core.call_views",
    "structured_patch": "agentui.core.tools.diff",
    "CustomCommand": "agentui.core.extend.commands",
    "load_custom_commands": "agentui.core.extend.commands",
    # skills (/skills) and output styles (/output-style)
    "load_skills": "agentui.core.extend.skills",
    "OutputStyle": "agentui.core.extend.output_styles",
    "OutputStyleError": "agentui.core.extend.output_styles",
    "load_output_styles": "agentui.core.extend.output_styles",
    "output_style": "agentui.core.extend.output_styles",
    "style_in_use": "agentui.core.extend.output_styles",
    "style_names": "agentui.core.extend.output_styles",
    "use_output_style": "agentui.core.instructions",
    # the project's agent profile (/profile)
    "set_standing_instructions": "agentui.core.instructions",
    "load_profile": "agentui.core.profile",
    "ProfileError": "agentui.core.profile",
    # plugins and marketplaces (`agentui plugin ...`, /plugin)
    "plugin_command": "agentui.core.extend.plugins.commands",
    "PluginError": "agentui.core.extend.plugins.files",
    "plugins_in_use": "agentui.core.extend.plugins.enabled",
    "SESSION_PLUGIN_DIRS": "agentui.core.extend.plugins.enabled",
    "image_from_file": "agentui.core.images",
    "image_from_bytes": "agentui.core.images",
    "ImageError": "agentui.core.images",
    # the process: ending cleanly on SIGTERM and SIGHUP, its own directory, what a killed agentui left behind
    "end_cleanly_on_signals": "agentui.core.process_dir",
    "prune_stale": "agentui.core.process_dir",
    "process_directory": "agentui.core.process_dir:current",
    "scrub_own_environment": "agentui.core.safety.environ",
    # `agentui serve`: the app processes it starts, each a journalled group of its own, ended with the server
    "start_group": "agentui.core.process_groups",
    "stop_group": "agentui.core.process_groups",
    "state_dir": "agentui.core.dirs",
    # checking launch options before a conversation opens
    "ScriptError": "agentui.core.providers.scripted",
    "check_schema": "agentui.core.tools.structured_output",
    # git confined (a task repository evaluation clones)
    "GIT_TRANSPORTS": "agentui.core.safety.confined_git:TRANSPORTS",
    "GitError": "agentui.core.safety.confined_git",
    "git_complaint": "agentui.core.safety.confined_git:complaint",
    "run_git": "agentui.core.safety.confined_git:run",
    # a usage limit a resumed session was waiting for when it ended
    "pending_limit": "agentui.core.limit_resume",
    "wait_out_pending": "agentui.core.limit_resume",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what the names are, for the type checker (at run time they resolve on first use)
    from agentui.core.added_directories import DirectoryError as DirectoryError
    from agentui.core.added_directories import add_directory as add_directory
    from agentui.core.added_directories import directory_to_add as directory_to_add
    from agentui.core.assembly import open_conversation as open_conversation
    from agentui.core.background import ShellInfo as ShellInfo
    from agentui.core.background_agents import AgentTaskInfo as AgentTaskInfo
    from agentui.core.background_agents import background_agents as background_agents
    from agentui.core.branch_switch import session_tree as session_tree
    from agentui.core.branch_switch import switch_branch as switch_branch
    from agentui.core.call_views import CallView as CallView
    from agentui.core.call_views import ResultView as ResultView
    from agentui.core.claude_settings import settings_report as settings_report
    from agentui.core.context.breakdown import PART_NAMES as PART_NAMES
    from agentui.core.context.breakdown import ContextBreakdown as ContextBreakdown
    from agentui.core.context.breakdown import context_breakdown as context_breakdown
    from agentui.core.context.compaction import compact_command as compact_command
    from agentui.core.context.learnings import Learning as Learning
    from agentui.core.context.learnings import LearningError as LearningError
    from agentui.core.context.learnings import LearningStore as LearningStore
    from agentui.core.context.pins import pinned_marks as pinned_marks
    from agentui.core.context.window import estimate_tokens as estimate_tokens
    from agentui.core.continuation import Branched as Branched
    from agentui.core.continuation import ContinueError as ContinueError
    from agentui.core.conversation import Conversation as Conversation
    from agentui.core.conversation import Launch as Launch
    from agentui.core.conversation import Resumed as Resumed
    from agentui.core.dirs import claude_config_dir as claude_config_dir
    from agentui.core.dirs import config_dir as config_dir
    from agentui.core.dirs import data_dir as data_dir
    from agentui.core.dirs import state_dir as state_dir
    from agentui.core.doctor import HealthCheck as HealthCheck
    from agentui.core.doctor import health_checks as health_checks
    from agentui.core.editor_files import EditorFiles as EditorFiles
    from agentui.core.editor_mode import EditorModeError as EditorModeError
    from agentui.core.editor_mode import editor_mode as editor_mode
    from agentui.core.editor_mode import save_editor_mode as save_editor_mode
    from agentui.core.errors import AgentuiError as AgentuiError
    from agentui.core.extend.agent_files import AgentFileError as AgentFileError
    from agentui.core.extend.agent_files import AgentTypeInfo as AgentTypeInfo
    from agentui.core.extend.agent_files import agent_types as agent_types
    from agentui.core.extend.agent_files import check_name
    from agentui.core.extend.agent_files import save_agent_type as save_agent_type
    from agentui.core.extend.commands import CustomCommand as CustomCommand
    from agentui.core.extend.commands import load_custom_commands as load_custom_commands
    from agentui.core.extend.hooks import EVENTS
    from agentui.core.extend.mcp.prompt_commands import McpPromptCommand as McpPromptCommand
    from agentui.core.extend.mcp.prompt_commands import McpPromptError as McpPromptError
    from agentui.core.extend.mcp.prompt_commands import expand_mcp_prompt as expand_mcp_prompt
    from agentui.core.extend.mcp.prompt_commands import mcp_commands as mcp_commands
    from agentui.core.extend.output_styles import OutputStyle as OutputStyle
    from agentui.core.extend.output_styles import OutputStyleError as OutputStyleError
    from agentui.core.extend.output_styles import load_output_styles as load_output_styles
    from agentui.core.extend.output_styles import output_style as output_style
    from agentui.core.extend.output_styles import style_in_use as style_in_use
    from agentui.core.extend.output_styles import style_names as style_names
    from agentui.core.extend.plugins.commands import plugin_command as plugin_command
    from agentui.core.extend.plugins.enabled import SESSION_PLUGIN_DIRS as SESSION_PLUGIN_DIRS
    from agentui.core.extend.plugins.enabled import plugins_in_use as plugins_in_use
    from agentui.core.extend.plugins.files import PluginError as PluginError
    from agentui.core.extend.servers import McpStatus as McpStatus
    from agentui.core.extend.skills import load_skills as load_skills
    from agentui.core.extend.status_line import StatusLineOutcome as StatusLineOutcome
    from agentui.core.extend.status_line_report import LineTally as LineTally
    from agentui.core.extend.status_line_report import StatusReport as StatusReport
    from agentui.core.extend.status_line_report import status_line_report as status_line_report
    from agentui.core.frontmatter import parse_front_matter as parse_front_matter
    from agentui.core.idle_rotation import rotate_if_idle as rotate_if_idle
    from agentui.core.images import ImageError as ImageError
    from agentui.core.images import image_from_bytes as image_from_bytes
    from agentui.core.images import image_from_file as image_from_file
    from agentui.core.instructions import set_instructions as set_instructions
    from agentui.core.instructions import set_standing_instructions as set_standing_instructions
    from agentui.core.instructions import use_output_style as use_output_style
    from agentui.core.limit_resume import pending_limit as pending_limit
    from agentui.core.limit_resume import wait_out_pending as wait_out_pending
    from agentui.core.loop.budget import limit_reached as limit_reached
    from agentui.core.loop.run import RunResult as RunResult
    from agentui.core.loop.side_call import side_question as side_question
    from agentui.core.memory_note import remember_note as remember_note
    from agentui.core.messages import SUMMARY_PREFIX as SUMMARY_PREFIX
    from agentui.core.messages import is_summary as is_summary
    from agentui.core.model_aliases import Resolved as Resolved
    from agentui.core.model_choice import ModelOption as ModelOption
    from agentui.core.model_choice import model_options as model_options
    from agentui.core.model_choice import resolved_model as resolved_model
    from agentui.core.model_choice import served_models as served_models
    from agentui.core.money import shown_cost as shown_cost
    from agentui.core.parallel.attempts import AttemptConfig as AttemptConfig
    from agentui.core.parallel.attempts import Attempts as Attempts
    from agentui.core.parallel.attempts import Branch as Branch
    from agentui.core.parallel.attempts import Verdict as Verdict
    from agentui.core.parallel.attempts import attempt_config as attempt_config
    from agentui.core.parallel.working_copy import WorkingCopyError as WorkingCopyError
    from agentui.core.preferences import Preference as Preference
    from agentui.core.preferences import PreferenceError as PreferenceError
    from agentui.core.preferences import preferences as preferences
    from agentui.core.preferences import set_preference as set_preference
    from agentui.core.preferences import verbose_output as verbose_output
    from agentui.core.process_dir import current
    from agentui.core.process_dir import end_cleanly_on_signals as end_cleanly_on_signals
    from agentui.core.process_dir import prune_stale as prune_stale
    from agentui.core.process_groups import start_group as start_group
    from agentui.core.process_groups import stop_group as stop_group
    from agentui.core.profile import ProfileError as ProfileError
    from agentui.core.profile import load_profile as load_profile
    from agentui.core.program_read import read_for_program as read_for_program
    from agentui.core.project import PermissionOptions as PermissionOptions
    from agentui.core.project import Project as Project
    from agentui.core.project import ProjectError as ProjectError
    from agentui.core.project import open_project as open_project
    from agentui.core.providers.base import Provider as Provider
    from agentui.core.providers.base import ProviderError as ProviderError
    from agentui.core.providers.scripted import ScriptError as ScriptError
    from agentui.core.replay import replay as replay
    from agentui.core.rewind import ChangedOutside as ChangedOutside
    from agentui.core.rewind import PromptPoint as PromptPoint
    from agentui.core.rewind import Restore as Restore
    from agentui.core.rewind import RewindError as RewindError
    from agentui.core.rewind import RewindRequest as RewindRequest
    from agentui.core.rewind import Rewound as Rewound
    from agentui.core.run_options import ModelOptions as ModelOptions
    from agentui.core.run_options import RunLimits as RunLimits
    from agentui.core.safety.confined_git import TRANSPORTS, complaint, run
    from agentui.core.safety.confined_git import GitError as GitError
    from agentui.core.safety.environ import scrub_own_environment as scrub_own_environment
    from agentui.core.safety.permissions.rules import RuleError as RuleError
    from agentui.core.safety.trust import trust as trust
    from agentui.core.sdk_permission import can_use_tool_request as can_use_tool_request
    from agentui.core.search.index import SearchError as SearchError
    from agentui.core.search.index import SearchHit as SearchHit
    from agentui.core.search.index import SearchResult as SearchResult
    from agentui.core.search.index import search_sessions as search_sessions
    from agentui.core.session.file_history import FileChange as FileChange
    from agentui.core.session.listing import SessionInfo as SessionInfo
    from agentui.core.session.listing import list_sessions as list_sessions
    from agentui.core.session.lookup import SessionError as SessionError
    from agentui.core.session.lookup import SessionRequest as SessionRequest
    from agentui.core.session.lookup import preview_session as preview_session
    from agentui.core.session.naming import rename_session as rename_session
    from agentui.core.session.paths import canonical as canonical
    from agentui.core.session.paths import is_session_id as is_session_id
    from agentui.core.session.paths import project_dir as project_dir
    from agentui.core.session.paths import project_key as project_key
    from agentui.core.session.paths import sanitize as sanitize
    from agentui.core.session.reader import LoadedSession as LoadedSession
    from agentui.core.session.trace import trace_command as trace_command
    from agentui.core.session.tree import SessionTree as SessionTree
    from agentui.core.session.tree import TreeNode as TreeNode
    from agentui.core.session.tree import tree_command as tree_command
    from agentui.core.settings import ConfigError as ConfigError
    from agentui.core.settings import Overrides as Overrides
    from agentui.core.settings import Settings as Settings
    from agentui.core.settings import resolve_settings as resolve_settings
    from agentui.core.settings import save_config_value as save_config_value
    from agentui.core.status_report import no_conversation_report as no_conversation_report
    from agentui.core.status_report import status_report as status_report
    from agentui.core.task_notifications import TaskNotices as TaskNotices
    from agentui.core.task_notifications import background_wait as background_wait
    from agentui.core.task_notifications import task_notices as task_notices
    from agentui.core.thinking import DEFAULT_THINKING_TOKENS as DEFAULT_THINKING_TOKENS
    from agentui.core.thinking import set_thinking as set_thinking
    from agentui.core.thinking import thinking_budget as thinking_budget
    from agentui.core.thinking import thinking_words as thinking_words
    from agentui.core.tool_views import call_summary as call_summary
    from agentui.core.tool_views import describe_call as describe_call
    from agentui.core.tool_views import describe_result as describe_result
    from agentui.core.tool_views import proposed_change as proposed_change
    from agentui.core.tool_views import result_text as result_text
    from agentui.core.tools.diff import structured_patch as structured_patch
    from agentui.core.tools.person_command import SHELL_TOOL as SHELL_TOOL
    from agentui.core.tools.person_command import ShellOutcome as ShellOutcome
    from agentui.core.tools.structured_output import check_schema as check_schema

    # (names the surface gives things: an assignment is an explicit export, an alias in an import is not)
    GIT_TRANSPORTS = TRANSPORTS
    HOOK_EVENTS = EVENTS
    git_complaint = complaint
    run_git = run
    process_directory = current
    check_agent_name = check_name


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module 'agentui.api' has no attribute {name!r}")
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute or name)

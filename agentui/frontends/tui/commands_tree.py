"""/tree: the session's branches; continue from one (this session's: the conversation moves to its last message;
another session's: that session is resumed there) or fork a new session from it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand, idle_conversation

if TYPE_CHECKING:
    from agentui.api import Conversation, TreeNode
    from agentui.frontends.tui.host import AppHost
    from agentui.frontends.tui.screens.tree import Action


class TreeCommand(SlashCommand):
    name, description = "tree", "Show the session's branches (rewinds, forks, attempts, sub-agents); continue or fork"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import RewindError, session_tree
        from agentui.frontends.tui.screens.tree import TreeScreen

        if (conversation := idle_conversation(app, self.name)) is None:
            if app.conversation is None:
                app.say("There is no session yet, so no branches to show.")
            return
        try:
            tree = session_tree(conversation)
        except RewindError as exc:
            app.say(str(exc), "error")
            return

        async def chosen(choice: tuple[Action, TreeNode] | None) -> None:
            if choice is not None and app.conversation is conversation:
                await go(app, conversation, *choice)

        app.push_screen(TreeScreen(tree), chosen)


async def go(app: AppHost, conversation: Conversation, action: Action, node: TreeNode) -> None:
    from agentui.api import RewindError, SessionRequest, switch_branch

    said = f"“{node.prompt}”" if node.prompt else "that branch"
    if node.leaf_uuid is None:
        app.say("That branch has no messages to go on from.", "warning")
    elif action == "fork":
        await app.open_conversation(SessionRequest(resume=node.file, resume_at=node.leaf_uuid, fork=True))
        app.say(f"Forked a new session from {said}; the one it came from is unchanged.")
    elif node.kind in ("attempt", "subagent"):
        app.say("A sub-agent's or an attempt's transcript cannot be continued; press f to fork a session from it.")
    elif node.session_id != conversation.session_id:
        await app.open_conversation(SessionRequest(resume=node.file, resume_at=node.leaf_uuid))
        app.say(f"Resumed the forked session {node.session_id} at the end of {said}.")
    else:
        try:
            rewound = switch_branch(conversation, node.leaf_uuid)
        except RewindError as exc:
            app.say(str(exc), "error")
            return
        app.view.show_rewound(conversation.messages, rewound.tool_details)
        app.say(f"Now on the branch {said}: the next prompt goes on from its last message.")
    app.prompt_input.focus()

"""/tree: the session's branches drawn as a tree (rewinds and edited prompts, forks, parallel attempts, sub-agents),
each with its first prompt, its turns and its cost, the branch the conversation is on marked. Enter (or c) continues
from the highlighted branch's last message, f forks a new session there, Esc closes."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode as Row

if TYPE_CHECKING:
    from agentui.api import SessionTree, TreeNode

Action = Literal["continue", "fork"]
KINDS = {"main": "main", "rewind": "rewind", "fork": "fork", "attempt": "attempt", "subagent": "sub-agent"}


def label(node: TreeNode) -> Text:
    """The branch's line, as plain text: a prompt is what was typed, never markup (a "[/]" would stop the app)."""
    from agentui.api import shown_cost

    mark = "● " if node.current else ""
    turns = f"{node.turns} turn{'' if node.turns == 1 else 's'}"
    return Text(f"{mark}{KINDS[node.kind]}: {node.prompt or '(no prompt)'} · {turns} · {shown_cost(node.cost_usd)}")


class TreeScreen(ModalScreen[tuple[Action, "TreeNode"] | None]):
    """Dismissed with what to do and the branch to do it from, or None."""

    CSS_PATH = "picker.tcss"
    DEFAULT_CSS = """
    TreeScreen { align: center middle; background: $background 60%; }
    TreeScreen #branches { height: 1fr; }
    TreeScreen #hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", show=False),
        Binding("c", "choose('continue')", "Continue from it", show=False),
        Binding("f", "choose('fork')", "Fork from it", show=False),
    ]

    def __init__(self, tree: SessionTree) -> None:
        super().__init__()
        self.branches = tree

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Branches of this session"
            widget: Tree[TreeNode] = Tree(label(self.branches.root), data=self.branches.root, id="branches")
            widget.guide_depth = 3
            yield widget
            hint = "Enter or c: continue from its last message · f: fork a new session there · Esc: close"
            yield Static(Text("\n".join([*self.branches.problems, hint])), id="hint")  # (file names are not markup)

    def on_mount(self) -> None:
        widget = self.query_one("#branches", Tree)
        rows: list[tuple[Row[TreeNode], TreeNode]] = [(widget.root, self.branches.root)]
        current = widget.root
        while rows:
            row, node = rows.pop()
            for child in node.children:
                added = row.add(label(child), data=child, expand=True, allow_expand=bool(child.children))
                rows.append((added, child))
                current = added if child.current else current
        widget.root.expand_all()
        widget.focus()
        widget.move_cursor(current)

    def on_tree_node_selected(self, event: Tree.NodeSelected[TreeNode]) -> None:
        event.stop()
        self.action_choose("continue")

    def action_choose(self, action: Action) -> None:
        row = self.query_one("#branches", Tree).cursor_node
        if row is not None and row.data is not None:
            self.dismiss((action, row.data))

    def action_close(self) -> None:
        self.dismiss(None)

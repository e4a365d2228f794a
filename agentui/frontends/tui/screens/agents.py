"""/agents: the sub-agent types the model can start, each with where it comes from, and the one highlighted shown
whole below the list (↑ ↓ move, n new, e or Enter edits a file's, Esc closes); and the editor a new or changed type
is written from: its name, description, tools, model, where it goes (the project's or your own directory) and its
prompt, in the editor's own fields (Tab moves on, Ctrl+S saves, Esc leaves without saving). What cannot be saved is
said in one sentence in the editor, and nothing typed is lost."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from agentui.api import AgentTypeInfo, Conversation
    from agentui.frontends.tui.host import AppHost

PREVIEW_LINES = 40
"""The prompt's lines shown under the list (the editor has all of it)."""


def source_label(info: AgentTypeInfo, root: Path) -> str:
    from agentui.frontends.tui.slash_command import shown_path

    if info.path is None:
        return "built-in" if info.source == "built-in" else "--agents (this session)"
    return f"{info.source} · {shown_path(info.path, root)}"


class AgentsScreen(ModalScreen[None]):
    CSS_PATH = "picker.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_screen", "Close", show=False),
        Binding("n", "new", "New agent type", show=False),
        Binding("e", "edit", "Edit the highlighted type", show=False),
    ]

    def __init__(self, app_host: AppHost, conversation: Conversation) -> None:
        super().__init__()
        self.host = app_host
        self.conversation = conversation
        self.types: list[AgentTypeInfo] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Agents (n new · e or Enter edits · Esc closes)"
            yield OptionList(id="agents")
            yield Static("", id="agents-said")
            with VerticalScroll(id="agent-detail"):
                yield Static("", id="agent-text")

    def on_mount(self) -> None:
        self.refill()
        self.query_one("#agents", OptionList).focus()

    def refill(self, chosen: str | None = None) -> None:
        from agentui.api import agent_types

        self.types = agent_types(self.conversation)
        options = self.query_one("#agents", OptionList)
        options.clear_options()
        for info in self.types:
            line = Text(info.name, style="bold")
            line.append(f"  {source_label(info, self.conversation.root)}", style="dim")
            options.add_option(Option(line, id=info.name))
        names = [info.name for info in self.types]
        options.highlighted = names.index(chosen) if chosen in names else 0 if names else None
        self._show()

    @property
    def highlighted(self) -> AgentTypeInfo | None:
        index = self.query_one("#agents", OptionList).highlighted
        return self.types[index] if index is not None and 0 <= index < len(self.types) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_edit()

    def _show(self) -> None:
        info = self.highlighted
        text = Text()
        if info is not None:
            text.append(f"{info.name}\n", style="bold")
            text.append(f"{info.description or '(no description)'}\n\n")
            text.append("tools: ", style="dim")
            text.append(", ".join(info.tools) if info.tools else "all of the conversation's (but Agent)")
            text.append("\nmodel: ", style="dim")
            text.append(info.model or "the conversation's")
            text.append(f"\nfrom: {source_label(info, self.conversation.root)}\n\n", style="dim")
            lines = info.prompt.splitlines()
            text.append("\n".join(lines[:PREVIEW_LINES]) + ("\n…" if len(lines) > PREVIEW_LINES else ""))
        self.query_one("#agent-text", Static).update(text)

    def action_new(self) -> None:
        self.app.push_screen(AgentEditor(self.conversation, None), self._saved)

    def action_edit(self) -> None:
        info = self.highlighted
        if info is None:
            return
        if not info.editable:
            self._say(f"The {info.name} agent is {source_label(info, self.conversation.root)}; n makes a new one.")
            return
        self.app.push_screen(AgentEditor(self.conversation, info), self._saved)

    def _saved(self, saved: tuple[str, Path] | None) -> None:
        if saved is None:
            return
        from agentui.frontends.tui.slash_command import shown_path

        name, path = saved
        self.refill(name)
        said = f"Saved the {name} agent to {shown_path(path, self.conversation.root)}; the model can use it now."
        self._say(said)
        self.host.say(said)

    def _say(self, text: str) -> None:
        """One line under the list (the transcript is behind this screen)."""
        self.query_one("#agents-said", Static).update(Text(text, style="italic"))

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)


class ScopeChoice(Static, can_focus=True):
    """Where a new type is written: ← → or Space switch between the project's directory and your own."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,left,right", "switch", "Switch", show=False),
    ]

    def __init__(self, scope: Literal["project", "user"] = "project", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.scope: Literal["project", "user"] = scope

    def on_mount(self) -> None:
        self._draw()

    def action_switch(self) -> None:
        self.scope = "user" if self.scope == "project" else "project"
        self._draw()

    def _draw(self) -> None:
        marks = {True: "● ", False: "○ "}
        self.update(
            f"{marks[self.scope == 'project']}this project (.claude/agents/)   "
            f"{marks[self.scope == 'user']}all your projects (~/.claude/agents/)   (Space switches)"
        )


class AgentEditor(ModalScreen["tuple[str, Path] | None"]):
    # (focused as the screen is composed, before its first frame: keys typed as it appears reach the field; the name
    # when creating, the description when editing, the name being fixed then)
    AUTO_FOCUS = "#name, #description"
    DEFAULT_CSS = """
    AgentEditor { align: center middle; background: $background 60%; }
    AgentEditor #editor {
        width: 90%; max-width: 120; height: 90%; padding: 0 1; border: thick $primary; background: $panel;
    }
    AgentEditor .field { height: 1; margin-bottom: 1; }
    AgentEditor .field Label { width: 13; color: $text-muted; }
    AgentEditor .field Input { width: 1fr; }
    AgentEditor ScopeChoice { width: 1fr; }
    AgentEditor ScopeChoice:focus { background: $boost; }
    AgentEditor #prompt { height: 1fr; min-height: 3; }
    AgentEditor #editor-error { color: $error; height: auto; }
    AgentEditor #editor-keys { color: $text-muted; height: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("ctrl+s", "save", "Save", show=False),  # (in turn: after what was typed before it)
        # (at once, as the key arrives: what is typed right after it goes to the next field, not this one)
        Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    ]

    def __init__(self, conversation: Conversation, editing: AgentTypeInfo | None) -> None:
        super().__init__()
        self.conversation = conversation
        self.editing = editing

    def compose(self) -> ComposeResult:
        info = self.editing
        fields = {
            "Name": Input(info.name if info else "", placeholder="code-reviewer", id="name", disabled=bool(info)),
            # (a line break of the description is shown, and typed, as \n)
            "Description": Input(
                info.description.replace("\n", "\\n") if info else "", placeholder="when to use it", id="description"
            ),
            "Tools": Input(
                ", ".join(info.tools or ()) if info else "", placeholder="Read, Grep (empty: all)", id="tools"
            ),
            "Model": Input(
                info.model if info else "", placeholder="sonnet, opus, haiku or an id (empty: the same)", id="model"
            ),
        }
        with Vertical(id="editor") as box:
            box.border_title = f"Edit the {info.name} agent" if info else "A new agent type"
            for label, field in fields.items():
                field.compact = True
                with Horizontal(classes="field"):
                    yield Label(label)
                    yield field
            if info is None:
                with Horizontal(classes="field"):
                    yield Label("Location")
                    yield ScopeChoice(id="scope")
            yield Label("Prompt (the agent's instructions):")
            yield TextArea(info.prompt if info else "", id="prompt", soft_wrap=True, tab_behavior="focus")
            yield Static("", id="editor-error")
            yield Static("Tab next field · Ctrl+S save · Esc cancel", id="editor-keys")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    def action_save(self) -> None:
        from agentui.api import AgentFileError, save_agent_type

        value = {name: self.query_one(f"#{name}", Input).value for name in ("name", "description", "tools", "model")}
        tools = [t.strip() for t in value["tools"].replace(";", ",").split(",") if t.strip()] or None
        scope = self.query_one("#scope", ScopeChoice).scope if self.editing is None else "project"
        try:
            path = save_agent_type(
                self.conversation,
                name=value["name"],
                description=value["description"].replace("\\n", "\n"),  # (a line break is typed as \n)
                tools=tools,
                model=value["model"].strip(),
                prompt=self.query_one("#prompt", TextArea).text,
                scope=scope,
                editing=self.editing,
            )
        except (AgentFileError, OSError) as exc:
            said = str(exc) if isinstance(exc, AgentFileError) else f"It could not be written: {exc.strerror or exc}."
            self.query_one("#editor-error", Static).update(said)
            return
        self.dismiss((value["name"].strip(), path))

    def action_cancel(self) -> None:
        self.dismiss(None)

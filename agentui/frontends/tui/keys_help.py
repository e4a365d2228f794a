"""What `/help` shows, and the README's tables of keys and commands repeat word for word (a test holds them to it):
each key of the app with what it does."""

from __future__ import annotations

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter · Ctrl+J (or Shift+Enter)", "send · new line"),
    ("↑ ↓", "earlier prompts (kept per project)"),
    ("Esc", "interrupt what runs (the answer, the model's command or your `!command`); back to the prompt"),
    ("Ctrl+C", "interrupt what runs, as Esc; with nothing running, clear the prompt; twice on an empty prompt, quit"),
    ("Ctrl+U · Ctrl+K · Ctrl+W", "in the prompt: delete to the line's start · to its end · the word before"),
    ("Ctrl+Y · Ctrl+_", "in the prompt: paste back what those deleted · undo"),
    ("Esc Esc", "on an empty prompt with nothing running: rewind to before an earlier prompt (as `/rewind`)"),
    (
        "y 1 · s 2 · a 3",
        "in a permission question: yes once · for this session · always (saved to .claude/settings.local.json)",
    ),
    ("n · Esc · Tab", "in a permission question: no (the turn ends there) · the same · no, and tell the model why"),
    ("PageUp PageDown", "scroll the transcript from the prompt (a resumed session is drawn as you read back)"),
    ("Ctrl+Home Ctrl+End", "the top · the end of the transcript"),
    (
        "Tab, then Enter",
        "move to the newest block (Tab again: the one above), marked; Enter opens or folds it; typing goes back to "
        "the prompt",
    ),
    (
        "Ctrl+P",
        "pin the prompt (click it) or tool call (Tab) in focus: every compaction carries it verbatim; again: unpin",
    ),
    ("Ctrl+O", "copy the last answer as Markdown (or the block in focus); again at once: its code blocks"),
    ("Ctrl+R", "search earlier prompts (Ctrl+R again: older; Enter picks; Esc leaves)"),
    ("Ctrl+F", "find text in the transcript (Enter: the next match up; Esc closes)"),
    ("Shift+Tab", "permission mode: default → acceptEdits → plan"),
    ("Ctrl+B", "send the running command to the background"),
    ("Ctrl+V", "paste the clipboard's image"),
    ("Ctrl+G", "edit the prompt in $VISUAL or $EDITOR; its text comes back when the editor closes"),
    ("Alt+T", "thinking on or off for the next requests (the status bar says `thinking`)"),
    ("ultrathink", "in a prompt: the most thinking (31,999 tokens) for that prompt"),
    ("Esc · i a o", "with `/vim`: NORMAL mode (vim's motions and edits) · back to INSERT; Enter sends in both"),
    ("Ctrl+L", "clear the view"),
    ("/", "a command (below), or your own from .claude/commands/*.md"),
    ("@", "complete a file name; the file goes with the prompt"),
    ("!command", "run a shell command yourself; its output joins the conversation"),
    ("#note", "add a line to CLAUDE.md"),
)

"""Output styles, as Claude Code 2.1.197 has them: its built-in ones (Default, Explanatory, Learning, their prompts
word for word in the files beside this one) and the person's and the project's (`~/.claude/output-styles/*.md`,
`.claude/output-styles/*.md`: front matter `name`, `description`, `keep-coding-instructions`; the body is the prompt).
The `outputStyle` setting of the most specific settings file names the one in use; a project's own styles and its
setting count once the project is trusted (they are instructions to the model that arrive with the code)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentui.core.claude_settings import SettingsError, change_settings_file, load_sources, local_settings_path
from agentui.core.dirs import claude_config_dir
from agentui.core.errors import AgentuiError
from agentui.core.extend.extension_files import extension_text, in_project
from agentui.core.frontmatter import parse_front_matter

DEFAULT = "default"
"""The setting's value for no style: agentui's own instructions, unchanged."""


class OutputStyleError(AgentuiError):
    """There is no output style of that name, or the setting could not be saved; one sentence says which."""


@dataclass(frozen=True)
class OutputStyle:
    name: str
    description: str
    prompt: str
    source: str
    """"built-in", "user" or "project"."""
    keep_coding_instructions: bool = False
    """A custom style replaces agentui's coding instructions unless its front matter keeps them."""


def _built_in(name: str, description: str) -> OutputStyle:
    prompt = (Path(__file__).parent / f"{name.lower()}.md").read_text(encoding="utf-8")
    return OutputStyle(name, description, prompt, "built-in", keep_coding_instructions=True)


def built_in_styles() -> list[OutputStyle]:
    return [
        _built_in("Explanatory", "Claude explains its implementation choices and codebase patterns"),
        _built_in("Learning", "Claude pauses and asks you to write small pieces of code for hands-on practice"),
    ]


def load_output_styles(root: Path, env: Mapping[str, str] | None, trusted: bool) -> dict[str, OutputStyle]:
    """Every style by name: the built-in ones, then the person's, then the project's (once trusted), later ones
    winning on a clash of names, as Claude Code's."""
    styles = {style.name: style for style in built_in_styles()}
    places = [(claude_config_dir(env) / "output-styles", "user")]
    if trusted:
        places.append((root / ".claude" / "output-styles", "project"))
    for directory, source in places:
        for path in sorted(directory.glob("*.md")) if directory.is_dir() else []:
            if (text := extension_text(path, in_project(directory, root))) is None:
                continue  # (not a regular file, or a project's link out of it)
            meta, body = parse_front_matter(text)
            name = meta.get("name") or path.stem
            keep = meta.get("keep-coding-instructions", "").strip().lower() == "true"
            styles[name] = OutputStyle(name, meta.get("description", ""), body.strip(), source, keep)
    return styles


def style_setting(root: Path, env: Mapping[str, str] | None, trusted: bool) -> str:
    """The `outputStyle` of the most specific settings file that has one (a project's own once trusted)."""
    chosen = DEFAULT
    try:
        sources = load_sources(root, env)
    except SettingsError:  # (said when the project opened; no style from a file that cannot be read)
        return chosen
    for source in sources:  # (lowest precedence first: the last one wins)
        value = (source.settings.model_extra or {}).get("outputStyle")
        if isinstance(value, str) and value.strip() and (trusted or not source.from_project):
            chosen = value.strip()
    return chosen


def find_style(styles: Mapping[str, OutputStyle], name: str) -> OutputStyle | None:
    """The style named `name` (its case as written, else any case); None for the default."""
    if name.lower() == DEFAULT:
        return None
    found = styles.get(name) or next((s for key, s in styles.items() if key.lower() == name.lower()), None)
    if found is None:
        raise OutputStyleError(f"There is no output style named {name!r}; /output-style lists them.")
    return found


def output_style(root: Path, env: Mapping[str, str] | None, trusted: bool) -> OutputStyle | None:
    """The style in use (None: the default). One the setting names that does not exist is the default."""
    try:
        return find_style(load_output_styles(root, env, trusted), style_setting(root, env, trusted))
    except OutputStyleError:
        return None


def save_style_setting(root: Path, name: str) -> Path:
    """`outputStyle` in the project's settings.local.json, where Claude Code keeps the person's choice for a project;
    everything else in the file is kept. Returns the file."""
    try:
        return change_settings_file(
            local_settings_path(root), lambda data: data.__setitem__("outputStyle", name), within=root, checked=True
        )
    except SettingsError as exc:
        raise OutputStyleError(str(exc)) from None


class Styled(Protocol):
    """A conversation, as far as its output style goes."""

    env: Mapping[str, str] | None

    @property
    def root(self) -> Path: ...

    @property
    def project(self) -> Trusting: ...


class Trusting(Protocol):
    @property
    def trusted(self) -> bool: ...


def style_in_use(conversation: Styled) -> str:
    """The name of the style in use, as Claude Code's init message says it ("default" for none)."""
    style = output_style(conversation.root, conversation.env, conversation.project.trusted)
    return style.name if style is not None else DEFAULT


def style_names(conversation: Styled) -> list[str]:
    """Every style's name, "default" first, as Claude Code's initialize answer lists them."""
    return [DEFAULT, *load_output_styles(conversation.root, conversation.env, conversation.project.trusted)]

"""A TextArea that takes its theme's colours from CSS when they can have changed, not at every draw: Textual's
TextArea reads them again each time (its cursor's, its selection's, its gutter's), from styles its every refresh
throws away, a quarter of a millisecond of each typed key's frame."""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import TextArea


class ThemeColoursOnChange(TextArea):
    _colours_from: tuple[object, ...] = ()
    """What the theme's colours were last taken from: the theme, the app's theme, the widget's own style (its
    ancestors' backgrounds in it) and its component classes' styles (new objects whenever CSS is applied to it)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        theme = self._theme
        if theme:
            source = (theme, self.app.theme, self.rich_style, *self._component_styles.values())
            if source != self._colours_from:  # (each item compared as the same object first, then by value)
                theme.apply_css(self)
                self._colours_from = source
        return super(TextArea, self).render_lines(crop)  # (TextArea's own would take them again)

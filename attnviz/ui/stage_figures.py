"""A slide's figure lines: the numbers a caption quotes that no panel draws by itself.

A caption often quotes a number that the panel it speaks of holds but does not print: one
cell of a 28 × 28 map, a row's output, a mean entropy, a fitted decay factor. A quote with
a ``label`` (``resources/lessons/README.md``) is said under its panel, as "label: value",
the value read from the workspace now (not copied from the caption) and written in the
quote's own form, so what the caption quotes, the slide draws. When the lecturer changes
a field the line follows; a quote that no longer holds shows its new value alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from attnviz.model.quotes import figure_panel, figure_text, quote_value
from attnviz.ui import language
from attnviz.ui.widgets.binding import bind

if TYPE_CHECKING:
    from attnviz.model.lessons import Quote, Step  # (the lessons are read when presenting)

NBSP = "\u00a0"
#: Between two figures of one line: where the line may wrap.
SEPARATOR = "   ·   "


def figure_quotes(step: Step) -> dict[str, list[Quote]]:
    """``{panel id: [quote, …]}``: the labelled quotes of ``step``, by the panel that
    says them (:func:`attnviz.model.quotes.figure_panel`)."""
    out: dict[str, list[Quote]] = {}
    for quote in step.quotes:
        if quote.label is not None:
            out.setdefault(figure_panel(quote.source, step.panels, quote.on), []).append(quote)
    return out


def figure_line_text(workspace, quotes, lang: str) -> str:
    """The text of a figure line: ``label: value`` per quote; a figure wraps only between
    figures and within its label, never inside ``: value``."""
    parts = []
    for quote in quotes:
        try:
            value = quote_value(workspace, quote.source)
            shown = figure_text(quote.text, lang, value, quote.matches(value), quote.bound)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError, ArithmeticError):
            shown = "—"  # the lecturer changed the scene so the source is gone
        label = quote.label.get(lang) or quote.label["en"]
        parts.append(f"{label}:{NBSP}{shown.replace(' ', NBSP)}")
    return SEPARATOR.join(parts)


class FigureLine(QLabel):
    """The figures of one panel on the stage (hidden when it has none)."""

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("stage_figures")
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.workspace = workspace
        self.quotes: tuple[Quote, ...] = ()
        # A burst of edits (a slider dragged) refreshes the line once, after it.
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self.refresh)
        bind(self, workspace.document.changed, self._on_document_changed)
        self.hide()

    def _on_document_changed(self, _topic, _fields) -> None:
        if self.quotes:
            self._later.start()

    def set_quotes(self, quotes) -> None:
        """Say ``quotes`` (labelled quotes of the step shown) from now on."""
        self.quotes = tuple(quotes)
        self.refresh()

    def refresh(self) -> None:
        """Read the values again (after an edit, or in another language)."""
        text = figure_line_text(self.workspace, self.quotes, language.active_language())
        self.setText(text)
        self.setVisible(bool(self.quotes))


class PanelSlot(QWidget):
    """A panel on the stage with its figure line under it."""

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("stage_slot")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.figures = FigureLine(workspace, self)
        layout.addWidget(self.figures)

    def hold(self, panel: QWidget) -> None:
        """Put ``panel`` above the figure line, taking all the height it leaves."""
        self.layout().insertWidget(0, panel, 1)

"""The stage of presentation mode: one lesson step, drawn for the back row of a hall.

:class:`Stage` draws a step: its caption, only the panels it names (live, bound to the same
workspace) and a footer, in the high-contrast theme, with fonts sized from its own height
(26 px at 1080, so the numbers of the heatmap and the steps are over 28 px). The stage shows
on a screen through :class:`~attnviz.ui.presenter.Presenter`; the slides of ``attnviz export
--lesson`` are this same widget, rendered offscreen (:func:`attnviz.ui.slides.render_step`).

A slide is a document: its footer names the lesson and the step. What only a lecturer at
the keyboard needs stays on a presenting stage (``presenting=True``): the key line, the
pointer's mode and the list of lessons (:mod:`attnviz.ui.stage_lessons`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication, QGridLayout, QLabel, QVBoxLayout, QWidget

from attnviz.model.lesson_player import neighbour
from attnviz.model.panels import panel_spec
from attnviz.ui import language
from attnviz.ui.lesson_text import caption_html
from attnviz.ui.panels import panel_class
from attnviz.ui.presentation_form import EDITING_PANELS, PresentationForm
from attnviz.ui.presenter_keys import key_line
from attnviz.ui.stage_figures import PanelSlot, figure_quotes
from attnviz.ui.stage_fit import StageFit
from attnviz.ui.stage_lessons import LessonMenu
from attnviz.ui.theme import presentation_palette, presentation_theme
from attnviz.ui.widgets.binding import scaled_font

if TYPE_CHECKING:
    from attnviz.model.lessons import Lesson  # (the lessons are read when presenting)

# The context of presentation mode's strings since it was one module: the .ts keeps it.
_C = "Presentation"
#: Interface font on a 1920×1080 stage; other sizes scale with the height.
BASE_PX = 26
DESIGN_HEIGHT = 1080
#: View → Large Fonts on the stage: its type is sized for a hall already (26 px at 1080).
STAGE_LARGE_FONTS = 1.25
#: The pointer's spotlight modes, in the order H cycles through them.
POINTER_MODES = ("off", "cell", "row", "column")
_POINTER_NAMES = {
    "cell": QT_TRANSLATE_NOOP("Presentation", "pointer: cell"),
    "row": QT_TRANSLATE_NOOP("Presentation", "pointer: row"),
    "column": QT_TRANSLATE_NOOP("Presentation", "pointer: column"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def _fields_in_play(lesson: Lesson, index: int, panel_id: str) -> dict:
    """What a panel shows on a slide follows the attention fields in play
    (``focus_fields``' arguments): ``in_lesson``, those set by the lesson's steps that show
    ``panel_id`` (all its steps when none does); ``so_far``, those its steps up to
    ``index`` set; ``step``, those step ``index`` sets itself. The controls show the group
    of the step's own fields, else the lesson's (the masks all through the lesson on
    masks); the gradient draws its saturation plot from the step that moves the
    temperature on."""

    def fields(steps) -> frozenset:
        return frozenset(name for step in steps for name in step.values.get("attention", {}))

    showing = [step for step in lesson.steps if panel_id in step.panels]
    return {
        "in_lesson": fields(showing or lesson.steps),
        "so_far": fields(lesson.steps[: index + 1]),
        "step": fields(lesson.steps[index : index + 1]),
    }


def stage_font_px(height: int) -> int:
    """The stage's interface font in pixels for a stage ``height`` pixels tall."""
    return max(12, round(height * BASE_PX / DESIGN_HEIGHT))


class Stage(QWidget):
    """One step on a screen: caption, the step's panels, a footer; high contrast.

    Parameters
    ----------
    workspace : Workspace
        The panels show (and edit) this workspace.
    dark : bool
        White on black instead of black on white.
    font_scale : float
        Type larger than the stage's own (View → Large Fonts: 1.5).
    presenting : bool
        A lecturer presents it (the footer names the keys, the lesson list can show);
        False for a slide, a document.
    lessons : sequence of Lesson
        The lessons the list shows, in order (a presenting stage).
    """

    def __init__(
        self,
        workspace,
        *,
        dark: bool = False,
        font_scale: float = 1.0,
        presenting: bool = False,
        lessons=(),
        parent=None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("presentation_stage")
        self.workspace = workspace
        self.font_scale = font_scale
        self.presenting = presenting
        self.lessons = tuple(lessons)
        # A click anywhere on the stage but an input takes the focus back from a text
        # field, so that the arrow keys step again.
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.theme = presentation_theme(dark)
        self.setPalette(presentation_palette(dark))
        self.setAutoFillBackground(True)
        layout = QVBoxLayout(self)
        self.caption = QLabel()
        self.caption.setObjectName("stage_caption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.caption)
        self.body = QWidget()
        self.grid = QGridLayout(self.body)
        self.grid.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.body, 1)
        self.footer = QLabel()
        self.footer.setObjectName("stage_footer")
        self.footer.setWordWrap(True)  # a long key line takes a second line, never cut
        layout.addWidget(self.footer)
        self.lesson_menu = LessonMenu(self)
        self.curtain = QWidget(self)
        self.curtain.setObjectName("stage_curtain")
        self.curtain.setAutoFillBackground(True)
        pal = self.curtain.palette()
        pal.setColor(self.curtain.backgroundRole(), QColor("#000000"))
        self.curtain.setPalette(pal)
        self.curtain.hide()
        self.panels: dict[str, QWidget] = {}
        self.slots: dict[str, PanelSlot] = {}  # a panel with its figure line
        self.forms: dict[str, PresentationForm] = {}
        self.shown: tuple[str, ...] = ()
        self.pointer = "off"
        self.lesson: Lesson | None = None
        self.index = -1
        self._font_px = 0
        self.fit = StageFit(self)  # panels that would scroll take smaller type instead
        self._fit_font()

    # --- steps -------------------------------------------------------------------------
    def show_step(self, lesson: Lesson, index: int) -> None:
        """Show step ``index`` of ``lesson`` (its state must already be in the document)."""
        self.lesson, self.index = lesson, index
        step = lesson.steps[index]
        self._arrange(step.panels)
        figures = figure_quotes(step)
        for pid in self.shown:
            self.slots[pid].figures.set_quotes(figures.get(pid, ()))
        for pid in self.shown:
            panel = self.panels[pid]
            panel.focus_data(lesson.quoted_data(pid))  # the parts the lesson speaks of
            panel.focus_fields(**_fields_in_play(lesson, index, pid))
        self.retranslate()
        self.apply_highlight()
        self.fit.restart()
        if self.presenting and not self.lesson_menu.isVisible():
            self.setFocus()  # a new step starts with the presenter's keys, not a text field's

    def retranslate(self) -> None:
        """Caption and footer in the language running now."""
        if self.lesson is None:
            return
        lang = language.active_language()
        step = self.lesson.steps[self.index]
        self.caption.setText(caption_html(step.caption_in(lang)))
        for pid in self.shown:
            self.slots[pid].figures.refresh()
        where = (
            QCoreApplication.translate("Presentation", "Step %1 of %2")
            .replace("%1", str(self.index + 1))
            .replace("%2", str(len(self.lesson)))
        )
        parts = [self.lesson.title_in(lang), where]
        if self.presenting:
            if self.pointer != "off":
                parts.append(_tr(_POINTER_NAMES[self.pointer]))
            parts.append(key_line(self._next_step()))
        self.footer.setText("   ·   ".join(parts))

    def _next_step(self) -> str | None:
        """What a step forward does from here: "next", "next lesson" or None (the end)."""
        if self.index + 1 < len(self.lesson):
            return "next"
        return "next lesson" if neighbour(self.lessons, self.lesson, 1) else None

    def show_lessons(self, on: bool) -> None:
        """Show the list of lessons over the stage (the one presented chosen), or hide it."""
        if on and self.lessons:
            self.lesson_menu.open(self.lessons, None if self.lesson is None else self.lesson.id)
        else:
            self.lesson_menu.hide()
            self.setFocus()

    def panel(self, panel_id: str) -> QWidget:
        """The stage's own panel ``panel_id`` (built on first use)."""
        if panel_id not in self.panels:
            slot = PanelSlot(self.workspace, self.body)
            panel = panel_class(panel_id).create(self.workspace, slot)
            slot.hold(panel)
            panel.setObjectName(f"stage_{panel_id}")
            if panel_id not in EDITING_PANELS:
                self.forms[panel_id] = PresentationForm(panel)
            panel.apply_theme(self.theme)
            panel.sigPointed.connect(
                lambda row, col, panel=panel: self._on_q_pointer(panel, row, col)
            )
            slot.hide()
            self.panels[panel_id] = panel
            self.slots[panel_id] = slot
        return self.panels[panel_id]

    def _arrange(self, ids: tuple[str, ...]) -> None:
        """One panel alone, two side by side, or the first left of the others."""
        if ids == self.shown:
            return
        for pid in self.shown:
            if pid not in ids:
                self.slots[pid].hide()
            self.grid.removeWidget(self.slots[pid])
        for i in range(4):
            self.grid.setColumnStretch(i, 0)
            self.grid.setRowStretch(i, 0)
        for pid in ids:
            self.panel(pid)
        panels = [self.slots[pid] for pid in ids]
        weight = [panel_spec(pid).weight for pid in ids]
        if len(panels) <= 2:
            for col, p in enumerate(panels):
                self.grid.addWidget(p, 0, col)
                self.grid.setColumnStretch(col, weight[col])
            self.grid.setRowStretch(0, 1)
        else:
            rest = panels[1:]
            self.grid.addWidget(panels[0], 0, 0, len(rest), 1)
            for row, p in enumerate(rest):
                self.grid.addWidget(p, row, 1)
                self.grid.setRowStretch(row, 1)
            self.grid.setColumnStretch(0, weight[0])
            self.grid.setColumnStretch(1, max(weight[1:]))
        for p in panels:
            p.show()
        self.shown = tuple(ids)

    # --- highlight and pointer ---------------------------------------------------------
    def apply_highlight(self) -> None:
        """The step's highlight (or none) on every panel of the stage."""
        step = None if self.lesson is None else self.lesson.steps[self.index]
        for panel in self.panels.values():
            panel.highlight_step(step)

    def cycle_pointer(self) -> str:
        """The next pointer mode: the spotlight follows the mouse on a cell, row or column."""
        self.pointer = POINTER_MODES[(POINTER_MODES.index(self.pointer) + 1) % 4]
        if self.pointer == "off":
            self.apply_highlight()
        self.retranslate()  # the footer names the mode
        return self.pointer

    def _on_q_pointer(self, panel, row: int, col: int) -> None:
        if self.pointer == "off":
            return
        if row < 0 or col < 0:
            self.apply_highlight()
        elif self.pointer == "cell":
            panel.highlight("cell", (row, col))
        else:
            panel.highlight(self.pointer, (row if self.pointer == "row" else col,))

    # --- blank, fonts ------------------------------------------------------------------
    @property
    def blank(self) -> bool:
        """True while the screen is black."""
        return self.curtain.isVisible()

    def set_blank(self, on: bool) -> None:
        """Black the whole stage (a presenter remote's B or .) or show it again."""
        self.curtain.setGeometry(self.rect())
        self.curtain.raise_()
        self.curtain.setVisible(on)

    def _fit_font(self) -> None:
        px = round(stage_font_px(self.height()) * self.font_scale)
        if px == self._font_px:
            return
        self._font_px = px
        font = QFont(QApplication.font())
        font.setPixelSize(px)
        self.setFont(font)
        self.caption.setFont(scaled_font(font, 1.2))
        self.footer.setFont(scaled_font(font, 0.75))
        margin = max(6, px // 2)
        self.layout().setContentsMargins(margin, margin // 2, margin, margin // 3)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_font()
        self.curtain.setGeometry(self.rect())
        if self.lesson_menu.isVisible():
            self.lesson_menu.place()
        self.fit.restart()

"""The lessons dock: the list of guided lessons, the step's caption, step k of N, back/next.

Picking a lesson plays its first step (one undo step: the document is set to the step's
scene, the step's panels come to the front and the heatmap highlights what the caption
talks about). F5 presents the same lesson full screen (:mod:`attnviz.ui.presenter`).
The panel follows the window's :class:`~attnviz.model.lesson_player.LessonPlayer`, which
outlives the panel when the window rebuilds itself in another language.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
)

from attnviz.model.lesson_player import LessonPlayer
from attnviz.model.lessons import LessonError
from attnviz.ui import language
from attnviz.ui.lesson_text import caption_html, lesson_step_label
from attnviz.ui.panel_base import Panel
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.numbers import counted

WRAP = int(Qt.TextFlag.TextWordWrap)
#: Rows of the lesson list kept in view at least: past them the list takes the room the
#: dock leaves under its caption and buttons, all its lessons where they fit, and scrolls
#: only where they do not (sixteen titles wrapped in a narrow Portuguese dock pushed the
#: buttons out of it).
LIST_ROWS = 10


class LessonPanel(Panel):
    """Guided lessons: pick one, read each step's caption, step back and forth."""

    PANEL_ID = "lessons"

    @classmethod
    def create(cls, workspace, parent=None):
        """The panel, on the window's lesson player when it has one."""
        return cls(workspace, parent, player=getattr(parent, "lessons", None))

    def __init__(self, workspace, parent=None, *, player: LessonPlayer | None = None) -> None:
        super().__init__(workspace, parent)
        if player is None:
            player = LessonPlayer(workspace, label=lesson_step_label)
        self.player = player
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        intro = QLabel(
            self.tr(
                "Each lesson walks through one section of the documents: every "
                "step sets up the panels and says what to look at."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.list = QListWidget()
        self.list.setObjectName("lesson_list")
        self.list.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        # Long titles wrap rather than scroll sideways (large fonts, a narrow dock).
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.list.itemActivated.connect(self._on_q_item)
        self.list.itemClicked.connect(self._on_q_item)
        layout.addWidget(self.list)
        self.heading = QLabel()
        self.heading.setObjectName("lesson_title")
        self.heading.setWordWrap(True)
        self.scale_font(self.heading, 1.15, bold=True)
        layout.addWidget(self.heading)
        self.position = QLabel()
        self.position.setObjectName("lesson_position")
        layout.addWidget(self.position)
        self.caption = QLabel()
        self.caption.setObjectName("lesson_caption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scale_font(self.caption, 1.1)
        layout.addWidget(self.caption)
        row = QHBoxLayout()
        self.back = QPushButton(self.tr("◀ &Back"))
        self.back.setObjectName("lesson_back")
        self.back.setToolTip(self.tr("The step before (← or PageUp while presenting)"))
        self.back.clicked.connect(self.player.previous)
        self.forward = QPushButton(self.tr("&Next ▶"))
        self.forward.setObjectName("lesson_next")
        self.forward.setToolTip(self.tr("The next step (→ or PageDown while presenting)"))
        self.forward.clicked.connect(self.player.next)
        self.present = QPushButton(self.tr("&Present (F5)"))
        self.present.setObjectName("lesson_present")
        self.present.setToolTip(self.tr("Show this step full screen, for a lecture hall"))
        self.present.clicked.connect(self._on_q_present)
        for button in (self.back, self.forward, self.present):
            row.addWidget(button)
        layout.addLayout(row)
        layout.addStretch(1)
        self._finish(layout, scroll=True)
        bind(self, self.player.sigStepChanged, self._on_step)
        bind(self, self.player.sigFailed, self.show_error)
        # Reading the lessons takes a quarter of a second: not at start-up, when the dock
        # is a tab behind the editor, but when it is first shown or a lesson is played.
        self._filled = False
        self._on_step(self.player.lesson, self.player.index)

    # --- lessons -----------------------------------------------------------------------
    def showEvent(self, event) -> None:
        self._fill()
        super().showEvent(event)

    def _fill(self) -> None:
        if self._filled:
            return
        self._filled = True
        lang = language.active_language()
        try:
            lessons = self.player.lessons
        except LessonError as exc:  # a broken file names itself; the app still runs
            self.show_error(str(exc))
            lessons = ()
        for lesson in lessons:
            # The number of steps on hover: in the row it made titles wrap onto two lines.
            steps = counted(self.tr("%n step(s)", "", len(lesson)), len(lesson))
            item = QListWidgetItem(lesson.title_in(lang))
            item.setData(Qt.ItemDataRole.UserRole, lesson.id)
            item.setToolTip(f"{steps} · {lesson.source}")
            self.list.addItem(item)
        self._fit_list()

    def _fit_list(self) -> None:
        """Every lesson where the dock has the room, else as many as it has (at least
        :data:`LIST_ROWS`) and a scroll bar."""
        # Each row is as tall as its title wrapped to the list's width: Qt's own hint was
        # one line, and a long Portuguese title lost its last words below it.
        fm = QFontMetrics(self.list.font())
        width = max(self.list.viewport().width() - 8, 40)
        for i in range(self.list.count()):
            item = self.list.item(i)
            box = fm.boundingRect(QRect(0, 0, width, 10_000), WRAP, item.text())
            # Two pixels between titles: sixteen lessons and the buttons fit a 1280×720 hall.
            item.setSizeHint(QSize(width, box.height() + 2))
        heights = [max(self.list.sizeHintForRow(i), 1) for i in range(self.list.count())]
        frame = 2 * self.list.frameWidth()
        whole = sum(heights) + frame if heights else 20
        least = sum(heights[:LIST_ROWS]) + frame if heights else 20
        height = min(whole, max(least, self._list_room()))
        off, needed = Qt.ScrollBarPolicy.ScrollBarAlwaysOff, Qt.ScrollBarPolicy.ScrollBarAsNeeded
        self.list.setVerticalScrollBarPolicy(off if height >= whole else needed)
        # Fixed: a list's own size hint is a few rows, whatever the room (the panel scrolls).
        self.list.setFixedHeight(height)

    def _list_room(self) -> int:
        """The list's height that leaves everything under it in the panel's view."""
        view = self.window().height() if self.window() is self else self.height()
        below = self.present.geometry().bottom() - self.list.geometry().bottom()
        return view - self.list.geometry().top() - below - 4

    def _on_font_changed(self) -> None:
        if getattr(self, "_filled", False):
            self.list.doItemsLayout()
            self._fit_list()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._on_font_changed()  # wrapped titles take more rows in a narrower dock
        # Again once the layout has settled: the room under the list is measured on it.
        QTimer.singleShot(0, self, self._on_font_changed)

    def lesson_ids(self) -> list[str]:
        """The ids in the list, in its order."""
        self._fill()
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def _on_q_item(self, item: QListWidgetItem) -> None:
        lesson_id = item.data(Qt.ItemDataRole.UserRole)
        if self.player.lesson is None or self.player.lesson.id != lesson_id:
            self.player.open(lesson_id)

    def _on_q_present(self) -> None:
        presenter = getattr(self.window(), "presenter", None)
        if presenter is not None:
            presenter.enter()

    def _on_step(self, lesson, index: int) -> None:
        if lesson is None:
            self.heading.setText(self.tr("No lesson open"))
            self.position.setText("")
            self.caption.setText(self.tr("Pick a lesson in the list to start it."))
        else:
            lang = language.active_language()
            self.heading.setText(lesson.title_in(lang))
            self.position.setText(
                self.tr("Step %1 of %2")
                .replace("%1", str(index + 1))
                .replace("%2", str(len(lesson)))
            )
            self.caption.setText(caption_html(lesson.steps[index].caption_in(lang)))
            ids = self.lesson_ids()
            if lesson.id in ids:
                self.list.setCurrentRow(ids.index(lesson.id))
        self.back.setEnabled(lesson is not None and index > 0)
        self.forward.setEnabled(lesson is not None and index + 1 < len(lesson))
        self.present.setVisible(hasattr(self.window(), "presenter"))
        if lesson is not None:
            self.show_error(None)  # a step played: an earlier failure is over

    def step_text(self) -> str:
        """The caption shown, as plain text (tests, exports)."""
        return self.caption.text()

"""The stage's lesson list: every lesson, over the slide, to go on with another one (L).

A lecture rarely follows the lessons' order to the end: the list shows them all with their
number of steps, the one presented chosen; ↑/↓ (or the remote's PageUp/PageDown) choose,
Enter, Space or a click presents the chosen lesson from its first step, Esc or L closes
the list. It lives only on a presenting stage: a slide is a document and never shows it.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QListWidget, QListWidgetItem, QVBoxLayout

from attnviz.ui import language
from attnviz.ui.widgets.binding import scaled_font
from attnviz.ui.widgets.numbers import counted

#: The share of the stage the list covers, across and down.
COVER = (0.6, 0.8)


class LessonMenu(QFrame):
    """Every lesson as a list over the stage.

    Signals
    -------
    sigChosen(str)
        The id of the lesson chosen (Enter, Space or a click).
    """

    sigChosen = Signal(str)  # Qt naming

    def __init__(self, parent) -> None:
        super().__init__(parent)
        self.setObjectName("stage_lessons")
        self.setFrameShape(QFrame.Shape.Box)
        self.setAutoFillBackground(True)
        layout = QVBoxLayout(self)
        self.heading = QLabel()
        self.heading.setObjectName("stage_lessons_heading")
        layout.addWidget(self.heading)
        self.list = QListWidget()
        self.list.setObjectName("stage_lesson_list")
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.itemClicked.connect(self._on_q_item)
        self.list.itemActivated.connect(self._on_q_item)
        layout.addWidget(self.list, 1)
        self.hide()

    def open(self, lessons, current: str | None) -> None:
        """Show ``lessons`` with ``current`` (an id) chosen, the list taking the keys."""
        lang = language.active_language()
        self.heading.setText(
            QCoreApplication.translate(
                "Presentation", "Lessons: ↑/↓ choose · Enter present · Esc close"
            )
        )
        self.list.clear()
        for lesson in lessons:
            n = len(lesson)
            steps = counted(QCoreApplication.translate("LessonPanel", "%n step(s)", "", n), n)
            item = QListWidgetItem(f"{lesson.title_in(lang)}   ·   {steps}")
            item.setData(Qt.ItemDataRole.UserRole, lesson.id)
            self.list.addItem(item)
            if lesson.id == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        self.place()
        self.show()
        self.raise_()
        self.list.setFocus()

    def place(self) -> None:
        """Centred over the stage, in the stage's type, as tall as its lessons (at most
        :data:`COVER` of the stage: then the list scrolls)."""
        stage = self.parentWidget()
        font = stage.font()
        self.setFont(font)
        self.heading.setFont(scaled_font(font, 1.1))
        width, most = round(stage.width() * COVER[0]), round(stage.height() * COVER[1])
        self.resize(width, most)  # the rows' wrapped heights follow the width
        self.layout().activate()
        self.list.doItemsLayout()
        rows = sum(self.list.sizeHintForRow(i) for i in range(self.list.count()))
        margins = self.layout().contentsMargins()
        height = (
            rows
            + 2 * self.list.frameWidth()
            + self.heading.sizeHint().height()
            + self.layout().spacing()
            + margins.top()
            + margins.bottom()
            + 2 * self.frameWidth()
        )
        height = min(most, height)
        self.setGeometry(
            (stage.width() - width) // 2, (stage.height() - height) // 2, width, height
        )

    def chosen(self) -> str | None:
        """The id of the lesson chosen in the list, or None."""
        item = self.list.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def choose(self) -> None:
        """Present the chosen lesson (Enter, Space)."""
        lesson_id = self.chosen()
        if lesson_id is not None:
            self.sigChosen.emit(lesson_id)

    def _on_q_item(self, item: QListWidgetItem) -> None:
        self.list.setCurrentItem(item)
        self.choose()

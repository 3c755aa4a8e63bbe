"""Every text a widget shows, with the box it takes on screen: what the overlap check reads.

:func:`text_items` walks a widget (the main window, one panel, the presentation stage) and
returns one :class:`TextItem` per visible text, in the widget's own pixel coordinates:

- labels: the rectangle their text takes inside the label (not the label's own box), word
  wrap and rich text included;
- item views: the text of each cell and header section, and where it is elided;
- buttons, check boxes, combo boxes, tabs and dock titles: their text, only to say when
  it is cut (they never stand over other texts: a layout places them);
- pyqtgraph plots: every text item of the scene (``TextItem``, axis names, legend
  entries) by its lines' natural rectangles, and every axis's tick labels as the axis
  lays them out;
- painted views (:class:`~attnviz.ui.widgets.painted.PaintedWidget`): what they pass to
  ``drawText``, recorded while they paint onto an image.

Each item carries ``room``, the part of the widget where it can be seen (its own box cut
by every parent and scroll viewport), and ``cut`` when the text is clipped or elided.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QImage, QPainter, QTextDocument
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText lives in QtGui
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QDockWidget,
    QGraphicsTextItem,
    QGraphicsView,
    QHeaderView,
    QLabel,
    QProgressBar,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionDockWidget,
    QTabBar,
    QWidget,
)

__all__ = ["TextItem", "text_items", "visible_rect"]

#: Item views larger than this are read in their first rows and columns only (a 4096-row
#: table is a scrolling list on purpose; its first screenful says what a slide shows).
MAX_ROWS, MAX_COLUMNS = 200, 64
#: Rounding slack in pixels before a text counts as sticking out of its room.
SLACK = 1.0


@dataclass
class TextItem:
    """One text on screen: ``box`` where it is drawn, ``room`` where it can be seen (both
    in the checked widget's pixels), ``where`` a readable path to it, ``cut`` why it is
    not whole (``"clipped"``, ``"elided"``; empty when it is), ``overlaps`` False for
    texts that a layout keeps apart (buttons, tabs), ``view`` the plot's ``ViewBox`` it
    stands in, if any."""

    text: str
    box: QRectF
    room: QRectF
    where: str
    cut: str = ""
    overlaps: bool = True
    view: object | None = field(default=None, repr=False)
    #: The text's box in its graphics scene (texts of a plot only).
    scene_box: QRectF | None = field(default=None, repr=False)
    #: The item view a cell or header section belongs to (its cut cells are one finding).
    group: QWidget | None = field(default=None, repr=False)

    def shown(self) -> QRectF:
        """The part of the text that can be seen."""
        return self.box.intersected(self.room)

    def describe(self) -> str:
        """``"text" (where)``, the text cut to 40 characters."""
        text = " ".join(self.text.split())
        text = text if len(text) <= 40 else text[:39] + "…"
        return f"“{text}” ({self.where})"


#: Qt's word-wrap flag, for a view whose cells wrap their text.
WRAP = int(Qt.TextFlag.TextWordWrap)


def visible_rect(widget: QWidget, root: QWidget) -> QRectF:
    """The part of ``widget`` inside every parent up to ``root``, in ``root``'s pixels."""
    rect = QRectF(widget.rect()).translated(QPointF(widget.mapTo(root, QPointF(0, 0))))
    parent = widget.parentWidget()
    while parent is not None and widget is not root:
        if parent is root:
            rect = rect.intersected(QRectF(root.rect()))
            break
        corner = QPointF(parent.mapTo(root, QPointF(0, 0)))
        rect = rect.intersected(QRectF(parent.rect()).translated(corner))
        widget, parent = parent, parent.parentWidget()
    return rect


def where(widget: QWidget, root: QWidget, what: str = "") -> str:
    """A readable path: the panel's and the widget's object names (or classes)."""
    names = []
    w = widget
    while w is not None and w is not root:
        name = w.objectName()
        if name.startswith(("panel_", "dock-")) or w is widget:
            names.append(name or type(w).__name__)
        if name.startswith("panel_"):
            break
        w = w.parentWidget()
    path = "/".join(reversed(names))
    return f"{path} {what}".strip()


def text_items(root: QWidget) -> list[TextItem]:
    """Every visible text in ``root`` (see the module docstring)."""
    out: list[TextItem] = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if w is not root and not w.isVisibleTo(root):
            continue
        if w.width() <= 1 or w.height() <= 1:
            continue
        if visible_rect(w, root).isEmpty() and not scrolled_out(w, root):
            continue  # not drawn: a dock tabbed behind another stands outside the window
        out += _widget_texts(w, root)
    return out


def scrolled_out(widget: QWidget, root: QWidget) -> bool:
    """True when ``widget`` lies in a scroll area's content that is shown, but outside
    the part in view: the reader must scroll to see it (it is cut, not absent)."""
    parent = widget.parentWidget()
    while parent is not None and parent is not root:
        area = parent.parentWidget()
        if isinstance(area, QAbstractScrollArea) and parent is area.viewport():
            return not visible_rect(parent, root).isEmpty()
        parent = area
    return False


def _widget_texts(w: QWidget, root: QWidget) -> list[TextItem]:
    for kind, read in _READERS:  # the first that fits: a header is an item view too
        if isinstance(w, kind):
            return read(w, root)
    if callable(getattr(w, "_paint", None)) and hasattr(w, "_has_content"):
        return _painted(w, root)
    return []


# --- widgets ------------------------------------------------------------------------------
def _plain(text: str, buddy: bool) -> str:
    if buddy:  # "&d_k" shows d_k, "&&" one ampersand
        text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return text


def _label(w: QLabel, root: QWidget) -> list[TextItem]:
    text = w.text()
    if not text.strip():
        return []
    room = QRectF(w.contentsRect())
    margin = w.margin()
    room.adjust(margin, margin, -margin, -margin)
    rich = w.textFormat() == Qt.TextFormat.RichText or (
        w.textFormat() == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text)
    )
    if rich:
        doc = QTextDocument()
        doc.setDefaultFont(w.font())
        doc.setDocumentMargin(0)
        doc.setHtml(text)
        if w.wordWrap():
            doc.setTextWidth(room.width())
        size = doc.size()
        width = min(doc.idealWidth(), size.width()) if w.wordWrap() else size.width()
        box = _aligned(room, width, size.height(), w.alignment())
        plain = doc.toPlainText()
    else:
        plain = _plain(text, w.buddy() is not None)
        flags = int(w.alignment().value)
        if w.wordWrap():
            flags |= Qt.TextFlag.TextWordWrap.value
        box = QFontMetricsF(w.font()).boundingRect(room, flags, plain)
    offset = QPointF(w.mapTo(root, QPointF(0, 0)))
    box = box.translated(offset)
    seen = visible_rect(w, root).intersected(room.translated(offset))
    item = TextItem(plain, box, seen, where(w, root, "label"))
    item.cut = _why(False, box, seen)
    return [item]


def _aligned(room: QRectF, width: float, height: float, align) -> QRectF:
    """A ``width × height`` box placed in ``room`` as ``align`` says."""
    x, y = room.left(), room.top()
    if align & Qt.AlignmentFlag.AlignRight:
        x = room.right() - width
    elif align & Qt.AlignmentFlag.AlignHCenter:
        x = room.center().x() - width / 2
    if align & Qt.AlignmentFlag.AlignBottom:
        y = room.bottom() - height
    elif align & Qt.AlignmentFlag.AlignVCenter:
        y = room.center().y() - height / 2
    return QRectF(x, y, width, height)


def _inside(box: QRectF, room: QRectF) -> bool:
    return room.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(box)


def _why(elided: bool, box: QRectF, room: QRectF) -> str:
    """``"elided"``, ``"clipped"`` (``box`` sticks out of ``room``) or ``""`` (whole)."""
    if elided:
        return "elided"
    return "" if _inside(box, room) else "clipped"


def _boxed(w: QWidget, root: QWidget, text: str, what: str, cut: bool) -> list[TextItem]:
    """A text a layout keeps apart from the others: only whether it is cut counts."""
    seen = visible_rect(w, root)
    whole = QRectF(w.rect()).translated(QPointF(w.mapTo(root, QPointF(0, 0))))
    item = TextItem(text, whole, seen, where(w, root, what), overlaps=False)
    item.cut = _why(cut, whole, seen)
    return [item]


def _button(w: QAbstractButton, root: QWidget) -> list[TextItem]:
    text = _plain(w.text(), True)
    if not text.strip():
        return []
    # Narrower than both what it asks for and the least it takes: its text is cut.
    cut = w.sizeHint().width() > w.width() + 1 and w.minimumSizeHint().width() > w.width() + 1
    return _boxed(w, root, text, "button", cut)


def _combo(w: QComboBox, root: QWidget) -> list[TextItem]:
    text = w.currentText()
    if not text.strip():
        return []
    opt = QStyleOptionComboBox()
    opt.initFrom(w)
    opt.editable = w.isEditable()
    field = w.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, opt, QStyle.SubControl.SC_ComboBoxEditField, w
    )
    cut = QFontMetricsF(w.font()).horizontalAdvance(text) > field.width() + 1
    return _boxed(w, root, text, "combo box", cut)


def _progress(w: QProgressBar, root: QWidget) -> list[TextItem]:
    text = w.text() if w.isTextVisible() else ""
    if not text.strip():
        return []
    # The style draws it centred inside the frame: wider than the bar, its ends are cut.
    cut = QFontMetricsF(w.font()).horizontalAdvance(text) > w.width() - 4
    return _boxed(w, root, text, "progress bar", cut)


def _tabs(bar: QTabBar, root: QWidget) -> list[TextItem]:
    """Tabs in view; one partly hidden behind the bar's scroll buttons or edge is cut,
    and one narrower than its text (elided) is cut too. Tabs scrolled wholly out of view
    are not drawn, hence not listed."""
    room = QRectF(bar.rect())
    for button in bar.findChildren(QAbstractButton):
        if button.isVisibleTo(bar) and button.x() > bar.width() / 2:
            room.setRight(min(room.right(), button.x()))
    offset = QPointF(bar.mapTo(root, QPointF(0, 0)))
    seen = visible_rect(bar, root).intersected(room.translated(offset))
    out = []
    for i in range(bar.count()):
        text = _plain(bar.tabText(i), True)
        rect = QRectF(bar.tabRect(i)).translated(offset)
        if not bar.isTabVisible(i) or not text.strip() or not rect.intersects(seen):
            continue
        elided = bar.tabRect(i).width() + 1 < bar.tabSizeHint(i).width()
        item = TextItem(text, rect, seen, where(bar, root, "tab"), overlaps=False)
        item.cut = _why(elided, rect, seen)
        out.append(item)
    return out


def _dock_title(dock: QDockWidget, root: QWidget) -> list[TextItem]:
    if dock.titleBarWidget() is not None or dock.isFloating():
        return []
    opt = QStyleOptionDockWidget()
    dock.initStyleOption(opt)
    rect = dock.style().subElementRect(QStyle.SubElement.SE_DockWidgetTitleBarText, opt, dock)
    text = dock.windowTitle()
    if rect.height() <= 0 or not text.strip():
        return []  # in a tab group: the tab says it
    cut = QFontMetricsF(dock.font()).horizontalAdvance(text) > rect.width() + 1
    return _boxed(dock, root, text, "dock title", cut)


# --- item views ---------------------------------------------------------------------------
def _cell_margin(view: QWidget) -> float:
    """What a delegate leaves either side of a cell's text."""
    return view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1


def _cells(view: QAbstractItemView, root: QWidget) -> list[TextItem]:
    model = view.model()
    if model is None:
        return []
    port = view.viewport()
    offset = QPointF(port.mapTo(root, QPointF(0, 0)))
    seen = visible_rect(port, root)
    margin = _cell_margin(view)
    wrap_of = getattr(view, "wordWrap", None)
    wraps = bool(wrap_of()) if callable(wrap_of) else False
    out = []
    top = view.rootIndex()
    try:
        columns = model.columnCount(top)
    except TypeError:  # a list model keeps it private: one column
        columns = 1
    for r in range(min(model.rowCount(top), MAX_ROWS)):
        for c in range(min(columns, MAX_COLUMNS)):
            index = model.index(r, c, top)
            text = index.data(Qt.ItemDataRole.DisplayRole)
            rect = view.visualRect(index)
            if text is None or not str(text).strip() or rect.isEmpty():
                continue
            text = str(text)
            font = index.data(Qt.ItemDataRole.FontRole) or view.font()
            metrics = QFontMetricsF(font)
            cell = QRectF(rect).translated(offset)
            room = cell.width() - 2 * margin
            width = min(metrics.horizontalAdvance(text), room)
            height = metrics.height()
            elided = metrics.horizontalAdvance(text) > room + SLACK
            if elided and wraps:  # a long title on two lines is whole if its row holds both
                wrapped = metrics.boundingRect(QRectF(0, 0, max(room, 1.0), 1e6), WRAP, text)
                height = wrapped.height()  # (a word longer than the room is not broken)
                elided = height > cell.height() + SLACK or wrapped.width() > room + SLACK
            box = _aligned(
                cell.adjusted(margin, 0, -margin, 0),
                width,
                min(height, cell.height()),
                _alignment(index),
            )
            item = TextItem(text, box, seen, where(view, root, f"cell {r},{c}"))
            item.cut = _why(elided, box, seen)  # the text, not the grid line past it
            item.group = view
            out.append(item)
    return out


def _alignment(index) -> Qt.AlignmentFlag:
    value = index.data(Qt.ItemDataRole.TextAlignmentRole)
    if value is None:
        return Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    return Qt.AlignmentFlag(int(value.value if hasattr(value, "value") else value))


def _header(header: QHeaderView, root: QWidget) -> list[TextItem]:
    model = header.model()
    if model is None or not header.isVisibleTo(root):
        return []
    port = header.viewport()
    offset = QPointF(port.mapTo(root, QPointF(0, 0)))
    seen = visible_rect(port, root)
    horizontal = header.orientation() == Qt.Orientation.Horizontal
    margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    metrics = QFontMetricsF(header.font())
    count = min(header.count(), MAX_COLUMNS if horizontal else MAX_ROWS)
    out = []
    for i in range(count):
        if header.isSectionHidden(i):
            continue
        text = model.headerData(i, header.orientation(), Qt.ItemDataRole.DisplayRole)
        if text is None or not str(text).strip():
            continue
        text = str(text)
        pos, size = header.sectionViewportPosition(i), header.sectionSize(i)
        if horizontal:
            cell = QRectF(pos, 0, size, port.height())
            room = size - 2 * margin
        else:
            cell = QRectF(0, pos, port.width(), size)
            room = port.width() - 2 * margin
        cell.translate(offset)
        width = metrics.horizontalAdvance(text)
        box = _aligned(
            cell, min(width, cell.width()), metrics.height(), Qt.AlignmentFlag.AlignCenter
        )
        item = TextItem(text, box, seen, where(header, root, f"header {i}"))
        item.cut = _why(width > room + SLACK, box, seen)
        # With its table's cells: one finding says what of the table is out of view.
        table = header.parentWidget()
        item.group = table if isinstance(table, QAbstractItemView) else header
        out.append(item)
    return out


# --- graphics scenes (pyqtgraph) ----------------------------------------------------------
def _scene(view: QGraphicsView, root: QWidget) -> list[TextItem]:
    from pyqtgraph import AxisItem, ViewBox
    from pyqtgraph import TextItem as TextItemPG

    port = view.viewport()
    seen = visible_rect(port, root)
    offset = QPointF(port.mapTo(root, QPointF(0, 0)))

    def to_root(item, rect: QRectF) -> QRectF:
        # The device transform, not the scene's: pyqtgraph's text items ignore the view's
        # scale (their size is in pixels), which mapToScene does not know.
        return item.deviceTransform(view.viewportTransform()).mapRect(rect).translated(offset)

    scene = view.scene()
    prepare = getattr(scene, "prepareForPaint", None)
    if prepare is not None:
        prepare()  # pyqtgraph moves a view box's content only just before it paints
    items = scene.items()
    for item in items:
        if isinstance(item, TextItemPG) and item.isVisible():
            # Its pixel size is set as it paints: bring it up to date with the view now.
            item.updateTransform(force=True)
    out = []
    for item in items:
        if not item.isVisible() or item.effectiveOpacity() <= 0.01:
            continue
        if isinstance(item, QGraphicsTextItem):
            text = item.toPlainText().strip()
            rect = _document_rect(item)
            if not text or rect is None:
                continue
            box = to_root(item, rect)
            room = seen.intersected(_clip_of(item, to_root))
            vb = _view_box(item, ViewBox)
            what = "legend" if _in_legend(item) else "text"
            if not box.intersects(room):
                continue  # wholly outside what is drawn: not shown, not cut
            entry = TextItem(text, box, room, where(view, root, what), view=vb)
            entry.scene_box = item.mapRectToScene(rect)
            entry.cut = _why(False, box, room)
            out.append(entry)
        elif isinstance(item, AxisItem):
            for text, rect in _tick_labels(item):
                entry = TextItem(text, to_root(item, rect), seen, where(view, root, "tick"))
                entry.cut = _why(False, entry.box, seen)
                out.append(entry)
    return out


def _document_rect(item: QGraphicsTextItem) -> QRectF | None:
    """The union of a text item's laid-out lines (its bounding rectangle adds a margin)."""
    doc = item.document()
    rect = QRectF()
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        origin = layout.position()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i).naturalTextRect().translated(origin)
            if line.width() > 0:
                rect = line if rect.isNull() else rect.united(line)
        block = block.next()
    return None if rect.isNull() else rect


def _clip_of(item, to_root) -> QRectF:
    """The area an item's clipping parents leave it (everything when none clips)."""
    parent = item.parentItem()
    rect = QRectF(-1e9, -1e9, 2e9, 2e9)
    while parent is not None:
        if parent.flags() & parent.GraphicsItemFlag.ItemClipsChildrenToShape:
            rect = rect.intersected(to_root(parent, parent.boundingRect()))
        parent = parent.parentItem()
    return rect


def _view_box(item, view_box_class):
    parent = item.parentItem()
    while parent is not None:
        if isinstance(parent, view_box_class):
            return parent
        parent = parent.parentItem()
    return None


def _in_legend(item) -> bool:
    from pyqtgraph import LegendItem

    return _view_box(item, LegendItem) is not None


def _tick_labels(axis) -> list[tuple[str, QRectF]]:
    """``(text, rect)`` of each tick label the axis draws, in its own coordinates."""
    if not axis.style.get("showValues", True) or axis.width() <= 0 or axis.height() <= 0:
        return []
    boxes = getattr(axis, "label_boxes", None)
    if boxes is not None:
        custom = boxes()
        if custom is not None:
            return custom
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(str(text), QRectF(rect)) for rect, _flags, text in texts if str(text).strip()]


# --- painted views ------------------------------------------------------------------------
class _Recorder:
    """A painter that draws as the real one does and notes where each text went."""

    def __init__(self, painter: QPainter) -> None:
        self._painter = painter
        self.texts: list[tuple[str, QRectF, QRectF | None]] = []

    def __getattr__(self, name):
        return getattr(self._painter, name)

    def drawText(self, *args) -> None:
        p = self._painter
        text, rect = _text_rect(p, args)
        if text is not None and text.strip():
            clip = p.clipBoundingRect() if p.hasClipping() else None
            box = p.transform().mapRect(rect)
            self.texts.append((text, box, p.transform().mapRect(clip) if clip else None))
        p.drawText(*args)


def _text_rect(p: QPainter, args) -> tuple[str | None, QRectF]:
    """The text and the rectangle ``QPainter.drawText(*args)`` fills (painter coordinates)."""
    metrics = QFontMetricsF(p.font())
    if len(args) == 2 and isinstance(args[1], str):  # (point, text): the baseline's start
        point = QPointF(args[0])
        return args[1], _baseline_rect(metrics, point, args[1])
    if len(args) == 3 and isinstance(args[2], str) and not isinstance(args[0], QRect | QRectF):
        return args[2], _baseline_rect(metrics, QPointF(args[0], args[1]), args[2])
    if len(args) >= 3 and isinstance(args[0], QRect | QRectF) and isinstance(args[2], str):
        flags = int(getattr(args[1], "value", args[1]))
        return args[2], p.boundingRect(QRectF(args[0]), flags, args[2])
    if len(args) >= 2 and isinstance(args[0], QRect | QRectF) and isinstance(args[1], str):
        option = args[2] if len(args) > 2 else None
        if option is None:
            return args[1], p.boundingRect(QRectF(args[0]), 0, args[1])
        return args[1], p.boundingRect(QRectF(args[0]), args[1], option)
    if len(args) == 6 and isinstance(args[5], str):
        flags = int(getattr(args[4], "value", args[4]))
        return args[5], p.boundingRect(QRectF(*args[:4]), flags, args[5])
    return None, QRectF()


def _baseline_rect(metrics: QFontMetricsF, point: QPointF, text: str) -> QRectF:
    return QRectF(
        point.x(), point.y() - metrics.ascent(), metrics.horizontalAdvance(text), metrics.height()
    )


def _painted(w: QWidget, root: QWidget) -> list[TextItem]:
    if not w._has_content():
        return []
    image = QImage(max(1, w.width()), max(1, w.height()), QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    painter.setFont(w.font())
    recorder = _Recorder(painter)
    try:
        w._paint(recorder)
    except TypeError:
        return []  # it hands the painter to Qt itself: its texts cannot be read this way
    finally:
        painter.end()
    offset = QPointF(w.mapTo(root, QPointF(0, 0)))
    seen = visible_rect(w, root)
    out = []
    for text, box, clip in recorder.texts:
        room = seen if clip is None else seen.intersected(clip.translated(offset))
        item = TextItem(text, box.translated(offset), room, where(w, root, "painted"))
        item.cut = _why(False, item.box, room)
        out.append(item)
    return out


#: How each kind of widget is read, the more particular kinds first.
_READERS = (
    (QLabel, _label),
    (QHeaderView, _header),
    (QGraphicsView, _scene),
    (QComboBox, _combo),
    (QAbstractItemView, _cells),
    (QAbstractButton, _button),
    (QProgressBar, _progress),
    (QTabBar, _tabs),
    (QDockWidget, _dock_title),
)

"""A lesson's step as a slide, offscreen: the picture (:func:`render_step`) and its check.

Both lay the presentation :class:`~attnviz.ui.stage.Stage` out on a 1080-high logical
canvas (the width follows the aspect) as presentation mode shows it, and let its panels'
workers deliver (:func:`staged_step`). :func:`render_step` paints it at the asked size;
:func:`check_step` reads what the step's panels drew (their texts, as an SVG painter
receives them, not the numbers the resolvers computed) and says which quoted number is not
among them (a panel's figure line, :mod:`attnviz.ui.stage_figures`, counts: it is drawn),
which drawn text is elided or cut, and which matrix of up to 16 × 16 cells prints no
numbers; then the text check (:func:`attnviz.ui.text_overlap.check_texts`) reads every
text's drawn box on the whole slide and says which overlap, run together, lie under a
curve or are clipped.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCoreApplication,
    QEvent,
    QIODevice,
    QPoint,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QImage, QPainter, QRegion
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText is QtGui's (qtpy copies it, when loaded)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QComboBox,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QWidget,
)

from attnviz.model.lesson_check import play_step
from attnviz.model.lessons import Lesson
from attnviz.ui.presentation_form import inside
from attnviz.ui.stage import DESIGN_HEIGHT, Stage
from attnviz.ui.stage_fit import unnumbered_views
from attnviz.ui.text_overlap import check_texts
from attnviz.ui.widgets.heatmap_view import HeatmapView
from attnviz.ui.widgets.numbers import (
    MINUS,
    display_decimals,
    follow_document,
    set_display_decimals,
)

ELLIPSIS = "\u2026"


@contextmanager
def staged_step(
    workspace,
    lesson: Lesson,
    index: int,
    width: int,
    height: int,
    *,
    dark: bool = False,
    font_scale: float = 1.0,
    timeout: float = 120.0,
    overrides: dict | None = None,
) -> Iterator[Stage]:
    """The stage of step ``index``, laid out for a ``width × height`` screen and settled;
    closed on leaving the block. ``overrides`` (``{"topic.field": value}``) are set after
    the step's own state (``attnviz lessons --check --set``)."""
    play_step(workspace.document, lesson, index)
    for path, value in (overrides or {}).items():
        workspace.document.set_field(path, value)
    before = display_decimals()  # the numbers' rule is the process's: given back after
    follow_document(workspace.document)
    scale = height / DESIGN_HEIGHT
    canvas = (max(1, round(width / scale)), DESIGN_HEIGHT)
    stage = Stage(workspace, dark=dark, font_scale=font_scale)
    stage.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    stage.resize(*canvas)
    stage.show_step(lesson, index)
    for panel in stage.panels.values():
        if hasattr(panel, "synchronous"):
            panel.synchronous = True  # a map job runs at once: no event loop to wait on
    stage.show()
    try:
        _settle_stage(stage, timeout)
        # pyqtgraph sizes an axis for its tick labels while it paints them, and a slide is
        # painted once: a first painting measures them, the layout follows, then the slide.
        stage.render(QImage(stage.size(), QImage.Format.Format_ARGB32_Premultiplied))
        _settle_stage(stage, timeout)
        yield stage
    finally:
        stage.close()
        stage.deleteLater()
        set_display_decimals(before)


def render_step(
    workspace, lesson: Lesson, index: int, width: int, height: int, **stage_options
) -> QImage:
    """Step ``index`` of ``lesson`` as the stage shows it, ``width × height`` pixels exactly
    (``stage_options``: those of :func:`staged_step`).

    The stage is painted with a device-pixel ratio, so every size shows the same picture.
    """
    with staged_step(workspace, lesson, index, width, height, **stage_options) as stage:
        image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QColor(stage.theme.background))
        image.setDevicePixelRatio(width / stage.width())
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            stage.render(
                painter,
                QPoint(0, 0),
                QRegion(),
                QWidget.RenderFlag.DrawChildren | QWidget.RenderFlag.DrawWindowBackground,
            )
        finally:
            painter.end()
        image.setDevicePixelRatio(1.0)
        return image


def _busy(panel) -> bool:
    """True while a panel's worker computes (a background panel, the overview's map job)."""
    job = getattr(panel, "job", None)
    return bool(getattr(panel, "computing", False) or getattr(job, "running", False))


def _settle_stage(stage: Stage, timeout: float) -> None:
    """Let layouts settle and the panels' worker threads deliver (up to ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        for _ in range(3):
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            QApplication.processEvents()
        shown = [stage.panels[p] for p in stage.shown]
        busy = stage.fit.busy or any(_busy(p) for p in shown)
        if not busy or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    for _ in range(3):
        QApplication.processEvents()


# --- what the panels drew --------------------------------------------------------------
def drawn_texts(widget: QWidget) -> list[str]:
    """Every text ``widget`` and its children paint, read back from an SVG painter.

    Views that keep pixmaps of their labels draw them as text for this (as an SVG export).
    Text a graphics scene lays out itself (pyqtgraph's text items) reaches a painter as
    glyphs without characters; it is read from the items shown in the views instead.
    """
    views = widget.findChildren(HeatmapView)
    for view in views:
        view.cache_frame(False)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buffer)
    gen.setSize(QSize(max(1, widget.width()), max(1, widget.height())))
    gen.setViewBox(QRectF(0, 0, max(1, widget.width()), max(1, widget.height())))
    painter = QPainter(gen)
    try:
        widget.render(painter, QPoint(0, 0), QRegion(), QWidget.RenderFlag.DrawChildren)
    finally:
        painter.end()
        buffer.close()
        for view in views:
            view.cache_frame(True)
    return _svg_texts(bytes(data)) + scene_texts(widget)


def scene_texts(widget: QWidget) -> list[str]:
    """The texts of the visible text items inside the visible part of every graphics view
    in ``widget``."""
    out = []
    graphics = [widget] if isinstance(widget, QGraphicsView) else []
    for view in graphics + widget.findChildren(QGraphicsView):
        if not view.isVisibleTo(widget) and view is not widget:
            continue
        shown = view.mapToScene(view.viewport().rect()).boundingRect()
        for item in view.scene().items():
            if not isinstance(item, QGraphicsTextItem) or not item.isVisible():
                continue
            if item.effectiveOpacity() <= 0.01:
                continue
            text = item.toPlainText().strip()
            if text and item.sceneBoundingRect().intersects(shown):
                out.append(text)
    return out


def _svg_texts(svg: bytes) -> list[str]:
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return []
    out = []
    for el in root.iter():
        if el.tag.rsplit("}", 1)[-1] == "text":
            text = "".join(el.itertext()).strip()
            if text:
                out.append(text)
    return out


def unnumbered(widget: QWidget) -> list[str]:
    """The visible matrices in ``widget`` small enough to print their cells' numbers (at
    most 16 a side) that print none: ``"a 3×8 matrix"``, ``"dQ"``."""
    return [
        f"a {'×'.join(map(str, view.extent))} matrix"
        if isinstance(view, HeatmapView)
        else (getattr(view, "symbol", "") or "a matrix")
        for view in unnumbered_views(widget)
    ]


def cut_texts(widget: QWidget) -> list[str]:
    """Texts of the visible labels, buttons and combo boxes in ``widget`` that do not fit
    their room, or that end in an ellipsis (elided); and scrolled views whose content is
    wider or taller than what they show."""
    out = []
    room = widget.rect()
    for child in widget.findChildren(QWidget):
        if not child.isVisibleTo(widget) or child.width() <= 1:
            continue
        text = _cut_text(child)
        if text is None and isinstance(child, QLabel) and child.text().strip():
            # A label that fits its own box but lies partly outside the panel: clipped.
            corner = child.mapTo(widget, child.rect().bottomRight())
            if not room.contains(corner) and _in_view(child, widget):
                text = child.text()
        if text:
            out.append(text)
    return out


def _in_view(child: QWidget, panel: QWidget) -> bool:
    """True unless ``child`` is inside a scroll area (whose own range then says it is cut)."""
    return not inside(child, panel, QAbstractScrollArea)


def _cut_text(w: QWidget) -> str | None:
    """What ``w`` shows that does not fit its room (a text, or a line saying how far a view
    is scrolled), or None."""
    if isinstance(w, QLabel) and w.text():
        return _cut_label(w)
    if isinstance(w, QAbstractButton) and w.text() and not w.isHidden():
        return _cut_button(w)
    if isinstance(w, QComboBox) and w.currentText():
        return _cut_combo(w)
    if isinstance(w, QAbstractScrollArea) and not isinstance(w, QComboBox):
        return _cut_scroll_area(w)
    return None


def _cut_label(w: QLabel) -> str | None:
    """The label's text as drawn when it ends in an ellipsis, or wraps taller than its box,
    or has a line wider than it."""
    text = _shown(w.text()) if w.buddy() is not None else w.text()
    plain = re.sub(r"<[^>]+>", "", text) if GuiQt.mightBeRichText(text) else text
    room = w.contentsRect()
    if plain.rstrip().endswith(ELLIPSIS):
        return plain
    if w.wordWrap():
        return plain if w.heightForWidth(room.width()) > room.height() + 2 else None
    widest = max(map(w.fontMetrics().horizontalAdvance, plain.splitlines() or [""]))
    return plain if widest > room.width() + 1 else None


def _cut_button(w: QAbstractButton) -> str | None:
    """The button's text when the button is narrower than both its preferred and its
    smallest size."""
    hint = w.sizeHint().width()
    if hint > w.width() + 1 and w.minimumSizeHint().width() > w.width() + 1:
        return w.text()
    return None


def _cut_combo(w: QComboBox) -> str | None:
    """The current text when it is wider than the combo box's field."""
    room = w.style().subControlRect(
        w.style().ComplexControl.CC_ComboBox,
        _combo_option(w),
        w.style().SubControl.SC_ComboBoxEditField,
        w,
    )
    if w.fontMetrics().horizontalAdvance(w.currentText()) > room.width() + 1:
        return w.currentText()
    return None


def _cut_scroll_area(w: QAbstractScrollArea) -> str | None:
    """How much wider (first) or taller than its room a scrolled view's content is, unless
    the view is meant to scroll (:data:`_SCROLL_OK`)."""
    for bar, side in ((w.horizontalScrollBar(), "wide"), (w.verticalScrollBar(), "tall")):
        hidden = bar.maximum() - bar.minimum()
        per_item = _scrolls_per_item(w, side)
        if hidden > (0 if per_item else 2) and w.objectName() not in _SCROLL_OK:
            name = w.objectName() or type(w).__name__
            unit = "rows or columns" if per_item else "px"
            return f"{name} too {side} for its room by {hidden} {unit}"
    return None


def _scrolls_per_item(w, side: str) -> bool:
    """True for an item view that scrolls by whole rows or columns (its range counts them)."""
    if not isinstance(w, QAbstractItemView):
        return False
    mode = w.horizontalScrollMode() if side == "wide" else w.verticalScrollMode()
    return mode == QAbstractItemView.ScrollMode.ScrollPerItem


def _shown(text: str) -> str:
    """A label's text as drawn: ``&d_k`` shows d_k (``&&`` is one ampersand)."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


#: Views meant to scroll (a list a lecturer scrolls on purpose), not cut content.
_SCROLL_OK = frozenset()


def _combo_option(combo: QComboBox):
    from PySide6.QtWidgets import QStyleOptionComboBox

    opt = QStyleOptionComboBox()
    opt.initFrom(combo)
    opt.editable = combo.isEditable()
    return opt


# --- quoted numbers --------------------------------------------------------------------
_SPACES = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u202f": " ", MINUS: "-"})


def quote_drawn(quote_text: str, texts: list[str]) -> bool:
    """True when ``quote_text`` (``0.9817``, ``68.719.476.736``, ``128 KiB``) stands in one
    of ``texts`` as a number of its own: not the start of 0.98170, nor the end of 10.9817.

    A fraction (``1/3``) has no exact decimal form: a drawn decimal of two or more places
    that rounds it (0.33, 0,333) counts.
    """
    needle = quote_text.translate(_SPACES).strip()
    pattern = re.compile(r"(?<![\d.,])" + re.escape(needle) + r"(?![\d]|[.,]\d)")
    if any(pattern.search(t.translate(_SPACES)) for t in texts):
        return True
    fraction = re.fullmatch(r"(\d+)/([1-9]\d*)", needle)
    if fraction is None:
        return False
    value = int(fraction.group(1)) / int(fraction.group(2))
    for text in texts:
        for whole, dec in _DECIMALS.findall(text.translate(_SPACES)):
            if len(dec) >= 2 and abs(float(f"{whole}.{dec}") - value) <= 0.5 * 10.0 ** -len(dec):
                return True
    return False


_DECIMALS = re.compile(r"(?<![\d.,])(\d+)[.,](\d+)(?![\d])")


def check_step(
    workspace,
    lesson: Lesson,
    index: int,
    width: int,
    height: int,
    *,
    lang: str,
    dark: bool = False,
    font_scale: float = 1.0,
    overrides: dict | None = None,
) -> list[str]:
    """What is wrong with step ``index`` as a slide: one entry per quoted number that its
    panels do not draw, one per drawn text that is elided or cut. Empty when all is well."""
    step = lesson.steps[index]
    with staged_step(
        workspace,
        lesson,
        index,
        width,
        height,
        dark=dark,
        font_scale=font_scale,
        overrides=overrides,
    ) as stage:
        # A panel's slot: the panel and its figure line (the quotes it does not draw itself).
        drawn = {pid: drawn_texts(stage.slots[pid]) for pid in stage.shown}
        texts = [t for shown in drawn.values() for t in shown]
        problems = [
            f"quoted {q.text[lang]!r} is not drawn"
            for q in step.quotes
            if not quote_drawn(q.text.get(lang, q.text["en"]), texts)
        ]
        cut = []
        for pid, shown in drawn.items():
            problems += [f"{pid}: elided {t!r}" for t in shown if t.endswith(ELLIPSIS)]
            problems += [
                f"{pid}: {name} without its numbers" for name in unnumbered(stage.slots[pid])
            ]
            cut_here = cut_texts(stage.slots[pid])
            cut += cut_here
            problems += [f"{pid}: cut {text!r}" for text in cut_here]
        if _cut_text(stage.caption):
            problems.append("cut: the caption")
        problems += text_problems(stage, said=cut)
    return problems


def text_problems(stage: Stage, said=()) -> list[str]:
    """The text check's findings on the whole slide, one line each, but a cut text the
    widgets' own check has ``said`` already."""
    out = []
    for finding in check_texts(stage):
        texts = [item.text for item in finding.items]
        if finding.kind == "cut" and texts and all(_said(t, said) for t in texts):
            continue
        out.append(f"text: {finding}")
    return out


def _said(text: str, said) -> bool:
    return any(text in other for other in said)

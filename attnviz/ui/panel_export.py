"""Export any panel: PNG at an exact pixel size or SVG, drawn as the app draws it.

A panel with a slide figure of its own (the heatmap's, :mod:`attnviz.ui.export`) draws it
(:meth:`~attnviz.ui.panel_base.Panel.render_picture`). Every other panel is built afresh,
offscreen, on the same workspace, styled with the export's theme and a font sized for a
1920×1080 slide, laid out on that logical canvas and painted into an image of exactly the
requested size with a device-pixel ratio — so 1920×1080 and 3840×2160 show the same
picture, only sharper. What is drawn is the panel's
:meth:`~attnviz.ui.panel_base.Panel.figure_widget`: its pictures, without its controls.
Data arrays go through :func:`attnviz.model.panel_data.write_panel_data`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter, QRegion
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QWidget

from attnviz.model import events
from attnviz.model.panel_data import picture_refusal, shown_data_name, write_panel_data
from attnviz.model.safe_io import shown_path
from attnviz.ui.export import DESIGN_SIZE, ExportError, ExportSpec
from attnviz.ui.offscreen import dispose
from attnviz.ui.panels import panel_class
from attnviz.ui.theme import palette_for, theme_named
from attnviz.ui.widgets.heatmap_view import HeatmapView
from attnviz.ui.widgets.numbers import follow_document
from attnviz.ui.widgets.svg_cells import drop_empty_groups

#: Interface text on the 1920×1080 design canvas: large enough for the back of a room.
PANEL_FONT_PX = 22


def build_panel(workspace, panel_id: str, spec: ExportSpec) -> tuple[QWidget, QWidget]:
    """``(panel, figure)``: the panel laid out on the spec's logical canvas, offscreen;
    :class:`ExportError` when these settings leave it nothing true to draw."""
    spec.check()
    reason = picture_refusal(workspace, panel_id)
    if reason:
        raise ExportError(reason)
    follow_document(workspace.document)
    cls = panel_class(panel_id)
    theme = theme_named(spec.theme)
    panel = cls.create(workspace, None)
    panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    panel.setPalette(palette_for(theme))
    panel.setAutoFillBackground(not spec.transparent)
    font = QFont(QGuiApplication.font())
    font.setPixelSize(PANEL_FONT_PX)
    panel.setFont(font)
    panel.apply_theme(theme)
    scale = min(spec.width / DESIGN_SIZE[0], spec.height / DESIGN_SIZE[1])
    canvas = (round(spec.width / scale), round(spec.height / scale))
    failures: list[BaseException] = []
    # A panel that cannot draw these settings shows why in the window; a picture of it
    # would be a picture of the error, so the export stops with that one line instead.
    previous = events.set_error_handler(failures.append)
    try:
        panel.resize(*canvas)
        panel.show()
        _settle()
        figure = panel.figure_widget()
        # Grow the panel until its figure alone fills the canvas (the controls stay outside).
        for _ in range(3):
            extra_w, extra_h = canvas[0] - figure.width(), canvas[1] - figure.height()
            if not (extra_w or extra_h):
                break
            panel.resize(panel.width() + extra_w, panel.height() + extra_h)
            _settle()
    finally:
        events.set_error_handler(previous)
    if failures:
        dispose(panel)
        first = (
            str(failures[0]).strip().splitlines()[0][:300]
            if str(failures[0]).strip()
            else type(failures[0]).__name__
        )
        raise ExportError(f"the {panel_id} panel cannot draw these settings: {first}")
    return panel, figure


def _settle() -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QApplication.processEvents()


def _paint(figure: QWidget, painter: QPainter, spec: ExportSpec) -> None:
    if not spec.transparent:
        painter.fillRect(
            QRectF(0, 0, figure.width(), figure.height()),
            QColor(theme_named(spec.theme).background),
        )
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    flags = QWidget.RenderFlag.DrawChildren
    if not spec.transparent:
        flags |= QWidget.RenderFlag.DrawWindowBackground
    # QWidget's own render: a pyqtgraph view given as the figure has another one.
    QWidget.render(figure, painter, QPoint(0, 0), QRegion(), flags)


def render_panel_image(workspace, panel_id: str, spec: ExportSpec) -> QImage:
    """The panel as a ``QImage`` of exactly ``spec.width × spec.height`` pixels."""
    follow_document(workspace.document)
    own = panel_class(panel_id).render_picture(workspace, spec)
    if own is not None:
        return own
    panel, figure = build_panel(workspace, panel_id, spec)
    try:
        image = QImage(spec.width, spec.height, QImage.Format.Format_ARGB32_Premultiplied)
        # The whole canvas in the theme's background: a figure that cannot grow to fill it
        # (a panel whose other parts keep their share) left a transparent band, white in
        # a viewer under a dark figure.
        image.fill(
            Qt.GlobalColor.transparent
            if spec.transparent
            else QColor(theme_named(spec.theme).background)
        )
        ratio = min(spec.width / figure.width(), spec.height / figure.height())
        image.setDevicePixelRatio(ratio)
        painter = QPainter(image)
        try:
            _paint(figure, painter, spec)
        finally:
            painter.end()
        image.setDevicePixelRatio(1.0)
        return image
    finally:
        dispose(panel)


def write_panel_svg(workspace, panel_id: str, path, spec: ExportSpec) -> Path:
    """Save the panel as SVG (vector text and lines where the panel draws them)."""
    path = Path(path)
    panel, figure = build_panel(workspace, panel_id, spec)
    # Vectors: not the pixmaps that a view on screen keeps of its axes and titles.
    for view in [figure, *figure.findChildren(HeatmapView)]:
        if isinstance(view, HeatmapView):
            view.cache_frame(False)
    try:
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(QSize(spec.width, spec.height))
        gen.setResolution(96)
        gen.setViewBox(QRectF(0, 0, figure.width(), figure.height()))
        gen.setTitle(f"attnviz {panel_id}")
        painter = QPainter()
        if not painter.begin(gen):
            raise ExportError(f"could not write {shown_path(path)}")
        try:
            _paint(figure, painter, spec)
        finally:
            painter.end()
    finally:
        dispose(panel)
    if not path.is_file():
        raise ExportError(f"could not write {shown_path(path)}")
    drop_empty_groups(path)
    return path


def export_panel(workspace, panel_id: str, path, spec: ExportSpec, matrix: str | None = None):
    """Write panel ``panel_id`` to ``path``: a picture (png, svg) or data array (csv, npy)."""
    path = Path(path)
    ext = path.suffix.lower().lstrip(".")
    spec.check()
    if ext in ("csv", "npy"):
        name = matrix or spec.matrix or shown_data_name(workspace, panel_id)
        if name is None:
            raise ExportError(f"panel {panel_id} has no data arrays; export it as .png or .svg")
        try:
            return write_panel_data(workspace, panel_id, name, path)[0]
        except ValueError as exc:
            raise ExportError(str(exc)) from None
    follow_document(workspace.document)
    own = panel_class(panel_id).write_picture(workspace, path, spec)
    if own is not None:
        return own
    if ext == "png":
        image = render_panel_image(workspace, panel_id, spec)
        if not image.save(str(path), "PNG", 80):
            raise ExportError(f"could not write {shown_path(path)}")
        return path
    if ext == "svg":
        return write_panel_svg(workspace, panel_id, path, spec)
    raise ExportError(f"cannot export to {path.name!r}: use .png, .svg, .csv or .npy")

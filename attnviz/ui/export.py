"""Export a heatmap for slides: PNG at an exact pixel size, SVG, the matrix as CSV or NPY.

Figures are drawn by a fresh, never-shown :class:`~attnviz.ui.widgets.heatmap_view.
HeatmapView` filled by the same function as the on-screen panel, so a slide shows what the
screen does. The figure is laid out on a logical canvas that fits 1920×1080 and painted
into a ``QImage`` of exactly the requested size with a device-pixel ratio, so 1920×1080 and
3840×2160 look the same, only sharper, and the screen's DPI plays no part. Lines are
widened by the same ratio (pyqtgraph draws them a fixed number of device pixels wide,
which would look faint at 4K). Everything here works headless
(``QT_QPA_PLATFORM=offscreen``); CSV and NPY need no Qt at all.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from attnviz.model.presets import load_preset, preset_ids, shows_preset
from attnviz.model.resolve import Results
from attnviz.model.resolve.attention_data import MATRIX_CORNERS
from attnviz.model.safe_io import shown_path
from attnviz.model.topics.attention import MATRICES, AttentionState
from attnviz.ui.heatmap_look import column_labels, configure_view, formula, model_heading
from attnviz.ui.preset_strings import preset_text
from attnviz.ui.theme import theme_named
from attnviz.ui.widgets.heatmap_view import HeatmapView
from attnviz.ui.widgets.svg_cells import drop_empty_groups

FIGURE_FORMATS = ("png", "svg")
MATRIX_FORMATS = ("csv", "npy")
#: Smallest and largest width or height of an exported image, in pixels.
SIZE_RANGE = (16, 8192)
#: The logical canvas a figure is laid out on; any size is this, scaled.
DESIGN_SIZE = (1920, 1080)
#: Text height on the design canvas: readable from the back of a room on a 1080p slide.
DESIGN_FONT_PX = 26
#: Width of axis lines on the design canvas, in its pixels (a 3840×2160 image: twice that).
DESIGN_LINE_PX = 2.0


class ExportError(ValueError):
    """An export was asked for with a bad size, format or matrix, or could not be written."""


@dataclass(frozen=True)
class ExportSpec:
    """What to export: pixel size, theme, background, which matrix and the title.

    ``matrix=None`` exports the state's matrix; ``title=None`` writes the formula and the
    preset's title, ``""`` writes no title.
    """

    width: int = 1920
    height: int = 1080
    theme: str = "light"
    transparent: bool = False
    matrix: str | None = None
    title: str | None = None

    def check(self) -> None:
        """Raise :class:`ExportError` when a field is out of range."""
        lo, hi = SIZE_RANGE
        for name, value in (("width", self.width), ("height", self.height)):
            if not lo <= value <= hi:
                raise ExportError(f"{name} must be between {lo} and {hi} pixels, got {value}")
        if self.theme not in ("light", "dark"):
            raise ExportError(f"unknown theme {self.theme!r}; expected light or dark")
        if self.matrix is not None and self.matrix not in MATRICES:
            raise ExportError(
                f"unknown matrix {self.matrix!r}; expected one of {', '.join(MATRICES)}"
            )


def _state_for(state: AttentionState, matrix: str | None) -> AttentionState:
    if matrix is None or matrix == state.matrix:
        return state
    return AttentionState(**{**state.snapshot(), "matrix": matrix})


def default_title(state: AttentionState) -> str:
    """A real model's head (model, layer, head, kind), the formula of the shown matrix, then
    the preset's title (in the UI's language) while the state still shows the preset's
    scenario: a title that quotes d_k = 256 is not drawn over d_k = 2
    (:func:`~attnviz.model.presets.shows_preset`)."""
    text = formula(state, state.matrix)
    heading = model_heading(state)  # a real model's head: which model, layer, head, kind
    if heading:
        text = f"{heading}   ·   {text}"
    if state.preset_id in preset_ids():
        preset = load_preset(state.preset_id)
        if shows_preset(preset, state.snapshot()):
            text += "   ·   " + preset_text(preset.title)
    return text


def line_scale(spec: ExportSpec) -> float:
    """How many device pixels wide a figure's 1-pixel line is drawn in this export."""
    scale = min(spec.width / DESIGN_SIZE[0], spec.height / DESIGN_SIZE[1])
    return max(1.0, DESIGN_LINE_PX * scale)


def build_figure(state: AttentionState, results: Results, spec: ExportSpec) -> HeatmapView:
    """A laid-out, never-shown heatmap figure of the spec's logical size."""
    spec.check()
    state = _state_for(state, spec.matrix)
    theme = theme_named(spec.theme)
    scale = min(spec.width / DESIGN_SIZE[0], spec.height / DESIGN_SIZE[1])
    view = HeatmapView(show_title=spec.title != "")
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    font = QFont(QGuiApplication.font())
    font.setPixelSize(DESIGN_FONT_PX)
    view.set_style(theme, font)
    view.set_line_scale(line_scale(spec))
    configure_view(view, state, results)
    view.set_selection(-1)
    view.set_title(default_title(state) if spec.title is None else spec.title)
    view.resize(round(spec.width / scale), round(spec.height / scale))
    view.show()
    # Lay the items out now instead of on the next turn of an event loop (there may be none).
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    view.refresh_ticks()
    return view


def _paint(view: HeatmapView, painter: QPainter, target: QRectF, spec: ExportSpec) -> None:
    if not spec.transparent:
        painter.fillRect(target, QColor(theme_named(spec.theme).background))
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    source = QRectF(0, 0, view.width(), view.height())
    view.scene().render(painter, target, source)


def render_image(state: AttentionState, results: Results, spec: ExportSpec) -> QImage:
    """The figure as a ``QImage`` of exactly ``spec.width × spec.height`` pixels."""
    view = build_figure(state, results, spec)
    try:
        image = QImage(spec.width, spec.height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        ratio = spec.width / view.width()
        image.setDevicePixelRatio(ratio)
        painter = QPainter(image)
        try:
            _paint(view, painter, QRectF(0, 0, spec.width / ratio, spec.height / ratio), spec)
        finally:
            painter.end()
        image.setDevicePixelRatio(1.0)
        return image
    finally:
        view.close()


def write_png(state: AttentionState, results: Results, path, spec: ExportSpec) -> Path:
    """Save the figure as a PNG of exactly the spec's size."""
    path = Path(path)
    image = render_image(state, results, spec)
    # Light compression: a 4K heatmap is mostly flat colour, and the default level is
    # several times slower for a file only slightly smaller.
    if not image.save(str(path), "PNG", 80):
        raise ExportError(f"could not write {shown_path(path)}")
    return path


def write_svg(state: AttentionState, results: Results, path, spec: ExportSpec) -> Path:
    """Save the figure as SVG: vector axes and text, the matrix's cells as rectangles, or
    as an image at the file's pixel size past 64 × 64 cells (:mod:`attnviz.ui.widgets.
    svg_cells`)."""
    path = Path(path)
    view = build_figure(state, results, spec)
    try:
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(QSize(spec.width, spec.height))
        # pyqtgraph's axes replay QPictures recorded at 96 dpi; any other resolution would
        # scale them against the rest of the figure.
        gen.setResolution(96)
        target = QRectF(0, 0, view.width(), view.height())
        gen.setViewBox(target)
        gen.setTitle(default_title(_state_for(state, spec.matrix)))
        gen.setDescription("attnviz heatmap")
        painter = QPainter()
        if not painter.begin(gen):
            raise ExportError(f"could not write {shown_path(path)}")
        try:
            _paint(view, painter, target, spec)
        finally:
            painter.end()
    finally:
        view.close()
    if not path.is_file():
        raise ExportError(f"could not write {shown_path(path)}")
    drop_empty_groups(path)
    return path


def matrix_table(state: AttentionState, results: Results, matrix: str | None = None):
    """``(row_labels, column_labels, values)`` of a matrix, as the CSV holds it."""
    name = matrix or state.matrix
    values = results.matrix(name)
    return state.tokens, column_labels(state, name, values.shape[1]), values


def write_csv(state: AttentionState, results: Results, path, matrix: str | None = None) -> Path:
    """Save the matrix as CSV: a header of column tokens, one row per query token.

    Numbers are written with ``repr``, which reads back to the identical float.
    """
    path = Path(path)
    rows, cols, values = matrix_table(state, results, matrix)
    corner = MATRIX_CORNERS[matrix or state.matrix]
    try:
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow([corner, *cols])
            for label, row in zip(rows, values, strict=True):
                writer.writerow([label, *(repr(float(x)) for x in row)])
    except OSError as exc:
        raise ExportError(f"could not write {shown_path(path)}: {exc.strerror or exc}") from exc
    return path


def write_npy(state: AttentionState, results: Results, path, matrix: str | None = None) -> Path:
    """Save the matrix as a NumPy ``.npy`` file (float64, rows = queries)."""
    path = Path(path)
    try:
        with path.open("wb") as fh:
            np.save(fh, results.matrix(matrix or state.matrix))
    except OSError as exc:
        raise ExportError(f"could not write {shown_path(path)}: {exc.strerror or exc}") from exc
    return path


def export(state: AttentionState, results: Results, path, spec: ExportSpec) -> Path:
    """Write ``path`` in the format its extension names (png, svg, csv or npy)."""
    path = Path(path)
    ext = path.suffix.lower().lstrip(".")
    spec.check()
    if ext == "png":
        return write_png(state, results, path, spec)
    if ext == "svg":
        return write_svg(state, results, path, spec)
    if ext == "csv":
        return write_csv(state, results, path, spec.matrix)
    if ext == "npy":
        return write_npy(state, results, path, spec.matrix)
    known = ", ".join(f".{e}" for e in FIGURE_FORMATS + MATRIX_FORMATS)
    raise ExportError(f"cannot export to {path.name!r}: the extension must be one of {known}")


def copy_to_clipboard(state: AttentionState, results: Results, spec: ExportSpec) -> QImage:
    """Render the figure and put it on the clipboard; return the image."""
    image = render_image(state, results, spec)
    QGuiApplication.clipboard().setImage(image)
    return image

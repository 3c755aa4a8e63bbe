"""A figure's pictures and files, and the Qt they are drawn with.

Pictures are drawn by the export's own function
(:func:`attnviz.ui.panel_export.render_panel_image`: the heatmap's slide figure, the other
panels as they are built), then cropped to what they draw (:mod:`attnviz.notebook.crop`);
data files are written as ``attnviz export`` writes them
(:func:`attnviz.model.panel_data.write_panel_data`), with the same corner cell. An
overview's long map is estimated, said or refused first (:mod:`attnviz.notebook.long_work`).

A figure never needs a display. When no ``QApplication`` exists, :func:`application` makes
one on the ``offscreen`` platform (unless ``QT_QPA_PLATFORM`` already names one) and keeps it
for the process. When one exists (a notebook running a Qt event loop, the app itself, a
test), it is used as it is: its platform, style, palette and fonts are never touched — the
panels are styled one by one, as ``attnviz export`` styles them. The language, the way
numbers are written (decimal comma, decimals) and Qt's default locale are process-wide, so
:func:`drawing` sets them for one drawing and puts back what was there before; Qt's notices
that say nothing to the reader are dropped meanwhile (:func:`attnviz.ui.offscreen.
quiet_platform`). Qt draws on one thread only: a picture asked for on another is refused
in one line (:data:`OFF_THREAD`) before anything is drawn; the data need no Qt and work on
any thread.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attnviz.commands._args import unwritable
from attnviz.model.panel_data import panel_data, write_panel_data
from attnviz.model.panels import PANELS
from attnviz.model.safe_io import shown_path
from attnviz.notebook.crop import crop_svg, drawn_box
from attnviz.notebook.errors import FigureError
from attnviz.notebook.long_work import LONG_WORK_S, prepare

#: The application this module made (kept so that Python never collects it).
_made: list = []


#: Why a picture is refused off the GUI thread (Qt draws widgets on one thread only; an
#: application made on another thread left the main one hanging at its next figure).
OFF_THREAD = (
    "a figure's pictures are drawn by Qt on the Qt application's thread (the main thread "
    "when attnviz makes it), not on this one: show or save pictures from there; .data() "
    "and .csv or .npy files work on any thread"
)


def _on_gui_thread(app) -> bool:
    """True on the thread where Qt may draw: ``app``'s, or with no application yet, the
    main thread (where attnviz makes it)."""
    if app is None:
        return threading.current_thread() is threading.main_thread()
    from PySide6.QtCore import QThread

    return app.thread() == QThread.currentThread()


def application():
    """The running ``QApplication``, or one made offscreen when there is none.

    Raises
    ------
    FigureError
        Off the thread where Qt draws (:data:`OFF_THREAD`), when the running application
        cannot show widgets (a ``QCoreApplication`` or ``QGuiApplication``), or when the
        installed PySide6 is known to crash this Python.
    """
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from attnviz.ui.app import require_working_binding

    try:
        require_working_binding()
    except RuntimeError as exc:
        raise FigureError(str(exc)) from None
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from attnviz.ui.offscreen import quiet_platform

    app = QCoreApplication.instance()
    if not _on_gui_thread(app):
        raise FigureError(OFF_THREAD)
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        with quiet_platform():  # a "C" locale's notice that Qt uses C.UTF-8
            app = QApplication([sys.argv[0] if sys.argv and sys.argv[0] else "attnviz"])
        _made.append(app)
    elif not isinstance(app, QApplication):
        raise FigureError(
            f"the running {type(app).__name__} cannot draw widgets; a figure "
            "needs a QApplication (or none at all: it then makes its own)"
        )
    return app


@contextmanager
def drawing(app, lang: str, document) -> Iterator[None]:
    """Draw in ``lang`` with ``document``'s decimals; afterwards the translators, the decimal
    separator, the decimals and Qt's default locale are what they were."""
    from PySide6.QtCore import QLocale

    from attnviz.ui import language
    from attnviz.ui.offscreen import quiet_platform
    from attnviz.ui.widgets import numbers

    previous = language.active_language()
    locale, separator = QLocale(), numbers.decimal_separator()
    decimals = numbers.display_decimals()
    switched = lang != previous
    try:
        if switched and not language.install_translations(app, lang):
            raise FigureError(f"the translation into {lang} cannot be loaded")
        language.use_number_format(lang)
        numbers.follow_document(document)
        with quiet_platform():  # the offscreen platform's notice for every panel shown
            yield
    finally:
        if switched:
            language.install_translations(app, previous)
        QLocale.setDefault(locale)
        numbers.set_decimal_separator(separator)
        numbers.set_display_decimals(decimals)


#: Panels whose SVG is a vector drawing (the table's ``vector``); the others show as PNG.
VECTOR_PANELS = frozenset(spec.id for spec in PANELS if spec.vector)


def data_array(workspace, panel: str, name: str, max_seconds=LONG_WORK_S):
    """Array ``name`` of ``panel`` (a :class:`~attnviz.model.panel_data.DataArray`)."""
    prepare(workspace, panel, max_seconds)
    try:
        return panel_data(workspace, panel, name)
    except (ValueError, MemoryError) as exc:
        raise FigureError(str(exc) or type(exc).__name__) from None


def write_data_file(workspace, panel: str, name: str, path: Path, max_seconds=LONG_WORK_S) -> Path:
    """Write array ``name`` as ``.csv`` or ``.npy``, as the command line does."""
    prepare(workspace, panel, max_seconds)
    try:
        return write_panel_data(workspace, panel, name, path)[0]
    except (ValueError, MemoryError) as exc:
        raise FigureError(str(exc) or type(exc).__name__) from None


@dataclass(frozen=True)
class Request:
    """One picture of a figure: its panel, look, background, the heatmap's matrix (None:
    the one the state shows) and the longest work it may start."""

    panel: str
    look: object
    transparent: bool = False
    matrix: str | None = None
    max_seconds: float | None = LONG_WORK_S

    def spec(self):
        """The export's spec of this picture."""
        from attnviz.ui.export import ExportSpec

        look = self.look
        return ExportSpec(look.width, look.height, look.theme, self.transparent, self.matrix, None)


def image(workspace, request: Request):
    """The panel as a ``QImage`` of exactly ``look.width × look.height`` pixels, as
    ``attnviz export`` draws it (before :func:`cropped`)."""
    app = application()
    prepare(workspace, request.panel, request.max_seconds)
    from attnviz.ui.export import ExportError
    from attnviz.ui.panel_export import render_panel_image

    with drawing(app, request.look.lang, workspace.document):
        try:
            return render_panel_image(workspace, request.panel, request.spec())
        except (ExportError, RuntimeError) as exc:
            raise FigureError(str(exc)) from None


def _words(picture) -> np.ndarray:
    """A picture's pixels, one 32-bit word each, ``(height, width)``."""
    from PySide6.QtGui import QImage

    if picture.depth() != 32:
        picture = picture.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
    h, line = picture.height(), picture.bytesPerLine() // 4
    words = np.frombuffer(picture.constBits(), dtype=np.uint32, count=line * h)
    return words.reshape(h, line)[:, : picture.width()].copy()


def cropped(workspace, request: Request):
    """``(picture, box)``: the panel cropped to what it draws (:func:`drawn_box`), and the
    box ``(x, y, width, height)`` of the whole picture it keeps."""
    picture = image(workspace, request)
    box = drawn_box(_words(picture))
    if box != (0, 0, picture.width(), picture.height()):
        picture = picture.copy(*box)
    return picture, box


def encoded_png(picture) -> bytes:
    """A ``QImage`` as the bytes of a PNG file."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The export's light compression: a figure is mostly flat colour.
    if not picture.save(buffer, "PNG", 80):
        raise FigureError("the PNG could not be encoded")
    buffer.close()
    return bytes(data.data())


def png_bytes(workspace, request: Request) -> bytes:
    """The panel as the bytes of a PNG file, cropped to what it draws."""
    return encoded_png(cropped(workspace, request)[0])


def write_svg(workspace, request: Request, path: Path, box=None) -> Path:
    """Write the panel as SVG, as ``attnviz export --out FILE.svg`` does, cropped to
    ``box`` of its picture (by default, what :func:`cropped` keeps)."""
    if box is None:
        box = cropped(workspace, request)[1]
    app = application()
    prepare(workspace, request.panel, request.max_seconds)
    from attnviz.ui.export import ExportError
    from attnviz.ui.panel_export import export_panel

    with drawing(app, request.look.lang, workspace.document):
        try:
            path = export_panel(workspace, request.panel, path, request.spec())
        except (ExportError, RuntimeError) as exc:
            raise FigureError(str(exc)) from None
    crop_svg(path, box, (request.look.width, request.look.height))
    return path


def svg_text(workspace, request: Request, box=None) -> str | None:
    """The panel as SVG text when it is a vector drawing (:data:`VECTOR_PANELS`), else
    None."""
    if request.panel not in VECTOR_PANELS:
        return None
    with tempfile.TemporaryDirectory(prefix="attnviz-figure-") as folder:
        path = write_svg(workspace, request, Path(folder) / f"{request.panel}.svg", box)
        return path.read_text(encoding="utf-8")


def shown_formats(workspace, request: Request) -> dict:
    """What Jupyter shows: ``image/png``, and ``image/svg+xml`` for a vector drawing, from
    one picture (its crop is the SVG's too)."""
    picture, box = cropped(workspace, request)
    shown = {"image/png": encoded_png(picture)}
    svg = svg_text(workspace, request, box)
    if svg is not None:
        shown["image/svg+xml"] = svg
    return shown


def writable(path) -> Path:
    """``path`` as a ``Path``, or :class:`FigureError` saying why it cannot be written."""
    path = Path(path).expanduser()
    problem = unwritable(path)
    if problem:
        raise FigureError(f"cannot write {shown_path(path)}: {problem}")
    return path

"""A figure's pictures and files, and the Qt they are drawn with.

Pictures are drawn by the export's own function
(:func:`attnviz.ui.panel_export.render_panel_image`: the heatmap's slide figure, the other
panels as they are built); data files are written as ``attnviz export`` writes them
(:func:`attnviz.model.panel_data.write_panel_data`), with the same corner cell.

A figure never needs a display. When no ``QApplication`` exists, :func:`application` makes
one on the ``offscreen`` platform (unless ``QT_QPA_PLATFORM`` already names one) and keeps it
for the process. When one exists (a notebook running a Qt event loop, the app itself, a
test), it is used as it is: its platform, style, palette and fonts are never touched — the
panels are styled one by one, as ``attnviz export`` styles them. The language, the way
numbers are written (decimal comma, decimals) and Qt's default locale are process-wide, so
:func:`drawing` sets them for one drawing and puts back what was there before.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from attnviz.commands._args import SAY_WORK_S, unwritable
from attnviz.model.panel_data import panel_data, write_panel_data
from attnviz.model.panels import PANELS
from attnviz.model.safe_io import shown_path
from attnviz.notebook.options import FigureError

#: The application this module made (kept so that Python never collects it).
_made: list = []


def application():
    """The running ``QApplication``, or one made offscreen when there is none.

    Raises
    ------
    FigureError
        When the running application cannot show widgets (a ``QCoreApplication`` or
        ``QGuiApplication``), or the installed PySide6 is known to crash this Python.
    """
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from attnviz.ui.app import require_working_binding

    try:
        require_working_binding()
    except RuntimeError as exc:
        raise FigureError(str(exc)) from None
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    app = QCoreApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
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
        yield
    finally:
        if switched:
            language.install_translations(app, previous)
        QLocale.setDefault(locale)
        numbers.set_decimal_separator(separator)
        numbers.set_display_decimals(decimals)


#: Panels whose SVG is a vector drawing (the table's ``vector``); the others show as PNG.
VECTOR_PANELS = frozenset(spec.id for spec in PANELS if spec.vector)


def prepare(workspace, panel: str) -> None:
    """Compute the overview before the ``overview`` panel is drawn or read (saying how long
    it takes when that is over ten seconds), as the command line does."""
    if panel != "overview":
        return
    from attnviz.model.resolve.long import overview_seconds

    resolver = workspace.resolver_for("long")
    if resolver.cached_overview() is not None:
        return
    values = resolver.topic.snapshot()
    seconds = overview_seconds(values)
    if seconds is not None and seconds > SAY_WORK_S:
        print(
            f"attnviz.figure: the overview of long.n = {values['n']:,} takes about "
            f"{seconds:.0f} s on this machine's CPU…",
            file=sys.stderr,
        )
    resolver.overview_now()


def data_array(workspace, panel: str, name: str):
    """Array ``name`` of ``panel`` (a :class:`~attnviz.model.panel_data.DataArray`)."""
    prepare(workspace, panel)
    try:
        return panel_data(workspace, panel, name)
    except (ValueError, MemoryError) as exc:
        raise FigureError(str(exc) or type(exc).__name__) from None


def write_data_file(workspace, panel: str, name: str, path: Path) -> Path:
    """Write array ``name`` as ``.csv`` or ``.npy``, as the command line does."""
    prepare(workspace, panel)
    try:
        return write_panel_data(workspace, panel, name, path)[0]
    except (ValueError, MemoryError) as exc:
        raise FigureError(str(exc) or type(exc).__name__) from None


def _spec(look, transparent: bool, matrix: str | None = None):
    from attnviz.ui.export import ExportSpec

    return ExportSpec(look.width, look.height, look.theme, transparent, matrix, None)


def image(workspace, panel: str, look, *, transparent: bool = False, matrix: str | None = None):
    """The panel as a ``QImage`` of exactly ``look.width × look.height`` pixels (the
    heatmap's ``matrix``, when given, instead of the one the state shows)."""
    app = application()
    prepare(workspace, panel)
    from attnviz.ui.export import ExportError
    from attnviz.ui.panel_export import render_panel_image

    spec = _spec(look, transparent, matrix)
    with drawing(app, look.lang, workspace.document):
        try:
            return render_panel_image(workspace, panel, spec)
        except (ExportError, RuntimeError) as exc:
            raise FigureError(str(exc)) from None


def png_bytes(
    workspace, panel: str, look, *, transparent: bool = False, matrix: str | None = None
) -> bytes:
    """The panel as the bytes of a PNG file."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    picture = image(workspace, panel, look, transparent=transparent, matrix=matrix)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The export's light compression: a figure is mostly flat colour.
    if not picture.save(buffer, "PNG", 80):
        raise FigureError("the PNG could not be encoded")
    buffer.close()
    return bytes(data.data())


def write_svg(
    workspace, panel: str, look, path: Path, *, transparent: bool = False, matrix: str | None = None
) -> Path:
    """Write the panel as SVG, as ``attnviz export --out FILE.svg`` does."""
    app = application()
    prepare(workspace, panel)
    from attnviz.ui.export import ExportError
    from attnviz.ui.panel_export import export_panel

    with drawing(app, look.lang, workspace.document):
        try:
            return export_panel(workspace, panel, path, _spec(look, transparent, matrix))
        except (ExportError, RuntimeError) as exc:
            raise FigureError(str(exc)) from None


def svg_text(workspace, panel: str, look) -> str | None:
    """The panel as SVG text when it is a vector drawing (:data:`VECTOR_PANELS`), else
    None."""
    if panel not in VECTOR_PANELS:
        return None
    with tempfile.TemporaryDirectory(prefix="attnviz-figure-") as folder:
        path = write_svg(workspace, panel, look, Path(folder) / f"{panel}.svg")
        return path.read_text(encoding="utf-8")


def writable(path) -> Path:
    """``path`` as a ``Path``, or :class:`FigureError` saying why it cannot be written."""
    path = Path(path).expanduser()
    problem = unwritable(path)
    if problem:
        raise FigureError(f"cannot write {shown_path(path)}: {problem}")
    return path
